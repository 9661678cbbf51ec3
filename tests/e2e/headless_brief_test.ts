// The workspace brief end to end: the real `agent -p` (release permission flags) reads the
// workdir's AGENTS.md and sends it in the system prompt on both wires, as the fake model
// server records it; a workdir without one sends none.

import assert from "node:assert/strict";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { runAgent, tempHome } from "./agent_process.ts";

const RULE = "Answer only from STATUS.md; never edit a file.";

/** The system prompt as the request carries it on either wire. */
function systemOf(body: Record<string, unknown> | null): string {
  const b = body as { system?: unknown; messages?: Array<{ role: string; content: unknown }> };
  if (b.system !== undefined) return JSON.stringify(b.system); // Messages wire
  return JSON.stringify(b.messages?.find((m) => m.role === "system")?.content ?? "");
}

for (const wire of ["chat_completions", "messages"] as const) {
  Deno.test(`the workdir's AGENTS.md reaches the system prompt (${wire} wire)`, async () => {
    const fake = await startFakeModelServer({
      models: [{ id: "served-model", max_model_len: 32768 }],
    });
    const home = await tempHome();
    try {
      const env = {
        home,
        AGENT_BASE_URL: fake.url,
        AGENT_PROVIDER: wire,
        AGENT_MEMORY_REFLECT: "0",
      };
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
    } finally {
      await fake.close();
      await Deno.remove(home, { recursive: true });
    }
  });
}
