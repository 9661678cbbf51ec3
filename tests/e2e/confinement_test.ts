// What confines a real `agent -p` started with exactly the flags of scripts/permissions.ts
// (docs/permissions.md): Deno refuses /proc and device paths (no --allow-all) with a clear
// one-line error, the file tools and the memory tool refuse paths outside the workspace and
// the memory root while the normal paths work, and (the documented gap) a shell command is a
// subprocess that Deno does not confine.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";

Deno.test("Deno refuses /proc paths under the agent's flags: one clear line, exit 1, no crash", async () => {
  await using t = await headlessSetup();
  const workdir = await runAgent(["-p", "--workdir", "/proc/self", "--", "hi"], t.env);
  assert.equal(workdir.code, 1);
  assert.equal(
    workdir.stderr.trim(),
    "agent: workdir /proc/self is a system folder (/proc); choose a project folder of its own",
  );
  t.fake.enqueue(reply().text("done"));
  const report = await runAgent(
    ["-p", "--workdir", t.work, "--output", "/proc/self/fd/2", "--", "hi"],
    t.env,
  );
  assert.equal(report.code, 1);
  assert.match(
    report.stderr,
    /^agent: cannot write the report to \/proc\/self\/fd\/2: Requires all access/m,
  );
  assert.doesNotMatch(report.stderr, /^\s+at /m, "no stack trace");
});

Deno.test("file and memory tools refuse paths outside their roots; inside works; shell is not confined by Deno", async () => {
  await using t = await headlessSetup();
  await Deno.writeTextFile(`${t.work}/notes.txt`, "inside\n");
  await Deno.writeTextFile(`${t.home}/outside.txt`, "secret\n");
  await Deno.symlink(t.home, `${t.work}/up`);
  t.fake.enqueue(
    reply()
      .tool("view", { path: `${t.home}/outside.txt` }, { id: "abs" })
      .tool("view", { path: "up/outside.txt" }, { id: "link" })
      .tool("create", { path: "../escape.txt", file_text: "x\n" }, { id: "escape" })
      .tool("memory", { command: "view", path: "/memories/../../outside.txt" }, { id: "mem" })
      .tool("view", { path: "notes.txt" }, { id: "inside" })
      .tool("create", { path: "out/new.txt", file_text: "made\n" }, { id: "made" })
      .tool("shell", { command: "head -c 6 /proc/self/status" }, { id: "shell" }),
  );
  t.fake.enqueue(reply().text("Checked.").usage(60, 4));
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--", "probe the walls"],
    t.env,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).outcome, "ok");

  const last = t.fake.requests.at(-1)!.body as {
    messages: Array<{ role: string; tool_call_id?: string; content?: unknown }>;
  };
  const result = (id: string) =>
    String(last.messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content);
  assert.match(result("abs"), /path leaves the workspace/);
  assert.match(result("link"), /resolves \(through a symlink\) outside the workspace/);
  assert.match(result("escape"), /path leaves the workspace/);
  assert.match(result("mem"), /refused \(traversal\)/);
  assert.doesNotMatch(result("mem"), /secret/);
  for (const id of ["abs", "link", "escape", "mem"]) {
    assert.doesNotMatch(result(id), /secret/, `${id} did not read the outside file`);
  }
  assert.match(result("inside"), /inside/);
  assert.equal(await Deno.readTextFile(`${t.work}/out/new.txt`), "made\n");
  await assert.rejects(Deno.stat(`${t.home}/escape.txt`), Deno.errors.NotFound);
  // The wall Deno does not build: a subprocess reads /proc freely (the sandbox and the
  // container are what confine commands).
  assert.match(result("shell"), /Name:/);
  t.fake.assertNoViolations();
});
