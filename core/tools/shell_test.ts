import assert from "node:assert/strict";
import { shellEnv, shellTool } from "./shell.ts";
import { ToolInputError } from "./text_edit.ts";
import { tempWorkspace } from "./test_workspace.ts";

/**
 * Whether a process still runs. A killed process whose new parent has not reaped it yet is a
 * zombie: `kill -0` still succeeds on it, but it runs nothing, so it counts as dead.
 */
async function isRunning(pid: number): Promise<boolean> {
  let stat: string;
  try {
    stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    // No /proc (not Linux): fall back to kill -0.
    return (await new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" }).output())
      .success;
  }
  // Format: "pid (comm) S ..."; comm may hold spaces or parentheses, so read after the last ")".
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

Deno.test("shell captures the exit code and both output streams", async () => {
  await using ws = await tempWorkspace();
  const failed = await ws.run(shellTool, { command: "echo to-out; echo to-err >&2; exit 3" });
  assert.equal(failed.is_error, true);
  const [status, ...body] = failed.content.split("\n");
  assert.equal(status, "exit code 3");
  assert.deepEqual(body.sort(), ["to-err", "to-out"]);
  const ok = await ws.run(shellTool, { command: "printf 'done\\n'" });
  assert.deepEqual(ok, { content: "exit code 0\ndone", is_error: false });
  const silent = await ws.run(shellTool, { command: "true" });
  assert.deepEqual(silent, { content: "exit code 0", is_error: false });
});

Deno.test("shell runs in the workspace directory", async () => {
  await using ws = await tempWorkspace({ "here.txt": "here\n" });
  const pwd = await ws.run(shellTool, { command: "pwd; cat here.txt; echo made > made.txt" });
  assert.equal(pwd.content, `exit code 0\n${ws.dir}\nhere`);
  assert.equal(await ws.read("made.txt"), "made\n");
});

Deno.test("a timeout kills the whole process group, background children too", async () => {
  await using ws = await tempWorkspace();
  // Two background children record their PIDs: one keeps the output pipe open, one detaches
  // its output (so nothing but the group kill can stop it). The foreground waits until both
  // records exist, so the kill cannot come first, then blocks. Every sleep outlives the test.
  const command = [
    "(sh -c 'echo $$ > piped.tmp && mv piped.tmp piped.pid; exec sleep 30') &",
    "(sh -c 'echo $$ > quiet.tmp && mv quiet.tmp quiet.pid; exec sleep 600') >/dev/null 2>&1 &",
    "while [ ! -f piped.pid ] || [ ! -f quiet.pid ]; do :; done",
    "echo $$ > fg.pid",
    "echo ready",
    "exec sleep 30",
  ].join("\n");
  const pids: number[] = [];
  try {
    const out = await ws.run(shellTool, { command, timeout_s: 1 });
    for (const name of ["fg", "piped", "quiet"]) pids.push(Number(await ws.read(`${name}.pid`)));
    assert.equal(out.content, "killed after 1s timeout\nready");
    assert.equal(out.is_error, true);
    assert.equal(new Set(pids).size, 3);
    for (const pid of pids) {
      assert.equal(await isRunning(pid), false, `process ${pid} must be dead`);
    }
  } finally {
    // Only if the assertion failed: do not leave a stray sleep behind.
    for (const pid of pids) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* already gone, as it should be */ }
    }
  }
});

Deno.test("a timeout is an error even when sh itself exited 0 first", async () => {
  await using ws = await tempWorkspace();
  // sh exits at once, but the background sleep holds the output pipe open until the kill.
  const out = await ws.run(shellTool, { command: "sleep 30 & echo hi", timeout_s: 0.5 });
  assert.deepEqual(out, { content: "killed after 0.5s timeout\nhi", is_error: true });
});

Deno.test("a command ended by a signal says which", async () => {
  await using ws = await tempWorkspace();
  const out = await ws.run(shellTool, { command: "echo bye; kill -TERM $$" });
  assert.deepEqual(out, { content: "killed by signal SIGTERM\nbye", is_error: true });
});

Deno.test("a vanished workdir is reported, not thrown", async () => {
  await using ws = await tempWorkspace();
  const gone = `${ws.base}/gone`;
  const out = await shellTool.execute({ command: "true" }, { ...ws.ctx(), workdir: gone });
  assert.equal(out.type, "result");
  assert.match(out.content, new RegExp(`^exit code 127\ncould not start sh in ${gone}: `));
});

Deno.test("a fractional timeout is honoured", async () => {
  await using ws = await tempWorkspace();
  const out = await ws.run(shellTool, { command: "echo started; exec sleep 30", timeout_s: 0.3 });
  assert.equal(out.content, "killed after 0.3s timeout\nstarted");
});

