import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { ChatCompletionsAssembler } from "./chat_completions_stream.ts";
import { WireError } from "./errors.ts";
import { SseParser } from "./sse.ts";
import type { WireEvent } from "./types.ts";
import { renderChat } from "../../tests/fakes/model_server_chat.ts";
import { reply } from "../../tests/fakes/model_server_reply.ts";
import { doneEvent as done } from "../../tests/fakes/model_server_wiring.ts";
import {
  chatChunkFrame,
  largeChatStreamReads,
  largeChatStreamText,
} from "../../tests/fakes/sse_large_stream.ts";

const URL_ = "http://fake/v1/chat/completions";
const enc = new TextEncoder();

function fixture(name: string): string {
  return Deno.readTextFileSync(new URL(`../../tests/fixtures/streams/${name}`, import.meta.url));
}

/** The production path: SSE sink with the fast lane, bytes split every `step` bytes. */
let lastFastEvents = 0;

function runFast(text: string, step = 1 << 30, strict = new Map()): WireEvent[] {
  const bytes = enc.encode(text);
  const parser = new SseParser();
  const asm = new ChatCompletionsAssembler(URL_, strict);
  const events: WireEvent[] = [];
  for (let i = 0; i < bytes.length; i += step) {
    parser.feedTo(bytes.subarray(i, i + step), asm);
    events.push(...asm.events.splice(0));
  }
  parser.endTo(asm);
  lastFastEvents = asm.fastEvents;
  events.push(...asm.events.splice(0), ...asm.finish());
  return events;
}

/** The production path with the bytes cut once, at `cut`. */
function runFastCut(text: string, cut: number): WireEvent[] {
  const bytes = enc.encode(text);
  const parser = new SseParser();
  const asm = new ChatCompletionsAssembler(URL_);
  const events: WireEvent[] = [];
  for (const read of [bytes.subarray(0, cut), bytes.subarray(cut)]) {
    parser.feedTo(read, asm);
    events.push(...asm.events.splice(0));
  }
  parser.endTo(asm);
  events.push(...asm.events.splice(0), ...asm.finish());
  return events;
}

/** The reference path: every chunk through JSON.parse (no fast lane). */
function runSlow(text: string): WireEvent[] {
  const parser = new SseParser();
  const asm = new ChatCompletionsAssembler(URL_);
  const events: WireEvent[] = [];
  for (const e of [...parser.feed(enc.encode(text)), ...parser.end()]) asm.push(e.data, events);
  events.push(...asm.finish());
  return events;
}

Deno.test("chat stream: vLLM reasoning_content, text and a tool call split across chunks", () => {
  const events = runFast(fixture("chat_vllm_reasoning_tool.sse"));
  const d = done(events);
  deepEqual(d.message, {
    role: "assistant",
    parts: [
      { type: "reasoning", text: "The user wants the file. I'll call view." },
      { type: "text", text: "Let me look at a.txt." },
      {
        type: "tool_call",
        id: "chatcmpl-tool-5c0d7e",
        name: "view",
        input: { path: "a.txt", view_range: [1, 20] },
      },
    ],
  });
  equal(d.stop_reason, "tool_use");
  deepEqual(d.usage, { input_tokens: 412, output_tokens: 58 });
  equal(d.model, "qwen3-8b");
  deepEqual(events.filter((e) => e.type === "tool_call"), [
    { type: "tool_call", id: "chatcmpl-tool-5c0d7e", name: "view" },
  ]);
  equal(events.filter((e) => e.type === "reasoning").length, 3);
  deepEqual(events.at(-2), { type: "usage", usage: d.usage });
});

