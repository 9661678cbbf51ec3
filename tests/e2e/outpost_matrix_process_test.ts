// The real agent-outpost process (started with the flags of scripts/permissions.ts) and its
// Matrix bot against a real Synapse: a configured bot answers and refuses a disabled verb, one
// missing MX_* leaves it dormant, and `ask` runs the real agent against the fake model server
// in a ranger workspace made by `agent-outpost ranger init`.

import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { peerTest, probes } from "../peers.ts";
import { cli, startOutpost, stop as stopOutpost, waitForRun } from "./outpost_process_kit.ts";
import { Synapse } from "./synapse_kit.ts";

/** Polls a real outpost's messenger pill until its bot has finished its first sync. */
async function messengerOk(url: string, limitMs = 30_000): Promise<void> {
  const end = Date.now() + limitMs;
  for (;;) {
    const status = await (await fetch(`${url}api/messenger/status`)).json();
    if (status.state === "ok") return;
    if (Date.now() > end) throw new Error(`messenger not ok: ${JSON.stringify(status)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

peerTest(
  "the real agent-outpost's Matrix bot against a real Synapse",
  probes.synapse,
  async (t) => {
    await using synapse = await Synapse.start();
    const { alice, bob, bot } = await synapse.users();
    // Rooms: alice's DM with the bot, and the default room (MX_ROOM).
    const room = await alice.createRoom([bot.userId], "dm");
    const defaultRoom = await alice.createRoom([bot.userId, bob.userId], "outpost");
    await bob.join(defaultRoom);
    const say = (text: string) => alice.command(room, text);
    /** Waits until a just-started outpost's bot has synced and joined the DM it was invited to. */
    const botReady = async (url: string) => {
      await messengerOk(url);
      await alice.waitForJoin(room, bot.userId);
    };
    await t.step(
      "the real agent-outpost: configured bot answers, a disabled verb is refused; one MX_* missing is dormant",
      async () => {
        const home = await Deno.makeTempDir({ prefix: "outpost_mx_" });
        await Deno.mkdir(join(home, "workspaces", "ranger"), { recursive: true });
        const proc = await startOutpost(home, {
          MX_HOMESERVER: synapse.url,
          MX_TOKEN: bot.token,
          MX_ROOM: defaultRoom,
          MX_ALLOWLIST: `${alice.userId},${bob.userId}`,
          AGENT_MATRIX_VERBS: "legacy",
        });
        try {
          // The bot's first sync only learns where "now" is: a command sent before it
          // returns is history and never answered. The pill reads ok once it has returned.
          await botReady(proc.url);
          assert.match(await say("status"), /no runs yet \| 0 open inbox items/);
          const status = await (await fetch(`${proc.url}api/messenger/status`)).json();
          assert.equal(status.state, "ok");
          assert.equal(status.allowlist_size, 2);
          assert.match(
            await say("pause 1"),
            /^refused \[verb_disabled\]: "pause" is turned off on this outpost \(AGENT_MATRIX_VERBS=legacy\)/,
          );
          assert.match(await say("help"), /^refused \[verb_disabled\]/);
        } finally {
          const { stderr } = await stopOutpost(proc);
          assert.match(stderr, /matrix bot started/);
        }
        // One variable missing: dormant, naming it, with the allowlist still counted.
        const dormant = await startOutpost(home, {
          MX_HOMESERVER: synapse.url,
          MX_ROOM: defaultRoom,
          MX_ALLOWLIST: `${alice.userId},${bob.userId}`,
        });
        try {
          const status = await (await fetch(`${dormant.url}api/messenger/status`)).json();
          assert.deepEqual(status, {
            state: "dormant",
            missing: ["MX_TOKEN"],
            allowlist_size: 2,
          });
        } finally {
          const { stderr } = await stopOutpost(dormant);
          assert.doesNotMatch(stderr, /matrix bot started/);
          await Deno.remove(home, { recursive: true });
        }
      },
    );
    await t.step(
      "the real agent-outpost: ask runs the real agent in the ranger workspace, with its brief and the STATUS.md snapshot",
      async () => {
        const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "outpost_ranger_" }));
        const fake = await startFakeModelServer({
          models: [{ id: "served-model", max_model_len: 32768 }],
        });
        const initialized = await cli(home, ["ranger", "init"]);
        assert.equal(initialized.code, 0, initialized.stderr);
        const ranger = join(home, ".agent", "workspaces", "ranger");
        assert.match(initialized.stdout, new RegExp(`wrote ${ranger}/AGENTS\\.md`));
        const proc = await startOutpost(home, {
          MX_HOMESERVER: synapse.url,
          MX_TOKEN: bot.token,
          MX_ROOM: defaultRoom,
          MX_ALLOWLIST: `${alice.userId},${bob.userId}`,
          AGENT_BASE_URL: fake.url,
          AGENT_PROVIDER: "chat_completions",
          AGENT_MEMORY_REFLECT: "0",
        });
        try {
          await botReady(proc.url); // before any command (see the step above)
          // Overnight, a job failed: no reply is scripted, so its one model call gets a 500.
          const first = await fetch(`${proc.url}api/jobs`);
          const csrf = /outpost_csrf=([^;]+)/.exec(first.headers.get("set-cookie")!)![1]!;
          await first.body?.cancel();
          const post = async (path: string, body?: unknown) =>
            await (await fetch(`${proc.url}${path}`, {
              method: "POST",
              headers: {
                Cookie: `outpost_csrf=${csrf}`,
                "X-CSRF-Token": csrf,
                "Content-Type": "application/json",
              },
              ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            })).json();
          const work = join(home, "work");
          await Deno.mkdir(work);
          const created = await post("api/jobs", {
            name: "nightly backup",
            prompt: "back up the notes",
            schedule: { kind: "every", expr: "1d", tz: "UTC" },
            workdir: work,
            max_retries: 0,
          });
          const failedRun = (await post(`api/jobs/${created.job.id}/trigger`)).run.id as number;
          await waitForRun(proc.url, failedRun, "error");
          const before = fake.requests.length;

          fake.enqueue(
            reply().tool("view", { path: "STATUS.md" }),
            reply().text(`Overnight, run ${failedRun} of job #${created.job.id} failed.`),
          );
          const ack = await say("ask what failed overnight?");
          const m = /Submitted job (\d+), run (\d+) \(workspace ranger\)/.exec(ack);
          assert.ok(m, ack);
          const answer = await alice.waitFor(room, (x) => x.body.includes(`(run ${m[2]})`));
          assert.match(
            answer.body,
            new RegExp(`Overnight, run ${failedRun} of job #\\d+ failed`),
          );

          const calls = fake.requests.slice(before);
          assert.equal(calls.length, 2);
          type Body = { messages: Array<{ role: string; content?: unknown }> };
          const system = JSON.stringify(
            (calls[0]!.body as Body).messages.find((x) => x.role === "system")?.content,
          );
          assert.ok(system.includes("You are the outpost's ranger"), system);
          assert.ok(system.includes(`Workspace: ${ranger}`), system);
          assert.ok(system.includes("Permission mode: strict"), system);
          // The agent read the snapshot the outpost wrote: it names the failed run.
          const toolResult = String(
            (calls[1]!.body as Body).messages.find((x) => x.role === "tool")?.content,
          );
          assert.match(toolResult, /# Outpost status snapshot/);
          assert.match(
            toolResult,
            new RegExp(`run ${failedRun} of job #\\d+ "nightly backup": error`),
          );
          fake.assertNoViolations();
        } finally {
          const { stderr } = await stopOutpost(proc);
          await fake.close();
          await Deno.remove(home, { recursive: true });
          assert.match(stderr, /matrix bot started/);
        }
      },
    );
  },
);
