// Builds AppDeps. `assembleDeps` adds the server-side services (inbox service, live feed,
// status probes) to already-built core parts, and is shared by tests (tests/fakes/test_outpost.ts)
// and production; `openOutpost` builds those core parts on the real world for main.ts.

import { Delivery } from "../core/delivery/delivery.ts";
import { createLogAdapter } from "../core/delivery/log_adapter.ts";
import { errorText, type Logger } from "../core/logger.ts";
import { Governor } from "../core/governor/governor.ts";
import { governorPath } from "../core/governor/config.ts";
import { metricsUrlFor, vllmWaitingReader } from "../core/governor/waiting.ts";
import { holdTtlMsFrom } from "../core/inbox/hold.ts";
import { InboxService } from "../core/inbox/service.ts";
import type { MemoryStore } from "../core/memory/mod.ts";
import type { Clock, Env, Fetch, Spawner } from "../core/ports.ts";
import { GithubCommentPoster } from "../core/recipes/github_comment.ts";
import { RecipeService } from "../core/recipes/service.ts";
import { fileTriggerSecrets, type TriggerSecrets } from "../core/recipes/trigger_secret.ts";
import type { AgentCommand } from "../core/scheduler/headless_command.ts";
import type { JobDefaults } from "../core/scheduler/job_input.ts";
import { httpPinResolver } from "../core/scheduler/pin.ts";
import { linuxProcessTable, type ProcessTable } from "../core/scheduler/proc.ts";
import { Scheduler } from "../core/scheduler/scheduler.ts";
import { openStore } from "../core/store/open_store.ts";
import type { PgStore } from "../core/store/pg/pg_store.ts";
import { outpostDbPath } from "../core/store/sqlite_store.ts";
import { refuseEmptiedStore } from "../core/store/emptied_store.ts";
import { AuditBurstTally } from "../core/audit/burst_tally.ts";
import { runsRoot } from "../core/scheduler/report_reader.ts";
import type { Store } from "../core/store/store.ts";
import {
  type ProtectedPlaces,
  WORKDIR_ROOTS_ENV,
  workdirRootsFrom,
} from "../core/workdir_policy.ts";
import { globalSettingsPath } from "../core/settings/project.ts";
import type { AppDeps, CsrfTokenSource } from "./deps.ts";
import { loadOrCreateCsrfToken } from "./http/csrf.ts";
import { sqliteDataVersion } from "./http/data_version.ts";
import { LiveFeed } from "./http/live_feed.ts";
import { MemorySweeper } from "./memory_sweeper.ts";
import { RetentionSweeper } from "./retention_sweeper.ts";
import { retentionPolicyFrom } from "../core/scheduler/retention.ts";
import { type MessengerProbe, messengerStatus, pushStatus } from "./http/status.ts";
import { VapidKeyFile } from "../core/push/vapid.ts";
import { registerPushLane } from "../core/push/lane.ts";
import { join } from "node:path";
import { readMessengerSetup } from "../core/messenger/config.ts";
import { workspacesRootFrom } from "../core/messenger/workspaces.ts";
import type { FleetParts, MessengerHandle } from "./fleet_wiring.ts";
import { tightenOutpostFolder } from "./outpost_folder.ts";
import { heldNoticeEvent, type PublishGate } from "../core/publish/gate.ts";
import { isoZ } from "../core/time.ts";
import { createOutpostGate } from "../core/publish/outpost_gate.ts";
import { type FleetSource, singleBoxFleet } from "./fleet_view.ts";

export interface CoreParts {
  store: Store;
  scheduler: Scheduler;
  governor: Governor;
  delivery: Delivery;
  clock: Clock;
  env: Env;
  logger: Logger;
  home: string;
  /** The memory_dir setting's value: no job's workdir may be, hold or lie inside it. */
  memoryRoot?: string;
  csrf: CsrfTokenSource;
  memory: () => Promise<MemoryStore>;
  baseUrl: string;
  /** Overrides AGENT_MATRIX_HOLD_TTL (tests). */
  holdTtlMs?: number;
  /** The Matrix bot's live report, once a bot runs. */
  messengerProbe?: () => MessengerProbe | null;
  /** See AppDeps.dataVersion. */
  dataVersion?: (() => number) | null;
  /** Recipe files (default: the shipped recipes/ folder). */
  recipesDir?: string;
  /** HTTP client of the github_pr_comment surface (default: global fetch). */
  fetch?: Fetch;
  /** Webhook secrets (default: derived from <home>/outpost/trigger_key). */
  triggerSecrets?: TriggerSecrets;
  /** The VAPID key file the push adapter uses (the badge reads the same one). */
  pushKeys?: VapidKeyFile;
  /** The fleet sharing the store (default: this box alone). */
  fleet?: FleetSource;
  /** The secret scanner of every publication (default: one on the install's secrets). */
  publishGate?: PublishGate;
}

