// Drives one response: body chunks → SSE parser → assembler, yielding WireEvents after each
// network read, until the assembler has seen the end of the response.

import { SseParser, type SseSink } from "./sse.ts";
import type { WireEvent } from "./types.ts";

export interface Assembler extends SseSink {
  readonly events: WireEvent[];
  readonly complete: boolean;
  finish(): WireEvent[];
}

export async function* pump(
  chunks: AsyncIterable<Uint8Array>,
  assembler: Assembler,
): AsyncGenerator<WireEvent> {
  const parser = new SseParser();
  const events = assembler.events;
  for await (const chunk of chunks) {
    try {
      parser.feedTo(chunk, assembler);
    } catch (e) {
      // Deliver what arrived before a mid-stream error (the partial text is shown), then fail.
      if (events.length > 0) yield* events.splice(0);
      throw e;
    }
    if (events.length > 0) yield* events.splice(0);
    // Stop reading at the end marker: some servers keep the connection open after it.
    if (assembler.complete) break;
  }
  if (!assembler.complete) parser.endTo(assembler);
  if (events.length > 0) yield* events.splice(0);
  yield* assembler.finish();
}
