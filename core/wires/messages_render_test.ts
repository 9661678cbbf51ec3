import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { InvalidEffortError } from "./effort.ts";
import {
  DEFAULT_MESSAGES_MAX_TOKENS,
  messagesToolId,
  renderMessagesRequest,
} from "./messages_render.ts";
import type { Message, WireOptions, WireRequest } from "./types.ts";

const backend = { wire: "messages", tier: "self_hosted" } as const;
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
      { type: "reasoning", text: "Signed thought.", signature: "EqQBsig==" },
      { type: "reasoning", text: "Unsigned thought from the other wire." },
      { type: "redacted_reasoning", data: "opaque-data" },
      { type: "text", text: "Looking." },
      { type: "tool_call", id: "chatcmpl-tool.1:x", name: "view", input: { path: "a.txt" } },
    ],
  },
  {
    role: "user",
    parts: [
      { type: "text", text: "also this" },
      {
        type: "tool_result",
        call_id: "chatcmpl-tool.1:x",
        content: "no such file",
        is_error: true,
      },
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

Deno.test("messages render: signed thinking verbatim, redacted kept, unsigned dropped", () => {
  const body = renderMessagesRequest(req(), opts(), backend);
  deepEqual(body.messages, [
    { role: "user", content: [{ type: "text", text: "show a.txt" }] },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Signed thought.", signature: "EqQBsig==" },
        { type: "redacted_thinking", data: "opaque-data" },
        { type: "text", text: "Looking." },
        {
          type: "tool_use",
          id: "chatcmpl-tool_1_x",
          name: "view",
          input: { path: "a.txt" },
          cache_control: { type: "ephemeral" },
        },
      ],
    },
    {
      role: "user",
      content: [
        // tool_result blocks lead the turn; ids sanitized the same way as the call's.
        {
          type: "tool_result",
          tool_use_id: "chatcmpl-tool_1_x",
          content: "no such file",
          is_error: true,
        },
        { type: "text", text: "also this", cache_control: { type: "ephemeral" } },
      ],
    },
  ]);
});

