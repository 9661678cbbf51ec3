import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { renderChatRequest } from "./chat_completions_render.ts";
import { InvalidEffortError } from "./effort.ts";
import type { Message, WireOptions, WireRequest } from "./types.ts";

const selfHosted = { wire: "chat_completions", tier: "self_hosted" } as const;
const BASE = "http://127.0.0.1:8000/v1";
const opts = (extra: Partial<WireOptions> = {}): WireOptions => ({
  thinking_type: "adaptive",
  strict_tools: false,
  ...extra,
});

const history: Message[] = [
  { role: "user", parts: [{ type: "text", text: "show a.txt" }] },
  {
    role: "assistant",
    parts: [
      { type: "reasoning", text: "I should look", signature: "sig" },
      { type: "redacted_reasoning", data: "opaque" },
      { type: "text", text: "Looking." },
      { type: "tool_call", id: "call_1", name: "view", input: { path: "a.txt" } },
      { type: "tool_call", id: "call_2", name: "view", input: { path: "b.txt" } },
    ],
  },
  {
    role: "user",
    parts: [
      { type: "tool_result", call_id: "call_1", content: "hello" },
      { type: "tool_result", call_id: "call_2", content: "no such file", is_error: true },
    ],
  },
];

const req = (extra: Partial<WireRequest> = {}): WireRequest => ({
  model: "default",
  system: "You are terse.",
  messages: history,
  tools: [],
  ...extra,
});

