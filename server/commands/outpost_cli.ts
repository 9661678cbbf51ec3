// `agent-outpost` command dispatch. Each command is imported only when it runs, so
// `token` and `schedule next` never load the HTTP app, and `serve` loads only what it needs.

import { VERSION } from "../../cli/version.ts";
import type { Clock, Env, Fetch, Spawner } from "../../core/ports.ts";

export const OUTPOST_USAGE = `agent-outpost ${VERSION}: the agent's dashboard and scheduler

usage: agent-outpost [serve] [--host HOST] [--port PORT] [--base-url URL]
       agent-outpost schedule next --kind KIND --expr EXPR [--tz ZONE] [--from ISO] [--count N]
       agent-outpost token create <name> | token list | token revoke <id>
       agent-outpost ranger init [--force]
       agent-outpost --version

Each command takes --help. Environment: AGENT_HOME (default ~/.agent; data under
$AGENT_HOME/outpost), AGENT_OUTPOST_HOST, AGENT_OUTPOST_PORT, AGENT_OUTPOST_BASE_URL,
AGENT_OUTPOST_AGENT_BIN, AGENT_OUTPOST_TRUSTED_USER_HEADER, AGENT_MATRIX_HOLD_TTL,
AGENT_OUTPOST_WORKSPACES.`;

export interface OutpostIo {
  out(line: string): void;
  err(line: string): void;
  env: Env;
  clock: Clock;
  spawner: () => Promise<Spawner>;
  fetch: Fetch;
  shutdownSignal: () => Promise<string>;
  execPath: string;
}

/** Runs one command line. Returns the exit code (serve returns after shutdown). */
export async function runOutpost(args: string[], io: OutpostIo): Promise<number> {
  const [first, ...rest] = args;
  if (first === "--help" || first === "-h" || first === "help") {
    for (const line of OUTPOST_USAGE.split("\n")) io.out(line);
    return 0;
  }
  if (first === "--version" || first === "-V") {
    io.out(`agent-outpost ${VERSION}`);
    return 0;
  }
  if (first === "schedule") {
    const [sub, ...more] = rest;
    const { runScheduleNext, SCHEDULE_NEXT_USAGE } = await import("./schedule_next.ts");
    if (sub === "--help" || sub === "-h") {
      for (const line of SCHEDULE_NEXT_USAGE.split("\n")) io.out(line);
      return 0;
    }
    if (sub !== "next") {
      io.err(
        `error: unknown schedule command ${JSON.stringify(sub ?? "")}; use: schedule next --help`,
      );
      return 1;
    }
    return runScheduleNext(more, io.out, { clock: io.clock, err: io.err });
  }
  if (first === "token") {
    const { runToken } = await import("./token.ts");
    const { databaseUrlFrom } = await import("../../core/store/open_store.ts");
    let url: string | null;
    try {
      url = databaseUrlFrom(io.env);
    } catch (err) {
      io.err(`error: ${(err as Error).message}`);
      return 1;
    }
    // Tokens of a fleet live in its shared database, where every node's machine door reads them.
    const pg = url === null ? null : await import("../../core/store/pg/pg_store.ts");
    const openShared = pg && url ? () => new pg.PgStore({ url, clock: io.clock }) : undefined;
    return await withAgentHome(
      io,
      (home) =>
        runToken(rest, {
          out: io.out,
          err: io.err,
          clock: io.clock,
          home,
          ...(openShared ? { openShared } : {}),
        }),
    );
  }
  if (first === "ranger") {
    const { runRanger } = await import("./ranger_init.ts");
    return await withAgentHome(
      io,
      (home) => runRanger(rest, { out: io.out, err: io.err, env: io.env, home }),
    );
  }
  if (first === undefined || first === "serve" || first.startsWith("-")) {
    const { runServe } = await import("./serve.ts");
    return await runServe(first === "serve" ? rest : args, {
      out: io.out,
      err: io.err,
      env: io.env,
      clock: io.clock,
      spawner: await io.spawner(),
      fetch: io.fetch,
      shutdownSignal: io.shutdownSignal(),
      execPath: io.execPath,
    });
  }
  io.err(`error: unknown command ${JSON.stringify(first)}; see agent-outpost --help`);
  return 1;
}

/**
 * Runs a command that needs AGENT_HOME (token, ranger). A home that cannot be resolved is one
 * error line and exit 1, the same for every such command.
 */
async function withAgentHome(
  io: OutpostIo,
  command: (home: string) => number | Promise<number>,
): Promise<number> {
  const { agentHome } = await import("../../core/settings/project.ts");
  let home: string;
  try {
    home = agentHome(io.env);
  } catch (e) {
    io.err(`error: ${(e as Error).message}`);
    return 1;
  }
  return await command(home);
}
