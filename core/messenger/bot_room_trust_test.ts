// Gate layer 2 over time (spec 5.7): a room of operators is trusted, and stops being trusted
// as soon as a sync carries a stranger's join, because the bot's loop drops the room's cached
// member list on every membership event. The bot runs its real loop, gate and command runner
// on the real store; the homeserver side is the MatrixTransport seam, scripted here (one
// sync batch at a time, members as the room has them now).

import assert from "node:assert/strict";
import { kitChatBot } from "../../tests/fakes/chat_kit.ts";
import { makeKit } from "../../tests/fakes/scheduler_kit.ts";
import type { MatrixEvent } from "./transport.ts";

const BOT = "@bot:test";
const ALICE = "@alice:test";
const BOB = "@bob:test";
const STRANGER = "@mallory:test";
const ROOM = "!ops:test";

let eventNo = 0;
function message(sender: string, body: string): MatrixEvent {
  return {
    type: "m.room.message",
    sender,
    event_id: `$m${++eventNo}`,
    content: { msgtype: "m.text", body },
  };
}

function joined(user: string): MatrixEvent {
  return {
    type: "m.room.member",
    sender: user,
    state_key: user,
    event_id: `$j${++eventNo}`,
    content: { membership: "join" },
  };
}

Deno.test("a trusted room stops being trusted when a stranger joins later", async () => {
  await using kit = await makeKit();
  const { transport, bot } = kitChatBot(kit, {
    room: ROOM,
    botUser: BOT,
    operators: [ALICE, BOB],
  });
  bot.start();
  try {
    // Operators only: trusted, and the member list is read once and cached.
    const first = message(ALICE, "status");
    transport.push([first]);
    const ok = await transport.nextSent();
    assert.equal(ok.replyTo, first.event_id);
    assert.match(ok.text, /no runs yet \| 0 open inbox items/);
    const second = message(BOB, "status");
    transport.push([second]);
    assert.match((await transport.nextSent()).text, /open inbox items/);
    assert.equal(transport.memberReads, 1);

    // The stranger joins; the same batch carries alice's next command.
    transport.members_.set(ROOM, [BOT, ALICE, BOB, STRANGER]);
    const third = message(ALICE, "pause 1");
    transport.push([joined(STRANGER), third]);
    const refused = await transport.nextSent();
    assert.equal(refused.replyTo, third.event_id);
    assert.match(refused.text, /^refused \[untrusted_room\]: this room has 1 member\(s\) who are/);
    assert.equal(transport.memberReads, 2);

    // And it stays untrusted for later commands.
    const fourth = message(BOB, "status");
    transport.push([fourth]);
    assert.match((await transport.nextSent()).text, /^refused \[untrusted_room\]/);

    // Once a sync has succeeded, every sync is a 30 s long poll (spec 8), never a busy loop.
    assert.ok(transport.syncTimeouts.length >= 5, String(transport.syncTimeouts));
    assert.deepEqual(
      transport.syncTimeouts.slice(1),
      transport.syncTimeouts.slice(1).map(() => 30_000),
    );
  } finally {
    await bot.stop();
  }
});
