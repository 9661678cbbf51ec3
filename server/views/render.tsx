// Turns a page or partial request into HTML: loads the data (page_data.ts), renders the
// markdown report, and wraps pages in the layout. Routes (server/routes/pages.ts) only parse
// ids and send what this returns.

import type { Child } from "hono/jsx";
import type { HtmlEscapedString } from "hono/utils/html";
import { NotFoundError } from "../../core/store/errors.ts";
import type { InboxView } from "../../core/inbox/service.ts";
import type { AppDeps } from "../deps.ts";
import { untilCommit } from "./commit_cache.ts";
import { GovernorUsageView } from "./governor_card.tsx";
import { InboxItemView, InboxList } from "./inbox_item.tsx";
import { InboxPage } from "./inbox_page.tsx";
import { JobsList } from "./jobs_card.tsx";
import { JobsListPage, LandingPage } from "./landing_page.tsx";
import { Layout, type LayoutProps } from "./layout.tsx";
import { renderMarkdown } from "./markdown.ts";
import { NotFoundPage } from "./not_found_page.tsx";
import {
  jobNames,
  jobsPage,
  memoryPaneData,
  openInbox,
  recentRuns,
  type RunPageData,
  runPageData,
  statusBarData,
  summaryData,
} from "./page_data.ts";
import { RunDetail, RunPage } from "./run_page.tsx";
import { RunsList } from "./runs_card.tsx";
import { StatusBar } from "./status_bar.tsx";
import { SummaryLine } from "./summary_line.tsx";
import { renderTranscriptMarkdown, TranscriptCard } from "./transcript.tsx";
import { readTranscript, type Transcript } from "./transcript_data.ts";

export type PageRequest =
  | { page: "landing" }
  | { page: "jobs"; before: number | null }
  | { page: "run"; job: number | null; run: number | null }
  | { page: "inbox"; id: number | null }
  | { page: "missing"; path: string };

export type PartialRequest =
  | { name: string }
  | { name: "jobs"; before: number | null }
  | { name: "run"; job: number | null; run: number | null }
  | { name: "inbox-item"; id: number | null };

export interface Rendered {
  html: string;
  status: 200 | 400 | 404;
}

const DOCTYPE = "<!DOCTYPE html>";

/** What a JSX expression evaluates to here. */
type Markup = HtmlEscapedString | Promise<HtmlEscapedString>;

/** A page body wrapped in the layout (also used by the history pages' routes). */
export function shell(deps: AppDeps, assets: LayoutProps["assets"]) {
  return async (
    props: Pick<LayoutProps, "title" | "page" | "data">,
    body: Child,
    status: Rendered["status"] = 200,
  ): Promise<Rendered> => {
    const node = (
      <Layout {...props} csrf={deps.csrf.token()} status={statusBarData(deps)} assets={assets}>
        {body}
      </Layout>
    );
    return { html: DOCTYPE + await toText(node), status };
  };
}

/** A rendered JSX node is an escaped string, or a promise of one with async children. */
export async function toText(node: Markup): Promise<string> {
  return String(await node);
}

async function reportHtml(data: RunPageData): Promise<string | null> {
  return data.report === null ? null : await renderMarkdown(data.report);
}

/** The transcript card of a run: its session's legs, each matched to the run that ran it. */
async function transcriptCard(deps: AppDeps, data: RunPageData): Promise<Markup> {
  // The session journal stays on the node that ran the run (it is not copied: a whole
  // conversation, up to megabytes): the card says where to read it.
  const transcript = data.ranOn && data.run.session_id
    ? remoteTranscript(data.ranOn)
    : await readTranscript(deps.home, data.run.session_id);
  await renderTranscriptMarkdown(transcript);
  const session = data.run.session_id;
  // The legs are found among the job's last 200 runs (a quarter of the page's time): read
  // once per commit, as the page is reloaded while the run is followed.
  const legRuns = session === null
    ? []
    : untilCommit(deps.store, deps.dataVersion, `session-legs ${data.job.id} ${session}`, () =>
      deps.store
        .listRunHistory({ job_id: data.job.id }, { limit: 200 })
        .filter((r) =>
          r.session_id === session
        )
        .reverse());
  return (
    <TranscriptCard
      transcript={transcript}
      legRuns={legRuns}
      current={data.run.id}
      jobId={data.job.id}
      model={data.run.model}
    />
  );
}

