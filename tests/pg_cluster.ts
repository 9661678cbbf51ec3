// A throwaway PostgreSQL cluster for the tests of one process: initdb in a temporary folder,
// a loopback port, no system service (the recipe of /work/shared/peers/postgres_up.sh).
// Started on first use, stopped and removed when the process unloads. Each test asks for a
// fresh database (`freshDatabaseUrl`), a copy of a migrated template, so tests never share rows.
// initdb refuses to run as root: as root the cluster belongs to the `postgres` user.
//
// A process killed with -9 (or by a CI timeout) runs no unload handler, so the cluster would
// outlive it. A watchdog started with the cluster prevents that: a shell in its own session
// (setsid, so a kill of the test's process group spares it) blocked reading a pipe whose
// only writer is this process. The kernel closes the pipe when this process dies, however it
// dies; the read then ends and the watchdog stops the server and removes its folder
// (tests/pg_cluster_test.ts kills a child with -9 and watches the postmaster go).

import { PgConnection } from "../core/store/pg/pg_connection.ts";
import { PgStore } from "../core/store/pg/pg_store.ts";
import { FakeClock } from "./fakes/clock.ts";
import { postgresBin } from "./peers.ts";
import { freePort } from "./e2e/listening_kit.ts";

const isRoot = () => Deno.uid() === 0;

export interface Cluster {
  dir: string;
  port: number;
  /** The maintenance database's URL (the `postgres` superuser, trust auth on loopback). */
  adminUrl: string;
  bin: string;
  /** Stops the server (fast), as a database restart test needs; `start` brings it back. */
  stop(): void;
  start(): void;
  /**
   * Starts it in a child process and returns at once (resolves when it is up): for a test
   * whose thread is blocked in a store call meanwhile, waiting for the server to return.
   */
  startInBackground(): Promise<void>;
}

let cluster: Cluster | null = null;
let templateReady = false;
let databases = 0;

function run(bin: string, args: string[], asPostgres: boolean): string {
  const [cmd, argv] = asPostgres && isRoot()
    ? ["runuser", ["-u", "postgres", "--", bin, ...args]]
    : [bin, args];
  const out = new Deno.Command(cmd, { args: argv, stdout: "piped", stderr: "piped" }).outputSync();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${bin} ${args.join(" ")} failed:\n${text}`);
  return text;
}

/** The process's cluster, started on first call. Throws when PostgreSQL is missing. */
export function pgCluster(): Cluster {
  if (cluster) return cluster;
  const bin = postgresBin();
  if (!bin) throw new Error("PostgreSQL not installed (apt-get install postgresql)");
  const dir = Deno.makeTempDirSync({ prefix: "outpost_pg_" });
  if (isRoot()) run("chown", ["postgres", dir], false);
  const data = `${dir}/data`;
  run(`${bin}/initdb`, [
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "postgres",
    "--locale=C",
    "-E",
    "UTF8",
    "--no-sync",
  ], true);
  const port = freePort();
  const pgCtl = `${bin}/pg_ctl`;
  const startArgs = [
    "-D",
    data,
    "-l",
    `${dir}/server.log`,
    "-w",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off ` +
    "-c synchronous_commit=off -c full_page_writes=off -c max_connections=300",
    "start",
  ];
  const start = () => run(pgCtl, startArgs, true);
  start();
  startWatchdog(pgCtl, data, dir);
  const stop = () => run(pgCtl, ["-D", data, "-m", "fast", "-w", "stop"], true);
  cluster = {
    dir,
    port,
    bin,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    startInBackground: async () => {
      const [cmd, argv] = isRoot()
        ? ["runuser", ["-u", "postgres", "--", pgCtl, ...startArgs]]
        : [pgCtl, startArgs];
      const out = await new Deno.Command(cmd, { args: argv, stdout: "null", stderr: "piped" })
        .output();
      if (!out.success) throw new Error(`pg_ctl start: ${new TextDecoder().decode(out.stderr)}`);
    },
  };
  globalThis.addEventListener("unload", () => {
    try {
      run(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"], true);
    } catch { /* already stopped */ }
    Deno.removeSync(dir, { recursive: true });
  });
  return cluster;
}

/**
 * The cluster's watchdog: stops the server and removes `dir` once this process is gone (the
 * pipe it reads closes). Unref'd, so it never keeps the test process alive; after a normal
 * exit it finds the unload handler's work done and its commands change nothing.
 */
function startWatchdog(pgCtl: string, data: string, dir: string): void {
  const stop = isRoot()
    ? `runuser -u postgres -- "$1" -D "$2" -m immediate -w stop`
    : `"$1" -D "$2" -m immediate -w stop`;
  const script = `cat >/dev/null; ${stop} >/dev/null 2>&1; rm -rf -- "$3"`;
  const watchdog = new Deno.Command("setsid", {
    args: ["sh", "-c", script, "pg_cluster_watchdog", pgCtl, data, dir],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  watchdog.unref();
  // The writer is held, never written to nor closed: its end is this process's end.
  watchdogPipes.push(watchdog.stdin.getWriter());
}

/** The watchdogs' pipes, held for the life of the process. */
const watchdogPipes: WritableStreamDefaultWriter<Uint8Array>[] = [];

/** Runs statements on the maintenance database (a short-lived connection). */
export function adminExec(sql: string): void {
  const admin = new PgConnection({ url: pgCluster().adminUrl });
  try {
    admin.exec(sql);
  } finally {
    admin.close();
  }
}

/**
 * The URL of a new, empty-but-migrated database (`migrated: false` for a blank one, for
 * tests of the migration runner itself).
 */
export function freshDatabaseUrl(options: { migrated?: boolean } = {}): string {
  const c = pgCluster();
  const name = `t${++databases}`;
  if (options.migrated === false) {
    adminExec(`CREATE DATABASE ${name}`);
  } else {
    if (!templateReady) {
      adminExec("CREATE DATABASE outpost_template");
      const url = `postgres://postgres@127.0.0.1:${c.port}/outpost_template`;
      new PgStore({ url, clock: new FakeClock() }).close();
      templateReady = true;
    }
    adminExec(`CREATE DATABASE ${name} TEMPLATE outpost_template`);
  }
  return `postgres://postgres@127.0.0.1:${c.port}/${name}`;
}
