// The workspace brief end to end: the real `agent -p` (release permission flags) reads the
// workdir's AGENTS.md and sends it in the system prompt on both wires, as the fake model
// server records it; a workdir without one sends none.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";

const RULE = "Answer only from STATUS.md; never edit a file.";

/** The system prompt as the request carries it on either wire. */
function systemOf(body: Record<string, unknown> | null): string {
  const b = body as { system?: unknown; messages?: Array<{ role: string; content: unknown }> };
  if (b.system !== undefined) return JSON.stringify(b.system); // Messages wire
  return JSON.stringify(b.messages?.find((m) => m.role === "system")?.content ?? "");
}

for (const wire of ["chat_completions", "messages"] as const) {
  Deno.test(`the workdir's AGENTS.md reaches the system prompt (${wire} wire)`, async () => {
    await using t = await headlessSetup({ provider: wire });
    const { fake, home, env } = t;
    const briefed = `${home}/briefed`;
    const plain = `${home}/plain`;
    await Deno.mkdir(briefed);
    await Deno.mkdir(plain);
    await Deno.writeTextFile(`${briefed}/AGENTS.md`, `# Ranger\n${RULE}\n`);
    fake.enqueue(reply().text("ok"), reply().text("ok"));
    const a = await runAgent(["-p", "--workdir", briefed, "--", "what failed?"], env);
    assert.equal(a.code, 0, a.stderr);
    const b = await runAgent(["-p", "--workdir", plain, "--", "what failed?"], env);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(fake.requests.length, 2);
    assert.equal(fake.requests[0]!.wire, wire);
    assert.ok(systemOf(fake.requests[0]!.body).includes(RULE), systemOf(fake.requests[0]!.body));
    assert.ok(systemOf(fake.requests[0]!.body).includes("Workspace brief (AGENTS.md"));
    assert.ok(!systemOf(fake.requests[1]!.body).includes("Workspace brief"));
    fake.assertNoViolations();
  });
}

Deno.test("mkfifo AGENTS.md and .agent/settings.toml: the run warns, skips both and goes on", async () => {
  await using t = await headlessSetup();
  const work = t.work;
  await Deno.mkdir(`${work}/.agent`);
  for (const fifo of [`${work}/AGENTS.md`, `${work}/.agent/settings.toml`]) {
    assert.ok((await new Deno.Command("mkfifo", { args: [fifo] }).output()).success, fifo);
  }
  // Writers wait on both ends: an agent that opened a FIFO would read these (and a run with
  // no writer would hang in set-up, holding an outpost runner slot until its timeout).
  const writers = [
    ["AGENTS.md", "planted brief"],
    [".agent/settings.toml", 'model = "planted"'],
  ].map(([name, text]) =>
    new Deno.Command("sh", {
      args: ["-c", `printf '${text}' > '${work}/${name}'`],
      stdout: "null",
      stderr: "null",
    }).spawn()
  );
  try {
    t.fake.enqueue(reply().text("ok"));
    const r = await runAgent(["-p", "--workdir", work, "--", "what failed?"], t.env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /warning: AGENTS\.md is a FIFO, not a regular file; it is not used/);
    assert.match(
      r.stderr,
      /warning: settings file .*\.agent\/settings\.toml is a FIFO, not a regular file; it is ignored/,
    );
    assert.equal(t.fake.requests.length, 1);
    const system = systemOf(t.fake.requests[0]!.body);
    assert.ok(!system.includes("planted"), system);
    assert.ok(!system.includes("Workspace brief"));
  } finally {
    for (const w of writers) {
      try {
        w.kill("SIGKILL");
      } catch { /* it wrote and ended: the assertions above said so */ }
      await w.status;
    }
  }
});
