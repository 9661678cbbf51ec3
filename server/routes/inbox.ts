// Inbox routes (spec 3.2, 4.5): list and read items, answer, dismiss, high-risk confirm,
// the push one-tap action, and release or drop of a held publication (issue 37). The rules
// live in core/inbox/service.ts (shared with the chat bot) and core/publish/release.ts; this
// file only maps HTTP onto them.

import type { Hono } from "hono";
import type { InboxState } from "../../core/store/store.ts";
import type { AppDeps } from "../deps.ts";
import { badInput } from "../http/errors.ts";
import { humanActor, ID, pathId, queryInt, readJson, readJsonObject } from "../http/request.ts";
import { dropHeld, releaseHeld } from "../../core/publish/release.ts";
import type { Context } from "hono";

const STATES = new Set(["open", "answered", "dismissed", "all"]);

export function registerInboxRoutes(app: Hono, deps: AppDeps): void {
  const { inbox } = deps;
  const actor = (c: Parameters<typeof humanActor>[0]) => humanActor(c, deps.trustedUserHeader);

  app.get("/api/inbox", (c) => {
    const state = c.req.query("state") ?? "open";
    if (!STATES.has(state)) {
      throw badInput(
        "state",
        `expected open, answered, dismissed or all, got ${JSON.stringify(state)}`,
      );
    }
    const limit = queryInt(c, "limit", 1, 500, 100)!;
    const before = queryInt(c, "before", 1, Number.MAX_SAFE_INTEGER, undefined);
    const items = inbox.list({
      limit,
      ...(before === undefined ? {} : { before_id: before }),
      ...(state === "all" ? {} : { state: state as InboxState }),
    });
    return c.json({ items, open: deps.store.countInbox("open") });
  });

  app.get(`/api/inbox/:id{${ID}}`, (c) => c.json({ item: inbox.get(pathId(c, "id")) }));

  app.post(`/api/inbox/:id{${ID}}/answer`, async (c) => {
    const id = pathId(c, "id");
    const body = await readJsonObject(c);
    for (const key of Object.keys(body)) {
      if (key !== "answer") throw badInput(key, 'unknown field; send {"answer": "..."}');
    }
    if (typeof body.answer !== "string") {
      throw badInput("answer", "required: the answer text as a string");
    }
    const { item, run } = inbox.answer(id, body.answer, {
      actor: actor(c),
      via: "dashboard",
      channel: "dashboard",
    });
    return c.json({ item: inbox.view(item), run });
  });

  app.post(`/api/inbox/:id{${ID}}/dismiss`, (c) => {
    const id = pathId(c, "id");
    readEmptyBody(c, "dismiss");
    const item = inbox.dismiss(id, { actor: actor(c), via: "dashboard", channel: "dashboard" });
    return c.json({ item: inbox.view(item) });
  });

  app.post(`/api/inbox/:id{${ID}}/high-risk-confirm`, (c) => {
    const done = inbox.highRiskConfirm(pathId(c, "id"), actor(c));
    return c.json({ item: inbox.view(done.item), run: done.run, room: done.room });
  });

  app.post(`/api/inbox/:id{${ID}}/push-action`, async (c) => {
    const id = pathId(c, "id");
    const body = await readJsonObject(c);
    for (const key of Object.keys(body)) {
      if (key !== "action") throw badInput(key, 'unknown field; send {"action": "approve"}');
    }
    const { item, run } = inbox.pushAction(id, body.action, actor(c));
    return c.json({ item: inbox.view(item), run });
  });

  // A held publication (kind publish_hold): release sends the original, drop discards it.
  const held = { store: deps.store, inbox, gate: deps.publishGate, home: deps.home };
  for (const [verb, act] of [["release", releaseHeld], ["drop", dropHeld]] as const) {
    app.post(`/api/inbox/:id{${ID}}/${verb}`, async (c) => {
      const id = pathId(c, "id");
      readEmptyBody(c, verb);
      const item = await act(held, id, { actor: actor(c), via: "dashboard", channel: "dashboard" });
      return c.json({ item: inbox.view(item) });
    });
  }
}

/** dismiss, release and drop take no fields: an empty body or {}. */
function readEmptyBody(c: Context, verb: string): void {
  const body = readJson(c, {});
  if (
    typeof body !== "object" || body === null || Array.isArray(body) ||
    Object.keys(body).length > 0
  ) {
    throw badInput("body", `${verb} takes no fields; send an empty body or {}`);
  }
}
