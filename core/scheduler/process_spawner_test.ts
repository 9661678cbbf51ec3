// Real children (sh) through the real spawner: exit codes, stdout capture, the log file,
// and that one SIGKILL to the group takes grandchildren with it.

import assert from "node:assert/strict";
import { join } from "node:path";
import { linuxProcessTable } from "./proc.ts";
import { processSpawner, SpawnError } from "./process_spawner.ts";
import { OUTPOST_PERMISSIONS, RUN_ENV, RUN_FLAGS } from "../../scripts/permissions.ts";

const env = { PATH: "/usr/bin:/bin" };

Deno.test("exit code, captured stdout and the stderr log", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const logPath = join(dir, "run.log");
    const p = processSpawner.spawn({
      command: "sh",
      args: ["-c", 'echo "to log" >&2; echo chatter; echo \'{"outcome":"ok"}\'; exit 3'],
      cwd: dir,
      env,
      logPath,
      captureStdout: 1024,
    });
    assert.equal(await p.exited, 3);
    assert.equal(await p.stdout, 'chatter\n{"outcome":"ok"}\n');
    assert.equal(await Deno.readTextFile(logPath), "to log\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stdout capture is bounded and keeps the tail", async () => {
  const p = processSpawner.spawn({
    command: "sh",
    args: ["-c", "head -c 200000 /dev/zero | tr '\\0' x; echo; echo '{\"end\":true}'"],
    env,
    captureStdout: 4096,
  });
  assert.equal(await p.exited, 0);
  const out = await p.stdout!;
  assert.ok(new TextEncoder().encode(out).length <= 4096);
  assert.ok(out.endsWith('{"end":true}\n'));
});

Deno.test("the child leads its own process group; killGroup takes the grandchild too", async () => {
  const fifoDir = await Deno.makeTempDir();
  try {
    const fifo = join(fifoDir, "pids");
    await new Deno.Command("mkfifo", { args: [fifo] }).output();
    // The grandchild inherits the captured stdout pipe, so the pipe closes only once the
    // grandchild is dead too: `await p.stdout` is the signal that the whole group is gone.
    const p = processSpawner.spawn({
      command: "sh",
      args: ["-c", `sleep 300 & echo "$$ $!" > ${fifo}; wait`],
      env,
      captureStdout: 1024,
    });
    // Reading the FIFO waits for the child to report: no polling, no sleep.
    const [leader, grandchild] = (await Deno.readTextFile(fifo)).trim().split(" ").map(Number);
    assert.equal(leader, p.pid);
    const stat = await Deno.readTextFile(`/proc/${grandchild}/stat`);
    assert.equal(
      stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2],
      String(p.pid),
      "grandchild in the group",
    );
    assert.ok(linuxProcessTable().identity(grandchild!), "grandchild alive before the kill");
    p.killGroup();
    assert.equal(await p.exited, 137);
    assert.equal(await p.stdout, "", "pipe closed: the grandchild died with the group");
    p.killGroup(); // after exit: harmless
  } finally {
    await Deno.remove(fifoDir, { recursive: true });
  }
});

Deno.test("a missing working directory or command is a SpawnError naming it", () => {
  assert.throws(
    () => processSpawner.spawn({ command: "sh", args: [], cwd: "/definitely/not/here", env }),
    (err: unknown) =>
      err instanceof SpawnError &&
      /working directory \/definitely\/not\/here does not exist/.test(err.message),
  );
  assert.throws(
    () => processSpawner.spawn({ command: "/no/such/agent-binary", args: [], env }),
    (err: unknown) => err instanceof SpawnError && /not found or not executable/.test(err.message),
  );
});

Deno.test("a working directory the outpost may not read is reported as refused, not as missing", async () => {
  // Under the outpost's own flags Deno refuses any look at /proc/<pid>: the spawn must say so.
  const dir = await Deno.makeTempDir();
  try {
    const script = join(dir, "spawn.ts");
    const spawner = new URL("./process_spawner.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { processSpawner } from ${JSON.stringify(spawner)};
try {
  processSpawner.spawn({ command: "true", args: [], cwd: "/proc/self", env: {} });
  console.log("spawned");
} catch (err) {
  console.log((err as Error).message);
}
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...RUN_FLAGS, ...OUTPOST_PERMISSIONS, script],
      env: RUN_ENV,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const said = new TextDecoder().decode(out.stdout).trim();
    assert.doesNotMatch(said, /does not exist/);
    assert.match(said, /working directory \/proc\/self: .*access/, said);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
