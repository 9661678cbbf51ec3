// The logic of the GitHub Action (action.yml): runs `agent -p` with the release permission
// flags of scripts/permissions.ts, then writes the step outputs ($GITHUB_OUTPUT), the report
// into the job summary ($GITHUB_STEP_SUMMARY) and an annotation for a run that did not end ok.
// action.yml passes every input through the environment (AGENT_ACTION_*), never through argv
// or the shell, and the key only as AGENT_API_KEY in the agent's environment.
//   deno run --cached-only --allow-read --allow-write --allow-env --allow-run scripts/github_action.ts

import { RUN_ENV } from "./permissions.ts";
import { programRunArgs } from "./install.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** A step summary holds at most 1 MiB; the report is cut below that with a note. */
export const SUMMARY_LIMIT = 1000 * 1024;

export interface ActionInputs {
  prompt: string;
  workdir: string;
  mode: "auto" | "strict" | "plan";
  tokenBudget: number | null;
  baseUrl: string;
  provider: string;
  model: string;
  apiKey: string;
  /** What a run that needs a human (exit 2) does to the step. */
  needsHuman: "fail" | "warn";
  /**
   * auto: the agent's bubblewrap sandbox, which scripts/action_sandbox.sh has made work (or
   * failed the step); off: the agent runs its shell commands unsandboxed (AGENT_SANDBOX_MODE).
   */
  sandbox: "auto" | "off";
  reportPath: string;
}

export class InputError extends Error {
  override name = "InputError";
}

/** Reads and checks the AGENT_ACTION_* variables action.yml sets from its inputs. */
export function readInputs(env: (name: string) => string | undefined): ActionInputs {
  const get = (name: string) => (env(`AGENT_ACTION_${name}`) ?? "").trim();
  const prompt = env("AGENT_ACTION_PROMPT") ?? "";
  if (prompt.trim() === "") throw new InputError("input prompt is required");
  const mode = get("MODE") || "auto";
  if (mode !== "auto" && mode !== "strict" && mode !== "plan") {
    throw new InputError(`input mode must be auto, strict or plan, not ${JSON.stringify(mode)}`);
  }
  const needsHuman = get("NEEDS_HUMAN") || "fail";
  if (needsHuman !== "fail" && needsHuman !== "warn") {
    throw new InputError(
      `input needs_human must be fail or warn, not ${JSON.stringify(needsHuman)}`,
    );
  }
  const sandbox = get("SANDBOX") || "auto";
  if (sandbox !== "auto" && sandbox !== "off") {
    throw new InputError(`input sandbox must be auto or off, not ${JSON.stringify(sandbox)}`);
  }
  const budgetText = get("TOKEN_BUDGET");
  const tokenBudget = budgetText === "" ? null : Number(budgetText);
  if (tokenBudget !== null && !(/^\d+$/.test(budgetText) && tokenBudget >= 1)) {
    throw new InputError(
      `input token_budget must be a positive integer, not ${JSON.stringify(budgetText)}`,
    );
  }
  const temp = env("RUNNER_TEMP") || "/tmp";
  return {
    prompt,
    workdir: get("WORKDIR") || env("GITHUB_WORKSPACE") || ".",
    mode,
    tokenBudget,
    baseUrl: get("BASE_URL"),
    provider: get("PROVIDER"),
    model: get("MODEL"),
    apiKey: env("AGENT_ACTION_API_KEY") ?? "",
    needsHuman,
    sandbox,
    reportPath: get("REPORT_PATH") || `${temp}/agent-report-${env("GITHUB_RUN_ID") || "local"}.md`,
  };
}

/** The agent's command line and environment. The key is only ever in the environment. */
export function invocation(
  inputs: ActionInputs,
  base: Record<string, string>,
): { command: string; args: string[]; env: Record<string, string> } {
  const env: Record<string, string> = { ...RUN_ENV, NO_COLOR: "1" };
  for (const [name, value] of Object.entries(base)) {
    if (!name.startsWith("AGENT_ACTION_")) env[name] = value; // the key goes in below, by name
  }
  if (inputs.baseUrl) env.AGENT_BASE_URL = inputs.baseUrl;
  if (inputs.provider) env.AGENT_PROVIDER = inputs.provider;
  if (inputs.model) env.AGENT_MODEL = inputs.model;
  if (inputs.apiKey) env.AGENT_API_KEY = inputs.apiKey;
  if (inputs.sandbox === "off") env.AGENT_SANDBOX_MODE = "off";
  return {
    command: Deno.execPath(),
    args: [
      // As the launcher of `deno task install` (action.yml's install step) runs it: the
      // bundle, the action's own deno.json (not one the workflow's checkout may have), and
      // exactly the release permission flags.
      ...programRunArgs("agent", ROOT),
      "-p",
      "--output-format",
      "json",
      "--output",
      inputs.reportPath,
      "--workdir",
      inputs.workdir,
      "--mode",
      inputs.mode,
      ...(inputs.tokenBudget === null ? [] : ["--token-budget", String(inputs.tokenBudget)]),
      "--",
      inputs.prompt,
    ],
    env,
  };
}