/** Adds the inbox service, the live feed and the status probes; connects the events. */
export function assembleDeps(parts: CoreParts): AppDeps {
  const workdirPlaces = workdirPlacesOf(parts);
  const holdTtlMs = parts.holdTtlMs ?? holdTtlMsFrom(parts.env);
  const inbox = new InboxService({
    store: parts.store,
    clock: parts.clock,
    logger: parts.logger,
    resumer: parts.scheduler,
    holdTtlMs,
  });
  const live = new LiveFeed(parts.clock);
  parts.scheduler.on((e) => {
    const status = e.type === "run_started"
      ? "running"
      : e.type === "run_skipped"
      ? "skipped"
      : e.status;
    live.publish({ type: "run", job_id: e.job_id, run_id: e.run_id, status });
  });
  inbox.on(({ item }) => {
    live.publish({
      type: "inbox",
      id: item.id,
      job_id: item.job_id,
      run_id: item.run_id,
      state: item.state,
    });
  });
  // New items are born in the scheduler (needs_human); the delivery seam announces them.
  parts.delivery.register({
    name: "live",
    send(event) {
      if (event.kind === "inbox_item") {
        live.publish({
          type: "inbox",
          id: event.item_id,
          job_id: event.job_id,
          run_id: event.run_id,
          state: "open",
        });
      }
      return Promise.resolve();
    },
  });
  const pushKeys = parts.pushKeys ?? new VapidKeyFile(parts.env, parts.baseUrl);
  const triggerSecrets = parts.triggerSecrets ?? fileTriggerSecrets(parts.home);
  const publishGate = parts.publishGate ?? createOutpostGate({
    home: parts.home,
    env: parts.env,
    store: parts.store,
    logger: parts.logger,
    triggerSecrets,
    pushKeys,
    csrfToken: () => parts.csrf.token(),
  });
  // A held publication is announced like any new item (live pages, chat, push), by a notice
  // that names the item and never carries the held text.
  publishGate.on((item) => {
    const room = parts.store.getJob(item.job_id)?.meta.room;
    void parts.delivery.send(
      heldNoticeEvent(item, isoZ(parts.clock.now()), typeof room === "string" ? room : undefined),
    );
  });
  const recipeParts = assembleRecipes(parts, triggerSecrets, publishGate, workdirPlaces);
  const trusted = (parts.env.get("AGENT_OUTPOST_TRUSTED_USER_HEADER") ?? "").trim();
  return {
    store: parts.store,
    scheduler: parts.scheduler,
    governor: parts.governor,
    inbox,
    memory: parts.memory,
    clock: parts.clock,
    env: parts.env,
    logger: parts.logger,
    delivery: parts.delivery,
    csrf: parts.csrf,
    live,
    home: parts.home,
    workdirPlaces,
    holdTtlMs,
    baseUrl: parts.baseUrl,
    trustedUserHeader: trusted === "" ? null : trusted,
    ...recipeParts,
    publishGate,
    messengerStatus: () => messengerStatus(parts.env, parts.messengerProbe?.() ?? null),
    pushStatus: () => pushStatus(pushKeys, parts.store),
    dataVersion: parts.dataVersion ?? null,
    fleet: parts.fleet ??
      singleBoxFleet(parts.scheduler, isoZ(parts.clock.now()), () => parts.baseUrl),
  };
}

/** What the outpost protects from jobs' workdirs: its home, memory root, settings, $HOME. */
export function workdirPlacesOf(
  parts: Pick<CoreParts, "home" | "memoryRoot" | "env">,
): ProtectedPlaces {
  const userHome = parts.env.get("HOME")?.trim();
  // A malformed AGENT_WORKDIR_ROOTS stops the outpost at start, naming the variable.
  const openedRoots = workdirRootsFrom(parts.env.get(WORKDIR_ROOTS_ENV));
  return {
    agentHome: parts.home,
    settingsFiles: [globalSettingsPath(parts.home)],
    ...(parts.memoryRoot ? { memoryRoot: parts.memoryRoot } : {}),
    ...(userHome ? { userHome } : {}),
    ...(openedRoots.length > 0 ? { openedRoots } : {}),
  };
}

