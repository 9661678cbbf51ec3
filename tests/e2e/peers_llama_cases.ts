// The real `agent -p` through llama.cpp's llama-server on both wires (/v1/chat/completions
// and /v1/messages), serving scripts/peers' tiny models whose output is scripted exactly.
// Registered by tests/e2e/peers_test.ts, which runs them with the LiteLLM cases on one set of
// servers (peers_kit.ts sharedLlama); a missing build fails under AGENT_TEST_REQUIRE_PEERS=1
// (tests/peers.ts) and is skipped with the reason otherwise.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { type Peer, runAgainst, sharedLlama } from "./peers_kit.ts";
import { type LoopConfig, runLoop } from "../../core/agent/loop.ts";
import { appendUserText } from "../../core/agent/history_convert.ts";
import { composeSystemPrompt } from "../../core/agent/system_prompt.ts";
import { workspaceTools } from "../../core/tools/registry.ts";
import { createWire } from "../../core/wires/create.ts";
import type { Message, Usage } from "../../core/wires/types.ts";
import { promptTokens } from "../../core/wires/usage.ts";
import { defaultWireOptions } from "../fakes/model_server_wiring.ts";
import { testSandbox } from "../fakes/test_workspace.ts";

const GREETING = "Hello from a tiny scripted llama.";
const ANSWER = "The file says: hello peer.";
const WIRES = ["chat_completions", "messages"] as const;
/** The small-window server (one slot), shared with the LiteLLM cases under this name. */
export const SMALL = { ctx: 12288, alias: "peer-small" };

interface Servers {
  text: Peer;
  tool: Peer;
  tool2: Peer;
  think: Peer;
  small: Peer;
}

/** Started on first use, once for the suite (shared with the LiteLLM cases). */
async function peers(): Promise<Servers> {
  const [text, tool, tool2, think, small] = await Promise.all([
    sharedLlama("peer-text"),
    sharedLlama("peer-tool"),
    sharedLlama("peer-tool2"),
    sharedLlama("peer-think"),
    // The agent's own prompt is ~8k tokens here (a byte-level vocabulary).
    sharedLlama("peer-tool", SMALL),
  ]);
  return { text, tool, tool2, think, small };
}

function toolResults(journal: string): string[] {
  const out: string[] = [];
  for (const line of journal.split("\n")) {
    if (!line) continue;
    type Parts = { parts?: { type: string; content?: string }[] };
    const entry = JSON.parse(line) as { message?: Parts; messages?: Parts[] };
    // A compaction entry replaces the history: keep what it holds.
    if (entry.messages) out.length = 0;
    for (const m of entry.messages ?? (entry.message ? [entry.message] : [])) {
      for (const p of m.parts ?? []) if (p.type === "tool_result") out.push(p.content ?? "");
    }
  }
  return out;
}

const opts = { sanitizeResources: false, sanitizeOps: false };

/** One test per scenario, run on both wires. */
function scenario(name: string, fn: (provider: (typeof WIRES)[number]) => Promise<void>): void {
  peerTest(`llama-server: ${name} (both wires)`, probes.llamaServer, async () => {
    // One wire after the other: the peers are CPU-bound on a small machine.
    const outcomes: PromiseSettledResult<void>[] = [];
    for (const w of WIRES) outcomes.push(...await Promise.allSettled([fn(w)]));
    const failed = outcomes.flatMap((o, i) =>
      o.status === "rejected" ? [`${WIRES[i]}: ${(o.reason as Error)?.stack ?? o.reason}`] : []
    );
    if (failed.length > 0) throw new Error(failed.join("\n\n"));
  }, opts);
}

