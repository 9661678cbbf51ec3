// How long the pages take to render: the markdown renderer on a typical and a large report,
// and the landing page / its jobs partial over a full store (100 jobs, runs, open items).

import { join } from "node:path";
import { makeTestOutpost } from "../../tests/fakes/test_outpost.ts";
import { renderMarkdown } from "./markdown.ts";

const SECTION = [
  "## Findings",
  "",
  "The build **passed** on `main`; see [the log](https://ci.example/run/1).",
  "",
  "| check | result |",
  "|---|---:|",
  "| lint | ok |",
  "| tests | 412 passed |",
  "",
  "- [x] dependency audit",
  "- [ ] flaky test `scheduler_test.ts` <b>needs</b> a look",
  "",
  "```ts",
  "const x: number = 1 < 2 ? 3 : 4;",
  "```",
  "",
  "> Note: nothing was pushed.",
  "",
].join("\n");
const REPORT_20K = `# Nightly report\n\n${SECTION.repeat(Math.ceil(20_000 / SECTION.length))}`;
const REPORT_400K = SECTION.repeat(Math.ceil(400_000 / SECTION.length));
const HOSTILE_100K = "<img src=x onerror=alert(1)>[x](javascript:alert(1)) ".repeat(2000);

await renderMarkdown("warm up the lazy import");

Deno.bench("renderMarkdown: 20 KB report", { group: "markdown", baseline: true }, async () => {
  await renderMarkdown(REPORT_20K);
});
Deno.bench("renderMarkdown: 400 KB report", { group: "markdown" }, async () => {
  await renderMarkdown(REPORT_400K);
});
Deno.bench(
  "renderMarkdown: 100 KB of hostile inline HTML and links",
  { group: "markdown" },
  async () => {
    await renderMarkdown(HOSTILE_100K);
  },
);

// A full store: 100 jobs, 3 finished runs each, one open question for every other job.
const t = await makeTestOutpost();
for (let i = 0; i < 100; i++) {
  const job = t.scheduler.createJob({
    name: `job ${i}`,
    prompt: "summarize the repository",
    schedule: { kind: "cron", expr: "0 9 * * 1-5", tz: "Europe/Berlin" },
    workdir: "/tmp",
  });
  for (let r = 0; r < 3; r++) {
    const run = t.store.createRun({
      job_id: job.id,
      status: "queued",
      attempt: 1,
      priority: 10,
      class: "scheduled",
    });
    t.store.updateRun(run.id, {
      status: r === 2 && i % 2 ? "needs_human" : "ok",
      finished_at: "2026-03-02T09:00:00Z",
    });
    if (r === 2 && i % 2) {
      t.store.createInboxItem({
        job_id: job.id,
        run_id: run.id,
        questions: [{ kind: "question", text: "Which branch should I use?" }],
        meta: {},
      });
    }
  }
}
const reportDir = join(t.home, "outpost", "runs", "1");
await Deno.mkdir(reportDir, { recursive: true });
await Deno.writeTextFile(join(reportDir, "r.md"), REPORT_20K);
t.store.updateRun(1, { report_path: join(reportDir, "r.md") });
await (await t.app.request("/")).text(); // opens the memory store

Deno.bench(
  "GET / with 100 jobs, 300 runs, 50 open items",
  { group: "pages", baseline: true },
  async () => {
    await (await t.app.request("/")).text();
  },
);
Deno.bench("GET /partials/jobs with 100 jobs", { group: "pages" }, async () => {
  await (await t.app.request("/partials/jobs")).text();
});
Deno.bench("GET /runs/1/1 with a 20 KB report", { group: "pages" }, async () => {
  await (await t.app.request("/runs/1/1")).text();
});
Deno.bench("GET /partials/inbox with 50 open items", { group: "pages" }, async () => {
  await (await t.app.request("/partials/inbox")).text();
});

globalThis.addEventListener("unload", () => {
  // Benchmarks have no teardown hook; the temp home is removed when the process ends.
  t.deps.live.close();
  t.store.close();
  Deno.removeSync(t.home, { recursive: true });
});
