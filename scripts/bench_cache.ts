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
// When Claude Code is installed (`claude` on PATH, or AGENT_BENCH_CLAUDE naming its binary), it
// runs the same session (its Read and Bash tools, the same files, the same order) against the same
// fake, and the table adds its row and the agent's Messages cost as a ratio of Claude Code's, the
// issue's target (at most 0.5x). Its usage is what the same documented cache rules give for the
// requests it sent; its experimental betas are turned off (CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS)
// because the fake, like the API without a beta header, refuses their extra request fields.
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
import { MessagesPromptCache } from "../tests/fakes/prompt_cache.ts";
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

const FINAL_ANSWER = "The modules each define bounded step functions; nothing to fix.";
const TASK = "Review every module in src/.";

/** One scripted tool call: view a module (workdir-relative path) or run a shell command. */
type SessionStep = { view: string; shell?: undefined } | { shell: string; view?: undefined };

/** Writes the session's modules into `dir` and returns its `turns` tool calls in order. */
async function sessionSteps(dir: string, turns: number): Promise<SessionStep[]> {
  await Deno.mkdir(`${dir}/src`);
  const views = turns - Math.min(SHELL_COMMANDS.length, Math.floor(turns / 5));
  for (let i = 0; i < views; i++) {
    await Deno.writeTextFile(`${dir}/src/module_${String(i).padStart(2, "0")}.ts`, moduleText(i));
  }
  const steps: SessionStep[] = [];
  let shell = 0;
  for (let turn = 0; turn < turns; turn++) {
    // Every fifth call is a shell command, the others view the next module.
    steps.push(
      (turn + 1) % 5 === 0 && shell < SHELL_COMMANDS.length
        ? { shell: SHELL_COMMANDS[shell++]! }
        : { view: `src/module_${String(turn - shell).padStart(2, "0")}.ts` },
    );
  }
  return steps;
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
    for (const step of await sessionSteps(dir, turns)) {
      fake.enqueue(
        step.shell === undefined
          ? reply().text("Reading on.").tool("view", { path: step.view })
          : reply().text("Checking.").tool("shell", { command: step.shell }),
      );
    }
    fake.enqueue(reply().text(FINAL_ANSWER));
    const sandbox = testSandbox(dir, commandOnPath("bwrap") ? "auto" : "off");
    const model = wire === "messages" ? "claude-sonnet-4-5" : "gpt-5";
    const result = await runLoop(
      [{ role: "user", parts: [{ type: "text", text: TASK }] }],
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

/** Claude Code's binary: AGENT_BENCH_CLAUDE, else `claude` on PATH, else null (not run). */
function claudeCodeBinary(): string | null {
  return Deno.env.get("AGENT_BENCH_CLAUDE") ?? commandOnPath("claude");
}

/**
 * Runs the same session in Claude Code (`claude -p`) against a fake on the Messages wire. Its
 * main-loop requests (those offering the Read tool) get the scripted steps; any side request
 * (a title, a quota check) gets a one-word answer and is billed like the rest.
 */
export async function runClaudeCode(binary: string, turns: number): Promise<SessionFigures> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "bench-cache-cc-" }));
  const home = await Deno.makeTempDir({ prefix: "bench-cache-cc-home-" });
  const model = "claude-sonnet-4-5";
  const fake = await startFakeModelServer({ models: [{ id: model, max_model_len: 400_000 }] });
  try {
    const steps = await sessionSteps(dir, turns);
    let next = 0;
    const script = (req: { body: Record<string, unknown> | null }) => {
      const tools = (req.body?.tools as { name?: string }[] | undefined) ?? [];
      if (!tools.some((t) => t.name === "Read")) return reply().text("ok");
      const step = steps[next++];
      if (step === undefined) return reply().text(FINAL_ANSWER);
      return step.shell === undefined
        ? reply().text("Reading on.").tool("Read", { file_path: `${dir}/${step.view}` })
        : reply().text("Checking.").tool("Bash", { command: step.shell });
    };
    for (let i = 0; i < turns * 3 + 10; i++) fake.enqueue(script);
    const out = await new Deno.Command(binary, {
      args: ["-p", "--dangerously-skip-permissions", "--model", model, TASK],
      cwd: dir,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: home,
        ANTHROPIC_BASE_URL: fake.origin,
        ANTHROPIC_API_KEY: "sk-bench",
        IS_SANDBOX: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: "1",
      },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoded = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    if (!out.success || next <= turns) {
      throw new Error(`Claude Code ended after ${next} of ${turns + 1} steps: ${decoded.trim()}`);
    }
    fake.assertNoViolations();
    // Bill every request by the same documented rules the agent's requests were billed by.
    const cache = new MessagesPromptCache();
    const usage: Usage = {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    };
    for (const req of fake.requests) {
      if (req.wire !== "messages" || req.body === null) continue;
      const u = cache.use(req.body);
      usage.input_tokens += u.input;
      usage.cache_read_tokens! += u.read;
      usage.cache_write_tokens! += u.written;
    }
    return {
      wire: "messages",
      reminder: false,
      requests: fake.requests.length,
      usage,
      firstRequestBytes: JSON.stringify(fake.requests[0]!.body).length,
    };
  } finally {
    await fake.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

/** The cache-weighted input tokens: what the prompts cost in input-token units. */
export function weightedInput(u: Usage): number {
  return u.input_tokens + READ_RATE * (u.cache_read_tokens ?? 0) +
    WRITE_RATE * (u.cache_write_tokens ?? 0);
}

/** Prompt tokens read from the cache, as a share of all prompt tokens sent. */
export function cachedShare(u: Usage): number {
  return (u.cache_read_tokens ?? 0) / promptTokens(u);
}

/** The cache-weighted input cost, relative to the same prompts with no cache. */
export function relativeInputCost(u: Usage): number {
  return weightedInput(u) / promptTokens(u);
}

function row(f: SessionFigures, label = "agent, " + f.wire): string {
  const u = f.usage;
  return [
    `${label}${f.reminder ? " + memory reminder" : ""}`.padEnd(42),
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
    `${"program, wire".padEnd(42)} requests    prompt    cached  cost/none  1st request`,
  );
  const agentMessages = await runSession("messages", turns, false);
  console.log(row(agentMessages));
  console.log(row(await runSession("messages", turns, true)));
  for (const reminder of [false, true]) {
    console.log(row(await runSession("chat_completions", turns, reminder)));
  }
  const claude = claudeCodeBinary();
  let versus =
    "Claude Code was not run: not installed (set AGENT_BENCH_CLAUDE or put claude on PATH)";
  if (claude !== null) {
    const cc = await runClaudeCode(claude, turns);
    console.log(row(cc, "Claude Code, messages"));
    const ratio = weightedInput(agentMessages.usage) / weightedInput(cc.usage);
    versus = `agent's cache-weighted input on Messages = ${ratio.toFixed(2)}x Claude Code's ` +
      `(${(weightedInput(agentMessages.usage) / 1000).toFixed(0)}k against ` +
      `${(weightedInput(cc.usage) / 1000).toFixed(0)}k input-token units)`;
  }
  console.log(
    "cost/none: input cost at reads 0.1x and writes 1.25x the input rate, over the same " +
      "prompts billed in full.",
  );
  console.log(versus);
}
