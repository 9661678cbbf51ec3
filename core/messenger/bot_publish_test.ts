// Issue 37, rule 4, on the chat surface: every text the bot sends passes the publish gate.
// A command reply carrying a secret is withheld (the room gets a one-line notice, the audit
// log says why); a delivery notice about a run carrying one is held as an inbox item, and
// its release posts the original in the room it was meant for. Links written by the model
// are defanged; the outpost's own run link stays clickable.

import assert from "node:assert/strict";
import { releaseHeld } from "../publish/release.ts";
import { textMessage } from "../../tests/fakes/matrix_transport.ts";
import { kitChatBot } from "../../tests/fakes/chat_kit.ts";
import { haltedRecords, type Kit, makeKit } from "../../tests/fakes/scheduler_kit.ts";
import { createMessengerAdapter } from "./adapter.ts";
import { WITHHELD_REPLY } from "./bot.ts";

const BOT = "@bot:test";
const ALICE = "@alice:test";
const ROOM = "!ops:test";
const TOKEN = "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";

function chat(kit: Kit) {
  return kitChatBot(kit, { room: ROOM, botUser: BOT, operators: [ALICE] });
}

/** A halted run of a job, with an open inbox item asking `question`. */
function haltedItem(kit: Kit, question: string) {
  return haltedRecords(kit, [{ kind: "question", text: question }]);
}

Deno.test("a chat reply with a secret is blocked: the room gets a notice, the audit log the reason", async () => {
  await using kit = await makeKit();
  haltedItem(kit, `Should I push with ${TOKEN}?`);
  const { transport, bot } = chat(kit);
  bot.start();
  try {
    const ask = textMessage(ALICE, "list inbox", "$m1");
    transport.push([ask]);
    const reply = await transport.nextSent();
    assert.equal(reply.text, WITHHELD_REPLY);
    assert.equal(reply.replyTo, ask.event_id);
    assert.ok(transport.sent.every((s) => !s.text.includes(TOKEN)), "the token never left");
    const [row] = kit.store.listAudit({ action: "publish_held" });
    assert.match(
      row!.detail,
      /^chat to room !ops:test held: it matched github; nothing to release/,
    );
  } finally {
    await bot.stop();
  }
});

Deno.test("a run notice with a secret is held as an inbox item; release posts the original in its room", async () => {
  await using kit = await makeKit();
  const { run, job } = haltedItem(kit, "unrelated");
  const { transport, inbox, publish, bot } = chat(kit);
  const adapter = createMessengerAdapter({
    post: (room, text, signal, source) => bot.post(room, text, { signal, source }),
    defaultRoom: ROOM,
    baseUrl: "http://outpost.test",
  });
  const event = {
    kind: "run_report" as const,
    job_id: job.id,
    run_id: run.id,
    outcome: "ok" as const,
    link: `/runs/${job.id}/${run.id}`,
    title: "deploy finished",
    body: `Deployed. Token used: ${TOKEN}. Docs: https://evil.example/login`,
    priority: "normal" as const,
    at: "2026-03-02T09:00:00Z",
  };
  await adapter.send(event, new AbortController().signal);
  assert.equal(transport.sent.length, 0, "nothing was posted");
  const held = kit.store.listInbox({ state: "open" }).find((i) => i.meta.kind === "publish_hold");
  assert.equal(held!.meta.surface, "chat");
  assert.match(held!.questions[0]!.detail!, /Token used: \[redacted github\]/);

  await releaseHeld(
    { store: kit.store, inbox, gate: publish, home: kit.home },
    held!.id,
    { actor: "operator", via: "dashboard", channel: "dashboard" },
  );
  assert.equal(transport.sent.length, 1);
  const posted = transport.sent[0]!;
  assert.equal(posted.room, ROOM);
  assert.ok(posted.text.includes(TOKEN), "release posts the original");
  assert.match(
    posted.text,
    /Docs: hxxps:\/\/evil\[\.\]example\/login/,
    "the model's link is defanged",
  );
  assert.ok(posted.text.endsWith(`http://outpost.test/runs/${job.id}/${run.id}`), "our link stays");
  assert.equal(kit.store.getInboxItem(held!.id)!.state, "answered");
});

Deno.test("chat verbs refuse a held publication: release is a dashboard decision", async () => {
  await using kit = await makeKit();
  const { run, job } = haltedItem(kit, "unrelated");
  const { runner } = chat(kit);
  const held = kit.store.createInboxItem({
    job_id: job.id,
    run_id: run.id,
    questions: [{ kind: "approval", text: "Held", detail: "[redacted github]" }],
    meta: { kind: "publish_hold", surface: "chat", where: "room !ops:test", rules: ["github"] },
  });
  const origin = { sender: ALICE, room: ROOM };
  for (
    const command of [
      { verb: "approve", item: held.id },
      { verb: "dismiss", item: held.id },
      { verb: "revise", item: held.id, text: "x" },
    ] as const
  ) {
    await assert.rejects(
      runner.execute(command as never, origin),
      /held publication: release or drop it on the dashboard/,
    );
  }
  assert.equal(kit.store.getInboxItem(held.id)!.state, "open");
  assert.equal(kit.store.getInboxItem(held.id)!.held_json, null);
});
