// The chat `list inbox` reply: each open item with its question and what it would approve
// (the command and its directory, or the diff), cleaned and cut for a chat message.

import assert from "node:assert/strict";
import { kitCommandRunner, kitInbox } from "../../tests/fakes/chat_kit.ts";
import { jobInput, makeKit } from "../../tests/fakes/scheduler_kit.ts";
import { LIST_DETAIL_MAX } from "./commands.ts";

Deno.test("list inbox shows each item's command or diff under its question, cleaned and cut", async () => {
  await using kit = await makeKit();
  const runner = kitCommandRunner(kit, kitInbox(kit), { workspacesRoot: kit.home });
  const job = kit.scheduler.createJob(jobInput());
  const run = kit.store.createRun({
    job_id: job.id,
    status: "needs_human",
    attempt: 1,
    priority: 10,
    class: "scheduled",
  });
  const shell = kit.store.createInboxItem({
    job_id: job.id,
    run_id: run.id,
    questions: [{
      kind: "approval",
      text: "Run a shell command:\u202E make clean",
      detail: "$ make clean\u0007\n(in /w/app; sandbox: bubblewrap)",
    }],
    meta: {},
  });
  const lines = ["--- a/big.txt", "+++ b/big.txt", "@@ -1,80 +1,80 @@"];
  for (let i = 0; i < 80; i++) lines.push(`-old line ${i}`, `+new line ${i}`);
  const edit = kit.store.createInboxItem({
    job_id: job.id,
    run_id: run.id,
    questions: [{ kind: "approval", text: "Edit big.txt?", detail: lines.join("\n") }],
    meta: {},
  });
  const plain = kit.store.createInboxItem({
    job_id: job.id,
    run_id: run.id,
    questions: [{ kind: "question", text: "Which branch?" }],
    meta: {},
  });

  const reply = await runner.execute({ verb: "list", what: "inbox" }, {
    sender: "@alice:test",
    room: "!dm:test",
  });
  const at = (id: number) => reply.slice(reply.indexOf(`#${id} `));
  assert.match(
    at(shell.id),
    /^#\d+ \(job \d+, \w+ risk\): Run a shell command: make clean\n {2}\$ make clean\n {2}\(in \/w\/app; sandbox: bubblewrap\)(\n|$)/,
  );
  assert.ok(!reply.includes("\u202E") && !reply.includes("\u0007"), "no bidi override or bell");
  // The diff: indented whole lines from the top, cut to LIST_DETAIL_MAX with the rest counted.
  const block = at(edit.id).split("\n#")[0]!.split("\n").slice(1);
  const note = block.pop()!;
  assert.deepEqual(block, lines.slice(0, block.length).map((l) => `  ${l}`));
  assert.equal(note, `  … ${lines.length - block.length} more lines on the dashboard`);
  assert.ok(block.join("\n").length <= LIST_DETAIL_MAX + 2 * block.length);
  // An item with no detail is one line.
  assert.match(at(plain.id), /^#\d+ \(job \d+, \w+ risk\): Which branch\?(\n#|$)/);
});
