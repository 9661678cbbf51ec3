// The lines a headless child (`agent -p --output-format json`) writes to its stderr for the
// outpost, besides its errors: the session line, as soon as the session journal exists, and
// progress lines (each tool call starting and ending, the token sums after each reply). The
// CLI writes them and the outpost parses them back from the run's .log (run_log.ts). No
// imports: the headless agent loads this on its start-up path.

/**
 * What `agent -p --output-format json` prints on stderr once its session journal exists,
 * before the first turn: a run killed or timed out later still names its session, so its
 * transcript can be shown (the JSON result with `session_id` comes only at the end).
 */
export const SESSION_LINE_PREFIX = "agent: session ";

/** The line a headless child prints for session `id`. */
export function sessionLine(id: string): string {
  return `${SESSION_LINE_PREFIX}${id}\n`;
}

const SESSION_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The session id of the first well-formed session line in `text`, or null. */
export function sessionIdFromLog(text: string): string | null {
  for (const line of text.split("\n")) {
    if (!line.startsWith(SESSION_LINE_PREFIX)) continue;
    const id = line.slice(SESSION_LINE_PREFIX.length).trim();
    // Names a file under sessions/: anything but a plain id is not taken.
    if (SESSION_ID_RE.test(id)) return id;
  }
  return null;
}

/** What a running run has done so far, from the progress lines at the end of its log. */
export interface RunProgress {
  /** The tool running now, or null between calls. */
  tool: string | null;
  /** Every prompt and reply token so far (cache reads and writes included), or null. */
  tokens: number | null;
}

const TOOL_PREFIX = "agent: tool ";
const TOOL_DONE = "agent: tool-done";
const TOKENS_RE = /^agent: tokens in=(\d+) out=(\d+) cache_read=(\d+) cache_write=(\d+)$/;

/** Sums a headless child keeps as its turns come back (the tokens line is cumulative). */
export interface ProgressTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The progress line of a tool call starting, of a tool call ending, or of the token sums. */
export function progressLine(
  event: { kind: "tool_start"; name: string } | { kind: "tool_end" } | {
    kind: "tokens";
    totals: ProgressTotals;
  },
): string {
  switch (event.kind) {
    case "tool_start":
      return `${TOOL_PREFIX}${event.name.replace(/\s+/g, "_")}\n`;
    case "tool_end":
      return `${TOOL_DONE}\n`;
    case "tokens": {
      const t = event.totals;
      return `agent: tokens in=${t.input} out=${t.output} cache_read=${t.cacheRead} ` +
        `cache_write=${t.cacheWrite}\n`;
    }
  }
}

const TOOL_NAME_RE = /^[A-Za-z0-9_.:-]{1,100}$/;

/** A session or progress line of the headless child (not an error it reported). */
export function isProtocolLine(line: string): boolean {
  return line.startsWith(SESSION_LINE_PREFIX) || line.startsWith(TOOL_PREFIX) ||
    line === TOOL_DONE || TOKENS_RE.test(line);
}

/** The current tool and the token sum from the progress lines of a log's end. */
export function progressFromLog(text: string): RunProgress {
  let tool: string | null = null;
  let tokens: number | null = null;
  for (const line of text.split("\n")) {
    if (line === TOOL_DONE) tool = null;
    else if (line.startsWith(TOOL_PREFIX)) {
      const name = line.slice(TOOL_PREFIX.length).trim();
      tool = TOOL_NAME_RE.test(name) ? name : null;
    } else {
      const m = TOKENS_RE.exec(line);
      if (m) tokens = Number(m[1]) + Number(m[2]) + Number(m[3]) + Number(m[4]);
    }
  }
  return { tool, tokens };
}
