// The history pages (issue 18): /runs (every run, filterable by job, status, class and
// date, cursor-paged, with the hourly charts), /jobs/<id> (one job; distinct from the
// job list's /jobs?before=<id> pages, which stay in pages.ts) and /audit (the audit log,
// filterable by action, actor and target). Bad filter values answer 400 with the page
// showing each error under its form label.

import type { Context, Hono } from "hono";
import type { AppDeps } from "../deps.ts";
import { assetUrls } from "../static/assets.ts";
import { jobKeyNote } from "../../core/scheduler/job_key.ts";
import {
  auditPageData,
  jobPageData,
  jobRunsPage,
  runsPageData,
  runsTableData,
} from "../views/history_data.ts";
import {
  AuditPage,
  JobPage,
  JobRunsTable,
  RunsHistoryTable,
  RunsPage,
} from "../views/history_pages.tsx";
import { parseAuditQuery, parseId, parseRunsQuery } from "../views/history_query.ts";
import { NotFoundPage } from "../views/not_found_page.tsx";
import { type Rendered, shell, toText } from "../views/render.tsx";
import { runProgress } from "../views/run_progress.ts";
import { PAGE_HEADERS } from "./pages.ts";

function send(c: Context, out: Rendered): Response {
  return c.html(out.html, out.status, PAGE_HEADERS);
}

export function registerHistoryPages(app: Hono, deps: AppDeps): void {
  const page = shell(deps, assetUrls());

  app.get("/runs", async (c) => {
    const q = parseRunsQuery((name) => c.req.query(name));
    const data = runsPageData(deps, deps.clock.now(), q);
    data.page.progress = await runProgress(deps, data.page.runs);
    return send(
      c,
      await page(
        { title: "Runs", page: "runs" },
        <RunsPage data={data} />,
        q.errors.length ? 400 : 200,
      ),
    );
  });

  app.get("/jobs/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    const job = id === null ? null : deps.store.getJob(id);
    if (!job) {
      return send(
        c,
        await page(
          { title: "Not found", page: "not-found" },
          <NotFoundPage what="There is no such job." />,
          404,
        ),
      );
    }
    // Only the cursor applies here: the page is this job's runs.
    const q = parseRunsQuery((name) => (name === "before" ? c.req.query(name) : undefined), job.id);
    const data = {
      ...jobPageData(deps, deps.clock.now(), job, q),
      keyNote: jobKeyNote({ env: deps.env, home: deps.home }, job),
    };
    data.page.progress = await runProgress(deps, data.page.runs);
    return send(
      c,
      await page(
        { title: job.name, page: "job", data: { job: job.id } },
        <JobPage data={data} />,
        q.errors.length ? 400 : 200,
      ),
    );
  });

  // The live regions of /runs and /jobs/<id>: their tables alone, re-fetched on run events
  // (static/live.js) and every few seconds while a row is running.
  app.get("/partials/runs-table", async (c) => {
    const q = parseRunsQuery((name) => c.req.query(name));
    const data = runsTableData(deps, deps.clock.now(), q);
    data.page.progress = await runProgress(deps, data.page.runs);
    return c.html(
      await toText(<RunsHistoryTable data={data} />),
      q.errors.length ? 400 : 200,
      PAGE_HEADERS,
    );
  });

  app.get("/partials/job-runs/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    const job = id === null ? null : deps.store.getJob(id);
    if (!job) return c.html('<p class="empty">This job no longer exists.</p>', 404, PAGE_HEADERS);
    const q = parseRunsQuery((name) => (name === "before" ? c.req.query(name) : undefined), job.id);
    const page = jobRunsPage(deps, job, q);
    page.progress = await runProgress(deps, page.runs);
    return c.html(
      await toText(<JobRunsTable page={page} now={deps.clock.now()} />),
      q.errors.length ? 400 : 200,
      PAGE_HEADERS,
    );
  });

  app.get("/audit", async (c) => {
    const q = parseAuditQuery((name) => c.req.query(name));
    const data = auditPageData(deps, deps.clock.now(), q);
    return send(
      c,
      await page(
        { title: "Audit log", page: "audit" },
        <AuditPage data={data} />,
        q.errors.length ? 400 : 200,
      ),
    );
  });
}