function remoteTranscript(ranOn: NonNullable<RunPageData["ranOn"]>): Transcript {
  const where = ranOn.runUrl ? `: open this run on its own dashboard, ${ranOn.runUrl}` : "";
  return {
    kind: "none",
    why: `This run's session journal is on node ${ranOn.node_id}, where it ran${where}.`,
  };
}

function inboxItem(deps: AppDeps, id: number | null): InboxView | null {
  if (id === null) return null;
  try {
    return deps.inbox.get(id);
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

export async function renderPage(
  deps: AppDeps,
  assets: LayoutProps["assets"],
  req: PageRequest,
): Promise<Rendered> {
  const page = shell(deps, assets);
  const now = deps.clock.now();
  const missing = (what: string) =>
    page({ title: "Not found", page: "not-found" }, <NotFoundPage what={what} />, 404);
  switch (req.page) {
    case "landing": {
      const memory = await memoryPaneData(deps);
      const data = {
        now,
        jobs: jobsPage(deps, now),
        summary: summaryData(deps, now),
        runs: recentRuns(deps),
        inbox: openInbox(deps),
        jobNames: jobNames(deps),
        governor: { config: deps.governor.config, usage: deps.scheduler.usage() },
        memory,
        messenger: deps.messengerStatus(),
        jobDefaults: deps.scheduler.ctx.defaults ?? {},
        fleet: deps.fleet.store === "postgres",
      };
      return await page({ title: "Dashboard", page: "landing" }, <LandingPage data={data} />);
    }
    case "jobs":
      return await page(
        { title: "Jobs", page: "jobs" },
        <JobsListPage
          page={jobsPage(deps, now, req.before)}
          now={now}
          fleet={deps.fleet.store === "postgres"}
        />,
      );
    case "run": {
      const data = req.job !== null && req.run !== null
        ? await runPageData(deps, req.job, req.run)
        : null;
      if (!data) return await missing("There is no such run.");
      const [report, memory, transcript] = await Promise.all([
        reportHtml(data),
        memoryPaneData(deps),
        transcriptCard(deps, data),
      ]);
      return await page(
        {
          title: `${data.job.name} · run ${data.run.id}`,
          page: "run",
          data: { job: data.job.id, run: data.run.id },
        },
        <RunPage
          data={data}
          reportHtml={report}
          memory={memory}
          now={now}
          transcript={transcript}
        />,
      );
    }
    case "inbox": {
      const item = inboxItem(deps, req.id);
      if (!item) return await missing("There is no such inbox item.");
      const jobName = deps.store.getJob(item.job_id)?.name ?? null;
      return await page(
        {
          title: `Inbox item ${item.id}`,
          page: "inbox",
          data: { item: item.id, job: item.job_id, run: item.run_id },
        },
        <InboxPage item={item} jobName={jobName} now={now} />,
      );
    }
    case "missing":
      return await missing("There is nothing at this address.");
  }
}

/** One live region's fresh HTML; unknown names and ids answer 404 with a short text. */
export async function renderPartial(deps: AppDeps, req: PartialRequest): Promise<Rendered> {
  const now = deps.clock.now();
  const ok = async (node: Markup): Promise<Rendered> => ({
    html: await toText(node),
    status: 200,
  });
  const gone: Rendered = { html: '<p class="empty">This no longer exists.</p>', status: 404 };
  switch (req.name) {
    case "status":
      return await ok(<StatusBar data={statusBarData(deps)} />);
    case "summary":
      return await ok(<SummaryLine data={summaryData(deps, now)} />);
    case "jobs": {
      const before = (req as { before?: number | null }).before ?? null;
      return await ok(<JobsList page={jobsPage(deps, now, before)} now={now} />);
    }
    case "runs":
      return await ok(<RunsList runs={recentRuns(deps)} now={now} />);
    case "inbox":
      return await ok(
        <InboxList items={openInbox(deps)} jobNames={jobNames(deps)} now={now} />,
      );
    case "governor":
      return await ok(<GovernorUsageView usage={deps.scheduler.usage()} />);
    case "run": {
      const r = req as { job: number | null; run: number | null };
      const data = r.job !== null && r.run !== null ? await runPageData(deps, r.job, r.run) : null;
      if (!data) return gone;
      return await ok(<RunDetail data={data} reportHtml={await reportHtml(data)} now={now} />);
    }
    case "inbox-item": {
      const item = inboxItem(deps, (req as { id: number | null }).id);
      if (!item) return gone;
      const jobName = deps.store.getJob(item.job_id)?.name ?? null;
      return await ok(<InboxItemView item={item} jobName={jobName} now={now} standalone />);
    }
    default:
      return gone;
  }
}
