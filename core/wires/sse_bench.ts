// SSE parsing + Chat Completions assembly of a 50,000-chunk stream, beside a baseline that
// only decodes the same bytes and splits them into lines. Target: within 2x of the baseline.
// A second group cuts the same stream into small reads (64..575 bytes), where most events
// straddle a read boundary, to keep that path honest too.

import { largeChatStreamReads, largeChatStreamText } from "../../tests/fakes/sse_large_stream.ts";
import { ChatCompletionsAssembler } from "./chat_completions_stream.ts";
import { SseParser } from "./sse.ts";

const reads = largeChatStreamReads(50_000);

/** The same bytes in small reads (a seeded generator, so stable). */
function smallReads(): Uint8Array[] {
  const bytes = new TextEncoder().encode(largeChatStreamText(50_000));
  const out: Uint8Array[] = [];
  let seed = 7;
  for (let pos = 0; pos < bytes.length;) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const size = 64 + ((seed >>> 8) % 512);
    out.push(bytes.subarray(pos, pos + size));
    pos += size;
  }
  return out;
}
const small = smallReads();

function baseline(chunks: Uint8Array[]): void {
  const decoder = new TextDecoder();
  let rest = "";
  let lines = 0;
  let last = "";
  for (const chunk of chunks) {
    const text = rest + decoder.decode(chunk, { stream: true });
    let pos = 0;
    for (;;) {
      const nl = text.indexOf("\n", pos);
      if (nl === -1) break;
      last = text.slice(pos, nl);
      lines++;
      pos = nl + 1;
    }
    rest = text.slice(pos);
  }
  if (lines < 100_000 || last === "x") throw new Error("bad baseline");
}

function assemble(chunks: Uint8Array[]): void {
  const parser = new SseParser();
  const assembler = new ChatCompletionsAssembler("http://bench/v1/chat/completions");
  const events = assembler.events;
  let count = 0;
  for (const chunk of chunks) {
    parser.feedTo(chunk, assembler);
    count += events.length;
    events.length = 0;
  }
  parser.endTo(assembler);
  const done = assembler.finish().at(-1);
  if (done?.type !== "done" || count < 30_000) throw new Error("bad assembly");
}

Deno.bench({
  name: "baseline: decode + split into lines",
  group: "sse-50k",
  n: 100,
  warmup: 20,
  baseline: true,
  fn: () => baseline(reads),
});

Deno.bench({
  name: "SseParser only",
  group: "sse-50k",
  n: 100,
  warmup: 20,
  fn() {
    const parser = new SseParser();
    let events = 0;
    for (const chunk of reads) events += parser.feed(chunk).length;
    events += parser.end().length;
    if (events < 50_000) throw new Error(`only ${events} events`);
  },
});

Deno.bench({
  name: "SseParser + Chat Completions assembly",
  group: "sse-50k",
  n: 100,
  warmup: 20,
  fn: () => assemble(reads),
});

Deno.bench({
  name: "baseline, small reads",
  group: "sse-50k-small-reads",
  n: 100,
  warmup: 20,
  baseline: true,
  fn: () => baseline(small),
});

Deno.bench({
  name: "SseParser + Chat Completions assembly, small reads",
  group: "sse-50k-small-reads",
  n: 100,
  warmup: 20,
  fn: () => assemble(small),
});