Deno.test("chat stream: the newer `reasoning` field, escapes, unicode, cached tokens", () => {
  const d = done(runFast(fixture("chat_vllm_reasoning_field.sse")));
  deepEqual(d.message.parts, [
    { type: "reasoning", text: 'Quote: "über" and a \\ backslash' },
    { type: "text", text: 'Grüße 🎉 done.\nTabs\tand "quotes".' },
  ]);
  equal(d.stop_reason, "end_turn");
  // prompt_tokens includes the cached ones; Usage keeps them apart.
  deepEqual(d.usage, { input_tokens: 104, output_tokens: 40, cache_read_tokens: 896 });
});

Deno.test("chat stream: a chunk carrying both reasoning fields is read once", () => {
  const chunk = (delta: unknown) =>
    `data: ${JSON.stringify({ model: "m", choices: [{ index: 0, delta }] })}\n\n`;
  const text = chunk({ reasoning: "think", reasoning_content: "think" }) +
    chunk({ content: "ok" }) +
    `data: ${
      JSON.stringify({ model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })
    }\n\n` +
    "data: [DONE]\n\n";
  deepEqual(done(runFast(text)).message.parts, [
    { type: "reasoning", text: "think" },
    { type: "text", text: "ok" },
  ]);
});

Deno.test("chat stream: parallel tool calls with a stray finish_reason stop", () => {
  const d = done(runFast(fixture("chat_stray_stop.sse")));
  equal(d.stop_reason, "tool_use");
  deepEqual(d.message.parts, [
    { type: "tool_call", id: "chatcmpl-tool-aa01", name: "view", input: { path: "b.txt" } },
    { type: "tool_call", id: "chatcmpl-tool-bb02", name: "grep", input: { pattern: "TODO" } },
  ]);
});

Deno.test("chat stream: OpenAI format with usage: null chunks and keep-alive comments", () => {
  const d = done(runFast(fixture("chat_openai_text.sse")));
  deepEqual(d.message.parts, [{ type: "text", text: "Hello! How can I help?" }]);
  equal(d.model, "gpt-4o-2024-08-06");
  deepEqual(d.usage, { input_tokens: 19, output_tokens: 10, cache_read_tokens: 0 });
});

Deno.test("chat stream: CRLF framing gives the same result", () => {
  const text = fixture("chat_vllm_reasoning_tool.sse");
  deepEqual(runFast(text.replaceAll("\n", "\r\n")), runFast(text));
});

Deno.test("chat stream: a mid-stream error chunk is a stream WireError", () => {
  throws(() => runFast(fixture("chat_error_midstream.sse")), (e) => {
    ok(e instanceof WireError);
    equal(e.kind, "stream");
    equal(e.retryable, false); // a 400-class error: retrying the same request cannot help
    ok(e.message.includes("longer than the maximum model length"));
    return true;
  });
});

Deno.test("chat stream: a stream cut off before finish is a stream WireError", () => {
  const text = fixture("chat_vllm_reasoning_tool.sse");
  const cut = text.slice(0, text.indexOf('"finish_reason":"tool_calls"') - 200);
  throws(() => runFast(cut.slice(0, cut.lastIndexOf("\n\n") + 2)), (e) => {
    ok(e instanceof WireError);
    equal(e.kind, "stream");
    equal(e.retryable, true);
    return true;
  });
});

Deno.test("chat stream: finish without [DONE] is accepted", () => {
  const text = fixture("chat_openai_text.sse").replace("data: [DONE]\n\n", "");
  equal(done(runFast(text)).stop_reason, "end_turn");
});

Deno.test("chat stream: length maps to max_tokens, content_filter to refusal", () => {
  const base = (finish: string) =>
    `data: {"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"${finish}"}]}\n\ndata: [DONE]\n\n`;
  equal(done(runFast(base("length"))).stop_reason, "max_tokens");
  equal(done(runFast(base("content_filter"))).stop_reason, "refusal");
});

Deno.test("chat stream: malformed tool arguments become {}; missing ids are minted", () => {
  const text =
    `data: {"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"view","arguments":"{not json"}}]}}]}\n\n` +
    `data: {"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n`;
  const part = done(runFast(text)).message.parts[0];
  ok(part?.type === "tool_call");
  deepEqual(part.input, {});
  equal(part.raw_arguments, "{not json", "the text is kept so the loop can refuse the call");
  ok(part.id.startsWith("call_"));
});

