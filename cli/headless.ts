// `agent -p`: run one prompt (or one resumed answer) to completion, write the report,
// print the result, and return the exit code: 0 ok, 1 error, 2 needs a human.

import { dirname, resolve } from "../core/path.ts";
import type { Clock, Env, Fetch, WireFetch } from "../core/ports.ts";
import type { ParsedArgs } from "./args.ts";
import { type AgentContext, prepareAgent, sessionsDirOf, SetupError } from "./setup.ts";
import { SettingsError } from "../core/settings/errors.ts";
import { Journal, loadSession, newSessionId } from "../core/agent/journal.ts";
import { progressLine, type ProgressTotals, sessionLine } from "../core/scheduler/run_log_lines.ts";
import { type LoopConfig, type LoopEvent, type LoopResult, runLoop } from "../core/agent/loop.ts";
import {
  EXIT_CODES,
  type HeadlessResult,
  type McpServerReport,
  type Outcome,
} from "../core/agent/types.ts";
import type { Message, Usage } from "../core/wires/types.ts";
import { maybeReflect } from "./headless_reflection.ts";
import { cacheSavingOf, costOf, roundUsd } from "../core/pricing/pricing.ts";
import { sumUsage } from "../core/wires/usage.ts";
import { writeFileAtomic } from "../core/atomic_write.ts";
import { errorLine, errorText } from "../core/logger.ts";
import { timingMark } from "../core/timing_marks.ts";

/**
 * Reports are owner-only, like the session journal: they hold the prompt and the answer.
 * (The value of core/private_files.ts PRIVATE_FILE_MODE, not imported: that module loads
 * node:fs, which the agent keeps off its start-up path.)
 */
const REPORT_MODE = 0o600;

export class HeadlessError extends Error {
  override name = "HeadlessError";
}

export interface HeadlessDeps {
  env: Env;
  fetch: Fetch;
  /** How the wire reaches the model server (default: `fetch`). */
  modelFetch?: WireFetch;
  clock: Clock;
  cwd: string;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Aborted on ctrl+c. */
  signal: AbortSignal;
}

export async function runHeadless(args: ParsedArgs, deps: HeadlessDeps): Promise<number> {
  const started = performance.now();
  const prompt = args.prompt ?? "";
  const outputPath = args.output ? resolve(deps.cwd, args.output) : undefined;
  const jobId = deps.env.get("AGENT_JOB_ID");
  const jobName = deps.env.get("AGENT_JOB_NAME");
  const fixed: Partial<HeadlessResult> = {
    ...(jobId ? { job_id: jobId } : {}),
    ...(jobName ? { job_name: jobName } : {}),
  };
  let begun: Begun;
  try {
    if (outputPath) {
      await checkWritable(outputPath);
      fixed.report_path = outputPath;
    }
    if (prompt.trim() === "") {
      throw new HeadlessError('no prompt: give it after --, e.g. agent -p -- "fix the tests"');
    }
    begun = await begin(args, deps, prompt, jobId, jobName);
  } catch (err) {
    // No prompt, no key, a bad setting, a missing workdir or session, an unwritable report:
    // still one result, so a CI step or the outpost reading the JSON or the report learns
    // the cause, not just "exit 1". The report only where it can be written.
    const failed = Object.freeze(setupFailure(err, started, fixed));
    if (failed.report_path) {
      await writeReport(failed.report_path, failed, prompt);
    }
    if (args.outputFormat === "json") deps.stdout(JSON.stringify(failed) + "\n");
    // The full text: a TOML error's excerpt and caret need their own lines.
    else deps.stderr(`agent: ${errorText(err).trim()}\n`);
    return failed.exit_code;
  }
  const { ctx } = begun;
  try {
    return await runBegun(args, deps, begun, prompt, outputPath, started, fixed);
  } finally {
    // The process exits next: servers are signalled, not waited for (a graceful stop could
    // hold the exit for up to STOP_GRACE_MS after the answer is out). The sandbox closes after
    // they are signalled (it removes the .agent mount point it made, if still empty).
    ctx.mcp?.abandon();
    await ctx.sandbox.close();
  }
}

