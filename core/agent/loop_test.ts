import assert from "node:assert/strict";
import { type LoopConfig, runLoop } from "./loop.ts";
import { Journal, loadSession } from "./journal.ts";
import { resumeWith } from "./resume.ts";
import { compactionCut } from "./compaction.ts";
import { call, ScriptedWire, text } from "../../tests/fakes/scripted_wire.ts";
import { workspaceTools } from "../tools/registry.ts";
import { testSandbox } from "../../tests/fakes/test_workspace.ts";

/** The real tool set; no test here runs a shell command (plan mode denies the one call). */
const WORKSPACE_TOOLS = workspaceTools(testSandbox("/nonexistent-workdir"));
import type { Message, Part } from "../wires/types.ts";

async function workspace(files: Record<string, string> = {}): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "loop-" }));
  for (const [name, body] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, body);
  }
  return dir;
}

function config(wire: ScriptedWire, workdir: string, extra: Partial<LoopConfig> = {}): LoopConfig {
  return {
    wire,
    model: "default",
    system: "You are a test agent.",
    tools: WORKSPACE_TOOLS,
    mode: "auto",
    workdir,
    context_window: 32_768,
    ...extra,
  };
}

const task = (t: string): Message[] => [{ role: "user", parts: [{ type: "text", text: t }] }];

/** Every tool_result must answer a tool_call of the assistant message right before it. */
function assertPaired(messages: readonly Message[]): void {
  for (const [i, m] of messages.entries()) {
    const results = m.parts.filter((p) => p.type === "tool_result") as Extract<
      Part,
      { type: "tool_result" }
    >[];
    if (results.length === 0) continue;
    const prev = messages[i - 1];
    assert.equal(prev?.role, "assistant", `tool results at ${i} must follow an assistant message`);
    const ids = new Set(prev!.parts.flatMap((p) => (p.type === "tool_call" ? [p.id] : [])));
    for (const r of results) assert.ok(ids.has(r.call_id), `result ${r.call_id} has no call`);
    assert.equal(results.length, ids.size, "every call has a result");
  }
}

Deno.test("a tool-calling run edits a file and stops", async () => {
  const dir = await workspace({ "a.txt": "hello world\n" });
  const wire = new ScriptedWire([
    call("view", { path: "a.txt" }),
    call("str_replace", { path: "a.txt", old_str: "world", new_str: "there" }),
    text("Done: greeting updated."),
  ]);
  const result = await runLoop(task("fix the greeting"), config(wire, dir));
  assert.equal(result.done_reason, "stop");
  assert.equal(result.final_text, "Done: greeting updated.");
  assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "hello there\n");
  assert.equal(result.usage.input_tokens, 30);
  assertPaired(result.messages);
  const viewResult = result.messages[2]!.parts[0] as Extract<Part, { type: "tool_result" }>;
  assert.match(viewResult.content, /1\thello world/);
});

Deno.test("strict mode ends needs_human with the intended edit recorded, file untouched", async () => {
  const dir = await workspace({ "a.txt": "x\n" });
  const sessions = await Deno.makeTempDir();
  const journal = await Journal.create(sessions, {
    id: "s1",
    created_at: "2026-01-01T00:00:00Z",
    workdir: dir,
    provider: "chat_completions",
    model: "m",
    mode: "strict",
  });
  const wire = new ScriptedWire([call("create", { path: "b.txt", file_text: "new" }, "c1")]);
  const result = await runLoop(task("make b"), config(wire, dir, { mode: "strict", journal }));
  assert.equal(result.done_reason, "needs_human");
  assert.equal(result.questions[0]?.kind, "approval");
  assert.match(result.questions[0]!.text, /create b\.txt/);
  await assert.rejects(Deno.stat(`${dir}/b.txt`));
  await journal.flush();
  const loaded = await loadSession(sessions, "s1");
  assert.deepEqual(loaded.pending?.waiting.map((w) => [w.id, w.reason]), [["c1", "approval"]]);

  // Approving on resume runs exactly the recorded action, then the model continues.
  const step = await resumeWith(loaded, "approved", {
    tools: WORKSPACE_TOOLS,
    workdir: dir,
    signal: new AbortController().signal,
  });
  assert.equal(await Deno.readTextFile(`${dir}/b.txt`), "new");
  assertPaired(step.messages);
  const wire2 = new ScriptedWire([text("created")]);
  const resumed = await runLoop(step.messages, config(wire2, dir, { mode: "strict" }));
  assert.equal(resumed.done_reason, "stop");
});

