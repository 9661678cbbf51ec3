// The shell tool, run for real: sandboxed (the default, bubblewrap) and with sandbox = "off".
// Processes are found by a unique token in their command line on the host's /proc, because a
// sandboxed command's `$$` is a pid in its own namespace, meaningless outside.

import assert from "node:assert/strict";
import { ToolInputError } from "./text_edit.ts";
import { tempWorkspace } from "../../tests/fakes/test_workspace.ts";
import { peerTest, probes } from "../../tests/peers.ts";
import { openSandbox, type SandboxMode } from "../sandbox/sandbox.ts";
import { envFrom } from "../ports.ts";
import { makeShellTool } from "./shell.ts";

/**
 * Host pids of live processes whose command line holds `token`. A killed process whose new
 * parent has not reaped it yet is a zombie: it runs nothing, so it does not count.
 */
async function livingWith(token: string): Promise<number[]> {
  const found: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    let cmdline: string;
    let stat: string;
    try {
      cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`);
      stat = await Deno.readTextFile(`/proc/${entry.name}/stat`);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) continue; // exited while we looked
      throw err;
    }
    // Format: "pid (comm) S ..."; comm may hold spaces or parentheses: read after the last ")".
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    if (cmdline.includes(token) && state !== "Z" && state !== "X") found.push(Number(entry.name));
  }
  return found;
}

/**
 * livingWith, asked again until nothing is left or 10 s have passed. Inside the sandbox a
 * detached (setsid) process is killed by the kernel when the namespace's init dies, which
 * completes a moment after the tool has seen bwrap exit; on a loaded machine that moment
 * can outlast a single look. What is still alive after 10 s was not killed at all.
 */
async function goneSoon(token: string): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const living = await livingWith(token);
    if (living.length === 0 || Date.now() > deadline) return living;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function uniqueSeconds(base: number): string {
  return `${base}.${crypto.getRandomValues(new Uint32Array(1))[0]}`;
}

Deno.test("shell captures the exit code and both output streams", async () => {
  await using ws = await tempWorkspace();
  const failed = await ws.run(ws.shell, { command: "echo to-out; echo to-err >&2; exit 3" });
  assert.equal(failed.is_error, true);
  const [status, ...body] = failed.content.split("\n");
  assert.equal(status, "exit code 3");
  assert.deepEqual(body.sort(), ["to-err", "to-out"]);
  const ok = await ws.run(ws.shell, { command: "printf 'done\\n'" });
  assert.deepEqual(ok, { content: "exit code 0\ndone", is_error: false });
  const silent = await ws.run(ws.shell, { command: "true" });
  assert.deepEqual(silent, { content: "exit code 0", is_error: false });
});

Deno.test("shell runs in the workspace directory", async () => {
  await using ws = await tempWorkspace({ "here.txt": "here\n" });
  const pwd = await ws.run(ws.shell, { command: "pwd; cat here.txt; echo made > made.txt" });
  assert.equal(pwd.content, `exit code 0\n${ws.dir}\nhere`);
  assert.equal(await ws.read("made.txt"), "made\n");
});

/**
 * A timeout kills what the command started, in both modes. Sandboxed, one child leaves the
 * process group with setsid, so only the end of the pid namespace can stop it.
 */
async function timeoutKillsEverything(mode: SandboxMode): Promise<void> {
  await using ws = await tempWorkspace();
  // Two background children: one keeps the output pipe open, one detaches its output. The
  // foreground prints ready once both were started, then blocks.
  const [piped, quiet, fg] = [uniqueSeconds(30), uniqueSeconds(600), uniqueSeconds(30)];
  const command = [
    `(sleep ${piped}) &`,
    `(${mode === "off" ? "" : "setsid "}sleep ${quiet}) >/dev/null 2>&1 &`,
    "echo ready",
    `exec sleep ${fg}`,
  ].join("\n");
  try {
    const out = await ws.run(ws.shellWith(mode), { command, timeout_s: 1 });
    assert.equal(out.content, "killed after 1s timeout\nready");
    assert.equal(out.is_error, true);
    for (const token of [piped, quiet, fg]) {
      assert.deepEqual(await goneSoon(token), [], `sleep ${token} must be dead`);
    }
  } finally {
    // Only if the assertion failed: do not leave a stray sleep behind.
    for (const token of [piped, quiet, fg]) {
      for (const pid of await livingWith(token)) Deno.kill(pid, "SIGKILL");
    }
  }
}

Deno.test("a timeout kills everything the command started (sandbox off)", () =>
  timeoutKillsEverything("off"));

// The sandboxed cases need bubblewrap: through the peer gate, skipped with the reason, or
// failed under AGENT_TEST_REQUIRE_PEERS=1.
peerTest(
  "a timeout kills everything the command started (sandbox auto)",
  probes.bubblewrap,
  () => timeoutKillsEverything("auto"),
);

Deno.test("unsandboxed, a timeout is an error even when sh itself exited 0 first", async () => {
  await using ws = await tempWorkspace();
  // sh exits at once, but the background sleep holds the output pipe open until the kill.
  const out = await ws.run(ws.shellWith("off"), { command: "sleep 30 & echo hi", timeout_s: 0.5 });
  assert.deepEqual(out, { content: "killed after 0.5s timeout\nhi", is_error: true });
});

peerTest(
  "sandboxed, what sh left in the background ends with it",
  probes.bubblewrap,
  async () => {
    await using ws = await tempWorkspace();
    // sh is the sandbox's main process: when it exits, bwrap's pid 1 exits and the kernel
    // kills the rest of the namespace, so the pipe closes at once, well before the timeout.
    const token = uniqueSeconds(30);
    const out = await ws.run(ws.shell, { command: `sleep ${token} & echo hi`, timeout_s: 60 });
    assert.deepEqual(out, { content: "exit code 0\nhi", is_error: false });
    assert.deepEqual(await livingWith(token), []);
  },
);

Deno.test("a command ended by a signal says which", async () => {
  await using ws = await tempWorkspace();
  const out = await ws.run(ws.shellWith("off"), { command: "echo bye; kill -TERM $$" });
  assert.deepEqual(out, { content: "killed by signal SIGTERM\nbye", is_error: true });
});

peerTest(
  "sandboxed, a command ended by a signal is bwrap's exit code 128 + the signal",
  probes.bubblewrap,
  async () => {
    await using ws = await tempWorkspace();
    const boxed = await ws.run(ws.shellWith("auto"), { command: "echo bye; kill -TERM $$" });
    assert.deepEqual(boxed, { content: "exit code 143\nbye", is_error: true });
  },
);

Deno.test("a vanished workdir is reported, not thrown", async () => {
  await using ws = await tempWorkspace();
  const gone = `${ws.base}/gone`;
  const out = await ws.shell.execute({ command: "true" }, { ...ws.ctx(), workdir: gone });
  assert.equal(out.type, "result");
  assert.match(out.content, new RegExp(`^exit code 127\ncould not start sh in ${gone}: `));
});

Deno.test("a fractional timeout is honoured", async () => {
  await using ws = await tempWorkspace();
  const out = await ws.run(ws.shell, { command: "echo started; exec sleep 30", timeout_s: 0.3 });
  assert.equal(out.content, "killed after 0.3s timeout\nstarted");
});

Deno.test("an abort from the run interrupts the command and kills its group", async () => {
  await using ws = await tempWorkspace();
  const fifo = `${ws.dir}/ready.fifo`;
  assert.ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success);
  const controller = new AbortController();
  const token = uniqueSeconds(30);
  const running = ws.shell.execute(
    { command: `echo go > ready.fifo; exec sleep ${token}`, timeout_s: 60 },
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
  assert.deepEqual(await livingWith(token), []);
});

Deno.test("an already aborted run starts no command", async () => {
  await using ws = await tempWorkspace();
  const controller = new AbortController();
  controller.abort();
  const out = await ws.shell.execute({ command: "echo ran > ran.txt" }, ws.ctx(controller.signal));
  assert.deepEqual(out, { type: "result", content: "interrupted", is_error: true });
  await assert.rejects(Deno.stat(`${ws.dir}/ran.txt`), Deno.errors.NotFound);
});

Deno.test("output up to 30,000 characters is returned whole", async () => {
  await using ws = await tempWorkspace();
  const out = await ws.run(ws.shell, { command: "head -c 30000 /dev/zero | tr '\\0' a" });
  assert.equal(out.content, `exit code 0\n${"a".repeat(30_000)}`);
});

Deno.test("longer output keeps its head and its real tail, and says how much was cut", async () => {
  await using ws = await tempWorkspace();
  // 2,000,000 characters of body, then a final line that must survive.
  const command = "head -c 2000000 /dev/zero | tr '\\0' b; echo; echo FINAL-LINE";
  const out = await ws.run(ws.shell, { command });
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
  const out = await ws.run(ws.shell, { command: "cat euro.txt" });
  assert.ok(!out.content.includes("\ufffd"), "no replacement characters");
  assert.equal(out.content, `exit code 0\n${body}`);
});

Deno.test("bad shell input gets a clear error and runs nothing", async () => {
  await using ws = await tempWorkspace();
  for (const command of [undefined, "", "   ", 42]) {
    await assert.rejects(
      ws.run(ws.shell, { command }),
      (err: unknown) =>
        err instanceof ToolInputError && err.message === "command must be a non-empty string",
    );
  }
  for (const timeout_s of [-1, 0, "soon", Number.NaN, true]) {
    await assert.rejects(
      ws.run(ws.shell, { command: "echo ran > ran.txt", timeout_s }),
      (err: unknown) =>
        err instanceof ToolInputError &&
        err.message.startsWith("timeout_s must be a positive number of seconds (at most 1800)"),
    );
  }
  await assert.rejects(Deno.stat(`${ws.dir}/ran.txt`), Deno.errors.NotFound);
  // null (what strict tool schemas send for an omitted optional) means the default.
  const ok = await ws.run(ws.shell, { command: "echo fine", timeout_s: null });
  assert.equal(ok.content, "exit code 0\nfine");
});

Deno.test("with no bwrap on PATH the default sandbox refuses the call and runs nothing", async () => {
  await using ws = await tempWorkspace();
  const noBwrap = makeShellTool(openSandbox({
    mode: "auto",
    network: false,
    passEnv: [],
    workdir: ws.dir,
    hidden: [],
    places: { agentHome: `${ws.base}/.agent` },
    readOnly: [],
    env: envFrom({ PATH: `${ws.base}/no-such-bin` }),
    settingsPath: "/home/op/.agent/settings.toml",
  }));
  const out = await ws.run(noBwrap, { command: "echo ran > ran.txt" });
  assert.equal(out.is_error, true);
  assert.match(out.content, /^sandbox: bubblewrap is not installed \(no bwrap on PATH\): install/);
  // Marked as a refusal, so the loop reports it and a headless run does not end ok.
  const marked = await noBwrap.execute({ command: "echo ran > ran.txt" }, ws.ctx());
  assert.equal(marked.type === "result" && marked.refused, out.content);
  assert.match(out.content, /sandbox = "off" in \/home\/op\/\.agent\/settings\.toml/);
  await assert.rejects(Deno.stat(`${ws.dir}/ran.txt`), Deno.errors.NotFound);
});
