// `agent -p` in a pipeline: piped stdin alone is the prompt, with a prompt it is attached
// after it, past the bound it is refused with the reason; stdin /dev/null (how the outpost
// starts its children) changes nothing; and a reader that goes away early (`| head -1`) is no
// error.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { agentArgs, childEnv, headlessSetup, runAgent } from "./agent_process.ts";
import { lastUserText } from "./interactive_tmux.ts";
import { MAX_STDIN_BYTES } from "../../cli/stdin_prompt.ts";

Deno.test("piped stdin alone is the prompt: echo hi | agent -p", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().text("Hello back."));
  const r = await runAgent(["-p", "--workdir", t.work], t.env, t.work, "hi\n");
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Hello back\./);
  assert.equal(lastUserText(t.fake.requests[0]!.body), "hi\n");
});

Deno.test("piped stdin with a prompt is attached after it", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().text("Two notes."));
  const notes = "- buy milk\n- call Ana\n";
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--", "summarize notes"],
    t.env,
    t.work,
    notes,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    lastUserText(t.fake.requests[0]!.body),
    "summarize notes\n\n<stdin>\n- buy milk\n- call Ana\n</stdin>",
  );
});

Deno.test("stdin past the bound is refused with the reason; nothing is sent", async () => {
  await using t = await headlessSetup();
  const big = "x".repeat(MAX_STDIN_BYTES + 1);
  const r = await runAgent(["-p", "--workdir", t.work, "--", "summarize"], t.env, t.work, big);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`stdin has more than ${MAX_STDIN_BYTES} bytes`));
  assert.equal(t.fake.requests.length, 0);
});

Deno.test("stdin /dev/null, as the outpost starts its children: the prompt as given", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().text("Done."));
  const r = await runAgent(["-p", "--workdir", t.work, "--", "just this"], t.env, t.work);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(lastUserText(t.fake.requests[0]!.body), "just this");
});

Deno.test("agent sessions with its reader gone (| head -1): no Broken pipe, exit 0", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().text("One."), reply().text("Two."));
  for (const prompt of ["first", "second"]) {
    const r = await runAgent(["-p", "--workdir", t.work, "--", prompt], t.env, t.work);
    assert.equal(r.code, 0, r.stderr);
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: [...await agentArgs(), "sessions"],
    env: childEnv(t.env),
    clearEnv: true,
    cwd: t.work,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // The reader closes before the first line is written, as `head -1` does after its line.
  await child.stdout.cancel();
  const out = await child.output().catch(() => undefined);
  const status = out ?? await child.status;
  const stderr = out ? new TextDecoder().decode(out.stderr) : "";
  assert.equal(status.code, 0, stderr);
  assert.doesNotMatch(stderr, /Broken pipe|BrokenPipe/i);
});

Deno.test("a stdin left open and silent does not hang a run that has its prompt", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().text("Went on."));
  const child = new Deno.Command(Deno.execPath(), {
    args: [...await agentArgs(), "-p", "--workdir", t.work, "--", "go on"],
    env: childEnv(t.env),
    clearEnv: true,
    cwd: t.work,
    stdin: "piped", // a parent that never writes nor closes it
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = await child.output();
  await child.stdin.close().catch(() => {});
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.match(stderr, /stdin is open but sent nothing in 3 s; going on without it/);
  assert.equal(lastUserText(t.fake.requests[0]!.body), "go on");
});
