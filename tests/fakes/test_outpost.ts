// An outpost app on fakes for route tests and browser tests: the scheduler kit of
// tests/fakes/scheduler_kit.ts (FakeClock, FakeSpawner, in-memory store, recording delivery,
// temp home) plus the server services, a fixed CSRF token and a temp memory root.
//
//   await using t = await makeTestOutpost();
//   const res = await t.request("POST", "/api/jobs", jobInput());   // CSRF cookie + header
//   const raw = await t.app.request("/api/jobs", { method: "POST" }); // nothing added

import type { Hono } from "hono";
import { GLOBAL_WORKSPACE, openMemory } from "../../core/memory/mod.ts";
import { type Kit, type KitOptions, makeKit } from "./scheduler_kit.ts";
import { createApp } from "../../server/app.ts";
import type { AppDeps } from "../../server/deps.ts";
import { CSRF_COOKIE, CSRF_HEADER, fixedCsrfToken } from "../../server/http/csrf.ts";
import { sqliteDataVersion } from "../../server/http/data_version.ts";
import { generateMachineToken, hashMachineToken } from "../../server/http/machine_tokens.ts";
import { assembleDeps, lazyMemory } from "../../server/wiring.ts";
import { join } from "node:path";
import { envFrom } from "../../core/ports.ts";
import type { TriggerSecrets } from "../../core/recipes/trigger_secret.ts";

/** Parsed JSON of a response, loosely typed for assertions. */
// deno-lint-ignore no-explicit-any
export async function jsonOf(res: Response): Promise<any> {
  return await res.json();
}

export const TEST_CSRF_TOKEN = "test-csrf-token-0123456789abcdefghijklmnop";

export interface TestOutpost extends Kit {
  deps: AppDeps;
  app: Hono;
  memoryRoot: string;
  /** Human-door request with the CSRF cookie and header; a body object is sent as JSON. */
  request(method: string, path: string, body?: unknown, headers?: HeadersInit): Promise<Response>;
  /** Creates a machine-door token and returns its bearer value. */
  machineToken(name?: string): string;
}

export interface TestOutpostOptions extends KitOptions {
  holdTtlMs?: number;
  baseUrl?: string;
  /** Recipe files (default: the shipped recipes/). */
  recipesDir?: string;
  /** HTTP client of the github_pr_comment surface. */
  fetch?: typeof fetch;
  triggerSecrets?: TriggerSecrets;
}

export async function makeTestOutpost(options: TestOutpostOptions = {}): Promise<TestOutpost> {
  const kit = await makeKit(options);
  const memoryRoot = join(kit.home, "memory");
  const memory = lazyMemory(() =>
    openMemory({ root: memoryRoot, cwd: kit.home, clock: kit.clock, workspace: GLOBAL_WORKSPACE })
  );
  const env = envFrom({ PATH: "/usr/bin:/bin", ...options.env });
  // A file-backed store (options.dbPath) gets the same response caching as production.
  const version = options.dbPath ? sqliteDataVersion(options.dbPath) : null;
  const deps = assembleDeps({
    store: kit.store,
    scheduler: kit.scheduler,
    governor: kit.governor,
    delivery: kit.delivery,
    clock: kit.clock,
    env,
    logger: kit.logger,
    home: kit.home,
    memoryRoot,
    csrf: fixedCsrfToken(TEST_CSRF_TOKEN),
    memory: memory.get,
    baseUrl: options.baseUrl ?? "http://127.0.0.1:7317",
    ...(options.holdTtlMs === undefined ? {} : { holdTtlMs: options.holdTtlMs }),
    dataVersion: version ? version.read : null,
    ...(options.recipesDir ? { recipesDir: options.recipesDir } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.triggerSecrets ? { triggerSecrets: options.triggerSecrets } : {}),
  });
  // app.request("/x") addresses http://localhost/x: the app is "bound" at 127.0.0.1:80, so
  // the Host check (server/http/served_hosts.ts) serves localhost, 127.0.0.1 and [::1].
  deps.listen = { hostname: "127.0.0.1", port: 80 };
  const app = createApp(deps);
  const kitDispose = kit[Symbol.asyncDispose].bind(kit);
  return Object.assign(kit, {
    deps,
    app,
    memoryRoot,
    async request(method: string, path: string, body?: unknown, headers?: HeadersInit) {
      const h = new Headers(headers);
      if (!h.has(CSRF_HEADER)) h.set(CSRF_HEADER, TEST_CSRF_TOKEN);
      if (!h.has("Cookie")) h.set("Cookie", `${CSRF_COOKIE}=${TEST_CSRF_TOKEN}`);
      const init: RequestInit = { method, headers: h };
      if (body !== undefined) {
        init.body = typeof body === "string" ? body : JSON.stringify(body);
        if (!h.has("Content-Type")) h.set("Content-Type", "application/json");
      }
      return await app.request(path, init);
    },
    machineToken(name = "test") {
      const token = generateMachineToken();
      kit.store.createMachineToken(name, hashMachineToken(token));
      return token;
    },
    async [Symbol.asyncDispose]() {
      deps.live.close();
      await deps.githubComments.idle();
      deps.webhookRefusals.close();
      await memory.close();
      version?.close();
      await kitDispose();
    },
  });
}
