// Issue 14 on the interactive approval path: a real `agent` in tmux, strict mode, the operator
// approving each of the model's shell calls. Approval lets a command run; it must not let it
// out of the sandbox. The approval prompt says which sandbox the command will run in.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { TmuxAgent } from "./interactive_tmux.ts";
import { tempHome } from "./agent_process.ts";
import {
  assertNoCanaryUnder,
  attackReply,
  attacks,
  CANARY_ENV,
  checkAttacks,
  checkNoEscape,
  plantProject,
  plantSecrets,
  toolResultsById,
} from "./sandbox_attack.ts";

const bothPeers = () => probes.tmux() ?? probes.bubblewrap();

peerTest(
  "interactive: approved shell calls still cannot reach keys, home or network",
  bothPeers,
  async () => {
    const fake = await startFakeModelServer({
      models: [{ id: "served-model", max_model_len: 32768 }],
    });
    const home = await tempHome();
    const targets = {
      agentHome: `${home}/.agent`,
      home,
      other: `${home}/other-workspace`,
      port: Number(new URL(fake.url).port),
    };
    await plantSecrets(targets);
    await Deno.mkdir(`${home}/work`);
    await plantProject(`${home}/work`);
    const agent = await TmuxAgent.start({
      home,
      args: ["--mode", "strict"],
      env: {
        AGENT_MEMORY_REFLECT: "0",
        AGENT_BASE_URL: fake.url,
        AGENT_PROVIDER: "chat_completions",
        ...CANARY_ENV,
      },
    });
    try {
      await agent.idle();
      const list = attacks(targets);
      fake.enqueue(attackReply(list), reply().text("Looked around."));
      await agent.submit("look around");
      for (const [i, attack] of list.entries()) {
        // This call's preview followed by the question (each question is erased once answered).
        const preview = `$ ${attack.command.slice(0, 24)}`.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        const screen = await agent.waitFor(new RegExp(`${preview}[\\s\\S]*Run this command\\?`));
        if (i === 0) assert.match(screen, /sandbox: auto \(bubblewrap, network off\)\)/);
        await agent.keys("Enter"); // Yes
      }
      await agent.waitFor("Looked around.");
      checkAttacks(list, toolResultsById(fake.requests.at(-1)!.body));
      await checkNoEscape(targets);
      await agent.keys("C-q");
      assert.equal(await agent.waitForExit(), 0);
      await assertNoCanaryUnder(home, [`${targets.agentHome}/settings.toml`]);
      fake.assertNoViolations();
    } finally {
      await agent.close();
      await fake.close();
      await Deno.remove(home, { recursive: true });
    }
  },
);

peerTest("interactive: the banner says when the sandbox is off", probes.tmux, async () => {
  const fake = await startFakeModelServer();
  const agent = await TmuxAgent.start({
    env: { AGENT_MEMORY_REFLECT: "0", AGENT_BASE_URL: fake.url, AGENT_SANDBOX_MODE: "off" },
  });
  try {
    const screen = await agent.idle();
    assert.match(
      screen,
      /warning: sandbox is off \(env AGENT_SANDBOX_MODE\): the model's shell commands run unsandboxed/,
    );
  } finally {
    await agent.close();
    await fake.close();
  }
});
