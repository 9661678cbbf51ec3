// SSE parsing + Chat Completions assembly of a 50,000-chunk stream, beside a baseline that
// only decodes the same bytes and splits them into lines. Target: within 2x of the baseline.
// A second group cuts the same stream into small reads (64..575 bytes), where most events
// straddle a read boundary, to keep that path honest too. A third group replays llama-server's
// chunk layout (tests/fixtures/streams/chat_llama_server_*.sse: the choice's keys in another
// order, `created` ticking per second) at the same size, so its fast lane stays taken.

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

/** llama-server's steady-state chunks from the fixture, repeated to about 50,000 events. */
function llamaServerReads(): Uint8Array[] {
  const fixture = Deno.readTextFileSync(
    new URL("../../tests/fixtures/streams/chat_llama_server_tool.sse", import.meta.url),
  );
  const events = fixture.split("\n\n").filter((e) => e !== "").map((e) => `${e}\n\n`);
  const body = events.filter((e) => /"delta":\{"(content|reasoning_content)"/.test(e));
  const head = events[0]!;
  const tail = events.slice(-2);
  const steady: string[] = [];
  for (let i = 0; steady.length < 50_000; i++) steady.push(body[i % body.length]!);
  const text = [head, ...steady, ...tail].join("");
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let pos = 0; pos < bytes.length; pos += 16_384) out.push(bytes.subarray(pos, pos + 16_384));
  return out;
}
const llama = llamaServerReads();

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

Deno.bench({
  name: "baseline, llama-server layout",
  group: "sse-50k-llama-server",
  n: 100,
  warmup: 20,
  baseline: true,
  fn: () => baseline(llama),
});

Deno.bench({
  name: "SseParser + Chat Completions assembly, llama-server layout",
  group: "sse-50k-llama-server",
  n: 100,
  warmup: 20,
  fn: () => assemble(llama),
});
