// The outcome a child left behind when no outpost was there to hear it exit. Startup
// recovery asks this for every run the store still calls running: a child that finished
// while the outpost was down has written its markdown report (core/agent/report.ts: the
// `Outcome`, exit code and `Session` facts) and, before it, the `outcome` entry of its
// session journal (core/agent/journal.ts). When both are there and agree, that is the run's
// outcome; anything less (no report, a report without an outcome line, a journal with no
// outcome or a different done reason) is "unknown", and the run is `lost`.
//
// Both files are written by the run itself, so both are opened through the one guarded
// opener (report_reader.ts: confined to their folders, no symlinks, no FIFOs, size-capped).
// A refused or unreadable file is an unknown outcome with its reason, never a guessed one.

import { sessionPath } from "../agent/journal.ts";
import { errorText } from "../logger.ts";
import { join } from "../path.ts";
import type { Run } from "../store/store.ts";
import { type ParsedResult, resultFromObject } from "./headless_result.ts";
import { openRegularFile, readRange, readReport } from "./report_reader.ts";

/** The report's facts sit at its top; the rest (prompt, final answer) is not needed. */
const REPORT_HEAD_BYTES = 64 * 1024;
/** The journal's outcome entry is among its last lines (only reflection may follow it). */
const JOURNAL_TAIL_BYTES = 1024 * 1024;

export type LeftOutcome =
  | { kind: "known"; exitCode: number; result: ParsedResult }
  | { kind: "unknown"; why: string };

const EXIT_OF: Record<string, number> = { ok: 0, error: 1, needs_human: 2 };

/** What `run`'s child left in its report and journal (see the header). */
export async function readLeftOutcome(home: string, run: Run): Promise<LeftOutcome> {
  let report;
  try {
    report = await readReport({ home, path: run.report_path, maxBytes: REPORT_HEAD_BYTES });
  } catch (err) {
    return { kind: "unknown", why: `its report could not be read: ${errorText(err)}` };
  }
  if (report.kind !== "text") {
    return {
      kind: "unknown",
      why: report.kind === "too_large" ? "its report is too large" : `no report: ${report.why}`,
    };
  }
  const facts = reportFacts(report.text);
  const outcome = /^(ok|error|needs_human) \(exit (\d)\)$/.exec(facts.get("Outcome") ?? "");
  if (!outcome || EXIT_OF[outcome[1]!] !== Number(outcome[2])) {
    return { kind: "unknown", why: "its report has no outcome line" };
  }
  const exitCode = Number(outcome[2]);
  const session = facts.get("Session") ?? "";
  const doneReason = facts.get("Done reason") ?? null;
  const fromReport = {
    done_reason: doneReason,
    model: facts.get("Model"),
    error: facts.get("Error"),
    ...usageOf(facts),
  };
  // A run that failed before its first turn has no session and no journal; its report is
  // all it left, and it says so.
  if (!/^[A-Za-z0-9._-]+$/.test(session)) {
    if (exitCode === 0) return { kind: "unknown", why: "its report names no session" };
    return { kind: "known", exitCode, result: resultFromObject(fromReport) };
  }
  const journal = await journalOutcome(home, session);
  if ("why" in journal) return { kind: "unknown", why: journal.why };
  if (journal.done_reason !== doneReason) {
    return {
      kind: "unknown",
      why: `its report (${doneReason}) and journal (${journal.done_reason}) disagree`,
    };
  }
  return {
    kind: "known",
    exitCode,
    result: resultFromObject({
      ...fromReport,
      session_id: session,
      questions: journal.questions,
      final_text: journal.final_text,
    }),
  };
}

/** `- **Name:** value` lines of the report's fact list. */
function reportFacts(text: string): Map<string, string> {
  const facts = new Map<string, string>();
  for (const m of text.matchAll(/^- \*\*([A-Za-z ]+):\*\* (.*)$/gm)) {
    if (!facts.has(m[1]!)) facts.set(m[1]!, m[2]!.trim());
  }
  return facts;
}

function usageOf(facts: Map<string, string>): Record<string, unknown> {
  const tokens = /^(\d+) in \/ (\d+) out$/.exec(facts.get("Tokens") ?? "");
  const cost = /^\$(\d+(?:\.\d+)?)$/.exec(facts.get("Cost") ?? "");
  const duration = /^(\d+(?:\.\d+)?) s$/.exec(facts.get("Duration") ?? "");
  return {
    ...(tokens
      ? { usage: { input_tokens: Number(tokens[1]), output_tokens: Number(tokens[2]) } }
      : {}),
    ...(cost ? { cost_usd: Number(cost[1]) } : {}),
    ...(duration ? { duration_ms: Number(duration[1]) * 1000 } : {}),
  };
}

interface JournalOutcome {
  done_reason: string;
  questions: unknown;
  final_text: unknown;
}

/** The last `outcome` entry in the tail of session `id`'s journal, or why there is none. */
async function journalOutcome(
  home: string,
  id: string,
): Promise<JournalOutcome | { why: string }> {
  let opened;
  try {
    opened = await openRegularFile(sessionPath(join(home, "sessions"), id));
  } catch (err) {
    return { why: `its session journal could not be read: ${errorText(err)}` };
  }
  if (!("handle" in opened)) {
    return { why: `no session journal: ${opened.why.replace("report", "journal")}` };
  }
  const { handle, size } = opened;
  let text: string;
  try {
    const start = Math.max(0, size - JOURNAL_TAIL_BYTES);
    text = new TextDecoder().decode(await readRange(handle, start, size - start));
  } catch (err) {
    return { why: `its session journal could not be read: ${errorText(err)}` };
  } finally {
    await handle.close();
  }
  for (const line of text.split("\n").reverse()) {
    if (!line.includes('"outcome"')) continue;
    try {
      const entry = JSON.parse(line);
      if (entry?.type === "outcome" && typeof entry.done_reason === "string") {
        return entry as JournalOutcome;
      }
    } catch { /* a torn or cut line: look further back */ }
  }
  return { why: "its session journal has no outcome" };
}
