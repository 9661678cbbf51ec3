// The command line and environment of one headless child (spec 4.4):
//   <agent> -p [--resume <session>] --workdir W --mode M --output R --output-format json
//           [--token-budget N] [--memory-scope workspace] -- <prompt or answer>
// The literal `--` keeps a dash-leading prompt from being read as an option.

import { join } from "node:path";
import type { Env } from "../ports.ts";
import type { Job } from "../store/store.ts";
import { MODEL_KEY_VARS } from "../sandbox/environment.ts";
import { isUntrustedIntake } from "./intake.ts";

/** How to start the agent: dev `deno run … cli/main.ts`, the container's `agent`, tests' fake. */
export interface AgentCommand {
  command: string;
  args: string[];
}

export interface HeadlessSpec {
  job: Pick<Job, "workdir" | "mode" | "token_budget" | "prompt" | "meta">;
  reportPath: string;
  /** A resume run continues this session with `text` as the operator's answer. */
  resume?: { sessionId: string; text: string };
}

export function headlessArgs(agent: AgentCommand, spec: HeadlessSpec): string[] {
  const args = [...agent.args, "-p"];
  if (spec.resume) args.push("--resume", spec.resume.sessionId);
  args.push(
    "--workdir",
    spec.job.workdir,
    "--mode",
    spec.job.mode,
    "--output",
    spec.reportPath,
    "--output-format",
    "json",
  );
  if (spec.job.token_budget !== null) args.push("--token-budget", String(spec.job.token_budget));
  // A flag, not an environment variable or a setting: nothing in the workdir can undo it.
  if (isUntrustedIntake(spec.job)) args.push("--memory-scope", "workspace");
  args.push("--", spec.resume ? spec.resume.text : spec.job.prompt);
  return args;
}

/** AGENT_GPU_PRIORITY: 1, on, true, yes or a positive integer turn it on; anything else not. */
export function gpuPriorityOn(value: string | undefined): boolean {
  const v = (value ?? "").trim().toLowerCase();
  if (v === "on" || v === "true" || v === "yes") return true;
  return /^\d+$/.test(v) && Number(v) > 0;
}

/**
 * Never handed to a job child: the outpost-only secrets (the Matrix bot's token and config, the
 * VAPID key location, the code-host token of the github_pr_comment surface: a triage run reads
 * untrusted issue text, so it must not hold a token that could post or push) and the model keys.
 * The child resolves its key from the settings files (spec 2.3: "the subprocess resolves
 * credentials live from settings"), so a key in the outpost's environment is never in any
 * child's environment, where a process able to read it could send it elsewhere (issue 14).
 * Everything else is inherited.
 */
const WITHHELD = [
  "MX_HOMESERVER",
  "MX_TOKEN",
  "MX_ROOM",
  "MX_ALLOWLIST",
  "VAPID_PRIVATE_KEY_FILE",
  "AGENT_OUTPOST_GITHUB_TOKEN",
  ...MODEL_KEY_VARS,
];

export function childEnv(
  operator: Env,
  job: Pick<Job, "id" | "name" | "schedule" | "base_url" | "model" | "provider_preset">,
  runPriority: number,
): Record<string, string> {
  const env = childEndpointEnv(operator, job);
  env.TZ = job.schedule.tz;
  env.AGENT_SANDBOX = "container";
  if (!operator.get("AGENT_COMPACT_THRESHOLD")) env.AGENT_COMPACT_THRESHOLD = "0.85";
  env.AGENT_JOB_ID = String(job.id);
  env.AGENT_JOB_NAME = job.name;
  if (gpuPriorityOn(operator.get("AGENT_GPU_PRIORITY"))) {
    env.AGENT_REQUEST_PRIORITY = String(runPriority);
  }
  return env;
}

/**
 * The part of a child's environment that decides where its model requests go and which
 * stored key they carry: the operator's, secrets withheld, the job's endpoint and preset, and
 * GPU priority's wire. childEnv builds on it, and job_key.ts judges a job's key from exactly it.
 */
export function childEndpointEnv(
  operator: Env,
  job: Pick<Job, "base_url" | "model" | "provider_preset">,
): Record<string, string> {
  const env = operator.toObject();
  for (const name of WITHHELD) delete env[name];
  // The job's endpoint snapshot (its provider pin) is what the child talks to.
  if (job.base_url) env.AGENT_BASE_URL = job.base_url;
  if (job.model) env.AGENT_MODEL = job.model;
  // The preset whose stored key the job names; the child sends it only to that preset's
  // origin (core/settings/key_binding.ts), so a base_url elsewhere still gets no stored key.
  if (job.provider_preset) env.AGENT_PRESET = job.provider_preset;
  if (gpuPriorityOn(operator.get("AGENT_GPU_PRIORITY"))) env.AGENT_PROVIDER = "chat_completions";
  return env;
}

/** <home>/outpost/runs/<job> */
export function runsDir(home: string, jobId: number): string {
  return join(home, "outpost", "runs", String(jobId));
}

/** Compact UTC stamp for file names: 2026-03-09T09:00:00Z -> 20260309T090000Z. */
export function fileStamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z").replace(/[-:]/g, "");
}
