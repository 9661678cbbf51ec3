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
