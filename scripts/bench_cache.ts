// Prompt-cache benchmark (issue 29): a scripted multi-turn tool session run by the agent's own
// loop, wires, system prompt and workspace tools against the fake model server, whose prompt
// cache follows each provider's documented rules (tests/fakes/prompt_cache.ts: explicit
// breakpoints with a 20-block lookback and a 1,024-token minimum on Messages; the longest
// common prefix in 128-token steps from 1,024 on Chat Completions). The session: 16 views of
// ~7 KB files and 4 shell calls, one per model turn, then the answer (21 requests), with and
// without a per-turn memory reminder. What it reports per wire, from the usage the agent read:
//   - the cached share: prompt tokens read from the cache / all prompt tokens sent;
//   - the cache-weighted input cost relative to no cache, at reads 0.1x and writes 1.25x the
//     input rate (Chat Completions providers report and charge no writes);
//   - the first request's size in bytes (kept lean: nothing is padded to reach a minimum).
// Tokens are the fake's 4 characters a token, on both sides of every ratio.
//
//   deno run -A scripts/bench_cache.ts [--turns 20]

import { runLoop } from "../core/agent/loop.ts";
import { composeSystemPrompt } from "../core/agent/system_prompt.ts";
import { workspaceTools } from "../core/tools/registry.ts";
import { createWire } from "../core/wires/create.ts";
import type { WireKind } from "../core/settings/types.ts";
import type { Usage } from "../core/wires/types.ts";
import { promptTokens } from "../core/wires/usage.ts";
import { reply, startFakeModelServer } from "../tests/fakes/model_server.ts";
import { defaultWireOptions, fakeEndpoint } from "../tests/fakes/model_server_wiring.ts";
import { testSandbox } from "../tests/fakes/test_workspace.ts";
import { commandOnPath } from "../tests/peers.ts";
import { loadavg } from "./bench_rounds.ts";

const READ_RATE = 0.1;
const WRITE_RATE = 1.25;
const FILE_BYTES = 7 * 1024;
const SHELL_COMMANDS = [
  "wc -l src/*.ts",
  "ls -la src",
  "grep -c function src/*.ts",
  "head -c 2000 src/module_03.ts",
];

export interface SessionFigures {
  wire: WireKind;
  reminder: boolean;
  requests: number;
  usage: Usage;
  firstRequestBytes: number;
}

/** One module of about FILE_BYTES of plausible TypeScript, different per index. */
function moduleText(i: number): string {
  const lines: string[] = [`// module ${i}: generated for the prompt-cache benchmark`];
  for (let n = 0; lines.join("\n").length < FILE_BYTES; n++) {
    lines.push(
      `export function step${i}_${n}(input: number): number {`,
      `  const scaled = input * ${(i * 31 + n) % 97} + ${n};`,
      `  return scaled % ${1000 + i * 7 + n}; // keeps step ${n} of module ${i} bounded`,
      "}",
    );
  }
  return lines.join("\n") + "\n";
}

/** Runs the scripted session on `wire`; `turns` tool calls, then the answer. */
export async function runSession(
  wire: WireKind,
  turns: number,
  reminder: boolean,
): Promise<SessionFigures> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "bench-cache-" }));
  const fake = await startFakeModelServer({
    promptCache: true,
    models: [{ id: wire === "messages" ? "claude-sonnet-4-5" : "gpt-5", max_model_len: 400_000 }],
  });
  try {
    await Deno.mkdir(`${dir}/src`);
    const views = turns - Math.min(SHELL_COMMANDS.length, Math.floor(turns / 5));
    for (let i = 0; i < views; i++) {
      await Deno.writeTextFile(`${dir}/src/module_${String(i).padStart(2, "0")}.ts`, moduleText(i));
    }
    let shell = 0;
    for (let turn = 0; turn < turns; turn++) {
      // Every fifth call is a shell command, the others view the next module.
      const call = (turn + 1) % 5 === 0 && shell < SHELL_COMMANDS.length
        ? reply().text("Checking.").tool("shell", { command: SHELL_COMMANDS[shell++]! })
        : reply().text("Reading on.").tool("view", {
          path: `src/module_${String(turn - shell).padStart(2, "0")}.ts`,
        });
      fake.enqueue(call);
    }
    fake.enqueue(reply().text("The modules each define bounded step functions; nothing to fix."));
    const sandbox = testSandbox(dir, commandOnPath("bwrap") ? "auto" : "off");
    const model = wire === "messages" ? "claude-sonnet-4-5" : "gpt-5";
    const result = await runLoop(
      [{ role: "user", parts: [{ type: "text", text: "Review every module in src/." }] }],
      {
        wire: createWire(fakeEndpoint(fake, wire), defaultWireOptions()),
        model,
        system: composeSystemPrompt({ workdir: dir, today: "2026-11-28", mode: "auto" }),
        tools: workspaceTools(sandbox),
        mode: "auto",
        workdir: dir,
        context_window: 400_000,
        cache_key: "bench-session",
        ...(reminder
          ? { reminder: () => "<memory-recall>\n- prefers small, focused diffs\n</memory-recall>" }
          : {}),
      },
    );
    if (result.done_reason !== "stop") {
      throw new Error(`the session ended with ${result.done_reason}: ${result.error}`);
    }
    fake.assertNoViolations();
    return {
      wire,
      reminder,
      requests: fake.requests.length,
      usage: result.usage,
      firstRequestBytes: JSON.stringify(fake.requests[0]!.body).length,
    };
  } finally {
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Prompt tokens read from the cache, as a share of all prompt tokens sent. */
export function cachedShare(u: Usage): number {
  return (u.cache_read_tokens ?? 0) / promptTokens(u);
}

/** The cache-weighted input cost, relative to the same prompts with no cache. */
export function relativeInputCost(u: Usage): number {
  const weighted = u.input_tokens + READ_RATE * (u.cache_read_tokens ?? 0) +
    WRITE_RATE * (u.cache_write_tokens ?? 0);
  return weighted / promptTokens(u);
}

function row(f: SessionFigures): string {
  const u = f.usage;
  return [
    `${f.wire}${f.reminder ? " + memory reminder" : ""}`.padEnd(34),
    String(f.requests).padStart(8),
    `${(promptTokens(u) / 1000).toFixed(0)}k`.padStart(10),
    `${(100 * cachedShare(u)).toFixed(1)} %`.padStart(9),
    `${relativeInputCost(u).toFixed(3)}x`.padStart(10),
    `${(f.firstRequestBytes / 1024).toFixed(1)} KB`.padStart(11),
  ].join(" ");
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--turns");
  const turns = at >= 0 ? Number(Deno.args[at + 1]) : 20;
  console.log(`prompt-cache benchmark: ${turns} tool turns + the answer; load ${loadavg()}`);
  console.log(
    `${"wire".padEnd(34)} requests    prompt    cached  cost/none  1st request`,
  );
  for (const wire of ["messages", "chat_completions"] as const) {
    for (const reminder of [false, true]) console.log(row(await runSession(wire, turns, reminder)));
  }
  console.log(
    "cost/none: input cost at reads 0.1x and writes 1.25x the input rate, over the same " +
      "prompts billed in full (Claude Code was not run: not installed here).",
  );
}