Deno.test("messages render: the cached system block, defaults, adaptive summarized thinking", () => {
  const body = renderMessagesRequest(req(), opts(), backend);
  deepEqual(body.system, [
    { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
  ]);
  equal(body.max_tokens, DEFAULT_MESSAGES_MAX_TOKENS);
  deepEqual(body.thinking, { type: "adaptive", display: "summarized" });
  equal(body.stream, true);
  equal(body.model, "default");
});

Deno.test("messages render: enabled sends the budget the API requires; disabled sends no thinking", () => {
  deepEqual(renderMessagesRequest(req(), opts({ thinking_type: "enabled" }), backend).thinking, {
    type: "enabled",
    budget_tokens: DEFAULT_MESSAGES_MAX_TOKENS / 2,
    display: "summarized",
  });
  const small = renderMessagesRequest(
    req({ max_tokens: 1500 }),
    opts({ thinking_type: "enabled" }),
    backend,
  );
  deepEqual(small.thinking, { type: "enabled", budget_tokens: 1024, display: "summarized" });
  // A gateway turns any `thinking` value into reasoning_effort: disabled must send none.
  const off = renderMessagesRequest(req(), opts({ thinking_type: "disabled" }), backend);
  ok(!("thinking" in off), "no thinking field when disabled");
  ok(
    !JSON.stringify(renderMessagesRequest(req(), opts({ thinking_type: "adaptive" }), backend))
      .includes("budget"),
  );
});

Deno.test("messages render: enabled thinking keeps 1024 <= budget_tokens < max_tokens, or sends none", () => {
  const enabled = opts({ thinking_type: "enabled" });
  for (const max of [1025, 1026, 2047, 2048, 2049, 4096, 32_000]) {
    const body = renderMessagesRequest(req({ max_tokens: max }), enabled, backend);
    const budget = (body.thinking as { budget_tokens: number }).budget_tokens;
    ok(budget >= 1024 && budget < max, `max_tokens ${max}: budget_tokens ${budget}`);
    equal(body.max_tokens, max, "the cap is the caller's, never raised for thinking");
  }
  // 1024 or less leaves no budget the API accepts: thinking off, the cap kept.
  for (const max of [1, 3, 1000, 1024]) {
    const body = renderMessagesRequest(req({ max_tokens: max }), enabled, backend);
    ok(!("thinking" in body), `max_tokens ${max}: no thinking`);
    equal(body.max_tokens, max);
  }
  // The cap from the options (AGENT_MAX_TOKENS) counts the same way.
  ok(
    !("thinking" in renderMessagesRequest(req(), opts({ ...enabled, max_tokens: 1000 }), backend)),
  );
});

Deno.test("messages render: no sampling, priority or strict — whatever the options say", () => {
  const body = renderMessagesRequest(
    req({
      tools: [{ name: "view", description: "d", input_schema: { type: "object", properties: {} } }],
    }),
    opts({
      temperature: 0.2,
      top_p: 0.9,
      top_k: 5,
      request_priority: 4,
      enable_thinking: true,
      strict_tools: true,
    }),
    backend,
  );
  for (
    const key of [
      "temperature",
      "top_p",
      "top_k",
      "priority",
      "chat_template_kwargs",
      "budget_tokens",
    ]
  ) {
    ok(!(key in body), `${key} must not be sent`);
  }
  ok(!JSON.stringify(body.tools).includes("strict"));
});

Deno.test("messages render: effort via output_config; invalid levels are typed errors", () => {
  deepEqual(renderMessagesRequest(req({ effort: "xhigh" }), opts(), backend).output_config, {
    effort: "xhigh",
  });
  ok(!("output_config" in renderMessagesRequest(req(), opts(), backend)));
  throws(() => renderMessagesRequest(req({ effort: "on" }), opts(), backend), InvalidEffortError);
});

Deno.test("messages render: a forced tool sends tool_choice and no thinking", () => {
  const body = renderMessagesRequest(
    req({
      tools: [{
        name: "answer",
        description: "d",
        input_schema: { type: "object", properties: {} },
      }],
      force_tool: "answer",
    }),
    opts(),
    backend,
  );
  deepEqual(body.tool_choice, { type: "tool", name: "answer" });
  ok(!("thinking" in body));
});

Deno.test("messages render: the reminder is appended to the last user turn only", () => {
  const body = renderMessagesRequest(
    req({ reminder: "recall: y", max_tokens: 100 }),
    opts(),
    backend,
  );
  const messages = body.messages as { content: { type: string; text?: string }[] }[];
  deepEqual(messages.at(-1)?.content.at(-1), { type: "text", text: "recall: y" });
  equal(messages[0]?.content.length, 1);
  equal((body.system as { text: string }[])[0]?.text, "You are terse.");
  equal(body.max_tokens, 100);
});

Deno.test("messages render: empty text and empty assistant turns are not sent", () => {
  const body = renderMessagesRequest(
    req({
      system: "",
      messages: [
        { role: "user", parts: [{ type: "text", text: "q" }, { type: "text", text: "" }] },
        { role: "assistant", parts: [{ type: "reasoning", text: "unsigned" }] },
        { role: "user", parts: [{ type: "text", text: "again" }] },
      ],
    }),
    opts(),
    backend,
  );
  ok(!("system" in body));
  deepEqual(body.messages, [
    { role: "user", content: [{ type: "text", text: "q", cache_control: { type: "ephemeral" } }] },
    {
      role: "user",
      content: [{ type: "text", text: "again", cache_control: { type: "ephemeral" } }],
    },
  ]);
});

Deno.test("messages render: tool ids are sanitized to the allowed alphabet", () => {
  equal(messagesToolId("toolu_01AbC-x"), "toolu_01AbC-x");
  equal(messagesToolId("call:1.2/3"), "call_1_2_3");
  equal(messagesToolId(""), "toolu_empty");
});
