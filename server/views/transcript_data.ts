// Reads a run's session journal (<home>/sessions/<session_id>.jsonl, core/agent/journal.ts)
// into the transcript the run page shows: legs (the first run, then each resume), each with
// the prompt, the model's turns (text, reasoning, tool calls with their results), the
// question the leg stopped on and the operator's answer that opened the next leg.
//
// The journal is written by the run's own child, so it is read like a report: the id must
// be a plain session id, the file is opened through core's guarded opener (no symlinks, no
// FIFOs, descriptor checked), at most TRANSCRIPT_MAX_BYTES are read, and long texts are cut
// for display. A refused or unreadable journal is said as such, never shown as "none".

import type { JournalEntry, JournalMeta } from "../../core/agent/journal.ts";
import { sessionPath } from "../../core/agent/journal.ts";
import { errorText } from "../../core/logger.ts";
import { join } from "../../core/path.ts";
import { openRegularFile, readRange } from "../../core/scheduler/report_reader.ts";
import type { Question } from "../../core/tools/types.ts";
import type { Message } from "../../core/wires/types.ts";

export const TRANSCRIPT_MAX_BYTES = 4 * 1024 * 1024;
/** Characters of one text, argument list or tool result shown before a cut note. */
export const TEXT_SHOWN = 20_000;

export interface ToolCallView {
  id: string;
  name: string;
  input: string;
  result: { content: string; is_error: boolean } | null;
  /** The call waited for the operator (ask, approval) when the leg stopped. */
  waiting: boolean;
}

export type TranscriptItem =
  | { kind: "prompt"; text: string }
  | { kind: "user"; text: string }
  | { kind: "answer"; text: string }
  | {
    kind: "assistant";
    texts: string[];
    /** `texts` rendered as sanitized markdown (markdown.ts), filled in by the renderer. */
    html?: string[];
    reasoning: string[];
    calls: ToolCallView[];
  }
  | { kind: "stop"; done_reason: string; questions: Question[]; final_text: string; at: string }
  | { kind: "note"; text: string };

export interface Leg {
  items: TranscriptItem[];
}

export type Transcript =
  | { kind: "ok"; meta: JournalMeta | null; legs: Leg[]; note: string | null }
  | { kind: "none"; why: string };

function cut(text: string): string {
  if (text.length <= TEXT_SHOWN) return text;
  return `${text.slice(0, TEXT_SHOWN)}\n… (${text.length - TEXT_SHOWN} more characters)`;
}

/**
 * The final answer of an outcome, or "" when the leg's last model turn already shows it (the
 * usual case: the answer is the last reply), so the page does not say it twice.
 */
function unshownFinal(leg: Leg, final: string): string {
  const last = leg.items.findLast((i) => i.kind === "assistant");
  if (last?.kind === "assistant" && last.texts.join("\n\n").trim() === final.trim()) return "";
  return final;
}

/** Reads and parses the journal of `sessionId` under <home>/sessions. */
export async function readTranscript(home: string, sessionId: string | null): Promise<Transcript> {
  if (!sessionId) {
    return { kind: "none", why: "This run recorded no session (it ended before its first turn)." };
  }
  let path: string;
  try {
    path = sessionPath(join(home, "sessions"), sessionId);
  } catch (err) {
    return { kind: "none", why: `The run's session id is not usable: ${errorText(err)}` };
  }
  let opened;
  try {
    opened = await openRegularFile(path);
  } catch (err) {
    return { kind: "none", why: `The session journal could not be read: ${errorText(err)}` };
  }
  if (!("handle" in opened)) {
    return opened.kind === "absent"
      ? { kind: "none", why: "The session journal is not on this host (it may have been deleted)." }
      : {
        kind: "none",
        why: `The session journal is not shown: ${opened.why.replace("report", "journal")}.`,
      };
  }
  const { handle, size } = opened;
  let text: string;
  try {
    text = new TextDecoder().decode(
      await readRange(handle, 0, Math.min(size, TRANSCRIPT_MAX_BYTES)),
    );
  } catch (err) {
    return { kind: "none", why: `The session journal could not be read: ${errorText(err)}` };
  } finally {
    await handle.close();
  }
  const note = size > TRANSCRIPT_MAX_BYTES
    ? `The journal is ${size} bytes; only the first ${TRANSCRIPT_MAX_BYTES} are shown. ` +
      `The whole file is on the outpost host at ${path}.`
    : null;
  return { kind: "ok", ...parseTranscript(text), note };
}

