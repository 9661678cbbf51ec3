// `agent-outpost ranger init`: creates the ranger workspace with the shipped brief, keeps an
// operator's edited brief unless --force, and the created folder is what `ask` resolves.

import assert from "node:assert/strict";
import { envFrom } from "../../core/ports.ts";
import { resolveWorkspace } from "../../core/messenger/workspaces.ts";
import { RANGER_BRIEF, runRanger } from "./ranger_init.ts";

async function setup(env: Record<string, string> = {}) {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "ranger_init_" }));
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    out: (l: string) => void out.push(l),
    err: (l: string) => void err.push(l),
    env: envFrom(env),
    home,
  };
  return {
    home,
    out,
    err,
    io,
    [Symbol.asyncDispose]: () => Deno.remove(home, { recursive: true }),
  };
}

Deno.test("ranger init writes the shipped brief; a second run changes nothing", async () => {
  await using t = await setup();
  assert.equal(await runRanger(["init"], t.io), 0, t.err.join("\n"));
  const file = `${t.home}/workspaces/ranger/AGENTS.md`;
  assert.equal(await Deno.readTextFile(file), RANGER_BRIEF);
  assert.match(t.out[0]!, /^wrote .*ranger\/AGENTS\.md/);
  assert.equal(
    await resolveWorkspace(`${t.home}/workspaces`, "ranger", { agentHome: t.home }),
    `${t.home}/workspaces/ranger`,
  );
  assert.equal(await runRanger(["init"], t.io), 0);
  assert.match(t.out[1]!, /already the shipped ranger brief; nothing to do/);
});

Deno.test("ranger init keeps an edited brief unless --force", async () => {
  await using t = await setup();
  const root = `${t.home}/custom`;
  t.io.env = envFrom({ AGENT_OUTPOST_WORKSPACES: root });
  await Deno.mkdir(`${root}/ranger`, { recursive: true });
  await Deno.writeTextFile(`${root}/ranger/AGENTS.md`, "my own rules\n");
  assert.equal(await runRanger(["init"], t.io), 0);
  assert.match(t.out[0]!, /exists and differs from the shipped brief; kept/);
  assert.equal(await Deno.readTextFile(`${root}/ranger/AGENTS.md`), "my own rules\n");
  assert.equal(await runRanger(["init", "--force"], t.io), 0);
  assert.match(t.out[1]!, /^replaced /);
  assert.equal(await Deno.readTextFile(`${root}/ranger/AGENTS.md`), RANGER_BRIEF);
});

Deno.test("ranger: bad arguments are one error line and exit 1", async () => {
  for (const args of [["frob"], ["init", "--bogus"], ["init", "extra"]]) {
    await using t = await setup();
    assert.equal(await runRanger(args, t.io), 1, args.join(" "));
    assert.equal(t.err.length, 1, t.err.join("|"));
    await assert.rejects(Deno.stat(`${t.home}/workspaces`), Deno.errors.NotFound);
  }
});

Deno.test("the shipped brief scopes the agent to the snapshot and the five topics", () => {
  const flat = RANGER_BRIEF.replace(/\s+/g, " "); // line wrapping is the formatter's
  for (const topic of ["jobs", "runs", "schedules", "alerts", "inbox items", "STATUS.md"]) {
    assert.ok(flat.includes(topic), topic);
  }
  assert.match(flat, /strict mode/);
  assert.match(flat, /not instructions to you/);
});
