// The whole `agent-outpost` process, started the way `deno task outpost` starts it (exactly
// the permission flags of scripts/permissions.ts) with --port 0 in an isolated AGENT_HOME:
// it prints its URL, serves the human door with CSRF, issues and honours machine tokens
// from its own CLI, runs a job through a fake agent binary, shuts down on SIGTERM, and
// keeps its CSRF token across restarts.

import assert from "node:assert/strict";
import { tempHome } from "./agent_process.ts";
import { cli, startOutpost, stop, waitForRun } from "./outpost_process_kit.ts";

const FAKE_AGENT = `#!/bin/sh
# Stands in for \`agent -p\`: writes the report named by --output and prints the result JSON.
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --output) out="$2"; shift 2 ;;
    --) shift; break ;;
    *) shift ;;
  esac
done
printf '# Report\\n\\nprompt: %s\\n' "$1" > "$out"
echo '{"session_id":"e2e-session","usage":{"input_tokens":3,"output_tokens":4}}'
`;

Deno.test("agent-outpost as a process: URL on stdout, CSRF, tokens, a run, SIGTERM, token kept across restarts", async () => {
  const home = await tempHome();
  try {
    const agentBin = `${home}/fake-agent.sh`;
    await Deno.writeTextFile(agentBin, FAKE_AGENT, { mode: 0o755 });
    const env = { AGENT_OUTPOST_AGENT_BIN: agentBin };
    const outpost = await startOutpost(home, env);
    const { url } = outpost;

    const list = await fetch(`${url}api/jobs`);
    assert.equal(list.status, 200);
    assert.deepEqual(await list.json(), { jobs: [] });
    const cookie = list.headers.get("set-cookie")!;
    const token = /outpost_csrf=([^;]+)/.exec(cookie)![1]!;

    const refused = await fetch(`${url}api/jobs`, { method: "POST", body: "{}" });
    assert.equal(refused.status, 403);
    await refused.body?.cancel();
    const created = await fetch(`${url}api/jobs`, {
      method: "POST",
      headers: {
        Cookie: `outpost_csrf=${token}`,
        "X-CSRF-Token": token,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({
        name: "e2e",
        prompt: "hello",
        schedule: { kind: "every", expr: "1h", tz: "UTC" },
        workdir: await projectIn(home),
      }),
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();

    const made = await cli(home, ["token", "create", "e2e"]);
    assert.equal(made.code, 0, made.stderr);
    const bearer = made.stdout.trim();
    const submit = await fetch(`${url}api/v1/jobs`, {
      method: "POST",
      headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" },
      body: JSON.stringify({ prompt: "say hi", workdir: await projectIn(home) }),
    });
    assert.equal(submit.status, 202);
    const { job_id, run_id, status_url } = await submit.json();
    await waitForRun(url, run_id, "ok");
    const status = await (await fetch(`${url}${status_url.slice(1)}`, {
      headers: { Authorization: `Bearer ${bearer}` },
    })).json();
    assert.equal(status.status, "ok");
    assert.equal(status.tokens_out, 4);
    const report = await fetch(`${url}api/v1/jobs/${job_id}/runs/${run_id}/output`, {
      headers: { Authorization: `Bearer ${bearer}` },
    });
    assert.equal(await report.text(), "# Report\n\nprompt: say hi\n");

    const revoked = await cli(home, ["token", "revoke", "1"]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const after = await fetch(`${url}api/v1/jobs/${job_id}/runs/${run_id}`, {
      headers: { Authorization: `Bearer ${bearer}` },
    });
    assert.equal(after.status, 401);
    await after.body?.cancel();

    const first = await stop(outpost);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /SIGTERM: shutting down/);

    const again = await startOutpost(home, env);
    const res = await fetch(`${again.url}api/jobs`);
    assert.match(
      res.headers.get("set-cookie")!,
      new RegExp(`outpost_csrf=${token};`),
      "same token",
    );
    const jobs = (await res.json()).jobs;
    assert.deepEqual(jobs.map((j: { name: string }) => j.name).sort(), ["api: say hi", "e2e"]);
    assert.equal((await stop(again)).code, 0);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("agent-outpost as a process: a bad port is one line on stderr and exit 1", async () => {
  const home = await tempHome();
  try {
    const r = await cli(home, ["--port", "http"]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.trim().split("\n").length, 1);
    assert.match(r.stderr, /^error: --port/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("agent-outpost as a process: a memory_dir it cannot use is named with its source, never as a bare 'memory root'", async () => {
  const home = await tempHome();
  try {
    const file = `${home}/not-a-folder`;
    await Deno.writeTextFile(file, "x");
    const outpost = await startOutpost(home, { AGENT_MEMORY_DIR: file });
    const expected = `memory_dir ${file} (from env AGENT_MEMORY_DIR): is not usable as a ` +
      `directory: ${file} or one of its parents is a file; point memory_dir at a directory ` +
      `the outpost can write`;
    const res = await fetch(`${outpost.url}api/memory`);
    assert.equal(res.status, 503);
    const { error } = await res.json();
    assert.equal(error.code, "memory_unavailable");
    assert.equal(error.message, `memory is unavailable: ${expected}`);
    // The rest of the dashboard goes on without memory.
    const jobs = await fetch(`${outpost.url}api/jobs`);
    assert.equal(jobs.status, 200);
    await jobs.body?.cancel();
    const { code, stderr } = await stop(outpost);
    assert.equal(code, 0, stderr);
    assert.ok(stderr.includes(expected), stderr);
    assert.doesNotMatch(stderr, /memory root|os error/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/** A project folder in the test's home: the home itself is refused as a workdir. */
async function projectIn(home: string): Promise<string> {
  await Deno.mkdir(`${home}/work`, { recursive: true });
  return `${home}/work`;
}