async function runBegun(
  args: ParsedArgs,
  deps: HeadlessDeps,
  { ctx, journal, history, effort }: Begun,
  prompt: string,
  outputPath: string | undefined,
  started: number,
  fixed: Partial<HeadlessResult>,
): Promise<number> {
  // Unknown or misplaced settings keys, as `agent config` lists them, one line each.
  for (const warning of ctx.settings.warnings) deps.stderr(`agent: warning: ${warning}\n`);
  // An MCP server that did not start is one line; the run goes on without it. A server still
  // starting behind a remembered tool list is reported when the run ends.
  const reported = new Set<string>();
  const reportMcp = () => {
    const servers = ctx.mcp?.statuses().map((s): McpServerReport => ({
      name: s.name,
      state: s.state,
      tools: s.tools,
      ...(s.error ? { error: s.error } : {}),
    }));
    for (const s of servers ?? []) {
      if (!s.error || reported.has(s.name)) continue;
      reported.add(s.name);
      deps.stderr(`agent: MCP server ${s.name} ${s.state}: ${s.error}\n`);
    }
    if (servers) fixed = { ...fixed, mcp_servers: servers };
  };
  reportMcp();

  timingMark("journal");
  // What listens to the loop's events: MCP servers waiting behind a remembered tool list start
  // once a reply asks for tools (a call to one of their tools starts its own server at once
  // anyway); in JSON mode, progress lines on stderr for the outpost's live run rows.
  const listeners: ((event: LoopEvent) => void)[] = [
    ...(ctx.mcp ? [startMcpOnToolCalls(ctx.mcp)] : []),
    ...(args.outputFormat === "json" ? [progressReporter(deps.stderr)] : []),
  ];
  const looped = await runLoop(history, {
    wire: ctx.wire,
    model: ctx.settings.model,
    system: ctx.system,
    tools: ctx.tools,
    mode: args.mode,
    workdir: ctx.workdir,
    context_window: () => ctx.resolver.contextWindow,
    journal,
    cache_key: journal.id,
    signal: deps.signal,
    ...(listeners.length > 0
      ? { onEvent: (event: LoopEvent) => listeners.forEach((listen) => listen(event)) }
      : {}),
    ...(effort ? { effort } : {}),
    ...(args.maxTurns ? { max_turns: args.maxTurns } : {}),
    ...(ctx.settings.max_tokens ? { max_tokens: ctx.settings.max_tokens } : {}),
    ...(ctx.settings.token_budget ? { token_budget: ctx.settings.token_budget } : {}),
    ...(ctx.settings.compaction_threshold
      ? { compaction_threshold: ctx.settings.compaction_threshold }
      : {}),
    ...(ctx.memory ? { reminder: (text: string) => ctx.memory!.recallReminder(text) } : {}),
  });
  const result = refusalEndsInError(looped);
  await ctx.probe;
  reportMcp();
  ctx.resolver.applyResponseModel(result.model);
  journal.append({
    type: "outcome",
    done_reason: result.done_reason,
    questions: result.questions,
    final_text: result.final_text,
    ...(result.model ? { model: result.model } : {}),
    at: deps.clock.now().toISOString(),
  });

  // Outcome fields are fixed here, before reflection, so reflection cannot change them.
  const outcome: HeadlessResult = Object.freeze(
    buildResult(result, ctx, journal.id, started, fixed),
  );

  // The report and a human's answer go out first: reflection is a second model call of up
  // to 90 s that no reader should wait on. The JSON object waits for it, so its usage can
  // count the pass; every JSON reader (CI, the outpost) reads it only at exit anyway.
  await journal.flush();
  if (outputPath) {
    await writeReport(outputPath, outcome, prompt);
  }
  if (args.outputFormat !== "json") printOutcome(outcome, deps);

  timingMark("answer");
  let final = outcome;
  const reflectionUsage = await maybeReflect(ctx, result, journal, deps, args.mode);
  await journal.close();
  if (reflectionUsage) {
    final = Object.freeze(withReflection(outcome, reflectionUsage, ctx));
    if (outputPath) {
      await writeReport(outputPath, final, prompt);
    }
  }
  if (args.outputFormat === "json") deps.stdout(JSON.stringify(final) + "\n");
  timingMark("reflection");
  return final.exit_code;
}

function startMcpOnToolCalls(
  mcp: NonNullable<AgentContext["mcp"]>,
): NonNullable<LoopConfig["onEvent"]> {
  return (event) => {
    if (event.type === "done" && event.message.parts.some((p) => p.type === "tool_call")) {
      mcp.startRemembered();
    }
  };
}

