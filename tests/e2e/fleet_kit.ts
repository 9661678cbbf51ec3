// Several real `agent-outpost` processes on one PostgreSQL database (issue 32): each node in
// its own AGENT_HOME with its own node id, started with the permission flags of
// scripts/permissions.ts (tests/e2e/outpost_process_kit.ts), running tests/fixtures/fake_agent.ts
// as its agent. The database is a fresh one of this test process's throwaway cluster.

import { join } from "node:path";
import { freshDatabaseUrl } from "../pg_cluster.ts";
import { tempHome } from "./agent_process.ts";
import {
  type DashboardApi,
  dashboardApi,
  type Outpost,
  startOutpost,
} from "./outpost_process_kit.ts";

const FAKE_AGENT = new URL("../fixtures/fake_agent.ts", import.meta.url).pathname;

export interface Node {
  id: string;
  home: string;
  outpost: Outpost;
  api: DashboardApi;
}

export interface Fleet {
  url: string;
  workdir: string;
  nodes: Node[];
  /** Starts (or restarts, same id and home) node `id`, with `env` added to the fleet's. */
  start(id: string, home?: string, env?: Record<string, string>): Promise<Node>;
  /** Log files of a job's runs across every node's home (or one): one per started child. */
  executions(jobId: number, home?: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function startFleet(
  ids: string[],
  leaseS = 3,
  extraEnv: Record<string, string> = {},
): Promise<Fleet> {
  const url = freshDatabaseUrl();
  const scratch = await Deno.makeTempDir({ prefix: "fleet_" });
  const workdir = join(scratch, "work");
  await Deno.mkdir(workdir);
  // AGENT_OUTPOST_AGENT_BIN is one program: a wrapper that runs the fake agent.
  const agent = join(scratch, "fake-agent");
  await Deno.writeTextFile(
    agent,
    `#!/bin/sh\nexec "${Deno.execPath()}" run -A --quiet "${FAKE_AGENT}" "$@"\n`,
    { mode: 0o755 },
  );
  const homes: string[] = [];
  const fleet: Fleet = {
    url,
    workdir,
    nodes: [],
    async start(id, home, env = {}) {
      const h = home ?? await tempHome();
      if (!home) homes.push(h);
      const outpost = await startOutpost(h, {
        AGENT_OUTPOST_DATABASE_URL: url,
        AGENT_OUTPOST_NODE_ID: id,
        AGENT_OUTPOST_LEASE_S: String(leaseS),
        AGENT_OUTPOST_AGENT_BIN: agent,
        ...extraEnv,
        ...env,
      });
      const node = { id, home: h, outpost, api: await dashboardApi(outpost.url) };
      fleet.nodes = [...fleet.nodes.filter((n) => n.id !== id), node];
      return node;
    },
    async executions(jobId, only) {
      const found: string[] = [];
      for (const home of only ? [only] : homes) {
        const dir = join(home, ".agent", "outpost", "runs", String(jobId));
        try {
          for await (const e of Deno.readDir(dir)) {
            if (e.name.endsWith(".log")) found.push(join(dir, e.name));
          }
        } catch (err) {
          if (!(err instanceof Deno.errors.NotFound)) throw err;
        }
      }
      return found;
    },
    async close() {
      for (const n of fleet.nodes) {
        try {
          n.outpost.child.kill("SIGTERM");
        } catch { /* already gone */ }
        const { code, signal } = await n.outpost.child.status;
        const stderr = await n.outpost.stderr;
        // A node that died on its own (not our SIGTERM or kill -9) says why.
        if (code !== 0 && signal !== "SIGTERM" && signal !== "SIGKILL") {
          console.error(`node ${n.id} exited ${code}:\n${stderr.slice(-3000)}`);
        }
      }
      for (const h of homes) await Deno.remove(h, { recursive: true });
      await Deno.remove(scratch, { recursive: true });
    },
  };
  for (const id of ids) await fleet.start(id);
  return fleet;
}

/** Polls `read` until `done` holds or `ms` passes (then throws with the last value). */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  ms = 30_000,
): Promise<T> {
  const until = Date.now() + ms;
  let last: T;
  do {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  } while (Date.now() < until);
  throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
}