Deno.test("chat stream: a strict call's null optionals are removed using the original schema", () => {
  const schema = {
    type: "object",
    properties: { path: { type: "string" }, limit: { type: "integer" } },
    required: ["path"],
  };
  const text =
    `data: {"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"view","arguments":"{\\"path\\":\\"a\\",\\"limit\\":null}"}}]}}]}\n\n` +
    `data: {"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n`;
  const part = done(runFast(text, 1 << 30, new Map([["view", schema]]))).message.parts[0];
  ok(part?.type === "tool_call");
  deepEqual(part.input, { path: "a" });
});

Deno.test("chat stream: the fast lane matches the reference path on every fixture and split", () => {
  for (
    const name of [
      "chat_vllm_reasoning_tool.sse",
      "chat_vllm_reasoning_field.sse",
      "chat_stray_stop.sse",
      "chat_openai_text.sse",
      "chat_llama_server_tool.sse",
      // Captured from llama-server (llama.cpp 0c1e57098) serving scripts/peers' tiny models.
      "chat_llama_server_captured_tool.sse",
      "chat_llama_server_captured_think.sse",
      "chat_llama_server_captured_cut.sse",
    ]
  ) {
    const text = fixture(name);
    const reference = runSlow(text);
    for (const step of [1, 2, 3, 7, 64, 1 << 30]) {
      deepEqual(runFast(text, step), reference, `${name} split every ${step}`);
      // Tiny reads never hold a whole event, so only whole-chunk reads use the fast lane.
      if (step === 1 << 30) ok(lastFastEvents > 0, `${name}: the fast lane was never taken`);
    }
  }
});

Deno.test("chat stream: llama-server's key order and per-second `created` take the fast lane", () => {
  // {"choices":[{"finish_reason":null,"index":0,"delta":…}],"created":…,"id":…} with created
  // ticking from one second to the next inside the stream.
  const text = fixture("chat_llama_server_tool.sse");
  const reference = runSlow(text);
  deepEqual(runFast(text), reference);
  // Reasoning 2, content 2, argument fragments 3; the role chunk, the name-only call starts,
  // the finish and [DONE] take the full parse.
  equal(lastFastEvents, 7);
  const d = done(reference);
  deepEqual(d.message.parts.map((p) => p.type === "tool_call" ? p.input : p.type), [
    "reasoning",
    "text",
    { path: "hello.txt" },
    { path: "other.txt" },
  ]);
  equal(d.usage.input_tokens, 310);
  // Captured: a call cut off by --max-tokens 3 keeps its text for the loop to refuse.
  const cut = done(runFast(fixture("chat_llama_server_captured_cut.sse")));
  equal(cut.stop_reason, "max_tokens");
  const call = cut.message.parts[0];
  equal(call?.type === "tool_call" ? call.raw_arguments : undefined, '{"path":');
  runFast(fixture("chat_llama_server_captured_think.sse"));
  ok(lastFastEvents > 0, "the captured reasoning stream took the fast lane");
});

