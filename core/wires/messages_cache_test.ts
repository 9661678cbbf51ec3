// Where the Messages wire puts its prompt-cache breakpoints (messages_cache.ts): never more
// than the provider's four, and on the blocks a later request sends again unchanged.

import { deepEqual, ok } from "node:assert/strict";
import { renderMessagesRequest } from "./messages_render.ts";
import { MAX_CACHE_BREAKPOINTS } from "./messages_cache.ts";
import { compactHistory } from "../agent/compaction.ts";
import { appendUserText } from "../agent/history_convert.ts";
import { resumeWith } from "../agent/resume.ts";
import type { LoadedSession } from "../agent/journal.ts";
import type { Message, Part, ToolSpec, WireOptions, WireRequest } from "./types.ts";
import { ScriptedWire, text } from "../../tests/fakes/scripted_wire.ts";

const backend = { wire: "messages", tier: "first_party" } as const;
const options: WireOptions = { thinking_type: "adaptive", strict_tools: false };
const TOOLS: ToolSpec[] = ["view", "shell", "search"].map((name) => ({
  name,
  description: `the ${name} tool`,
  input_schema: { type: "object", properties: {} },
}));

/** Where a rendered body carries cache_control: "tools[2]", "system[0]", "messages[3][1]". */
function breakpoints(body: Record<string, unknown>): string[] {
  const at: string[] = [];
  const scan = (list: unknown, name: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((block, i) => {
      if (block && typeof block === "object" && "cache_control" in block) at.push(`${name}[${i}]`);
    });
  };
  scan(body.tools, "tools");
  scan(body.system, "system");
  (body.messages as { content: unknown }[]).forEach((m, i) => scan(m.content, `messages[${i}]`));
  return at;
}

/** No cache_control inside a block's own content (an image in a tool_result, say). */
function nestedBreakpoints(body: Record<string, unknown>): number {
  let n = 0;
  for (const m of body.messages as { content: Record<string, unknown>[] }[]) {
    for (const block of m.content) {
      if (!Array.isArray(block.content)) continue;
      n += block.content.filter((inner) => "cache_control" in inner).length;
    }
  }
  return n;
}

const render = (messages: Message[], extra: Partial<WireRequest> = {}) =>
  renderMessagesRequest(
    { model: "claude-sonnet-4-5", system: "You are terse.", messages, tools: TOOLS, ...extra },
    options,
    backend,
  );

const call = (id: string, path: string): Part => ({
  type: "tool_call",
  id,
  name: "view",
  input: { path },
});
const result = (id: string, content: string): Part => ({
  type: "tool_result",
  call_id: id,
  content,
});

/** A task, then `turns` tool rounds (assistant call, user result). */
function toolSession(turns: number): Message[] {
  const messages: Message[] = [{ role: "user", parts: [{ type: "text", text: "read them all" }] }];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: "assistant",
      parts: [{ type: "text", text: "." }, call(`c${i}`, `f${i}`)],
    });
    messages.push({ role: "user", parts: [result(`c${i}`, `file ${i} `.repeat(50))] });
  }
  return messages;
}

Deno.test("breakpoints: the last tool, the system prompt and the two newest messages", () => {
  const body = render(toolSession(3));
  deepEqual(breakpoints(body), ["tools[2]", "system[0]", "messages[5][1]", "messages[6][0]"]);
});

Deno.test("breakpoints: never more than four, whatever the history's shape", () => {
  const shapes: Array<[string, Message[], Partial<WireRequest>]> = [];
  for (let turns = 0; turns <= 25; turns++) {
    shapes.push([`${turns} rounds`, toolSession(turns), {}]);
    shapes.push([`${turns} rounds, reminder`, toolSession(turns), { reminder: "recall" }]);
    shapes.push([`${turns} rounds, no tools`, toolSession(turns), { tools: [] }]);
  }
  for (const [name, messages, extra] of shapes) {
    const body = render(messages, extra);
    ok(breakpoints(body).length <= MAX_CACHE_BREAKPOINTS, `${name}: ${breakpoints(body)}`);
    const tools = (extra.tools ?? TOOLS).length > 0 ? 1 : 0;
    ok(breakpoints(body).length === tools + 1 + Math.min(2, messages.length), name);
  }
});

