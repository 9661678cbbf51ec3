// File modes under <home>/outpost, on the whole `agent-outpost` process (the release
// permission flags): a fresh install creates every folder 0700 and every file 0600 (the
// database and its -wal/-shm, runs/ and the reports, logs, delivery.jsonl, governor.json, the
// CSRF secret), and an install left by an older version (0755/0644) is tightened at start,
// without following a symlink a run left in its runs folder.

import assert from "node:assert/strict";
import { join } from "node:path";
import { tempHome } from "./agent_process.ts";
import { startOutpost, stop, waitForRun } from "./outpost_process_kit.ts";

// A stand-in for `agent -p` that writes its report with the shell's 0644, like an older agent.
const FAKE_AGENT = `#!/bin/sh
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --output) out="$2"; shift 2 ;;
    --) shift; break ;;
    *) shift ;;
  esac
done
umask 022
printf '# Report\\n' > "$out"
echo "child stderr" >&2
echo '{"session_id":"modes","final_text":"hi"}'
`;

/** Every path under `root` with the permission bits of what lstat finds there. */
async function modes(root: string): Promise<Map<string, { mode: number; kind: string }>> {
  const out = new Map<string, { mode: number; kind: string }>();
  const visit = async (path: string) => {
    const info = await Deno.lstat(path);
    const kind = info.isSymlink ? "symlink" : info.isDirectory ? "dir" : "file";
    out.set(path, { mode: info.mode! & 0o777, kind });
    if (info.isDirectory) {
      for await (const e of Deno.readDir(path)) await visit(join(path, e.name));
    }
  };
  await visit(root);
  return out;
}

function assertPrivate(
  found: Map<string, { mode: number; kind: string }>,
  skip = new Set<string>(),
) {
  for (const [path, { mode, kind }] of found) {
    if (skip.has(path) || kind === "symlink") continue;
    const want = kind === "dir" ? 0o700 : 0o600;
    assert.equal(mode.toString(8), want.toString(8), `${kind} ${path}`);
  }
}

async function human(url: string, method: string, path: string, body: unknown) {
  const list = await fetch(`${url}api/jobs`);
  await list.body?.cancel();
  const token = /outpost_csrf=([^;]+)/.exec(list.headers.get("set-cookie")!)![1]!;
  return await fetch(`${url}${path}`, {
    method,
    headers: {
      Cookie: `outpost_csrf=${token}`,
      "X-CSRF-Token": token,
      "Content-Type": "application/json",
    },
    body: JSON.stringify(body),
  });
}