Deno.test("an abort from the run interrupts the command and kills its group", async () => {
  await using ws = await tempWorkspace();
  const fifo = `${ws.dir}/ready.fifo`;
  assert.ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
  const controller = new AbortController();
  const running = shellTool.execute(
    { command: "echo $$ > pid; echo go > ready.fifo; exec sleep 30", timeout_s: 60 },
    ws.ctx(controller.signal),
  );
  // Opening the FIFO for reading completes once the command opens it for writing.
  const reader = await Deno.open(fifo, { read: true });
  const buf = new Uint8Array(16);
  await reader.read(buf);
  reader.close();
  controller.abort();
  const out = await running;
  assert.deepEqual(out, { type: "result", content: "interrupted", is_error: true });
  assert.equal(await isRunning(Number(await ws.read("pid"))), false);
});

Deno.test("an already aborted run starts no command", async () => {
  await using ws = await tempWorkspace();
  const controller = new AbortController();
  controller.abort();
  const out = await shellTool.execute({ command: "echo ran > ran.txt" }, ws.ctx(controller.signal));
  assert.deepEqual(out, { type: "result", content: "interrupted", is_error: true });
  await assert.rejects(Deno.stat(`${ws.dir}/ran.txt`), Deno.errors.NotFound);
});

Deno.test("output up to 30,000 characters is returned whole", async () => {
  await using ws = await tempWorkspace();
  const out = await ws.run(shellTool, { command: "head -c 30000 /dev/zero | tr '\\0' a" });
  assert.equal(out.content, `exit code 0\n${"a".repeat(30_000)}`);
});

Deno.test("longer output keeps its head and its real tail, and says how much was cut", async () => {
  await using ws = await tempWorkspace();
  // 2,000,000 characters of body, then a final line that must survive.
  const command = "head -c 2000000 /dev/zero | tr '\\0' b; echo; echo FINAL-LINE";
  const out = await ws.run(shellTool, { command });
  const total = 2_000_000 + 1 + "FINAL-LINE\n".length;
  const head = 21_000; // 70% of 30,000
  const tail = 7_500; // 25% of 30,000
  const expected =
    `exit code 0\n${"b".repeat(head)}\n… [${total - head - tail} characters cut] …\n` +
    `${"b".repeat(tail - 12)}\nFINAL-LINE`;
  assert.equal(out.content, expected);
});

Deno.test("multi-byte characters split across pipe reads are not mangled", async () => {
  // Two ASCII bytes, then 25,000 three-byte characters (75,002 bytes, more than a pipe holds):
  // most page-sized read boundaries fall inside a character.
  const body = "xy" + "€".repeat(25_000);
  await using ws = await tempWorkspace({ "euro.txt": body });
  const out = await ws.run(shellTool, { command: "cat euro.txt" });
  assert.ok(!out.content.includes("\ufffd"), "no replacement characters");
  assert.equal(out.content, `exit code 0\n${body}`);
});

Deno.test("bad shell input gets a clear error and runs nothing", async () => {
  await using ws = await tempWorkspace();
  for (const command of [undefined, "", "   ", 42]) {
    await assert.rejects(
      ws.run(shellTool, { command }),
      (err: unknown) =>
        err instanceof ToolInputError && err.message === "command must be a non-empty string",
    );
  }
  for (const timeout_s of [-1, 0, "soon", Number.NaN, true]) {
    await assert.rejects(
      ws.run(shellTool, { command: "echo ran > ran.txt", timeout_s }),
      (err: unknown) =>
        err instanceof ToolInputError &&
        err.message.startsWith("timeout_s must be a positive number of seconds (at most 1800)"),
    );
  }
  await assert.rejects(Deno.stat(`${ws.dir}/ran.txt`), Deno.errors.NotFound);
  // null (what strict tool schemas send for an omitted optional) means the default.
  const ok = await ws.run(shellTool, { command: "echo fine", timeout_s: null });
  assert.equal(ok.content, "exit code 0\nfine");
});

Deno.test("the shell's environment lacks the agent's model keys and keeps the rest", () => {
  const env = shellEnv({
    PATH: "/usr/bin",
    HOME: "/home/a",
    AGENT_API_KEY: "k1",
    ANTHROPIC_API_KEY: "k2",
    OPENAI_API_KEY: "k3",
    GITHUB_TOKEN: "kept: the user's own tools may need it",
  });
  assert.deepEqual(env, {
    PATH: "/usr/bin",
    HOME: "/home/a",
    GITHUB_TOKEN: "kept: the user's own tools may need it",
  });
});