Deno.test("a rejected strict-mode action is not run on resume", async () => {
  const dir = await workspace();
  const sessions = await Deno.makeTempDir();
  const journal = await Journal.create(sessions, {
    id: "s2",
    created_at: "2026-01-01T00:00:00Z",
    workdir: dir,
    provider: "p",
    model: "m",
    mode: "strict",
  });
  await runLoop(
    task("t"),
    config(new ScriptedWire([call("shell", { command: "touch hacked" }, "c9")]), dir, {
      mode: "strict",
      journal,
    }),
  );
  await journal.flush();
  const step = await resumeWith(await loadSession(sessions, "s2"), "rejected: no", {
    tools: WORKSPACE_TOOLS,
    workdir: dir,
    signal: new AbortController().signal,
  });
  await assert.rejects(Deno.stat(`${dir}/hacked`));
  const last = step.messages.at(-1)!.parts[0] as Extract<Part, { type: "tool_result" }>;
  assert.equal(last.is_error, true);
  assert.match(last.content, /did not approve/);
});

Deno.test("plan mode denies mutations with a message the model can act on", async () => {
  const dir = await workspace();
  const wire = new ScriptedWire([
    call("create", { path: "x.txt", file_text: "x" }),
    text("Here is my plan."),
  ]);
  const result = await runLoop(task("plan it"), config(wire, dir, { mode: "plan" }));
  assert.equal(result.done_reason, "stop");
  await assert.rejects(Deno.stat(`${dir}/x.txt`));
  const denial = result.messages[2]!.parts[0] as Extract<Part, { type: "tool_result" }>;
  assert.match(denial.content, /plan mode/);
  assert.equal(denial.is_error, true);
});

Deno.test("ask ends needs_human with question kinds; resume feeds the answer as the call's result", async () => {
  const dir = await workspace();
  const sessions = await Deno.makeTempDir();
  const journal = await Journal.create(sessions, {
    id: "s3",
    created_at: "2026-01-01T00:00:00Z",
    workdir: dir,
    provider: "p",
    model: "m",
    mode: "auto",
  });
  const wire = new ScriptedWire([
    {
      parts: [
        {
          type: "tool_call",
          id: "a1",
          name: "ask",
          input: { questions: [{ kind: "elicitation", text: "Which branch?" }] },
        },
        { type: "tool_call", id: "a2", name: "view", input: { path: "." } },
      ],
    },
  ]);
  const result = await runLoop(task("deploy"), config(wire, dir, { journal }));
  assert.equal(result.done_reason, "needs_human");
  assert.deepEqual(result.questions, [{ kind: "elicitation", text: "Which branch?" }]);
  await journal.flush();
  const step = await resumeWith(await loadSession(sessions, "s3"), "main", {
    tools: WORKSPACE_TOOLS,
    workdir: dir,
    signal: new AbortController().signal,
  });
  assertPaired(step.messages);
  const results = step.messages.at(-1)!.parts as Extract<Part, { type: "tool_result" }>[];
  assert.deepEqual(results.map((r) => r.call_id), ["a1", "a2"]);
  assert.match(results[0]!.content, /main/);
});

Deno.test("turn cap, loop detection, token budget and wire errors each end with their done_reason", async () => {
  const dir = await workspace({ "a.txt": "a" });
  const views = (n: number) =>
    Array.from({ length: n }, (_, i) => call("view", { path: "a.txt", view_range: [1, i + 1] }));
  const capped = await runLoop(
    task("t"),
    config(new ScriptedWire(views(5)), dir, { max_turns: 3 }),
  );
  assert.equal(capped.done_reason, "turn_cap");
  assert.equal(capped.turns, 3);

  const same = Array.from({ length: 6 }, () => call("view", { path: "a.txt" }));
  const looped = await runLoop(task("t"), config(new ScriptedWire(same), dir));
  assert.equal(looped.done_reason, "loop_detected");

  const budget = await runLoop(
    task("t"),
    config(
      new ScriptedWire([{
        ...call("view", { path: "a.txt" }),
        usage: { input_tokens: 600, output_tokens: 500 },
      }, text("x")]),
      dir,
      {
        token_budget: 1000,
      },
    ),
  );
  assert.equal(budget.done_reason, "token_budget");
  assert.match(budget.error!, /1000/);

  const failing = await runLoop(
    task("t"),
    config(new ScriptedWire([{ parts: [], error: new Error("server exploded") }]), dir),
  );
  assert.equal(failing.done_reason, "error");
  assert.equal(failing.error, "server exploded");
});

