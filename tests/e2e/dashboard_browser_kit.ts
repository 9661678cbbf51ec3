// A real outpost for the dashboard's browser tests: the production wiring (SQLite store,
// governor.json, scheduler on the system clock, process-group spawner) running
// tests/fixtures/fake_agent.ts as the agent, served by createApp on 127.0.0.1 port 0, and
// driven by Debian's Chromium through playwright-core. Screenshots land in
// tests/output/screenshots/<name>.png (CI keeps tests/output as an artifact).

import {
  type Browser,
  type BrowserContext,
  chromium,
  type Dialog as PlaywrightDialog,
  type Page,
} from "playwright-core";
import { join } from "node:path";
import { MemoryLogger } from "../../core/logger.ts";
import { envFrom, systemClock } from "../../core/ports.ts";
import { processSpawner } from "../../core/scheduler/process_spawner.ts";
import type { Job, RunStatus } from "../../core/store/store.ts";
import { createApp } from "../../server/app.ts";
import type { AppDeps } from "../../server/deps.ts";
import { openOutpost, type Outpost } from "../../server/wiring.ts";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const FAKE_AGENT = new URL("../fixtures/fake_agent.ts", import.meta.url).pathname;
export const SCREENSHOT_DIR = new URL("../output/screenshots/", import.meta.url).pathname;

