// The chat grammar against a table of tricky inputs: case, spacing, colons, Unicode, length.

import assert from "node:assert/strict";
import { MESSAGE_MAX, type Parsed, parseMessage } from "./grammar.ts";

const cmd = (command: object): Parsed => ({ kind: "command", command } as Parsed);
const use = (verb: string, usage: string): Parsed => ({ kind: "usage", verb, usage } as Parsed);
const ans = (item: number | null, text: string): Parsed => ({ kind: "answer", item, text });

const TABLE: [string, Parsed][] = [
  // plain verbs, any case, stray spaces
  ["help", cmd({ verb: "help" })],
  ["  HELP  ", cmd({ verb: "help" })],
  ["help me please", cmd({ verb: "help" })],
  ["Status", cmd({ verb: "status" })],
  ["status now", use("status", "status")],
  ["list", cmd({ verb: "list", what: "inbox" })],
  ["list   JOBS", cmd({ verb: "list", what: "jobs" })],
  ["list schedules", cmd({ verb: "list", what: "schedules" })],
  ["list everything", use("list", "list [inbox|jobs|schedules]")],
  // run and ask
  [
    "run ranger: what failed last night?",
    cmd({
      verb: "run",
      workspace: "ranger",
      prompt: "what failed last night?",
    }),
  ],
  [
    "RUN  app-1 :  fix the build ",
    cmd({ verb: "run", workspace: "app-1", prompt: "fix the build" }),
  ],
  ["run app:a: b", cmd({ verb: "run", workspace: "app", prompt: "a: b" })],
  ["run app fix it", use("run", "run <workspace>: <prompt>")],
  ["run ../etc: cat", use("run", "run <workspace>: <prompt>")],
  ["run app:", use("run", "run <workspace>: <prompt>")],
  ["ask", use("ask", "ask <question>")],
  ["ask   ", use("ask", "ask <question>")],
  ["Ask which jobs failed?", cmd({ verb: "ask", prompt: "which jobs failed?" })],
  ["ask line one\nline two", cmd({ verb: "ask", prompt: "line one\nline two" })],
  // approve / reject / revise: ids, colons, notes
  ["approve 12", cmd({ verb: "approve", item: 12, note: "" })],
  ["approve #12 looks good", cmd({ verb: "approve", item: 12, note: "looks good" })],
  ["approve 12: looks good", cmd({ verb: "approve", item: 12, note: "looks good" })],
  ["approve 12 : looks good", cmd({ verb: "approve", item: 12, note: "looks good" })],
  ["approve 12:looks good", cmd({ verb: "approve", item: 12, note: "looks good" })],
  ["APPROVE\t12", cmd({ verb: "approve", item: 12, note: "" })],
  ["approve abc", use("approve", "approve <item> [note]")],
  ["approve", use("approve", "approve <item> [note]")],
  ["approve 0", use("approve", "approve <item> [note]")],
  ["approve -3", use("approve", "approve <item> [note]")],
  ["approve 99999999999999999999", use("approve", "approve <item> [note]")],
  [
    "reject 4 too risky: it drops a table",
    cmd({
      verb: "reject",
      item: 4,
      note: "too risky: it drops a table",
    }),
  ],
  ["revise 7: use the staging db", cmd({ verb: "revise", item: 7, text: "use the staging db" })],
  ["revise 7 use the staging db", cmd({ verb: "revise", item: 7, text: "use the staging db" })],
  ["revise 7:", use("revise", "revise <item>[:] <text>")],
  ["revise 7", use("revise", "revise <item>[:] <text>")],
  ["revise 7\nline one\nline two", cmd({ verb: "revise", item: 7, text: "line one\nline two" })],
  // job verbs
  ["pause 3", cmd({ verb: "pause", job: 3 })],
  ["Resume #3", cmd({ verb: "resume", job: 3 })],
  ["stop 3", cmd({ verb: "stop", job: 3 })],
  ["stop it now", use("stop", "stop <job>")],
  ["stop 3 4", use("stop", "stop <job>")],
  ["dismiss 5", cmd({ verb: "dismiss", item: 5 })],
  // Unicode: full-width verb and digits fold (NFKC); zero-width and bidi characters vanish
  ["ａｐｐｒｏｖｅ １２", cmd({ verb: "approve", item: 12, note: "" })],
  ["app\u200Brove 12", cmd({ verb: "approve", item: 12, note: "" })],
  ["\u202Estop 3", cmd({ verb: "stop", job: 3 })],
  ["STATUS\uFEFF", cmd({ verb: "status" })],
  ["İnbox", ans(null, "İnbox")],
  ["approve 12 ✅ ship it 🚀", cmd({ verb: "approve", item: 12, note: "✅ ship it 🚀" })],
  // free text and N: answers
  ["yes, go ahead", ans(null, "yes, go ahead")],
  ["2", ans(null, "2")],
  ["12: use port 8080", ans(12, "use port 8080")],
  ["#12 : use port 8080", ans(12, "use port 8080")],
  ["１２：はい", ans(12, "はい")],
  ["12:", ans(null, "12:")],
  ["10:30 works for me", ans(null, "10:30 works for me")],
  ["12:\nuse port 8080", ans(12, "use port 8080")],
  ["approval granted", ans(null, "approval granted")],
  ["stopping soon?", ans(null, "stopping soon?")],
  ["", { kind: "empty" }],
  ["  \u200B \n ", { kind: "empty" }],
];

Deno.test("the grammar parses a table of tricky inputs", () => {
  for (const [input, want] of TABLE) {
    assert.deepEqual(parseMessage(input), want, `input ${JSON.stringify(input)}`);
  }
});

Deno.test("a very long message is refused, one at the limit is read", () => {
  const long = "ask " + "x".repeat(MESSAGE_MAX);
  assert.deepEqual(parseMessage(long), { kind: "too_long", length: MESSAGE_MAX + 4 });
  const fits = "ask " + "é".repeat(MESSAGE_MAX - 4);
  const parsed = parseMessage(fits);
  assert.equal(parsed.kind, "command");
});

Deno.test("a verb word with bad arguments never falls through to a free-text answer", () => {
  for (const input of ["approve abc", "reject", "revise x: y", "dismiss all", "pause everything"]) {
    assert.equal(parseMessage(input).kind, "usage", input);
  }
});