Deno.test("an empty final turn is judged on its own, not by text sent before a tool call", async () => {
  const dir = await workspace({ "a.txt": "a\n" });
  const wire = new ScriptedWire([
    { parts: [{ type: "text", text: "Looking." }, ...call("view", { path: "a.txt" }).parts] },
    { parts: [], usage: { input_tokens: 0, output_tokens: 0 } },
  ]);
  const result = await runLoop(task("read a"), config(wire, dir));
  assert.equal(result.done_reason, "error");
  assert.equal(
    result.error,
    "the model ended its turn without an answer (no text, no tool call, no usage: the " +
      "server sent an empty reply)",
  );
  assert.equal(result.final_text, "", '"Looking." was not the answer');
  assert.equal(wire.remaining, 0);
});

Deno.test("tool errors and escapes become error results, never crashes", async () => {
  const dir = await workspace();
  const wire = new ScriptedWire([
    {
      parts: [
        { type: "tool_call", id: "1", name: "view", input: { path: "../../etc/passwd" } },
        { type: "tool_call", id: "2", name: "nope", input: {} },
        {
          type: "tool_call",
          id: "3",
          name: "str_replace",
          input: { path: "missing.txt", old_str: "a", new_str: "b" },
        },
      ],
    },
    text("ok"),
  ]);
  const result = await runLoop(task("t"), config(wire, dir));
  const results = result.messages[2]!.parts as Extract<Part, { type: "tool_result" }>[];
  assert.equal(results.length, 3);
  assert.ok(results.every((r) => r.is_error));
  assert.match(results[0]!.content, /leaves the workspace/);
  assert.match(results[1]!.content, /No tool named "nope"/);
  assert.match(results[2]!.content, /no such file/);
});

Deno.test("compaction summarizes the middle and never splits a tool pair", async () => {
  const dir = await workspace({ "a.txt": "a" });
  const turns = [
    {
      ...call("view", { path: "a.txt", view_range: [1, 1] }),
      usage: { input_tokens: 100, output_tokens: 10 },
    },
    { ...call("view", { path: "a.txt" }), usage: { input_tokens: 200, output_tokens: 10 } },
    { ...call("search", { glob: "*.txt" }), usage: { input_tokens: 900, output_tokens: 10 } },
    // the compaction request:
    (req: { system: string; tools: readonly unknown[] }) => {
      assert.equal(req.tools.length, 0);
      assert.match(req.system, /compress/);
      return text("SUMMARY: viewed a.txt twice");
    },
    text("finished"),
  ];
  const wire = new ScriptedWire(turns);
  const result = await runLoop(
    task("look at a"),
    config(wire, dir, { compaction_threshold: 0.85, context_window: 1000 }),
  );
  assert.equal(result.done_reason, "stop");
  assertPaired(result.messages);
  const opening = result.messages[0]!.parts.map((p) => (p as { text: string }).text).join("");
  assert.match(opening, /look at a/);
  assert.match(opening, /SUMMARY: viewed a\.txt twice/);
  // The first exchange went into the summary; the last two turns are kept whole, each call
  // with its result, and the request after compaction carried that short history.
  const shape = (messages: readonly Message[]) =>
    messages.map((m) =>
      `${m.role}: ${m.parts.map((p) => p.type === "tool_call" ? p.name : p.type).join(" ")}`
    );
  const kept = ["assistant: view", "user: tool_result", "assistant: search", "user: tool_result"];
  assert.deepEqual(shape(result.messages), ["user: text text", ...kept, "assistant: text"]);
  assert.deepEqual(shape(wire.requests.at(-1)!.messages), ["user: text text", ...kept]);
});

Deno.test("compactionCut keeps recent turns and needs something to compact", () => {
  const u: Message = { role: "user", parts: [{ type: "text", text: "u" }] };
  const a: Message = { role: "assistant", parts: [{ type: "text", text: "a" }] };
  assert.equal(compactionCut([u, a, u, a]), null);
  assert.equal(compactionCut([u, a, u, a, u, a, u]), 3);
});