/** Journal text → legs. Unparseable lines (a torn last line) are skipped with a note. */
export function parseTranscript(text: string): { meta: JournalMeta | null; legs: Leg[] } {
  let meta: JournalMeta | null = null;
  const legs: Leg[] = [{ items: [] }];
  const calls = new Map<string, ToolCallView>();
  let leg = legs[0]!;
  let bad = 0;
  let stopped = false;
  let sawPrompt = false;
  const startLegIfStopped = () => {
    if (!stopped) return;
    leg = { items: [] };
    legs.push(leg);
    stopped = false;
  };
  const attach = (callId: string, content: string, isError: boolean) => {
    const call = calls.get(callId);
    if (call) {
      call.result = { content: cut(content), is_error: isError };
      call.waiting = false;
    }
  };
  const onMessage = (m: Message) => {
    if (m.role === "assistant") {
      startLegIfStopped();
      const item: Extract<TranscriptItem, { kind: "assistant" }> = {
        kind: "assistant",
        texts: [],
        reasoning: [],
        calls: [],
      };
      for (const p of m.parts) {
        if (p.type === "text" && p.text.trim() !== "") item.texts.push(cut(p.text));
        else if (p.type === "reasoning" && p.text.trim() !== "") item.reasoning.push(cut(p.text));
        else if (p.type === "redacted_reasoning") item.reasoning.push("(redacted reasoning)");
        else if (p.type === "tool_call") {
          const call: ToolCallView = {
            id: p.id,
            name: p.name,
            input: cut(JSON.stringify(p.input, null, 2)),
            result: null,
            waiting: false,
          };
          calls.set(p.id, call);
          item.calls.push(call);
        }
      }
      leg.items.push(item);
      return;
    }
    const resumed = stopped;
    startLegIfStopped();
    const texts: string[] = [];
    for (const p of m.parts) {
      if (p.type === "tool_result") {
        attach(p.call_id, p.content, p.is_error ?? false);
        if (resumed) texts.push(p.content);
      } else if (p.type === "text") texts.push(p.text);
    }
    if (texts.length === 0) return;
    const joined = cut(texts.join("\n\n"));
    if (resumed) leg.items.push({ kind: "answer", text: joined });
    else if (!sawPrompt) leg.items.push({ kind: "prompt", text: joined });
    else leg.items.push({ kind: "user", text: joined });
    sawPrompt = true;
  };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let entry: JournalEntry;
    try {
      entry = JSON.parse(line);
    } catch {
      bad++;
      continue;
    }
    switch (entry.type) {
      case "meta":
        meta = entry.meta;
        break;
      case "message":
        onMessage(entry.message);
        break;
      case "compaction":
        leg.items.push({
          kind: "note",
          text: `The history was compacted here (${entry.messages.length} messages kept).`,
        });
        break;
      case "pending":
        for (const p of entry.results) {
          if (p.type === "tool_result") attach(p.call_id, p.content, p.is_error ?? false);
        }
        for (const w of entry.waiting) {
          const call = calls.get(w.id);
          if (call) call.waiting = true;
        }
        break;
      case "reflection":
        leg.items.push({
          kind: "note",
          text: entry.ran
            ? "Memory reflection ran after the answer."
            : `Memory reflection skipped: ${entry.skipped ?? "no reason given"}.`,
        });
        break;
      case "outcome":
        leg.items.push({
          kind: "stop",
          done_reason: entry.done_reason,
          questions: entry.questions ?? [],
          final_text: unshownFinal(leg, cut(entry.final_text ?? "")),
          at: entry.at,
        });
        stopped = true;
        break;
    }
  }
  if (bad > 0) {
    legs.at(-1)!.items.push({ kind: "note", text: `${bad} journal line(s) could not be read.` });
  }
  return { meta, legs: legs.filter((l) => l.items.length > 0) };
}
