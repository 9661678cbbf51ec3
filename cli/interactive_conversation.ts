// Session commands that act on the conversation itself: /clear (a new one), /compact (now),
// /resume (pick a saved one), /mode (auto, strict, plan) and /diff (what this session's edits
// changed in the workdir). /resume takes only conversations saved in this session's workdir
// (cli/resume_workdir.ts): one from another folder is refused with the command that resumes it
// there.

import { compactHistory } from "../core/agent/compaction.ts";
import { loadSession } from "../core/agent/journal.ts";
import { PERMISSION_MODES, type PermissionMode } from "../core/agent/permissions.ts";
import { composeSystemPrompt } from "../core/agent/system_prompt.ts";
import type { PickItem } from "./pickers/prompts.ts";
import { paintDetail } from "./interactive_approval.ts";
import type { SessionState } from "./interactive_types.ts";
import { errorLine } from "../core/logger.ts";
import { resumeHereRefusal } from "./resume_workdir.ts";

/** Saved conversations /resume offers, newest first. */
const RESUME_CHOICES = 20;

export async function clearCommand(s: SessionState): Promise<void> {
  const saved = await s.newConversation();
  s.note(
    saved
      ? `new conversation; the previous one is saved (/resume, or agent --resume ${saved})`
      : "new conversation",
  );
}

export async function compactCommand(s: SessionState): Promise<void> {
  const before = s.history.length;
  const compacted = await s.guarded(
    (signal) => compactHistory(s.history, s.ctx.wire, s.ctx.settings.model, signal),
    { escape: true },
  );
  if (!compacted) {
    return s.note("nothing to compact yet: the conversation is shorter than what is kept verbatim");
  }
  await s.recordCompaction(compacted.messages);
  s.note(`history compacted: ${before} → ${compacted.messages.length} messages`);
}

export function modeCommand(s: SessionState, arg: string): void {
  const wanted = arg.trim().toLowerCase();
  if (wanted === "") {
    return s.print(`mode ${s.mode} (choose with /mode ${PERMISSION_MODES.join(" | ")})`);
  }
  if (!PERMISSION_MODES.includes(wanted as PermissionMode)) {
    return s.error(`Unknown mode ${JSON.stringify(arg)}: use ${PERMISSION_MODES.join(", ")}.`);
  }
  s.mode = wanted as PermissionMode;
  // The system prompt names the mode, so the model knows what it may do.
  s.ctx.system = composeSystemPrompt({
    workdir: s.ctx.workdir,
    today: s.clock.now().toISOString().slice(0, 10),
    mode: s.mode,
    ...(s.ctx.brief ? { brief: s.ctx.brief } : {}),
    ...(s.ctx.memory ? { memoryIndex: s.ctx.memory.cachedIndex() } : {}),
  });
  const what = {
    auto: "edits and shell commands run without asking",
    strict: "every edit and shell command asks first",
    plan: "edits and shell commands are refused; the agent plans",
  }[s.mode];
  s.note(`mode ${s.mode}: ${what}`);
}

export function diffCommand(s: SessionState): void {
  const diffs = s.changes.diffs();
  if (diffs.length === 0) {
    return s.note(
      s.changes.count === 0
        ? "no file edits in this session yet (changes made through the shell are not tracked)"
        : "the files this session edited are back to how they were",
    );
  }
  for (const diff of diffs) s.print(paintDetail(diff, s.style).join("\n"));
  s.note(
    `${diffs.length} file${diffs.length === 1 ? "" : "s"} changed by this session's edits ` +
      "(changes made through the shell are not tracked)",
  );
}

export async function resumeCommand(s: SessionState, arg: string): Promise<void> {
  const dir = s.ctx.sessionsDir;
  let id = arg.trim();
  if (id === "") {
    const items = await savedConversations(s, dir);
    if (items.length === 0) {
      // The current conversation is saved too (a resumed one always is): say it was left out.
      return s.note(
        s.sessionId
          ? `no other saved conversations in ${dir} (the current one is ${s.sessionId})`
          : `no saved conversations in ${dir}`,
      );
    }
    const picked = await s.withPrompt(() =>
      s.term.prompts.pick<string>({ message: "Resume which conversation?", items })
    );
    if (picked === null) return;
    id = picked;
  }
  if (id === s.sessionId) return s.note("that is the current conversation");
  const loaded = await loadSession(dir, id);
  const refusal = await resumeHereRefusal(id, loaded.meta.workdir, s.ctx.workdir);
  if (refusal) return s.error(refusal);
  await s.switchTo({ ...loaded, id });
  s.note(`resumed ${id} (${loaded.messages.length} messages)`);
}

async function savedConversations(s: SessionState, dir: string): Promise<PickItem<string>[]> {
  const ids: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.endsWith(".jsonl")) ids.push(e.name.slice(0, -6));
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  ids.sort().reverse();
  const items: PickItem<string>[] = [];
  for (const id of ids) {
    if (items.length >= RESUME_CHOICES) break;
    if (id === s.sessionId) continue;
    let loaded;
    try {
      loaded = await loadSession(dir, id);
    } catch (err) {
      // Shown, so a damaged journal does not silently vanish from the list, but not offered.
      items.push({ type: "header", text: `${id}: unreadable (${errorLine(err)})` });
      continue;
    }
    const first = loaded.messages.find((m) => m.role === "user")?.parts.find((p) =>
      p.type === "text"
    );
    const title = first && first.type === "text" ? first.text.split("\n")[0]! : "(no prompt)";
    // Another folder's conversation is listed, so it can be found, but picking it is refused.
    const here = loaded.meta.workdir === s.ctx.workdir ? "" : ` · from ${loaded.meta.workdir}`;
    items.push({
      type: "row",
      value: id,
      key: id,
      label: title.length > 60 ? `${title.slice(0, 59)}…` : title,
      hint: `${id} · ${loaded.lastOutcome?.done_reason ?? "in progress"}${here}`,
    });
  }
  return items;
}