export interface Outcome {
  outcome: string;
  exitCode: number;
  sessionId: string;
  reportPath: string;
  error: string;
}

/** The agent's JSON result (its stdout's last line), or an error outcome when there is none. */
export function parseResult(code: number, stdout: string, reportPath: string): Outcome {
  const line = stdout.trim().split("\n").at(-1) ?? "";
  let json: Record<string, unknown> | null = null;
  try {
    const parsed = JSON.parse(line);
    if (parsed && typeof parsed === "object") json = parsed as Record<string, unknown>;
  } catch { /* reported below as no result */ }
  if (json === null) {
    return {
      outcome: "error",
      exitCode: code === 0 ? 1 : code,
      sessionId: "",
      reportPath: "",
      error: `agent printed no JSON result (exit ${code})`,
    };
  }
  return {
    outcome: String(json.outcome ?? "error"),
    exitCode: typeof json.exit_code === "number" ? json.exit_code : code,
    sessionId: typeof json.session_id === "string" ? json.session_id : "",
    reportPath,
    error: typeof json.error === "string" ? json.error : "",
  };
}

/** `name<<DELIMITER` blocks, safe for any value (GitHub's multi-line output syntax). */
export function outputLines(values: Record<string, string>): string {
  return Object.entries(values).map(([name, value]) => {
    let delimiter = `AGENT_EOF_${crypto.randomUUID()}`;
    while (value.includes(delimiter)) delimiter = `AGENT_EOF_${crypto.randomUUID()}`;
    return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }).join("");
}

/** The job summary: a status line, then the report (cut at SUMMARY_LIMIT). */
export function summary(result: Outcome, report: string | null): string {
  const head = `## agent: ${result.outcome} (exit ${result.exitCode})\n\n`;
  if (report === null) {
    return `${head}No report was written${result.error ? `: ${result.error}` : ""}.\n`;
  }
  const bytes = new TextEncoder().encode(report);
  if (bytes.length <= SUMMARY_LIMIT) return `${head}${report}\n`;
  const cut = new TextDecoder().decode(bytes.slice(0, SUMMARY_LIMIT)).replace(/\uFFFD$/, "");
  return `${head}${cut}\n\n_(report cut at ${SUMMARY_LIMIT} bytes; the whole report is ${result.reportPath})_\n`;
}

/** The step's exit code and the workflow command (annotation) for a run that did not end ok. */
export function verdict(
  result: Outcome,
  needsHuman: "fail" | "warn",
): { code: number; annotation: string | null } {
  const detail = escapeData(result.error || `outcome ${result.outcome}`);
  if (result.exitCode === 0) return { code: 0, annotation: null };
  if (result.exitCode === 2) {
    return needsHuman === "warn"
      ? {
        code: 0,
        annotation: `::warning title=agent needs a human::${detail}; session ${result.sessionId}`,
      }
      : {
        code: 2,
        annotation: `::error title=agent needs a human::${detail}; session ${result.sessionId}`,
      };
  }
  return { code: result.exitCode, annotation: `::error title=agent run failed::${detail}` };
}

/** Workflow-command data escaping (%, CR, LF), so a message cannot end the command early. */
function escapeData(text: string): string {
  return text.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
}

async function readReport(path: string): Promise<string | null> {
  if (path === "") return null;
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

async function append(path: string | undefined, text: string): Promise<void> {
  if (!path) return; // outside Actions: nothing to write to
  await Deno.writeTextFile(path, text, { append: true });
}

async function main(): Promise<number> {
  const env = Deno.env.toObject();
  let inputs: ActionInputs;
  try {
    inputs = readInputs((name) => env[name]);
  } catch (err) {
    console.log(`::error title=agent action input::${escapeData((err as Error).message)}`);
    return 1;
  }
  const run = invocation(inputs, env);
  const out = await new Deno.Command(run.command, {
    args: run.args,
    env: run.env,
    clearEnv: true,
    // The prompt is the action's input; the step's stdin is not for the agent (agent -p reads
    // a piped stdin, cli/stdin_prompt.ts).
    stdin: "null",
    stdout: "piped",
    stderr: "inherit", // the agent's own errors go to the step log
  }).output();
  const result = parseResult(out.code, new TextDecoder().decode(out.stdout), inputs.reportPath);
  const report = await readReport(result.reportPath);
  if (report === null) result.reportPath = "";
  await append(
    env.GITHUB_OUTPUT,
    outputLines({
      outcome: result.outcome,
      exit_code: String(result.exitCode),
      session_id: result.sessionId,
      report_path: result.reportPath,
    }),
  );
  await append(env.GITHUB_STEP_SUMMARY, summary(result, report));
  const { code, annotation } = verdict(result, inputs.needsHuman);
  console.log(`agent: ${result.outcome} (exit ${result.exitCode})`);
  if (annotation) console.log(annotation);
  return code;
}

if (import.meta.main) Deno.exit(await main());
