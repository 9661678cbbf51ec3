// A fleet node's copy of each run it finishes into the shared database (issue 32,
// core/fleet/pg_run_files.ts): the report and the log tail exactly as this node's run page
// shows them (the same guarded, bounded reads and notes: server/views/page_data.ts), each run
// through the publish gate's secret scanner first, because the copy reaches every node and
// the database's backups, not just this box's disk. A text the scanner could not check is not
// copied: the copy says so and where the file is instead.

import { errorText, type Logger } from "../core/logger.ts";
import type { PgRunFiles, RunFilesCopy } from "../core/fleet/pg_run_files.ts";
import type { SecretScanner } from "../core/publish/secret_scan.ts";
import type { Run, Store } from "../core/store/store.ts";
import { pageLog, pageReport } from "./views/page_data.ts";

export interface RunFilesCopier {
  store: Pick<Store, "getRun">;
  home: string;
  logger: Logger;
  scanner: SecretScanner;
  runFiles: PgRunFiles;
  nodeId: string;
}

/** Copies finished run `runId`'s report and log tail into the shared database. */
export async function copyRunFiles(o: RunFilesCopier, runId: number): Promise<void> {
  const run = o.store.getRun(runId);
  if (!run || run.status === "queued" || run.status === "running") return;
  const { report, reportNote } = await pageReport(o, run);
  const log = await pageLog(o, run);
  const [shownReport, shownLog] = await Promise.all([
    scrubbed(o, run, "report", report, reportNote),
    scrubbed(o, run, "log", log?.text ?? null, log?.note ?? null),
  ]);
  const copy: RunFilesCopy = {
    report: shownReport.text,
    report_note: shownReport.note,
    log: shownLog.text,
    log_note: shownLog.note,
  };
  o.runFiles.keep(run.id, o.nodeId, copy);
}

/** `text` with every secret finding redacted, and the note saying so; null text kept. */
async function scrubbed(
  o: RunFilesCopier,
  run: Run,
  what: "report" | "log",
  text: string | null,
  note: string | null,
): Promise<{ text: string | null; note: string | null }> {
  if (text === null || text === "") return { text, note };
  try {
    const scan = await o.scanner.scan(text);
    if (scan.findings.length === 0) return { text, note };
    const said = `${scan.findings.length} secret finding(s) redacted in this copy ` +
      `(the file on node ${o.nodeId} is unchanged).`;
    return { text: scan.redacted, note: note ? `${note} ${said}` : said };
  } catch (err) {
    o.logger.log("warn", `run ${what} not copied: the secret scan failed`, {
      run_id: run.id,
      error: errorText(err),
    });
    return {
      text: null,
      note: `The ${what} was not copied from node ${o.nodeId}: the secret scan failed ` +
        `(${errorText(err)}).`,
    };
  }
}
