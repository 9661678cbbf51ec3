// Reads back the one JSON object a headless child prints on stdout (core/agent/types.ts
// HeadlessResult). The exit code decides the outcome; this only supplies the details, so a
// missing or garbled object degrades to nulls rather than failing the run record.

import type { Question } from "../tools/types.ts";

/** Keep at most this much stdout per child; the object is printed last. */
export const STDOUT_CAPTURE_BYTES = 1024 * 1024;

export interface ParsedResult {
  session_id: string | null;
  tokens_in: number | null;
  tokens_out: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  cost_usd: number | null;
  /** The model the run used (the child's resolved name); null when absent. */
  model: string | null;
  /** The child's own measure of the run (ms); null when absent. */
  duration_ms: number | null;
  /** Why the agent stopped (`stop`, `truncated`, …); null when absent. */
  done_reason: string | null;
  /** The model's last stop reason (`end_turn`, `max_tokens`, …); null when absent. */
  stop_reason: string | null;
  questions: Question[];
  error: string | null;
  /** The child stopped before its first turn on its configuration: a retry cannot help. */
  setup_error: boolean;
  final_text: string | null;
}

export function parseHeadlessResult(stdout: string): ParsedResult | null {
  const obj = lastJsonObject(stdout);
  return obj ? resultFromObject(obj) : null;
}

/**
 * The details of a result object shaped like the child's JSON (HeadlessResult); unknown or
 * malformed fields become nulls. Startup recovery also builds one from a report and journal.
 */
export function resultFromObject(obj: Record<string, unknown>): ParsedResult {
  const usage = typeof obj.usage === "object" && obj.usage !== null
    ? obj.usage as Record<string, unknown>
    : {};
  return {
    session_id: str(obj.session_id),
    tokens_in: count(usage.input_tokens),
    tokens_out: count(usage.output_tokens),
    cache_read_tokens: count(usage.cache_read_tokens),
    cache_write_tokens: count(usage.cache_write_tokens),
    cost_usd: typeof obj.cost_usd === "number" && Number.isFinite(obj.cost_usd)
      ? obj.cost_usd
      : null,
    model: str(obj.model),
    duration_ms: count(obj.duration_ms),
    done_reason: str(obj.done_reason),
    stop_reason: str(obj.stop_reason),
    questions: questions(obj.questions),
    error: str(obj.error),
    setup_error: obj.setup_error === true,
    final_text: typeof obj.final_text === "string" ? obj.final_text : null,
  };
}

function lastJsonObject(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const candidates = [
    trimmed,
    ...trimmed.split("\n").reverse().filter((l) => l.trim().startsWith("{")),
  ];
  for (const c of candidates) {
    try {
      const value = JSON.parse(c);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        return value as Record<string, unknown>;
      }
    } catch { /* try the next candidate */ }
  }
  return null;
}

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

function count(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.round(v) : null;
}

/** Keeps well-formed entries; kinds are kept verbatim (the risk classifier judges them). */
function questions(v: unknown): Question[] {
  if (!Array.isArray(v)) return [];
  const out: Question[] = [];
  for (const q of v) {
    if (typeof q !== "object" || q === null) continue;
    const r = q as Record<string, unknown>;
    if (typeof r.text !== "string") continue;
    const item = { kind: r.kind, text: r.text } as Question;
    if (Array.isArray(r.options)) item.options = r.options.filter((o) => typeof o === "string");
    if (typeof r.detail === "string") item.detail = capDetail(r.detail);
    out.push(item);
  }
  return out;
}

/** What an approval would do (a diff, a command) is kept up to this many characters. */
export const QUESTION_DETAIL_MAX_CHARS = 20_000;

function capDetail(text: string): string {
  if (text.length <= QUESTION_DETAIL_MAX_CHARS) return text;
  const more = text.length - QUESTION_DETAIL_MAX_CHARS;
  return `${
    text.slice(0, QUESTION_DETAIL_MAX_CHARS)
  }\n… (${more} more characters in the run report)`;
}