Deno.test("chat stream: the fast lane matches the reference path on awkward strings", () => {
  const head = { id: "x", object: "chat.completion.chunk", created: 1, model: "m" } as const;
  const frame = (delta: unknown, finish: string | null = null) =>
    chatChunkFrame(head, delta, finish);
  const awkward = [
    'a "quoted" word',
    "back\\slash\\",
    "\\\\",
    "new\nline\r\n",
    "tab\t",
    "\u0001ctl",
    "emoji 🎉 and 東京",
    '"}],"finish_reason":"stop"}]}',
    "",
    "\u2028\u2029",
  ];
  let text = frame({ role: "assistant", content: "" });
  for (const s of awkward) {
    text += frame({ content: s }) + frame({ reasoning_content: s });
  }
  text += frame({
    tool_calls: [{ index: 0, id: "t", type: "function", function: { name: "f", arguments: "" } }],
  });
  for (const s of awkward) {
    text += frame({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(s) } }] });
  }
  text += frame({}, "tool_calls") + "data: [DONE]\n\n";
  const reference = runSlow(text);
  deepEqual(runFast(text), reference);
  // Strings with raw control characters must not take the fast lane; the rest do.
  ok(lastFastEvents >= awkward.length * 3 - 6, `only ${lastFastEvents} fast events`);
  deepEqual(runFast(text, 5), reference);
  const d = done(reference);
  equal(d.message.parts[1]?.type === "text" && d.message.parts[1].text, awkward.join(""));
});

Deno.test("chat stream: a changed envelope mid-stream falls back to the full parse", () => {
  const frame = (model: string, content: string) =>
    `data: {"id":"x","model":"${model}","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]}\n\n`;
  const text = frame("m1", "a") + frame("m1", "b") + frame("m2", "c") +
    `data: {"id":"x","model":"m2","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`;
  const d = done(runFast(text));
  equal(d.model, "m2");
  deepEqual(d.message.parts, [{ type: "text", text: "abc" }]);
});

const HEAD = { id: "chatcmpl-9", object: "chat.completion.chunk", created: 1, model: "m" } as const;
const frame = (delta: unknown, finish: string | null = null) => chatChunkFrame(HEAD, delta, finish);
const start = (index: number, id: string, name: string, args = "") =>
  frame({ tool_calls: [{ index, id, type: "function", function: { name, arguments: args } }] });
const frag = (index: number, args: string) =>
  frame({ tool_calls: [{ index, function: { arguments: args } }] });

/** A turn with every kind of steady-state chunk and the awkward cases around them. */
const TURN = frame({ role: "assistant", content: "" }) +
  frame({ reasoning_content: 'Think: é, 🎉, "q", \\ and \u2028.' }) +
  frame({ reasoning: "more" }) +
  frame({ content: "Hello\nworld\t!" }) + frame({ content: "東京 🎉" }) + frame({ content: "" }) +
  start(0, 'call_"0"', "ed\\it", '{"path":') + // escapes in the id and name, arguments begun
  frag(0, ' "a\\"b.ts", ') +
  start(1, "call_1", "view") + // a parallel call, its fragments interleaved with the first's
  frag(1, '{"path":"c.ts"}') +
  frag(0, '"text": "\ud83c') + frag(0, '\udf89 \\u00e9"') + // a surrogate pair split in two
  `data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"m",` +
  `"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":","},` +
  `"type":"function"}]},"logprobs":null,"finish_reason":null}]}\n\n` + // another shape: parsed
  frag(0, ' "n": 1}') +
  frag(2, "{}") + // a fragment of a call that never started (no name: dropped)
  frame({ content: "done" }) +
  frame({}, "tool_calls") +
  `data: ${
    JSON.stringify({ ...HEAD, choices: [], usage: { prompt_tokens: 9, completion_tokens: 3 } })
  }\n\ndata: [DONE]\n\n`;

Deno.test("chat stream: the fast lane matches the reference path at every cut of a turn", () => {
  const reference = runSlow(TURN);
  const d = done(reference);
  deepEqual(d.message.parts.map((p) => p.type === "tool_call" ? [p.id, p.name, p.input] : p), [
    { type: "reasoning", text: 'Think: é, 🎉, "q", \\ and \u2028.more' },
    { type: "text", text: "Hello\nworld\t!東京 🎉done" },
    ['call_"0"', "ed\\it", { path: 'a"b.ts', text: "🎉 é", n: 1 }],
    ["call_1", "view", { path: "c.ts" }],
  ]);
  deepEqual(runFast(TURN), reference);
  // All but the first chunk, the other-shaped one, finish, usage and [DONE] take the fast lane.
  equal(lastFastEvents, 14);
  const bytes = enc.encode(TURN).length;
  for (let cut = 0; cut <= bytes; cut++) {
    deepEqual(runFastCut(TURN, cut), reference, `cut at byte ${cut}`);
  }
  for (const step of [1, 2, 3, 5, 8, 13]) deepEqual(runFast(TURN, step), reference, `step ${step}`);
});