/** The recipe service, webhook secrets and the github_pr_comment surface, connected. */
function assembleRecipes(
  parts: CoreParts,
  triggerSecrets: TriggerSecrets,
  gate: PublishGate,
  workdirPlaces: ProtectedPlaces,
): Pick<AppDeps, "recipes" | "triggerSecrets" | "githubComments" | "webhookRefusals"> {
  const recipes = new RecipeService({
    workdirPlaces,
    store: parts.store,
    jobs: parts.scheduler,
    clock: parts.clock,
    logger: parts.logger,
    secrets: triggerSecrets,
    baseUrl: parts.baseUrl,
    ...(parts.recipesDir ? { dir: parts.recipesDir } : {}),
  });
  const githubComments = new GithubCommentPoster({
    home: parts.home,
    store: parts.store,
    env: parts.env,
    fetch: parts.fetch ?? globalThis.fetch,
    clock: parts.clock,
    logger: parts.logger,
    gate,
  });
  parts.scheduler.on((e) => {
    if (e.type === "run_finished") githubComments.runFinished(e.job_id, e.run_id, e.status);
  });
  const webhookRefusals = new AuditBurstTally(parts.store, parts.logger, parts.clock);
  return { recipes, triggerSecrets, githubComments, webhookRefusals };
}

/** Opens the memory store on first use, once; later calls share it (or its failure, retried). */
export function lazyMemory(open: () => Promise<MemoryStore>): {
  get: () => Promise<MemoryStore>;
  close: () => Promise<void>;
} {
  let pending: Promise<MemoryStore> | null = null;
  return {
    get: () => {
      pending ??= open().catch((err) => {
        pending = null; // a memory root fixed by the operator is picked up on the next call
        throw err;
      });
      return pending;
    },
    close: async () => {
      const p = pending;
      pending = null;
      if (p) (await p.catch(() => null))?.close();
    },
  };
}

export interface OpenOutpostOptions {
  home: string;
  env: Env;
  clock: Clock;
  logger: Logger;
  spawner: Spawner;
  agentCommand: AgentCommand;
  fetch: Fetch;
  baseUrl: string;
  /** The memory_dir setting's value, and where it came from ("env AGENT_MEMORY_DIR", …). */
  memoryRoot: string;
  memorySource?: string;
  jobDefaults: JobDefaults;
  processes?: ProcessTable;
  /** Recipe files (default: the shipped recipes/ folder). */
  recipesDir?: string;
}

export interface Outpost {
  deps: AppDeps;
  /** The memory lifecycle job: swept at open, then daily on the clock; stopped by close(). */
  sweeper: MemorySweeper;
  /** The history retention job (runs, audit rows, finished one-shots): at open, then daily. */
  retention: RetentionSweeper;
  /** Stops the scheduler loop (children are left to startup recovery) and closes stores. */
  close(): Promise<void>;
}

