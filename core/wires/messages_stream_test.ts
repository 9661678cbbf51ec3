import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { WireError } from "./errors.ts";
import { MessagesAssembler } from "./messages_stream.ts";
import { SseParser } from "./sse.ts";
import type { WireEvent } from "./types.ts";
import { doneEvent as done } from "../../tests/fakes/model_server_wiring.ts";

const enc = new TextEncoder();

function fixture(name: string): string {
  return Deno.readTextFileSync(new URL(`../../tests/fixtures/streams/${name}`, import.meta.url));
}

function run(text: string, step = 1 << 30): WireEvent[] {
  const bytes = enc.encode(text);
  const parser = new SseParser();
  const asm = new MessagesAssembler("http://fake/v1/messages");
  const events: WireEvent[] = [];
  for (let i = 0; i < bytes.length; i += step) {
    parser.feedTo(bytes.subarray(i, i + step), asm);
    events.push(...asm.events.splice(0));
  }
  parser.endTo(asm);
  events.push(...asm.events.splice(0), ...asm.finish());
  return events;
}

const SIG =
  "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds2LLTj4Bw8ELRjRObgxAiEyJm6r6fK5HWfcMhm1c3KbyZDuixtNzRY6yp5MvsSr9yDsL2nt5fs";

Deno.test("messages stream: thinking with signature, text, tool_use with streamed input", () => {
  const events = run(fixture("messages_thinking_tool.sse"));
  const d = done(events);
  deepEqual(d.message.parts, [
    {
      type: "reasoning",
      text: "The user asked for a.txt. I should view it first.",
      signature: SIG,
    },
    { type: "text", text: "I'll open the file." },
    {
      type: "tool_call",
      id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
      name: "view",
      input: { path: "a.txt", view_range: [1, 20] },
    },
  ]);
  equal(d.stop_reason, "tool_use");
  equal(d.model, "claude-opus-4-7");
  deepEqual(d.usage, {
    input_tokens: 2159,
    output_tokens: 89,
    cache_read_tokens: 1536,
    cache_write_tokens: 0,
  });
  // Input usage is reported as soon as message_start arrives.
  deepEqual(events[0], {
    type: "usage",
    usage: {
      input_tokens: 2159,
      output_tokens: 4,
      cache_read_tokens: 1536,
      cache_write_tokens: 0,
    },
  });
  deepEqual(events.filter((e) => e.type === "tool_call"), [
    { type: "tool_call", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "view" },
  ]);
});

Deno.test("messages stream: every split size gives the same result", () => {
  for (const name of ["messages_thinking_tool.sse", "messages_redacted.sse"]) {
    const text = fixture(name);
    const reference = run(text);
    for (const step of [1, 2, 5, 13, 100]) deepEqual(run(text, step), reference, `${name}/${step}`);
  }
});

Deno.test("messages stream: redacted thinking is kept opaque; unicode text intact", () => {
  const d = done(run(fixture("messages_redacted.sse")));
  deepEqual(d.message.parts, [
    {
      type: "redacted_reasoning",
      data:
        "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj",
    },
    { type: "text", text: "Done — Grüße 🎉" },
  ]);
  equal(d.stop_reason, "end_turn");
  equal(d.usage.cache_write_tokens, 1200);
});

Deno.test("messages stream: an error event mid-stream is a retryable stream WireError", () => {
  throws(() => run(fixture("messages_error_midstream.sse")), (e) => {
    ok(e instanceof WireError);
    equal(e.kind, "stream");
    equal(e.retryable, true);
    ok(e.message.includes("overloaded_error: Overloaded"));
    return true;
  });
});

Deno.test("messages stream: an invalid_request_error mid-stream is not retryable", () => {
  const text =
    `event: error\ndata: {"type":"error","error":{"type":"invalid_request_error","message":"bad"}}\n\n`;
  throws(() => run(text), (e) => e instanceof WireError && !e.retryable);
});

Deno.test("messages stream: a stream cut before message_stop is a stream WireError", () => {
  const text = fixture("messages_thinking_tool.sse");
  const cut = text.slice(0, text.indexOf("event: message_delta"));
  throws(() => run(cut), (e) => e instanceof WireError && e.kind === "stream" && e.retryable);
});

Deno.test("messages stream: stop reasons map onto the neutral ones", () => {
  const make = (stop: string) =>
    `event: message_start\ndata: {"type":"message_start","message":{"model":"m","usage":{"input_tokens":1,"output_tokens":1}}}\n\n` +
    `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"${stop}"},"usage":{"output_tokens":2}}\n\n` +
    `event: message_stop\ndata: {"type":"message_stop"}\n\n`;
  equal(done(run(make("max_tokens"))).stop_reason, "max_tokens");
  equal(done(run(make("stop_sequence"))).stop_reason, "stop_sequence");
  equal(done(run(make("refusal"))).stop_reason, "refusal");
  equal(done(run(make("pause_turn"))).stop_reason, "other");
  equal(done(run(make("model_context_window_exceeded"))).stop_reason, "max_tokens");
});

Deno.test("messages stream: malformed tool input JSON becomes {} with the text kept as evidence", () => {
  const text =
    `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"view","input":{}}}\n\n` +
    `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\": "}}\n\n` +
    `event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n` +
    `event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}\n\n` +
    `event: message_stop\ndata: {"type":"message_stop"}\n\n`;
  deepEqual(done(run(text)).message.parts, [
    { type: "tool_call", id: "t1", name: "view", input: {}, raw_arguments: '{"path": ' },
  ]);
});
