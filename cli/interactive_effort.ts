// /effort (spec 4.2): human-only. `/effort <level>` asks for confirmation because a new
// effort invalidates the prompt cache; bare `/effort` opens a picker of the active backend's
// levels whose first row clears the override. The model reaches effort only through a
// propose_settings proposal, which the human must approve here.

import type { LoopConfig, ToolCallPart } from "../core/agent/loop.ts";
import {
  checkEffort,
  describeBackend,
  effortBackend,
  effortVocabulary,
  InvalidEffortError,
} from "../core/wires/effort.ts";
import type { PickItem } from "./pickers/prompts.ts";
import type { SessionState } from "./interactive_types.ts";

const DEFAULT_ROW = "default";
const CACHE_NOTE = "this invalidates the prompt cache";

export async function effortCommand(s: SessionState, arg: string): Promise<void> {
  const backend = effortBackend(s.ctx.endpoint);
  if (arg === "") {
    const items: PickItem<string>[] = [
      {
        type: "row",
        value: DEFAULT_ROW,
        key: DEFAULT_ROW,
        label: "default",
        hint: `no override: the server decides${s.effort === undefined ? " · current" : ""}`,
      },
      ...effortVocabulary(backend).levels.map((level): PickItem<string> => ({
        type: "row",
        value: level,
        key: level,
        label: level,
        ...(level === s.effort ? { hint: "current" } : {}),
      })),
    ];
    const picked = await s.term.prompts.pick({
      message: `Reasoning effort for ${describeBackend(backend)}`,
      items,
      initialKey: s.effort ?? DEFAULT_ROW,
    });
    if (picked === null) return s.note("effort unchanged");
    return setEffort(s, picked === DEFAULT_ROW ? undefined : picked);
  }

  const level = arg.trim().toLowerCase();
  const target = level === DEFAULT_ROW ? undefined : level;
  if (target !== undefined) {
    try {
      checkEffort(backend, target);
    } catch (err) {
      if (err instanceof InvalidEffortError) {
        return s.error(`${err.message} Bare /effort opens a picker.`);
      }
      throw err;
    }
  }
  if (target === s.effort) return s.note(`effort is already ${target ?? "the server default"}`);
  const ok = await s.term.prompts.confirm(
    `Set reasoning effort to ${target ?? "the server default"}? (${CACHE_NOTE})`,
    true,
  );
  if (ok !== true) return s.note("effort unchanged");
  setEffort(s, target);
}

function setEffort(s: SessionState, level: string | undefined): void {
  s.effort = level;
  s.print(`effort: ${level ?? "default (no override)"} · takes effect on the next reply`);
}

/** After a /model swap: an effort the new backend does not offer is dropped, with a note. */
export function reconcileEffort(s: SessionState): void {
  if (s.effort === undefined) return;
  const backend = effortBackend(s.ctx.endpoint);
  if (effortVocabulary(backend).levels.includes(s.effort)) return;
  s.note(`effort ${s.effort} is not offered by ${describeBackend(backend)}; back to the default`);
  s.effort = undefined;
}

/** The model's propose_settings call: valid levels go to the human for approval. */
export async function answerEffortProposal(
  s: SessionState,
  call: ToolCallPart,
  cfg: LoopConfig,
): Promise<string> {
  const level = String(call.input.effort ?? "").trim().toLowerCase();
  const reason = typeof call.input.reason === "string" ? call.input.reason.trim() : "";
  const backend = effortBackend(s.ctx.endpoint);
  try {
    checkEffort(backend, level);
  } catch (err) {
    if (err instanceof InvalidEffortError) {
      s.note(`  the model proposed effort "${level}", which this backend does not offer`);
      return `rejected: ${err.message}`;
    }
    throw err;
  }
  const ok = await s.term.prompts.confirm(
    `The model proposes reasoning effort ${level}${reason ? ` (${reason})` : ""}. ` +
      `Apply it? (${CACHE_NOTE})`,
    false,
  );
  if (ok !== true) return "rejected: the operator kept the current effort";
  s.effort = level;
  cfg.effort = level;
  s.note(`  effort: ${level}`);
  return `approved: effort is now ${level}`;
}
