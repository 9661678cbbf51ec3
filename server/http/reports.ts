// Run reports (spec 2.4): <home>/outpost/runs/<job>/<timestamp>.md, served as markdown by
// both doors. The file is read through core's guarded reader (report_reader.ts): confined
// to the runs folder, no symlinks, regular files only, never a blocking open, size-capped.

import { readReport } from "../../core/scheduler/report_reader.ts";
import type { Run } from "../../core/store/store.ts";
import { ApiError } from "./errors.ts";

/** Reports larger than this are refused (413) rather than streamed into a page. */
export const REPORT_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The report text of a finished `run`. Throws ApiError 404 (queued or running, none, gone,
 * refused) or 413 (too large). A queued or running run has no report yet even when a file is
 * there: the child rewrites it after its reflection pass, so only a finished run's report is
 * the one the run ends with (docs/machine-door-v1.md, docs/dashboard-api.md).
 */
export async function readRunReport(home: string, run: Run): Promise<string> {
  if (run.status === "queued" || run.status === "running") {
    throw new ApiError(
      404,
      "no_report",
      `run ${run.id} has no report yet; it is still ${run.status}`,
    );
  }
  const read = await readReport({
    home,
    path: run.report_path,
    maxBytes: REPORT_MAX_BYTES,
    oversize: "refuse",
  });
  switch (read.kind) {
    case "text":
      return read.text;
    case "absent":
      throw new ApiError(404, "no_report", `run ${run.id} has no report: ${read.why}`);
    case "refused":
      throw new ApiError(
        404,
        "no_report",
        `run ${run.id} has no report that can be shown: ${read.why}`,
      );
    case "too_large":
      throw new ApiError(
        413,
        "report_too_large",
        `the report of run ${run.id} is ${read.size} bytes, over the ${REPORT_MAX_BYTES}-byte ` +
          `limit; read it on disk at ${read.path}`,
      );
  }
}

/** Headers for serving report markdown: plain text to the browser, never sniffed or framed. */
export const MARKDOWN_HEADERS: Record<string, string> = {
  "Content-Type": "text/markdown; charset=utf-8",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "sandbox; default-src 'none'",
  "Cache-Control": "no-store",
};