/**
 * A run whose shell call was refused for want of a sandbox did not do its work, however the
 * model then answered: it ends in error (exit 1) with the refusal as its reason, so a CI step
 * or an outpost job never shows ok having run nothing (issue 33). Other endings keep theirs.
 */
export function refusalEndsInError(result: LoopResult): LoopResult {
  if (result.refused === undefined || result.done_reason !== "stop") return result;
  return {
    ...result,
    done_reason: "error",
    error: `a shell call was refused, so the run did not do its work: ${result.refused}`,
  };
}

/** The result with the reflection pass counted: in the total and on its own line. */
function withReflection(r: HeadlessResult, pass: Usage, ctx: AgentContext): HeadlessResult {
  const usage = reportedUsage(sumUsage(r.usage, pass));
  const { cache_saving_usd: _, ...rest } = r;
  return { ...rest, usage, reflection_usage: pass, ...costFields(ctx, r.model, usage) };
}

/** The run's usage as reported: both prompt-cache counts always present. */
function reportedUsage(u: Usage): Usage {
  return {
    ...u,
    cache_read_tokens: u.cache_read_tokens ?? 0,
    cache_write_tokens: u.cache_write_tokens ?? 0,
  };
}

/** cost_usd, and the cache's saving beside it, when pricing is on and the model priced. */
function costFields(
  ctx: AgentContext,
  model: string,
  usage: Usage,
): Pick<HeadlessResult, "cost_usd" | "cache_saving_usd"> {
  if (!ctx.settings.pricing_enabled) return { cost_usd: null };
  const cost_usd = roundUsd(costOf(ctx.settings.provider, model, usage));
  const saving = roundUsd(cacheSavingOf(ctx.settings.provider, model, usage));
  return cost_usd === null || saving === null
    ? { cost_usd }
    : { cost_usd, cache_saving_usd: saving };
}

/** The markdown report (--output); its renderer loads only for runs that write one. */
async function writeReport(path: string, result: HeadlessResult, prompt: string): Promise<void> {
  const { renderReport } = await import("../core/agent/report.ts");
  await writeFileAtomic(path, renderReport(result, prompt), {
    createDirs: true,
    mode: REPORT_MODE,
  });
}

/** Text mode: the answer on stdout, what the run needs or why it failed on stderr. */
function printOutcome(outcome: HeadlessResult, deps: HeadlessDeps): void {
  if (outcome.final_text) deps.stdout(outcome.final_text + "\n");
  if (outcome.outcome === "needs_human") {
    for (const q of outcome.questions) deps.stderr(`needs a human (${q.kind}): ${q.text}\n`);
    deps.stderr(`resume with: agent -p --resume ${outcome.session_id} -- "<answer>"\n`);
  } else if (outcome.error) deps.stderr(`agent: ${outcome.error}\n`);
}

interface Begun {
  ctx: AgentContext;
  journal: Journal;
  history: Message[];
  effort: ParsedArgs["effort"];
}

/** Settings, key, wire, memory and the session (new or resumed): everything before turn one. */
async function begin(
  args: ParsedArgs,
  deps: HeadlessDeps,
  prompt: string,
  jobId: string | undefined,
  jobName: string | undefined,
): Promise<Begun> {
  // A resumed session runs in its saved workdir, whatever the current directory is.
  const session = args.resume ? await loadSession(sessionsDirOf(deps.env), args.resume) : undefined;
  // Resuming's modules load only for --resume runs (see cli/main.ts).
  const resuming = session
    ? await Promise.all([import("./resume_workdir.ts"), import("../core/agent/resume.ts")])
    : undefined;
  const workdir = session && resuming
    ? await resuming[0].resumeWorkdir(session.meta.workdir, args.workdir, deps.cwd)
    : args.workdir;
  const ctx = await prepareAgent({
    flags: args.settingsFlags,
    mode: args.mode,
    env: deps.env,
    fetch: deps.fetch,
    ...(deps.modelFetch ? { modelFetch: deps.modelFetch } : {}),
    clock: deps.clock,
    cwd: deps.cwd,
    awaitProbe: false,
    ...(args.effort !== undefined ? { effort: args.effort } : {}),
    ...(args.memoryScope ? { memoryScope: args.memoryScope } : {}),
    ...(workdir ? { workdir } : {}),
  });
  let effort = args.effort;
  if (session && resuming && args.resume) {
    const step = await resuming[1].resumeWith(session, prompt, {
      tools: ctx.tools,
      workdir: ctx.workdir,
      signal: deps.signal,
    });
    const journal = Journal.reopen(ctx.sessionsDir, args.resume);
    for (const m of step.appended) journal.append({ type: "message", message: m });
    if (step.effort) effort = step.effort;
    return { ctx, journal, history: step.messages, effort };
  }
  const journal = await Journal.create(ctx.sessionsDir, {
    id: newSessionId(deps.clock.now()),
    created_at: deps.clock.now().toISOString(),
    workdir: ctx.workdir,
    provider: ctx.settings.provider,
    model: ctx.settings.model,
    mode: args.mode,
    ...(jobId ? { job_id: jobId } : {}),
    ...(jobName ? { job_name: jobName } : {}),
  });
  const history: Message[] = [{ role: "user", parts: [{ type: "text", text: prompt }] }];
  journal.append({ type: "message", message: history[0]! });
  // For the outpost: a run killed before its JSON result still names its session.
  if (args.outputFormat === "json") deps.stderr(sessionLine(journal.id));
  return { ctx, journal, history, effort };
}

