// `agent-outpost token create <name> | list | revoke <id>`: machine-door bearer tokens.
// A token is printed once at creation and stored only as its SHA-256 hash.

import { parseArgs } from "node:util";
import { AUDIT, audit } from "../../core/audit/audit.ts";
import { stderrLogger } from "../../core/logger.ts";
import type { Clock } from "../../core/ports.ts";
import { NotFoundError } from "../../core/store/errors.ts";
import { outpostDbPath, SqliteStore } from "../../core/store/sqlite_store.ts";
import type { Store } from "../../core/store/store.ts";
import { generateMachineToken, hashMachineToken } from "../http/machine_tokens.ts";

export const TOKEN_USAGE = `usage: agent-outpost token create <name>
       agent-outpost token list
       agent-outpost token revoke <id>

Machine-door (/api/v1/) bearer tokens. create prints the new token ONCE; only its SHA-256
hash is stored, so a lost token cannot be shown again: revoke it and create another.
Send it as: Authorization: Bearer <token>`;

export interface TokenIo {
  out(line: string): void;
  err(line: string): void;
  clock: Clock;
  /**
   * The fleet's PostgreSQL store when AGENT_OUTPOST_DATABASE_URL is set (outpost_cli.ts opens
   * it); absent, the SQLite file under home.
   */
  openShared?: () => Store;
  /** The agent home; the store is <home>/outpost/outpost.db. */
  home: string;
}

class UsageError extends Error {
  override readonly name = "UsageError";
}

const NAME_MAX = 100;

/** Runs `token …` with the arguments after `token`. Returns the exit code. */
export function runToken(args: string[], io: TokenIo): number {
  const opened: Store[] = [];
  try {
    const { values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: { help: { type: "boolean", short: "h" } },
    });
    if (values.help) {
      for (const line of TOKEN_USAGE.split("\n")) io.out(line);
      return 0;
    }
    const [sub, arg, extra] = positionals;
    if (sub === undefined) {
      throw new UsageError("missing subcommand: create, list or revoke; see --help");
    }
    if (extra !== undefined) {
      throw new UsageError(`unexpected argument ${JSON.stringify(extra)}; see --help`);
    }
    const open = (): Store => {
      const store = io.openShared?.() ??
        new SqliteStore({ path: outpostDbPath(io.home), clock: io.clock });
      opened.push(store);
      return store;
    };
    switch (sub) {
      case "create": {
        const name = checkName(arg);
        const token = generateMachineToken();
        const s = open();
        const row = s.createMachineToken(name, hashMachineToken(token));
        audit(s, stderrLogger, {
          action: AUDIT.tokenCreate,
          target: `token:${row.id}`,
          actor: "cli",
          channel: "cli",
          detail: `created ${JSON.stringify(name)}`,
        });
        io.out(token);
        io.err(`token ${row.id} (${name}) created; it is shown only this once`);
        return 0;
      }
      case "list": {
        if (arg !== undefined) {
          throw new UsageError(`unexpected argument ${JSON.stringify(arg)}; see --help`);
        }
        const rows = open().listMachineTokens();
        if (rows.length === 0) {
          io.out("no tokens; create one with: agent-outpost token create <name>");
          return 0;
        }
        io.out(["id", "name", "created", "last used", "revoked"].join("\t"));
        for (const t of rows) {
          io.out(
            [t.id, t.name, t.created_at, t.last_used_at ?? "-", t.revoked_at ?? "-"].join("\t"),
          );
        }
        return 0;
      }
      case "revoke": {
        const id = arg !== undefined && /^[1-9][0-9]{0,14}$/.test(arg) ? Number(arg) : NaN;
        if (Number.isNaN(id)) {
          throw new UsageError(
            `revoke: expected a token id (see token list), got ${JSON.stringify(arg ?? "")}`,
          );
        }
        const s = open();
        const before = s.listMachineTokens().find((t) => t.id === id);
        const row = s.revokeMachineToken(id);
        if (!before?.revoked_at) {
          audit(s, stderrLogger, {
            action: AUDIT.tokenRevoke,
            target: `token:${id}`,
            actor: "cli",
            channel: "cli",
            detail: `revoked ${JSON.stringify(row.name)}`,
          });
        }
        io.out(`token ${id} (${row.name}) revoked at ${row.revoked_at}`);
        return 0;
      }
      default:
        throw new UsageError(
          `unknown subcommand ${JSON.stringify(sub)}: use create, list or revoke`,
        );
    }
  } catch (e) {
    io.err(`error: ${describe(e)}`);
    return 1;
  } finally {
    for (const store of opened) store.close();
  }
}

function checkName(name: string | undefined): string {
  const text = (name ?? "").trim();
  if (text === "") throw new UsageError("create: a name is required, e.g. token create ci-bot");
  // deno-lint-ignore no-control-regex
  if (text.length > NAME_MAX || /[\u0000-\u001F\u007F]/.test(text)) {
    throw new UsageError(`create: the name must be one line of at most ${NAME_MAX} characters`);
  }
  return text;
}

function describe(e: unknown): string {
  if (e instanceof UsageError || e instanceof NotFoundError) return e.message;
  if (e instanceof TypeError && "code" in e && String(e.code).startsWith("ERR_PARSE_ARGS")) {
    return `${e.message.split("\n")[0]}; see --help`;
  }
  return e instanceof Error ? e.message : String(e);
}