export interface Dashboard {
  base: string;
  home: string;
  workdir: string;
  memoryRoot: string;
  deps: AppDeps;
  logger: MemoryLogger;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Script errors and CSP violations the page reported; tests assert it stays empty. */
  pageErrors: string[];
  /** Every dialog a page opened, in order; tests assert the confirms they expect to see. */
  dialogs: Dialog[];
  /** How confirm dialogs are answered from now on (accepted unless a test says otherwise). */
  confirmAnswer: "accept" | "dismiss";
  /** Resolves once `count` dialogs have been recorded; rejects after `timeoutMs` without them. */
  waitForDialogs(count: number, timeoutMs?: number): Promise<Dialog[]>;
  /** Creates a job through the store-backed scheduler (the API's own validation). */
  createJob(fields: Partial<Record<string, unknown>> & { name: string; prompt: string }): Job;
  /** Resolves when the run reaches one of `statuses` (scheduler events, no polling). */
  runReaches(runId: number, statuses: RunStatus[]): Promise<RunStatus>;
  screenshot(name: string, page?: Page): Promise<string>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** One dialog as the page opened it, and how the kit answered it. */
export interface Dialog {
  type: string;
  message: string;
  answer: "accept" | "dismiss";
}

export interface DashboardOptions {
  /** Memory files to seed: virtual-less relative path → full text. */
  memory?: Record<string, string>;
  viewport?: { width: number; height: number };
  /** The outpost's endpoint defaults (the job form prefills base_url and model with them). */
  jobDefaults?: { base_url?: string; model?: string };
  /** Recipe files (default: the shipped recipes/ folder). */
  recipesDir?: string;
  /** Extra environment of the outpost (AGENT_PUSH_ALLOW_LOOPBACK, …). */
  env?: Record<string, string>;
  /**
   * The push adapter active: TEST_VAPID_KEY in a key file in the outpost's home, and push
   * services on loopback allowed (the tests stand them in).
   */
  push?: boolean;
  /** Extra Chromium switches (the rebinding test maps a made-up name to 127.0.0.1). */
  chromiumArgs?: string[];
}

/** The push tests' VAPID private key (raw base64url), so a test can derive its public key. */
export const TEST_VAPID_KEY = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";

export async function openDashboard(options: DashboardOptions = {}): Promise<Dashboard> {
  const home = await Deno.makeTempDir({ prefix: "outpost_browser_" });
  // Beside the home, never inside it: the doors refuse a workdir in the agent home.
  const workdir = `${home}-work`;
  const memoryRoot = join(home, "memory");
  await Deno.mkdir(workdir, { recursive: true });
  for (const [rel, text] of Object.entries(options.memory ?? {})) {
    const path = join(memoryRoot, rel);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  // The fake agent runs under `deno run`, which needs the same module cache as this test.
  const inherit = ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"];
  // AGENT_HOME is the outpost's home, so a child's session journal lands where the run
  // page's transcript reads it (<home>/sessions), as with a real install.
  const push: Record<string, string> = {};
  if (options.push) {
    push.VAPID_PRIVATE_KEY_FILE = join(home, "vapid.key");
    push.AGENT_PUSH_ALLOW_LOOPBACK = "1";
    await Deno.writeTextFile(push.VAPID_PRIVATE_KEY_FILE, TEST_VAPID_KEY, { mode: 0o600 });
  }
  const env = envFrom({
    ...Object.fromEntries(inherit.map((k) => [k, Deno.env.get(k)])),
    AGENT_HOME: home,
    ...push,
    ...options.env,
  });
  const logger = new MemoryLogger();
  const outpost: Outpost = await openOutpost({
    home,
    env,
    clock: systemClock,
    logger,
    spawner: processSpawner,
    agentCommand: { command: Deno.execPath(), args: ["run", "-A", "--quiet", FAKE_AGENT] },
    fetch: globalThis.fetch,
    baseUrl: "http://127.0.0.1",
    memoryRoot,
    jobDefaults: options.jobDefaults ?? {},
    ...(options.recipesDir ? { recipesDir: options.recipesDir } : {}),
  });
  const deps = outpost.deps;
  await deps.scheduler.start();
  const app = createApp(deps);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  deps.listen = { hostname: "127.0.0.1", port: server.addr.port };

  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS, ...(options.chromiumArgs ?? [])],
    });
    const context = await browser.newContext({
      viewport: options.viewport ?? { width: 1280, height: 900 },
      baseURL: base,
      reducedMotion: "reduce",
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (err) => pageErrors.push(`pageerror: ${err.message}`));
    page.on("console", (msg) => {
      if (msg.type() === "error" && !/Failed to load resource/.test(msg.text())) {
        pageErrors.push(`console: ${msg.text()}`);
      }
    });
    // Every dialog is recorded, so a test can prove a confirm was asked (and with what text)
    // rather than passing when the page never asks. A page that opens a dialog we did not ask
    // for (an injected alert) fails the test.
    const dialogs: Dialog[] = [];
    const dialogWaiters = new Set<() => void>();
    const answerDialog = (d: PlaywrightDialog) => {
      const answer = d.type() === "confirm" ? dash.confirmAnswer : "accept";
      if (d.type() !== "confirm") pageErrors.push(`unexpected ${d.type()}: ${d.message()}`);
      dialogs.push({ type: d.type(), message: d.message(), answer });
      (answer === "accept" ? d.accept() : d.dismiss()).catch(() => {});
      for (const wake of dialogWaiters) wake();
    };
    context.on("dialog", answerDialog);
    const dash: Dashboard = {
      base,
      home,
      workdir,
      memoryRoot,
      deps,
      logger,
      browser,
      context,
      page,
      pageErrors,
      dialogs,
      confirmAnswer: "accept",
      waitForDialogs(count, timeoutMs = 10_000) {
        return new Promise((resolve, reject) => {
          const check = () => {
            if (dialogs.length < count) return;
            clearTimeout(timer);
            dialogWaiters.delete(check);
            resolve(dialogs.slice());
          };
          const timer = setTimeout(() => {
            dialogWaiters.delete(check);
            reject(new Error(`expected ${count} dialog(s), saw ${JSON.stringify(dialogs)}`));
          }, timeoutMs);
          dialogWaiters.add(check);
          check();
        });
      },
      createJob(fields) {
        return deps.scheduler.createJob({
          schedule: { kind: "every", expr: "1h", tz: "UTC" },
          workdir,
          ...fields,
        });
      },
      runReaches(runId, statuses) {
        const now = deps.store.getRun(runId)?.status;
        if (now && statuses.includes(now)) return Promise.resolve(now);
        return new Promise((resolve) => {
          const off = deps.scheduler.on(() => {
            const s = deps.store.getRun(runId)?.status;
            if (s && statuses.includes(s)) {
              off();
              resolve(s);
            }
          });
        });
      },
      async screenshot(name, target = page) {
        await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
        const path = join(SCREENSHOT_DIR, `${name}.png`);
        await target.screenshot({ path, fullPage: true });
        return path;
      },
      async [Symbol.asyncDispose]() {
        await browser?.close().catch(() => {});
        await server.shutdown();
        // Children still running (a hung agent) are killed with their process groups.
        for (const a of deps.scheduler.activeRuns()) a.proc?.killGroup();
        await deps.scheduler.idle();
        await outpost.close();
        await Deno.remove(home, { recursive: true });
        await Deno.remove(workdir, { recursive: true });
      },
    };
    return dash;
  } catch (err) {
    await browser?.close().catch(() => {});
    await server.shutdown();
    await outpost.close();
    await Deno.remove(home, { recursive: true });
    await Deno.remove(workdir, { recursive: true });
    throw err;
  }
}

/** The run page's status as the page shows it. */
export async function shownRunStatus(page: Page): Promise<string | null> {
  return await page.locator(".run-detail").getAttribute("data-run-status");
}