Deno.test("a fresh outpost creates every folder 0700 and every file 0600 under <home>/outpost", async () => {
  const home = await tempHome();
  try {
    const agentBin = `${home}/fake-agent.sh`;
    await Deno.writeTextFile(agentBin, FAKE_AGENT, { mode: 0o755 });
    const outpost = await startOutpost(home, { AGENT_OUTPOST_AGENT_BIN: agentBin });
    const lever = await human(outpost.url, "PUT", "api/governor", { max_concurrent: { api: 3 } });
    assert.equal(lever.status, 200);
    await lever.body?.cancel();
    const created = await human(outpost.url, "POST", "api/jobs", {
      name: "modes",
      prompt: "hello",
      schedule: { kind: "every", expr: "1h", tz: "UTC" },
      workdir: await projectIn(home),
      output_surface: "messenger",
    });
    assert.equal(created.status, 201);
    const { job } = await created.json();
    const done = waitForRun(outpost.url, 1, "ok");
    const fired = await human(outpost.url, "POST", `api/jobs/${job.id}/trigger`, {});
    assert.equal(fired.status, 202, await fired.clone().text());
    await fired.body?.cancel();
    await done;
    const agentHome = join(home, ".agent"); // AGENT_HOME of the kit's child environment
    const outpostDir = join(agentHome, "outpost");
    const names = (found: Map<string, unknown>) =>
      [...found.keys()].map((p) => p.slice(agentHome.length + 1)).sort();
    // While it runs: the database with its -wal and -shm, the run's report and log.
    const running = await modes(outpostDir);
    for (
      const expected of [
        "outpost",
        "outpost/csrf_secret",
        "outpost/governor.json",
        "outpost/outpost.db",
        "outpost/outpost.db-shm",
        "outpost/outpost.db-wal",
        "outpost/runs",
        `outpost/runs/${job.id}`,
      ]
    ) assert.ok(names(running).includes(expected), `${expected} in ${names(running)}`);
    assert.ok(names(running).some((n) => /^outpost\/runs\/\d+\/\d{8}T\d{6}Z\.md$/.test(n)));
    assert.ok(names(running).some((n) => /^outpost\/runs\/\d+\/\d{8}T\d{6}Z\.log$/.test(n)));
    assertPrivate(running);
    // Stopping waits for delivery to have written delivery.jsonl.
    assert.equal((await stop(outpost)).code, 0);
    const stopped = await modes(outpostDir);
    assert.ok(names(stopped).includes("outpost/delivery.jsonl"), `${names(stopped)}`);
    assertPrivate(stopped);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("an outpost started on an older install tightens its files, never through a symlink", async () => {
  const home = await tempHome();
  try {
    const dir = join(home, ".agent", "outpost"); // AGENT_HOME of the kit's child environment
    const runs = join(dir, "runs", "1");
    await Deno.mkdir(runs, { recursive: true, mode: 0o755 });
    // What an older version left: a database with -wal/-shm, reports, logs, the records.
    const db = new (await import("node:sqlite")).DatabaseSync(join(dir, "outpost.db"));
    db.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);");
    const files = {
      "runs/1/20260302T090000Z.md": "# old report\n",
      "runs/1/20260302T090000Z.log": "old log\n",
      "delivery.jsonl": "{}\n",
      "governor.json": "{}\n",
      csrf_secret: "A".repeat(43) + "\n",
    };
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(join(dir, name), text, { mode: 0o644 });
    }
    // A run's symlink to a file of the operator's: its mode must not change.
    const outside = join(home, "operator-notes.txt");
    await Deno.writeTextFile(outside, "mine\n");
    await Deno.chmod(outside, 0o644);
    await Deno.symlink(outside, join(runs, "link.md"));
    for (const [path, { kind }] of await modes(dir)) {
      if (kind !== "symlink") await Deno.chmod(path, kind === "dir" ? 0o755 : 0o644);
    }
    const before = await modes(dir);
    assert.equal(before.get(join(dir, "outpost.db"))!.mode, 0o644);
    assert.equal(before.get(join(runs, "20260302T090000Z.md"))!.mode, 0o644);
    assert.equal(before.get(dir)!.mode, 0o755);

    assert.equal(before.get(join(dir, "outpost.db-wal"))!.mode, 0o644);
    // The old connection stays open until the outpost has started, so -wal and -shm exist.
    const outpost = await startOutpost(home, {});
    db.close();
    const found = await modes(dir);
    assertPrivate(found);
    for (const name of Object.keys(files)) {
      assert.equal(found.get(join(dir, name))?.mode, 0o600, name);
    }
    for (const name of ["outpost.db", "outpost.db-wal", "outpost.db-shm"]) {
      assert.equal(found.get(join(dir, name))?.mode, 0o600, name);
    }
    assert.equal(found.get(runs)!.mode, 0o700);
    assert.equal((Deno.lstatSync(outside).mode! & 0o777).toString(8), "644", "symlink followed");
    assert.equal((await stop(outpost)).code, 0);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/** A project folder in the test's home: the home itself is refused as a workdir. */
async function projectIn(home: string): Promise<string> {
  await Deno.mkdir(`${home}/work`, { recursive: true });
  return `${home}/work`;
}
