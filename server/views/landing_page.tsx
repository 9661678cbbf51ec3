// The landing page: Inbox, Jobs (newest page of the list + create/edit form), Recent runs,
// GPU fairness, Memory and Recipes cards; and the older pages of the job list (/jobs?before=<id>).
// Each live region names the partial route the page script re-fetches.

import type { FC } from "hono/jsx";
import type { MessengerStatus } from "../deps.ts";
import type { GovernorConfig } from "../../core/governor/config.ts";
import type { GovernorUsage } from "../../core/governor/governor.ts";
import type { InboxView } from "../../core/inbox/service.ts";
import type { JobDefaults } from "../../core/scheduler/job_input.ts";
import { GovernorLevers, GovernorUsageView } from "./governor_card.tsx";
import { InboxList } from "./inbox_item.tsx";
import { JobForm } from "./job_form.tsx";
import { JobsList, type JobsPage } from "./jobs_card.tsx";
import { Card } from "./layout.tsx";
import { MemoryPane, type MemoryPaneData } from "./memory_pane.tsx";
import { PushCard } from "./push_card.tsx";
import { type RecentRun, RunsList } from "./runs_card.tsx";
import { type SummaryData, SummaryLine } from "./summary_line.tsx";

export interface LandingData {
  now: Date;
  /** The newest page of jobs (JOBS_PER_PAGE), with a link to the older ones. */
  jobs: JobsPage;
  runs: RecentRun[];
  inbox: InboxView[];
  jobNames: Map<number, string>;
  governor: { config: GovernorConfig; usage: GovernorUsage };
  memory: MemoryPaneData;
  /** Decides whether the job form offers the messenger surface. */
  messenger?: MessengerStatus;
  /** The outpost's current endpoint, the job form's default base_url and model. */
  jobDefaults: JobDefaults;
  summary: SummaryData;
  /** The outpost shares its store with a fleet: the job form offers a pin label. */
  fleet: boolean;
}

// Jobs come right after the inbox, so on a phone they are one screen down; on a wide screen
// the grid's dense flow puts Recent runs beside the inbox.
export const LandingPage: FC<{ data: LandingData }> = ({ data }) => (
  <div class="grid grid-dense">
    <section class="card card-wide summary" aria-labelledby="summary-title">
      <h1 id="summary-title" class="page-title">Today</h1>
      <div data-live="summary" data-src="/partials/summary">
        <SummaryLine data={data.summary} />
      </div>
    </section>
    <Card id="card-inbox" title="Inbox">
      <div data-live="inbox" data-src="/partials/inbox">
        <InboxList items={data.inbox} jobNames={data.jobNames} now={data.now} />
      </div>
    </Card>
    <Card id="card-jobs" title="Jobs" wide>
      <div data-live="jobs" data-src="/partials/jobs">
        <JobsList page={data.jobs} now={data.now} />
      </div>
      <JobForm
        defaults={data.jobDefaults}
        fleet={data.fleet}
        {...(data.messenger ? { messenger: data.messenger } : {})}
      />
    </Card>
    <Card id="card-runs" title="Recent runs">
      <div data-live="runs" data-src="/partials/runs">
        <RunsList runs={data.runs} now={data.now} />
      </div>
    </Card>
    <Card id="card-governor" title="GPU fairness">
      {/* Collapsed by default: a lever change throttles every job, so it is opened on purpose. */}
      <details class="governor-box" id="governor-box">
        <summary class="btn btn-quiet">Show usage and limits</summary>
        <div data-live="governor" data-src="/partials/governor">
          <GovernorUsageView usage={data.governor.usage} />
        </div>
        <GovernorLevers config={data.governor.config} />
      </details>
    </Card>
    <Card id="card-memory" title="Memory">
      <MemoryPane data={data.memory} />
    </Card>
    <Card id="card-recipes" title="Recipes" wide>
      {/* Rendered by static/recipes.js from GET /api/recipes and /api/recipes/enabled. */}
      <div id="recipes-root" class="recipes">
        <p class="muted">Loading recipes…</p>
      </div>
    </Card>
    <PushCard />
  </div>
);

/** /jobs?before=<id>: an older page of the job list, with the form so Edit works there too. */
export const JobsListPage: FC<{ page: JobsPage; now: Date; fleet: boolean }> = (
  { page, now, fleet },
) => (
  <div class="grid">
    <Card id="card-jobs" title="Jobs" wide level={1}>
      <div
        data-live="jobs"
        data-src={page.before === null ? "/partials/jobs" : `/partials/jobs?before=${page.before}`}
      >
        <JobsList page={page} now={now} />
      </div>
      <JobForm fleet={fleet} />
    </Card>
  </div>
);
