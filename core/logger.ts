// The small logging port the outpost core writes through. Production passes a JSON-lines
// logger; tests pass a recorder and assert on what was logged.

export type LogLevel = "info" | "warn" | "error";

export interface Logger {
  log(level: LogLevel, message: string, data?: Record<string, unknown>): void;
}

/** Writes one JSON object per line to stderr. */
export const stderrLogger: Logger = {
  log(level, message, data) {
    const line = JSON.stringify({ at: new Date().toISOString(), level, message, ...data });
    console.error(line);
  },
};

/** Keeps every entry in memory (tests and diagnostics). */
export class MemoryLogger implements Logger {
  readonly entries: { level: LogLevel; message: string; data?: Record<string, unknown> }[] = [];
  log(level: LogLevel, message: string, data?: Record<string, unknown>): void {
    this.entries.push(data === undefined ? { level, message } : { level, message, data });
  }
}

export const silentLogger: Logger = { log() {} };

/** Message text of anything thrown. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** errorText on one line (a CLI's error line, a run result's `error`). */
export function errorLine(err: unknown): string {
  return errorText(err).replace(/\s*\n\s*/g, " ").trim();
}
