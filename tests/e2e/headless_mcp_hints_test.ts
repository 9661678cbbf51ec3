// A sandboxed stdio server that did not start says what to change, through the real `agent -p`
// (release flags, default sandbox): a command or script the sandbox does not show names the
// exact `read_paths` line (and the run with that line added works), a server that reached for
// the network names `network = true`, and a start-up timeout says what the server printed.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";
import { TEST_SERVERS_DIR } from "../mcp/everything.ts";

async function setup(toml: string) {
  const t = await headlessSetup();
  await Deno.mkdir(`${t.home}/.agent`);
  const settings = `${t.home}/.agent/settings.toml`;
  await Deno.writeTextFile(settings, toml);
  return Object.assign(t, {
    settings,
    run: async () => {
      t.fake.enqueue(reply().text("ok"));
      const r = await runAgent(
        ["-p", "--workdir", t.work, "--output-format", "json", "--", "hi"],
        t.env,
      );
      assert.equal(r.code, 0, r.stderr);
      return { ...r, result: JSON.parse(r.stdout) as HeadlessResult };
    },
  });
}

/** A directory under /tmp (the sandbox's /tmp is its own): a copy of the raw test server. */
async function installedUnderTmp(): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mcp-installed-" }));
  const script = `${dir}/server.mjs`;
  await Deno.writeTextFile(
    script,
    "#!/usr/bin/env node\n" + await Deno.readTextFile(`${TEST_SERVERS_DIR}/raw_server.mjs`),
  );
  await Deno.chmod(script, 0o755);
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

Deno.test("a command the sandbox does not show names the read_paths line to add, and that line works", async () => {
  await using installed = await installedUnderTmp();
  const table = `[mcp_servers.tmpsrv]\ncommand = "${installed.dir}/server.mjs"\n`;
  await using t = await setup(table);
  const failed = await t.run();
  const line = `read_paths = ["${installed.dir}"]`;
  const error = failed.result.mcp_servers?.[0]?.error ?? "";
  assert.match(error, /execvp/, "bwrap's own complaint is kept");
  assert.ok(
    error.includes(`add ${line} to [mcp_servers.tmpsrv] in ${t.settings}`),
    `no read_paths line in: ${error}`,
  );
  assert.ok(failed.stderr.includes(line), failed.stderr);

  // The line, added as written, is the fix.
  await Deno.writeTextFile(t.settings, `${table}${line}\n`);
  const fixed = await t.run();
  assert.equal(fixed.result.mcp_servers?.[0]?.state, "ready", fixed.stderr);
});

Deno.test("a script argument the sandbox does not show names its directory in read_paths, keeping the ones there", async () => {
  await using installed = await installedUnderTmp();
  await using t = await setup(
    `[mcp_servers.script]\ncommand = "node"\nargs = ["${installed.dir}/server.mjs"]\n` +
      `read_paths = ["${TEST_SERVERS_DIR}"]\n`,
  );
  const { result } = await t.run();
  const error = result.mcp_servers?.[0]?.error ?? "";
  assert.ok(
    error.includes(`add read_paths = ["${TEST_SERVERS_DIR}", "${installed.dir}"] to`),
    error,
  );
});

Deno.test("a server that tried the network names network = true", async () => {
  const script = `require("node:dns").lookup("registry.npmjs.org", (err) => { ` +
    `console.error("lookup failed: " + (err && err.code)); process.exit(1); })`;
  await using t = await setup(
    `[mcp_servers.online]\ncommand = "node"\nargs = ["-e", ${JSON.stringify(script)}]\n`,
  );
  const { result } = await t.run();
  const error = result.mcp_servers?.[0]?.error ?? "";
  assert.match(error, /lookup failed: E/);
  assert.ok(
    error.includes(
      `it tried the network, which its sandbox closes: add network = true to ` +
        `[mcp_servers.online] in ${t.settings}`,
    ),
    error,
  );
});

Deno.test("a start-up timeout says what the server printed, or that it printed nothing", async () => {
  const waiting = `console.error("waiting for the config file"); process.stdin.resume()`;
  await using t = await setup(
    `[mcp_servers.chatty]\ncommand = "node"\nargs = ["-e", ${JSON.stringify(waiting)}]\n` +
      `startup_timeout_s = 1\n` +
      `[mcp_servers.mute]\ncommand = "node"\nargs = ["-e", "process.stdin.resume()"]\n` +
      `startup_timeout_s = 1\n`,
  );
  const { result } = await t.run();
  assert.deepEqual(result.mcp_servers?.map((s) => s.error), [
    "no answer within startup_timeout_s = 1 (stderr: waiting for the config file)",
    "no answer within startup_timeout_s = 1 (it wrote nothing to stderr)",
  ]);
});
