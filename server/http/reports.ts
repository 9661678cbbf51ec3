// Run reports (spec 2.4): <home>/outpost/runs/<job>/<timestamp>.md, served as markdown by
// both doors. The path comes from the store, but is still confined to the runs directory
// so a tampered row can never turn this route into a file reader.

import { join, resolve, sep } from "node:path";
import type { Run } from "../../core/store/store.ts";
import { ApiError } from "./errors.ts";

/** Reports larger than this are refused (413) rather than streamed into a page. */
export const REPORT_MAX_BYTES = 4 * 1024 * 1024;

/** The report text of `run`. Throws ApiError 404 (none yet / gone) or 413 (too large). */
export async function readRunReport(home: string, run: Run): Promise<string> {
  const missing = () =>
    new ApiError(
      404,
      "no_report",
      `run ${run.id} has no report${
        run.status === "queued" || run.status === "running" ? " yet; it is still " + run.status : ""
      }`,
    );
  if (!run.report_path) throw missing();
  const runsRoot = resolve(join(home, "outpost", "runs"));
  const path = resolve(run.report_path);
  if (!path.startsWith(runsRoot + sep) || !path.endsWith(".md")) {
    throw new ApiError(404, "no_report", `run ${run.id} has no report under the runs directory`);
  }
  let file: Deno.FsFile;
  try {
    // Symlinks must not lead out of the runs directory either.
    const [real, realRoot] = await Promise.all([Deno.realPath(path), Deno.realPath(runsRoot)]);
    if (!real.startsWith(realRoot + sep)) throw missing();
    file = await Deno.open(real, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw missing();
    throw err;
  }
  try {
    const info = await file.stat();
    if (!info.isFile) throw missing();
    if (info.size > REPORT_MAX_BYTES) {
      throw new ApiError(
        413,
        "report_too_large",
        `the report of run ${run.id} is ${info.size} bytes, over the ${REPORT_MAX_BYTES}-byte ` +
          `limit; read it on disk at ${path}`,
      );
    }
    const bytes = new Uint8Array(info.size);
    let off = 0;
    while (off < bytes.length) {
      const n = await file.read(bytes.subarray(off));
      if (n === null) break;
      off += n;
    }
    return new TextDecoder().decode(bytes.subarray(0, off));
  } finally {
    file.close();
  }
}

/** Headers for serving report markdown: plain text to the browser, never sniffed or framed. */
export const MARKDOWN_HEADERS: Record<string, string> = {
  "Content-Type": "text/markdown; charset=utf-8",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "sandbox; default-src 'none'",
  "Cache-Control": "no-store",
};