/** The production wiring: SQLite or PostgreSQL store, governor.json, log delivery, processes. */
export async function openOutpost(o: OpenOutpostOptions): Promise<Outpost> {
  const holdTtlMs = holdTtlMsFrom(o.env); // a bad value stops startup with one line
  const retentionPolicy = retentionPolicyFrom(o.env); // likewise
  const messengerSetup = readMessengerSetup(o.env); // likewise (AGENT_MATRIX_VERBS, MX_*)
  // Recovery after a crash depends on reading the process table: refuse to start without it,
  // before anything is opened, registered or logged.
  const processes = o.processes ?? linuxProcessTable();
  processes.probe();
  // An emptied database beside run history is a lost store: stop before touching anything.
  await refuseEmptiedStore(outpostDbPath(o.home), runsRoot(o.home));
  await tightenOutpostFolder(o.home, o.logger);
  // SQLite, or a shared PostgreSQL when AGENT_OUTPOST_DATABASE_URL is set (loaded only then).
  const opened = await openStore({ home: o.home, clock: o.clock, env: o.env });
  const store = opened.store;
  let fleet: FleetParts | null = null;
  try {
    // Several outposts on one database: claims, leases and fencing (docs/fleet.md).
    if (opened.kind === "postgres") {
      fleet = (await import("./fleet_wiring.ts")).openFleetParts(store as PgStore, o);
    }
    const waiting = o.jobDefaults.base_url
      ? vllmWaitingReader({ fetch: o.fetch, url: metricsUrlFor(o.jobDefaults.base_url) })
      : undefined;
    const governor = await Governor.open({
      path: governorPath(o.home),
      env: o.env,
      clock: o.clock,
      store,
      ...(waiting ? { waiting } : {}),
    });
    const delivery = new Delivery({ clock: o.clock, logger: o.logger });
    delivery.register(createLogAdapter({ path: join(o.home, "outpost", "delivery.jsonl") }));
    const pushKeys = new VapidKeyFile(o.env, o.baseUrl);
    const csrf = await loadOrCreateCsrfToken(o.home);
    const triggerSecrets = fileTriggerSecrets(o.home);
    // Built before any surface: the push lane, the chat bot and the GitHub poster all use it.
    const publishGate = createOutpostGate({
      home: o.home,
      env: o.env,
      store,
      logger: o.logger,
      triggerSecrets,
      pushKeys,
      csrfToken: () => csrf.token(),
    });
    registerPushLane({
      gate: publishGate,
      delivery,
      keys: pushKeys,
      store,
      env: o.env,
      fetch: o.fetch,
      clock: o.clock,
      logger: o.logger,
    });
    const scheduler = new Scheduler({
      store,
      clock: o.clock,
      env: o.env,
      spawner: o.spawner,
      governor,
      delivery,
      agentCommand: o.agentCommand,
      home: o.home,
      logger: o.logger,
      pinResolver: httpPinResolver({ fetch: o.fetch }),
      defaults: o.jobDefaults,
      processes,
      ...(fleet ? { fleet: fleet.fleet } : {}),
    });
    // Before the scheduler starts: claims need a registered lease.
    fleet?.attach(scheduler, publishGate.scanner);
    // PostgreSQL has no cheap "did anyone commit?" probe: its bodies are not cached.
    const version = opened.kind === "sqlite" ? sqliteDataVersion(opened.where) : null;
    const memory = lazyMemory(async () => {
      const { openMemory, GLOBAL_WORKSPACE, MemoryRootError, memoryDirProblem } = await import(
        "../core/memory/mod.ts"
      );
      try {
        // Dashboard list and search are unfiltered, so no workspace needs resolving.
        return await openMemory({
          root: o.memoryRoot,
          cwd: o.home,
          clock: o.clock,
          workspace: GLOBAL_WORKSPACE,
        });
      } catch (err) {
        if (!(err instanceof MemoryRootError)) throw err;
        // The memory pane, the 503 and the sweep's log line say which setting to change and
        // where its value came from, as the agent does.
        const fix = "point memory_dir at a directory the outpost can write";
        throw new Error(memoryDirProblem(o.memoryRoot, o.memorySource, err, fix), {
          cause: err,
        });
      }
    });
    let messenger: MessengerHandle | null = null;
    const deps = assembleDeps({
      store,
      scheduler,
      governor,
      delivery,
      clock: o.clock,
      env: o.env,
      logger: o.logger,
      home: o.home,
      memoryRoot: o.memoryRoot,
      csrf,
      memory: memory.get,
      baseUrl: o.baseUrl,
      holdTtlMs,
      dataVersion: version ? version.read : null,
      messengerProbe: () => messenger?.status() ?? null,
      fetch: o.fetch,
      ...(o.recipesDir ? { recipesDir: o.recipesDir } : {}),
      pushKeys,
      triggerSecrets,
      publishGate,
      ...(fleet ? { fleet: fleet.source } : {}),
    });
    // The Matrix bot only when all four MX_* are set: otherwise its library is never loaded.
    if (messengerSetup.state === "configured") {
      const { startMessenger } = await import("./messenger/start.ts");
      const startBot = async (botDelivery: Delivery) => {
        const started = await startMessenger({
          config: messengerSetup.config,
          store,
          scheduler,
          inbox: deps.inbox,
          delivery: botDelivery,
          clock: o.clock,
          timers: o.clock,
          logger: o.logger,
          fetch: o.fetch,
          baseUrl: o.baseUrl,
          workspacesRoot: workspacesRootFrom(o.env, o.home),
          workdirPlaces: deps.workdirPlaces,
          publish: publishGate,
          // In a fleet any node's dashboard may confirm a hold: the fleet routes the reply.
          holdReplies: fleet === null,
        });
        return { ...started, post: (room: string, text: string) => started.bot.post(room, text) };
      };
      // In a fleet, on the one node holding the bot's lock, fed by the fleet's chat outbox
      // (server/fleet_wiring.ts).
      messenger = fleet
        ? fleet.leadMessenger(startBot, { delivery, inbox: deps.inbox })
        : await startBot(delivery);
    }
    // Started last: nothing below can fail, so close() is always there to stop it.
    const sweeper = new MemorySweeper({
      memory: memory.get,
      store,
      clock: o.clock,
      logger: o.logger,
    });
    sweeper.start();
    const retention = new RetentionSweeper({
      store,
      home: o.home,
      policy: retentionPolicy,
      clock: o.clock,
      logger: o.logger,
    });
    retention.start();
    return {
      deps,
      sweeper,
      retention,
      async close() {
        deps.live.close();
        await sweeper.stop();
        await retention.stop();
        await scheduler.stop();
        await fleet?.fleet.stop();
        await withTimeout(delivery.idle(), 5000);
        await withTimeout(deps.githubComments.idle(), 5000);
        await messenger?.stop();
        await memory.close().catch((err) =>
          o.logger.log("warn", "closing memory failed", { error: errorText(err) })
        );
        deps.webhookRefusals.close(); // the counts still held become their rows
        version?.close();
        store.close();
      },
    };
  } catch (err) {
    await fleet?.fleet.stop();
    store.close();
    throw err;
  }
}

async function withTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    p,
    new Promise((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}