Deno.test("breakpoints: the reminder is never cached; the block before it is", () => {
  const body = render(toolSession(2), { reminder: "memory recall: likes tabs" });
  const messages = body.messages as { content: Record<string, unknown>[] }[];
  const newest = messages.at(-1)!.content;
  deepEqual(newest.map((b) => b.type), ["tool_result", "text"]);
  ok(!("cache_control" in newest[1]!), "the reminder carries no breakpoint");
  ok("cache_control" in newest[0]!, "the tool result before it does");
  // The next request renders that turn without the reminder: the cached bytes are sent again.
  const next = render([
    ...toolSession(2),
    { role: "assistant", parts: [call("c9", "g")] },
    { role: "user", parts: [result("c9", "g")] },
  ]);
  const before = (next.messages as { content: Record<string, unknown>[] }[])[4]!.content;
  deepEqual(before.map((b) => b.type), ["tool_result"]);
  deepEqual({ ...before[0], cache_control: undefined }, { ...newest[0], cache_control: undefined });
});

Deno.test("breakpoints: a reminder with no user turn to ride on is not cached either", () => {
  const body = render([], { reminder: "recall" });
  deepEqual(breakpoints(body), ["tools[2]", "system[0]"]);
});

Deno.test("breakpoints: after compaction they sit on the new history's two newest messages", async () => {
  const wire = new ScriptedWire([text("the summary")]);
  const compacted = await compactHistory(toolSession(6), wire, "m");
  ok(compacted, "compacted");
  const body = render(compacted.messages);
  const n = compacted.messages.length;
  deepEqual(breakpoints(body), [
    "tools[2]",
    "system[0]",
    `messages[${n - 2}][1]`,
    `messages[${n - 1}][0]`,
  ]);
  // The opening (task plus summary) is now the prefix every later request starts with.
  const later = render([...compacted.messages, ...toolSession(1).slice(1)]);
  deepEqual(
    (later.messages as unknown[])[0],
    { ...(body.messages as Record<string, unknown>[])[0] },
  );
});

Deno.test("breakpoints: a resumed answer marks its tool result and the waiting call", async () => {
  const history: Message[] = [
    ...toolSession(2),
    {
      role: "assistant",
      parts: [{ type: "tool_call", id: "ask1", name: "ask", input: { questions: [] } }],
    },
  ];
  const session = {
    meta: {},
    messages: history,
    pending: { results: [], waiting: [{ id: "ask1", name: "ask", input: {}, reason: "ask" }] },
  } as unknown as LoadedSession;
  const step = await resumeWith(session, "use tabs", {
    tools: [],
    workdir: "/nonexistent",
    signal: new AbortController().signal,
  });
  const body = render(step.messages);
  const n = (body.messages as unknown[]).length;
  deepEqual(breakpoints(body), [
    "tools[2]",
    "system[0]",
    `messages[${n - 2}][0]`,
    `messages[${n - 1}][0]`,
  ]);
});

Deno.test("breakpoints: after an interrupted turn, on the repaired results and the new text", () => {
  // ctrl+c during a call: the next message closes the open call with an interrupted result.
  const interrupted: Message[] = [
    ...toolSession(1),
    { role: "assistant", parts: [{ type: "reasoning", text: "hm" }, call("c7", "big")] },
  ];
  const messages = appendUserText(interrupted, "never mind, stop");
  const body = render(messages);
  const last = (body.messages as { content: Record<string, unknown>[] }[]).at(-1)!.content;
  deepEqual(last.map((b) => [b.type, "cache_control" in b]), [
    ["tool_result", false],
    ["text", true],
  ]);
  deepEqual(breakpoints(body).length, 4);
});

Deno.test("breakpoints: an image result is marked on its tool_result block, not inside it", () => {
  const messages: Message[] = [
    ...toolSession(1),
    { role: "assistant", parts: [call("img", "shot.png")] },
    {
      role: "user",
      parts: [{
        type: "tool_result",
        call_id: "img",
        content: "[image]",
        images: [{ media_type: "image/png", data: "iVBORw0KGgo=" }],
      }],
    },
  ];
  const body = render(messages);
  const last = (body.messages as { content: Record<string, unknown>[] }[]).at(-1)!.content[0]!;
  ok("cache_control" in last);
  deepEqual((last.content as { type: string }[]).map((b) => b.type), ["text", "image"]);
  deepEqual(nestedBreakpoints(body), 0);
});

Deno.test("breakpoints: thinking cannot carry one; the block before it does", () => {
  const messages: Message[] = [
    { role: "user", parts: [{ type: "text", text: "q" }] },
    {
      role: "assistant",
      parts: [
        { type: "text", text: "a" },
        { type: "reasoning", text: "after", signature: "sig" },
      ],
    },
    { role: "user", parts: [{ type: "text", text: "more" }] },
  ];
  const body = render(messages);
  deepEqual(breakpoints(body), ["tools[2]", "system[0]", "messages[1][0]", "messages[2][0]"]);
});