/** A failure of the run's configuration, which a retry would meet again (not an I/O hiccup). */
function isConfigurationError(err: unknown): boolean {
  return err instanceof SetupError || err instanceof SettingsError || err instanceof HeadlessError;
}

/**
 * JSON mode's progress on stderr, for the outpost's live run rows: each tool call as it starts
 * and ends, and the token sums after each reply (run_log.ts reads them back).
 */
function progressReporter(stderr: (text: string) => void): (event: LoopEvent) => void {
  const totals: ProgressTotals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  return (event) => {
    if (event.type === "tool_start") {
      stderr(progressLine({ kind: "tool_start", name: event.call.name }));
    } else if (event.type === "tool_end") stderr(progressLine({ kind: "tool_end" }));
    else if (event.type === "done") {
      totals.input += event.usage.input_tokens;
      totals.output += event.usage.output_tokens;
      totals.cacheRead += event.usage.cache_read_tokens ?? 0;
      totals.cacheWrite += event.usage.cache_write_tokens ?? 0;
      stderr(progressLine({ kind: "tokens", totals }));
    }
  };
}

/** The result of a run that failed before its first turn. */
function setupFailure(
  err: unknown,
  started: number,
  extra: Partial<HeadlessResult>,
): HeadlessResult {
  return {
    outcome: "error",
    exit_code: EXIT_CODES.error,
    done_reason: "error",
    session_id: null,
    model: "",
    usage: reportedUsage({ input_tokens: 0, output_tokens: 0 }),
    cost_usd: null,
    final_text: "",
    questions: [],
    error: errorLine(err),
    ...(isConfigurationError(err) ? { setup_error: true as const } : {}),
    duration_ms: Math.round(performance.now() - started),
    ...extra,
  };
}

function buildResult(
  r: LoopResult,
  ctx: AgentContext,
  sessionId: string,
  started: number,
  extra: Partial<HeadlessResult>,
): HeadlessResult {
  const outcome: Outcome = r.done_reason === "stop"
    ? "ok"
    : r.done_reason === "needs_human"
    ? "needs_human"
    : "error";
  // No turn answered: report the configured name, not a probe's guess that never answered.
  const model = r.stop_reason === undefined ? ctx.settings.model : ctx.resolver.displayName;
  return {
    outcome,
    exit_code: EXIT_CODES[outcome],
    done_reason: r.done_reason,
    session_id: sessionId,
    model,
    usage: reportedUsage(r.usage),
    ...costFields(ctx, model, r.usage),
    final_text: r.final_text,
    ...(r.stop_reason ? { stop_reason: r.stop_reason } : {}),
    questions: r.questions,
    ...(r.error ? { error: r.error } : {}),
    sandbox: ctx.sandbox.describe(),
    duration_ms: Math.round(performance.now() - started),
    ...extra,
  };
}

async function checkWritable(path: string): Promise<void> {
  try {
    await Deno.mkdir(dirname(path), { recursive: true });
    const probe = `${path}.probe-${crypto.randomUUID().slice(0, 6)}`;
    await Deno.writeTextFile(probe, "");
    await Deno.remove(probe);
  } catch (err) {
    throw new HeadlessError(
      `cannot write the report to ${path}: ${err instanceof Error ? err.message : err}`,
    );
  }
}
