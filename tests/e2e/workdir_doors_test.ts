// Issue 37 §2, the CLI's doors as the user meets them: `agent -p --workdir`, `agent --resume`
// of a session saved in a protected folder, and the interactive start. Each protected place
// is refused with one line and exit 1 before any request reaches the model server. The
// outpost's doors are server/routes/workdir_doors_test.ts.

import assert from "node:assert/strict";
import { dirname } from "../../core/path.ts";
import { type HeadlessSetup, headlessSetup, runAgent } from "./agent_process.ts";
import { reply } from "../fakes/model_server.ts";
import { TmuxAgent } from "./interactive_tmux.ts";
import { peerTest, probes } from "../peers.ts";

function badWorkdirs(t: HeadlessSetup): [string, RegExp][] {
  const agentHome = `${t.home}/.agent`;
  return [
    ["/", /is the filesystem root/],
    ["/etc", /is a system folder \(\/etc\)/],
    ["/proc/self", /is a system folder \(\/proc\)/],
    ["/usr/lib", /is a system folder \(\/usr\)/],
    ["/var/lib", /is a system folder \(\/var\)/],
    [agentHome, /is the agent home/],
    [`${agentHome}/sessions`, /lies inside the agent home/],
    [t.home, /is your home folder/],
    [dirname(t.home), /holds the agent home/],
  ];
}

Deno.test("agent -p --workdir refuses every protected folder: one line, exit 1, no request", async () => {
  await using t = await headlessSetup();
  await Deno.mkdir(`${t.home}/.agent/sessions`, { recursive: true });
  for (const [workdir, why] of badWorkdirs(t)) {
    const r = await runAgent(["-p", "--workdir", workdir, "--", "hi"], t.env);
    assert.equal(r.code, 1, `${workdir}: ${r.stderr}`);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, `one line: ${r.stderr}`);
    assert.ok(lines[0]!.startsWith(`agent: workdir ${workdir} `), lines[0]);
    assert.match(lines[0]!, why, workdir);
  }
  // A process started in a protected folder is refused the same way (no --workdir).
  const inHome = await runAgent(["-p", "--", "hi"], t.env, t.home);
  assert.equal(inHome.code, 1);
  assert.match(inHome.stderr, /is your home folder/);
  assert.equal(t.fake.allRequests.length, 0, "nothing reached the model server");
});

Deno.test("agent --resume of a session saved in a protected folder is refused", async () => {
  await using t = await headlessSetup();
  t.fake.enqueue(reply().text("first"));
  const first = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--", "hi"],
    t.env,
  );
  assert.equal(first.code, 0, first.stderr);
  const id = JSON.parse(first.stdout).session_id as string;
  // The journal names the folder the session works in; point it at the agent home.
  const journal = `${t.home}/.agent/sessions/${id}.jsonl`;
  const text = await Deno.readTextFile(journal);
  await Deno.writeTextFile(
    journal,
    text.replace(`"workdir":${JSON.stringify(t.work)}`, `"workdir":"${t.home}/.agent"`),
  );
  const before = t.fake.allRequests.length;
  const r = await runAgent(["-p", "--resume", id, "--", "go on"], t.env);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(
    r.stderr.trim(),
    `agent: workdir ${t.home}/.agent is the agent home (keys, sessions, the outpost's data); ` +
      "choose a project folder of its own",
  );
  assert.equal(t.fake.allRequests.length, before, "nothing more reached the model server");
});

peerTest(
  "interactive agent --workdir refuses a protected folder before the prompt opens",
  probes.tmux,
  async () => {
    const agent = await TmuxAgent.start({ args: ["--workdir", "/etc"] });
    try {
      assert.equal(await agent.waitForExit(), 1);
      const screen = await agent.screen();
      assert.match(
        screen,
        /agent: workdir \/etc is a system folder \(\/etc\); choose a project folder of its own/,
      );
    } finally {
      await agent.close();
    }
  },
);
