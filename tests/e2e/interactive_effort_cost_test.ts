// /effort, /cost and /tokens in a real pseudo-terminal, against the fake model server.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import {
  fakeCountTokens,
  type FakeModelServer,
  fakeTokenizeCount,
  reply,
  startFakeModelServer,
} from "../fakes/model_server.ts";
import { TmuxAgent, toolResults } from "./interactive_tmux.ts";

const QUIET = { AGENT_MEMORY_REFLECT: "0" };

function effortOf(body: Record<string, unknown> | null): unknown {
  return (body?.output_config as { effort?: string } | undefined)?.effort;
}

peerTest(
  "/effort: inline asks to confirm, bare opens the backend's picker, default clears",
  probes.tmux,
  async () => {
    // A Messages server without count_tokens (/tokens then says so, and asks only once).
    const fake = await startFakeModelServer({ countTokens: false });
    // base_url and no provider: the Messages wire, levels low … max.
    const agent = await TmuxAgent.start({ env: { ...QUIET, AGENT_BASE_URL: fake.url } });
    try {
      await agent.idle();
      await agent.submit("/effort high");
      await agent.waitFor(
        /Set reasoning effort to high\? \(this invalidates the prompt cache\)/,
      );
      await agent.keys("n", "Enter");
      await agent.waitFor("effort unchanged");
      await agent.idle();

      await agent.submit("/effort high");
      await agent.waitFor(/Set reasoning effort to high\?/, { count: 2 });
      await agent.keys("y", "Enter");
      await agent.waitFor("effort: high · takes effect on the next reply");
      let screen = await agent.idle();
      assert.match(screen, /· effort high ·/);
      fake.enqueue(reply().text("Thought hard."));
      await agent.submit("think");
      await agent.waitFor("Thought hard.");
      assert.equal(effortOf(fake.requests[0]!.body), "high");

      await agent.submit("/effort bogus");
      await agent.waitFor(
        'Effort "bogus" is not valid for the Messages wire; valid levels: low, medium, high, xhigh, max.',
      );

      await agent.submit("/effort");
      screen = await agent.waitFor(/Reasoning effort for the Messages wire/);
      assert.match(screen, /default\s+no override: the server decides/);
      assert.match(screen, /❯ high\s+current/);
      assert.match(screen, /xhigh[\s\S]*max/);
      await agent.keys("Up", "Up", "Up");
      await agent.waitFor(/❯ default/);
      await agent.keys("Enter");
      await agent.waitFor("effort: default (no override)");
      fake.enqueue(reply().text("Default effort."));
      await agent.submit("again");
      await agent.waitFor("Default effort.");
      assert.equal(effortOf(fake.requests[1]!.body), undefined);

      // The model can only propose; the human approves.
      fake.enqueue(
        reply().tool("propose_settings", { effort: "max", reason: "a hard proof" }),
        reply().text("Working at max."),
      );
      await agent.submit("prove it");
      await agent.waitFor(/The model proposes reasoning effort max \(a hard proof\)\. Apply it\?/);
      await agent.keys("y", "Enter");
      screen = await agent.waitFor("Working at max.");
      assert.equal(effortOf(fake.requests[3]!.body), "max");
      assert.match(toolResults(fake.requests[3]!.body).at(-1)!, /approved: effort is now max/);
      screen = await agent.idle();
      assert.match(screen, /· effort max ·/);

      const absent = "Counted by the server: not available " +
        "(the server has no token-counting endpoint)";
      await agent.submit("/tokens");
      await agent.waitFor(absent);
      await agent.submit("/tokens");
      await agent.waitFor(absent, { count: 2 });
      assert.equal(fake.countRequests.length, 1, "the missing endpoint is asked once per wire");
      fake.assertNoViolations();
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);

function pricedSettings(msgs: FakeModelServer, chat: FakeModelServer): string {
  return [
    `[provider_keys]`,
    `priced-msgs = "sk-msgs-0001"`,
    `priced-chat = "sk-chat-0001"`,
    `[[providers]]`,
    `id = "priced-msgs"`,
    `provider = "messages"`,
    `base_url = "${msgs.url}"`,
    `model = "claude-sonnet-4-5"`,
    `[[providers]]`,
    `id = "priced-chat"`,
    `provider = "chat_completions"`,
    `base_url = "${chat.url}"`,
    `model = "gpt-4.1"`,
    "",
  ].join("\n");
}

peerTest(
  "/cost and /tokens: running total, cache rates, off/on, unpriced models, provider swap",
  probes.tmux,
  async () => {
    const msgs = await startFakeModelServer({
      models: [{ id: "claude-sonnet-4-5", max_model_len: 200000 }],
    });
    const chat = await startFakeModelServer({ models: [{ id: "gpt-4.1" }] });
    const agent = await TmuxAgent.start({
      env: { ...QUIET, AGENT_PRESET: "priced-msgs", AGENT_PRICING: "1" },
      settings: pricedSettings(msgs, chat),
    });
    try {
      let screen = await agent.idle();
      assert.match(
        screen,
        /─ claude-sonnet-4-5 · priced-msgs · mode auto · effort default · ctx 0\/200k · \$0\.0000 ─/,
      );

      // $3 / $15 per million: 10,000 in + 2,000 out = $0.03 + $0.03.
      msgs.enqueue(reply().text("First.").usage(10_000, 2_000));
      await agent.submit("one");
      screen = await agent.waitFor(/ctx 12k\/200k · \$0\.06 ─/);
      await agent.submit("/cost");
      await agent.waitFor(
        /running total \$0\.06 on priced-msgs over 1 reply \(claude-sonnet-4-5: \$3 in \/ \$15 out per million tokens/,
      );
      // Cache writes and reads at the cache rates: 1,000×3 + 2,000×3.75 + 10,000×0.3.
      msgs.enqueue(reply().text("Second.").usage(1_000, 0, { read: 10_000, creation: 2_000 }));
      await agent.submit("two");
      await agent.waitFor(/· \$0\.07 ─/);

      await agent.submit("/tokens");
      // Billed in full the second prompt would have cost 13,000×3: $0.0255 saved.
      screen = await agent.waitFor(/Running cost: \$0\.07 on priced-msgs; saved \$0\.03/);
      const report = screen.slice(screen.lastIndexOf("Context by component (estimates"));
      for (const row of ["system prompt", "memory index", "tools", "history", "total"]) {
        assert.match(report, new RegExp(`  ${row} +[\\d,]+`), report);
      }
      assert.match(report, /history +[\d,]+ {2}\(4 messages\)/);
      assert.match(report, /total +[\d,]+ {2}of 200,000 \(\d+%\)/);
      assert.match(
        report,
        /Last turn \(server\): prompt 13,000 \(10,000 cached, 2,000 written\) · output 0/,
      );
      assert.match(report, /Session: input 23,000 · output 2,000/);
      assert.match(
        report,
        /Prompt cache: 43% of the session's prompt tokens read from the cache \(10,000 read, 2,000 written\)/,
      );
      // The whole prompt as the server counts it: the next request's system prompt, tools and
      // history, sent to count_tokens.
      const counted = msgs.countRequests.at(-1)!;
      assert.equal(counted.wire, "count_tokens");
      const n = fakeCountTokens(counted.body!).toLocaleString("en-US");
      assert.match(
        report,
        new RegExp(`Counted by the server: ${n} tokens \\(whole prompt, \\d+% of 200,000\\)`),
      );
      const lastCall = msgs.requests.at(-1)!.body!;
      assert.deepEqual(counted.body!.system, lastCall.system);
      assert.deepEqual(counted.body!.tools, lastCall.tools);
      assert.match(
        JSON.stringify(counted.body!.messages),
        /one[\s\S]*First\.[\s\S]*two[\s\S]*Second\./,
      );

      // off resets and hides; on starts again at zero.
      await agent.submit("/cost off");
      await agent.waitFor("cost display off; the running total is reset");
      screen = await agent.idle();
      assert.match(screen.split("\n").at(-2)!, /ctx 13k\/200k ─$/);
      await agent.submit("/cost");
      await agent.waitFor("cost display is off (/cost on enables it)");
      await agent.submit("/cost on");
      await agent.waitFor("cost display on; the running total starts at zero");
      await agent.waitFor(/· \$0\.0000 ─/);

      // A model the table does not price shows no cost at all (never $0).
      await agent.submit("/model mystery-model");
      await agent.waitFor(/model: mystery-model · messages · priced-msgs/);
      screen = await agent.idle();
      assert.doesNotMatch(screen.split("\n").at(-2)!, /\$/);
      await agent.submit("/cost");
      await agent.waitFor(
        /the price table has no entry for mystery-model on messages: no cost is shown/,
      );
      await agent.submit("/model priced-msgs");
      await agent.waitFor(/model: claude-sonnet-4-5 · messages · priced-msgs/);
      msgs.enqueue(reply().text("Third.").usage(100_000, 0));
      await agent.submit("three");
      await agent.waitFor(/· \$0\.30 ─/);

      // A provider swap restarts the total and footnotes the old one.
      await agent.submit("/model priced-chat");
      await agent.waitFor(
        "cost total restarts for priced-chat (priced-msgs is footnoted in /cost)",
      );
      screen = await agent.waitFor(/─ gpt-4\.1 · priced-chat · .*\$0\.0000\* ─/);
      chat.enqueue(reply().text("Fourth.").usage(1_000_000, 0));
      await agent.submit("four");
      await agent.waitFor(/· \$2\.00\* ─/);
      // On Chat Completions the count comes from vLLM's /tokenize.
      await agent.submit("/tokens");
      screen = await agent.waitFor(/Counted by the server: [\d,]+ tokens/, { count: 2 });
      const tokenized = chat.countRequests.at(-1)!;
      assert.equal(tokenized.wire, "tokenize");
      assert.equal(tokenized.body!.add_generation_prompt, true);
      assert.ok(
        screen.includes(
          `Counted by the server: ${
            fakeTokenizeCount(tokenized.body!).toLocaleString("en-US")
          } tokens (whole prompt`,
        ),
      );
      await agent.submit("/cost");
      await agent.waitFor(/\* before the swap to priced-chat: \$0\.30 on priced-msgs/);
      msgs.assertNoViolations();
      chat.assertNoViolations();

      await agent.submit("/exit");
      screen = await agent.waitFor(/session (\S+) saved · agent --resume \1/);
      assert.equal(await agent.waitForExit(), 0);
      const id = /session (\S+) saved/.exec(screen)![1]!;

      // A resumed session starts at zero.
      const resumed = await TmuxAgent.start({
        home: agent.home,
        args: ["--resume", id],
        env: { ...QUIET, AGENT_PRESET: "priced-msgs", AGENT_PRICING: "1" },
      });
      try {
        screen = await resumed.idle();
        assert.match(screen, /· \$0\.0000 ─/);
        msgs.enqueue(reply().text("Resumed."));
        await resumed.submit("five");
        await resumed.waitFor("Resumed.");
        const last = msgs.requests.at(-1)!.body!;
        assert.match(
          JSON.stringify(last.messages),
          /one[\s\S]*two[\s\S]*three[\s\S]*four[\s\S]*five/,
        );
        msgs.assertNoViolations();
      } finally {
        await resumed.close();
      }
    } finally {
      await agent.close();
      await msgs.close();
      await chat.close();
    }
  },
);

peerTest(
  "agent --effort with a level the backend does not offer: one line naming the flag, exit 1, no request",
  probes.tmux,
  async () => {
    // base_url and no provider: the Messages wire, levels low … max.
    const fake = await startFakeModelServer();
    const agent = await TmuxAgent.start({
      args: ["--effort", "ultra"],
      env: { ...QUIET, AGENT_BASE_URL: fake.url },
    });
    try {
      assert.equal(await agent.waitForExit(), 1);
      const lines = (await agent.screen()).split("\n").filter((l) => l.trim() !== "");
      // The session never opened: the only lines are the error and the kit's exit marker.
      assert.deepEqual(lines, [
        'agent: --effort "ultra" is not offered by the Messages wire; use one of: low, medium, ' +
        "high, xhigh, max",
        "[agent exited 1]",
      ]);
      // Refused before the /v1/models probe: nothing reached the server.
      assert.equal(fake.allRequests.length, 0);
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);
