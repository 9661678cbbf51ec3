// The machine door's gate: `Authorization: Bearer <token>` checked against the stored
// hashes. Missing, malformed, unknown and revoked tokens all get the same 401, so the
// answer says nothing about which tokens exist.

import type { MiddlewareHandler } from "hono";
import type { MachineToken, Store } from "../../core/store/store.ts";
import { errorJson } from "./errors.ts";
import { hashMachineToken, looksLikeMachineToken } from "./machine_tokens.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** The machine token a /api/v1/ request authenticated with. */
    machineToken: MachineToken;
  }
}

export function machineAuth(store: Pick<Store, "verifyMachineToken">): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    const token = match?.[1];
    const found = token && looksLikeMachineToken(token)
      ? store.verifyMachineToken(hashMachineToken(token))
      : null;
    if (!found) {
      c.header("WWW-Authenticate", 'Bearer realm="agent-outpost"');
      const message = header === ""
        ? "missing bearer token; send Authorization: Bearer <token> (agent-outpost token create)"
        : "invalid or revoked bearer token; create a new one with agent-outpost token create";
      return errorJson(c, 401, "unauthorized", message);
    }
    c.set("machineToken", found);
    await next();
  };
}

/** The audit actor of a machine-door request. */
export function machineActor(token: MachineToken): string {
  return `token:${token.id}:${token.name}`;
}