Deno.test("chat render: history → system, assistant tool_calls, role tool; no reasoning", () => {
  const { body } = renderChatRequest(req(), opts(), selfHosted, BASE);
  deepEqual(body.messages, [
    { role: "system", content: "You are terse." },
    { role: "user", content: "show a.txt" },
    {
      role: "assistant",
      content: "Looking.",
      tool_calls: [
        {
          id: "call_1",
          type: "function",
          function: { name: "view", arguments: '{"path":"a.txt"}' },
        },
        {
          id: "call_2",
          type: "function",
          function: { name: "view", arguments: '{"path":"b.txt"}' },
        },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "hello" },
    { role: "tool", tool_call_id: "call_2", content: "no such file" },
  ]);
  equal(body.model, "default"); // the sentinel is sent verbatim
  equal(body.stream, true);
  deepEqual(body.stream_options, { include_usage: true });
  ok(!JSON.stringify(body).includes("I should look"));
  ok(!JSON.stringify(body).includes("opaque"));
});

Deno.test("chat render: the reminder is an extra text block on the last user turn, never system", () => {
  const { body } = renderChatRequest(req({ reminder: "recall: x" }), opts(), selfHosted, BASE);
  const messages = body.messages as Record<string, unknown>[];
  equal(messages[0]?.content, "You are terse.");
  deepEqual(messages.at(-1), { role: "user", content: "recall: x" });
  const two = renderChatRequest(
    req({ messages: [{ role: "user", parts: [{ type: "text", text: "hi" }] }], reminder: "r" }),
    opts(),
    selfHosted,
    BASE,
  ).body.messages as Record<string, unknown>[];
  deepEqual(two.at(-1), {
    role: "user",
    content: [{ type: "text", text: "hi" }, { type: "text", text: "r" }],
  });
});

Deno.test("chat render: sampling params top-level; extra_body knobs as top-level keys", () => {
  const { body } = renderChatRequest(
    req(),
    opts({
      temperature: 0.6,
      top_p: 0.95,
      top_k: 20,
      enable_thinking: true,
      request_priority: 3,
      max_tokens: 8192,
    }),
    selfHosted,
    BASE,
  );
  equal(body.temperature, 0.6);
  equal(body.top_p, 0.95);
  equal(body.top_k, 20);
  equal(body.priority, 3);
  equal(body.max_tokens, 8192);
  deepEqual(body.chat_template_kwargs, { enable_thinking: true });
  equal(body.extra_body, undefined);
});

Deno.test("chat render: nothing optional is sent by default — priority is absent, never 0", () => {
  const { body } = renderChatRequest(req(), opts(), selfHosted, BASE);
  for (
    const key of [
      "priority",
      "temperature",
      "top_p",
      "top_k",
      "max_tokens",
      "chat_template_kwargs",
      "reasoning_effort",
      "tools",
    ]
  ) {
    ok(!(key in body), `${key} should be absent`);
  }
  const zero = renderChatRequest(req(), opts({ request_priority: 0 }), selfHosted, BASE).body;
  equal(zero.priority, 0); // explicitly configured 0 is passed on as configured
});

Deno.test("chat render: max_completion_tokens for OpenAI hosts", () => {
  const { body } = renderChatRequest(
    req({ max_tokens: 100 }),
    opts(),
    { wire: "chat_completions", tier: "mainstream" },
    "https://api.openai.com/v1",
  );
  equal(body.max_completion_tokens, 100);
  ok(!("max_tokens" in body));
});

Deno.test("chat render: effort per backend; enable_thinking=false is a hard off", () => {
  const on = renderChatRequest(req({ effort: "on" }), opts(), selfHosted, BASE).body;
  deepEqual(on.chat_template_kwargs, { enable_thinking: true });
  const auto = renderChatRequest(req({ effort: "auto" }), opts(), selfHosted, BASE).body;
  ok(!("chat_template_kwargs" in auto));
  const hardOff =
    renderChatRequest(req({ effort: "on" }), opts({ enable_thinking: false }), selfHosted, BASE)
      .body;
  deepEqual(hardOff.chat_template_kwargs, { enable_thinking: false });
  const hosted = renderChatRequest(
    req({ effort: "high" }),
    opts(),
    { wire: "chat_completions", tier: "mainstream" },
    "https://api.openai.com/v1",
  ).body;
  equal(hosted.reasoning_effort, "high");
  throws(
    () => renderChatRequest(req({ effort: "max" }), opts(), selfHosted, BASE),
    InvalidEffortError,
  );
});

const viewTool = {
  name: "view",
  description: "View a file",
  input_schema: {
    type: "object",
    properties: { path: { type: "string" }, limit: { type: "integer" } },
    required: ["path"],
  },
};
const openTool = {
  name: "free",
  description: "Anything",
  input_schema: {
    type: "object",
    properties: { a: { type: "string" } },
    additionalProperties: true,
  },
};

Deno.test("chat render: tools unmodified without strict_tools", () => {
  const { body, strictOriginals } = renderChatRequest(
    req({ tools: [viewTool] }),
    opts(),
    selfHosted,
    BASE,
  );
  deepEqual(body.tools, [
    {
      type: "function",
      function: { name: "view", description: "View a file", parameters: viewTool.input_schema },
    },
  ]);
  equal(strictOriginals.size, 0);
});

Deno.test("chat render: strict_tools normalizes what it can and stamps strict", () => {
  const { body, strictOriginals } = renderChatRequest(
    req({ tools: [viewTool, openTool] }),
    opts({ strict_tools: true }),
    selfHosted,
    BASE,
  );
  const [view, free] = body.tools as { function: Record<string, unknown> }[];
  equal(view?.function.strict, true);
  deepEqual(view?.function.parameters, {
    type: "object",
    properties: { path: { type: "string" }, limit: { type: ["integer", "null"] } },
    required: ["path", "limit"],
    additionalProperties: false,
  });
  // Not normalizable: sent unmodified and without strict.
  ok(!("strict" in (free?.function ?? {})));
  deepEqual(free?.function.parameters, openTool.input_schema);
  deepEqual([...strictOriginals.keys()], ["view"]);
});

Deno.test("chat render: a forced tool call is strict even with strict_tools off", () => {
  const { body } = renderChatRequest(
    req({ tools: [viewTool, openTool], force_tool: "view" }),
    opts(),
    selfHosted,
    BASE,
  );
  deepEqual(body.tool_choice, { type: "function", function: { name: "view" } });
  const [view, free] = body.tools as { function: Record<string, unknown> }[];
  equal(view?.function.strict, true);
  ok(!("strict" in (free?.function ?? {})));
  const forcedOpen =
    renderChatRequest(req({ tools: [openTool], force_tool: "free" }), opts(), selfHosted, BASE)
      .body;
  ok(!("strict" in ((forcedOpen.tools as { function: object }[])[0]?.function ?? {})));
});

Deno.test("chat render: a reasoning-only assistant turn is skipped", () => {
  const { body } = renderChatRequest(
    req({
      messages: [
        { role: "user", parts: [{ type: "text", text: "q" }] },
        { role: "assistant", parts: [{ type: "reasoning", text: "hmm" }] },
        { role: "user", parts: [{ type: "text", text: "again" }] },
      ],
    }),
    opts(),
    selfHosted,
    BASE,
  );
  deepEqual((body.messages as { role: string }[]).map((m) => m.role), ["system", "user", "user"]);
});