{
  scenario("a plain reply, with usage", async (provider) => {
    const { text } = await peers();
    const r = await runAgainst(text, { provider, prompt: "Say hello." });
    assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
    assert.equal(r.json.final_text, GREETING);
    assert.equal(r.json.stop_reason, "end_turn");
    assert.ok(r.json.usage.output_tokens > 0);
    assert.equal(r.json.model, "peer-text", "the served name resolved for `default`");
  });

  scenario("reasoning, then the answer", async (provider) => {
    const { think } = await peers();
    const r = await runAgainst(think, { provider, prompt: "Say hello." });
    assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
    assert.equal(r.json.final_text, GREETING);
    assert.ok(r.journal.includes("The user wants a greeting."), "reasoning kept in the journal");
  });

  scenario("a tool-call round trip", async (provider) => {
    const { tool } = await peers();
    const r = await runAgainst(tool, { provider, prompt: "Read hello.txt." });
    assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
    assert.equal(r.json.final_text, ANSWER);
    assert.match(toolResults(r.journal)[0] ?? "", /hello peer/);
  });

  scenario("parallel tool calls", async (provider) => {
    const { tool2 } = await peers();
    const r = await runAgainst(tool2, { provider, prompt: "Read both files." });
    assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
    assert.equal(r.json.final_text, ANSWER);
    const results = toolResults(r.journal);
    assert.equal(results.length, 2);
    assert.match(results[0]!, /hello peer/);
    assert.match(results[1]!, /other peer/);
  });

  scenario("a text answer cut by max_tokens exits 1 as truncated", async (provider) => {
    const { text } = await peers();
    const r = await runAgainst(text, {
      provider,
      prompt: "Say hello.",
      env: { AGENT_MAX_TOKENS: "3" },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.json.done_reason, "truncated");
    assert.equal(r.json.stop_reason, "max_tokens");
    assert.equal(r.json.final_text, "Hello from a");
    assert.match(r.json.error ?? "", /raise AGENT_MAX_TOKENS/);
    assert.match(r.report, /\*\*Stop reason:\*\* max_tokens/);
  });

  scenario("a tool call cut by max_tokens is never run", async (provider) => {
    const { tool } = await peers();
    const r = await runAgainst(tool, {
      provider,
      prompt: "Read hello.txt.",
      env: { AGENT_MAX_TOKENS: "3" },
    });
    const [first] = toolResults(r.journal);
    assert.match(
      first ?? "",
      /^Not run: the arguments of this view call were cut off by max_tokens/,
    );
    assert.ok(!(first ?? "").includes("non-empty string"), "view never ran with {}");
    // The scripted answer after a tool result is cut by the same cap.
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.json.done_reason, "truncated");
  });

  scenario(
    "a small window (meta.n_ctx) forces compaction in a resumed session",
    async (provider) => {
      const { small } = await peers();
      const r = await runAgainst(small, {
        provider,
        prompt: "Read hello.txt.",
        then: "Read it again.",
        env: { AGENT_COMPACT_THRESHOLD: "0.5" },
      });
      assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
      assert.equal(r.json.final_text, ANSWER);
      // The window came from llama-server's meta.n_ctx (12288): 0.5 of 32768 would not compact.
      assert.ok(r.journal.includes('"type":"compaction"'), "the history was compacted");
    },
  );

  scenario("a small window (meta.n_ctx) survives a result too big for it", async (provider) => {
    const { small } = await peers();
    const r = await runAgainst(small, {
      provider,
      prompt: "Read hello.txt.",
      files: { "hello.txt": "hello peer\n" + "filler line of the big file\n".repeat(400) },
    });
    assert.equal(r.code, 0, r.stderr + JSON.stringify(r.json));
    assert.equal(r.json.final_text, ANSWER);
    assert.match(toolResults(r.journal).join("\n"), /\[cut: this tool result was/);
  });
}

/**
 * Tokens a turn may re-process beyond what was added since the previous request: the end of
 * the previous prompt (its generation prompt) rendered as history, and the generated reply
 * re-rendered by the template (the tool call's JSON spacing). A byte-level vocabulary spends
 * about a token a byte.
 */
const REPROCESS_SLACK = 96;

{
  scenario(
    "each turn of a session re-processes only what it added (prompt cache)",
    async (provider) => {
      const { tool } = await peers();
      const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-peer-cache-" }));
      try {
        await Deno.writeTextFile(`${dir}/hello.txt`, "hello peer\n");
        const turns: Usage[] = [];
        const cfg: LoopConfig = {
          wire: createWire(
            { provider, base_url: tool.url, auth_style: "bearer" },
            defaultWireOptions(),
          ),
          model: "peer-tool",
          system: composeSystemPrompt({ workdir: dir, today: "2026-11-28", mode: "auto" }),
          tools: workspaceTools(testSandbox(dir, "off")),
          mode: "auto",
          workdir: dir,
          context_window: 32768,
          onEvent: (e) => {
            if (e.type === "done") turns.push(e.usage);
          },
        };
        // Three legs of one conversation, two requests each (the call, then the answer).
        let history: Message[] = [];
        for (const ask of ["Read hello.txt.", "Read it again.", "Once more, please."]) {
          const r = await runLoop(appendUserText(history, ask), cfg);
          assert.equal(r.done_reason, "stop", r.error);
          assert.equal(r.final_text, ANSWER);
          history = r.messages;
        }
        assert.equal(turns.length, 6);
        const prompt = (u: Usage) => promptTokens(u);
        for (let k = 1; k < turns.length; k++) {
          const added = prompt(turns[k]!) - prompt(turns[k - 1]!);
          const reprocessed = turns[k]!.input_tokens;
          assert.ok(added > 0, `turn ${k + 1} grew the prompt`);
          assert.ok(
            reprocessed <= added + REPROCESS_SLACK,
            `turn ${k + 1}: re-processed ${reprocessed} of ${prompt(turns[k]!)} prompt tokens, ` +
              `${added} added since turn ${k}: ${JSON.stringify(turns)}`,
          );
          // The rest came from llama-server's cache: reported as cached on both wires.
          assert.equal(turns[k]!.cache_read_tokens, prompt(turns[k]!) - reprocessed);
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  );
}
