// scripts/matrix_bot_setup.ts run as an operator runs it (its CLI entry, the permission flags
// its header documents, MX_ADMIN_TOKEN in the environment) against a real Synapse: it writes
// an env file of mode 0600 with the four MX_* lines and a token that works; a bad admin token
// is one error line, exit 1 and no file.

import assert from "node:assert/strict";
import { childEnv, ROOT } from "./agent_process.ts";
import { peerTest, probes } from "../peers.ts";
import { MatrixUser, Synapse } from "./synapse_kit.ts";

const SCRIPT = `${ROOT}/scripts/matrix_bot_setup.ts`;

async function setupScript(home: string, adminToken: string, args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--cached-only",
      "--allow-net",
      "--allow-env",
      "--allow-write",
      "--allow-read",
      SCRIPT,
      ...args,
    ],
    env: childEnv({ home, MX_ADMIN_TOKEN: adminToken }),
    clearEnv: true,
    cwd: home,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

peerTest("matrix_bot_setup.ts against a real Synapse", probes.synapse, async (t) => {
  await using synapse = await Synapse.start();
  const { admin, alice, bob, bot } = await synapse.users();
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "mx_setup_" }));
  const room = "!outpost:localhost";
  const flags = (envFile: string) => [
    "--homeserver",
    synapse.url,
    "--bot",
    bot.userId,
    "--room",
    room,
    "--allowlist",
    `${alice.userId},${bob.userId}`,
    "--env-file",
    envFile,
  ];
  try {
    await t.step(
      "writes a 0600 env file with the four MX_* lines and a working token",
      async () => {
        const envFile = `${home}/matrix.env`;
        const r = await setupScript(home, admin.token, flags(envFile));
        assert.equal(r.code, 0, r.stderr);
        assert.ok(!(r.stdout + r.stderr).includes(admin.token), "the admin token is never printed");
        assert.equal((await Deno.stat(envFile)).mode! & 0o777, 0o600);
        const lines = (await Deno.readTextFile(envFile)).split("\n");
        assert.equal(lines.pop(), "", "the file ends with a newline");
        assert.deepEqual(lines.map((l) => l.split("=")[0]), [
          "MX_HOMESERVER",
          "MX_TOKEN",
          "MX_ROOM",
          "MX_ALLOWLIST",
        ]);
        const vars = Object.fromEntries(
          lines.map((l) => [l.split("=")[0], l.slice(l.indexOf("=") + 1)]),
        );
        assert.equal(vars.MX_HOMESERVER, synapse.url);
        assert.equal(vars.MX_ROOM, room);
        assert.equal(vars.MX_ALLOWLIST, `${alice.userId},${bob.userId}`);
        assert.ok(!(await Deno.readTextFile(envFile)).includes(admin.token));
        // The minted token is the bot's.
        const me = await new MatrixUser(synapse.url, bot.userId, vars.MX_TOKEN!).api(
          "GET",
          "/account/whoami",
        );
        assert.equal(me.user_id, bot.userId);
        // And the bot is exempt from Synapse's rate limits.
        const res = await fetch(
          `${synapse.url}/_synapse/admin/v1/users/${
            encodeURIComponent(bot.userId)
          }/override_ratelimit`,
          { headers: { Authorization: `Bearer ${admin.token}` } },
        );
        assert.deepEqual(await res.json(), { messages_per_second: 0, burst_count: 0 });
      },
    );

    await t.step("a bad admin token: one error line, exit 1, no file written", async () => {
      const envFile = `${home}/refused.env`;
      const before = [...Deno.readDirSync(home)].map((e) => e.name).sort();
      const r = await setupScript(home, "not-an-admin-token", flags(envFile));
      assert.equal(r.code, 1, r.stderr);
      const lines = r.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, r.stderr);
      assert.match(
        lines[0]!,
        /^matrix_bot_setup: POST \/_synapse\/admin\/v1\/users\/.*\/login answered 401/,
      );
      assert.equal(r.stdout, "");
      await assert.rejects(Deno.stat(envFile), Deno.errors.NotFound);
      assert.deepEqual([...Deno.readDirSync(home)].map((e) => e.name).sort(), before);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