Deno.test("chat stream: CRLF and lone-CR framing give the same turn", () => {
  const reference = runSlow(TURN);
  for (const eol of ["\r\n", "\r"]) {
    const text = TURN.replaceAll("\n\n", eol + eol);
    deepEqual(runSlow(text), reference);
    for (const step of [1, 7, 1 << 30]) deepEqual(runFast(text, step), reference, `step ${step}`);
  }
});

Deno.test("chat stream: what JSON.parse rejects fails the same way on the fast lane", () => {
  const good = frame({ content: "a" });
  const bad = [
    good.replace('"a"', '"a\\x"'), // an escape JSON does not have
    good.replace('"a"', '"a\\u12"'), // a short \u escape
    good.replace('"a"', '"a\tb"'), // a raw control character
    frag(0, "x").replace('[{"index":0,"f', '[{"index":00,"f'), // a leading zero
    start(0, "id", "f").replace('"id":"id"', '"id":"i\nd"'), // a raw newline ends the line
  ];
  for (const chunk of bad) {
    const text = good + good + start(0, "c", "f") + chunk + frame({}, "stop") + "data: [DONE]\n\n";
    let slowError: unknown;
    try {
      runSlow(text);
    } catch (e) {
      slowError = e;
    }
    ok(slowError instanceof WireError, `the reference path accepted ${chunk}`);
    for (const step of [1, 3, 1 << 30]) {
      throws(() => runFast(text, step), (e) => {
        ok(e instanceof WireError);
        equal(e.message, (slowError as WireError).message);
        return true;
      });
    }
  }
});

Deno.test("chat stream: the large benchmark stream assembles the same on both paths", () => {
  const text = largeChatStreamText(3_000);
  const reference = runSlow(text);
  const parser = new SseParser();
  const asm = new ChatCompletionsAssembler(URL_);
  const events: WireEvent[] = [];
  for (const read of largeChatStreamReads(3_000)) {
    parser.feedTo(read, asm);
    events.push(...asm.events.splice(0));
  }
  parser.endTo(asm);
  events.push(...asm.events.splice(0), ...asm.finish());
  deepEqual(events, reference);
  ok(asm.fastEvents > 2_990, `only ${asm.fastEvents} of 3000 events took the fast lane`);
});

Deno.test("chat stream: the fake's llama-server dialect assembles like vLLM's and takes the fast lane", () => {
  const script = () =>
    reply().reasoning("Thinking é 🎉 about it.").text('Reading "it"\u2028now.').tool("view", {
      path: "hello.txt",
    }, { id: "c0" }).tool("view", { path: "other.txt" }, { id: "c1" }).usage(310, 14).pieces(4);
  const body = { stream_options: { include_usage: true } };
  const sse = (dialect: "vllm" | "llama-server") =>
    renderChat(script(), body, "peer-tool", dialect).map((a) => a.type === "frame" ? a.text : "")
      .join("");
  const vllm = done(runSlow(sse("vllm")));
  const llama = sse("llama-server");
  ok(llama.includes('"choices":[{"finish_reason":null,"index":0,"delta":'));
  const fast = done(runFast(llama));
  deepEqual(fast.message, vllm.message);
  // llama-server always reports prompt_tokens_details.cached_tokens (0 here).
  deepEqual(fast.usage, { ...vllm.usage, cache_read_tokens: 0 });
  ok(lastFastEvents >= 10, `only ${lastFastEvents} events took the fast lane`);
});
