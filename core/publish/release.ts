// Release or drop of a held publication (gate.ts), from the dashboard: release reads the
// original from <home>/outpost/held/<id>.json, sends it through its surface's publisher
// (nothing is scanned again: a person has looked at it) and closes the item as answered;
// drop deletes the original and closes the item as dismissed. Either way the original file
// is gone afterwards, and one audit row says who did what. A release whose send fails leaves
// the item open and the original in place, to be tried again or dropped.

import { errorText } from "../logger.ts";
import { PublishFailedError, PublishHoldError } from "../inbox/errors.ts";
import type { Acting, InboxService } from "../inbox/service.ts";
import { NotFoundError } from "../store/errors.ts";
import type { InboxItem, Store } from "../store/store.ts";
import {
  AUDIT_PUBLISH,
  heldPath,
  isPublishHold,
  isPublishSurface,
  type PublishGate,
  surfaceName,
} from "./gate.ts";

export interface ReleaseDeps {
  store: Pick<Store, "getInboxItem">;
  inbox: InboxService;
  gate: PublishGate;
  home: string;
}

function heldItem(deps: ReleaseDeps, id: number): InboxItem {
  const item = deps.store.getInboxItem(id);
  if (!item) throw new NotFoundError("inbox item", id);
  if (!isPublishHold(item)) throw new PublishHoldError(id, "is not a held publication");
  if (item.state !== "open") throw new PublishHoldError(id, `is already ${item.state}`);
  return item;
}

export function releaseHeld(deps: ReleaseDeps, id: number, acting: Acting): Promise<InboxItem> {
  // One release at a time per item: a double click must not post twice.
  return deps.gate.exclusive(id, () => release(deps, id, acting));
}

async function release(deps: ReleaseDeps, id: number, acting: Acting): Promise<InboxItem> {
  const item = heldItem(deps, id);
  const path = heldPath(deps.home, id);
  let held: { surface: string; payload: unknown };
  try {
    held = JSON.parse(await Deno.readTextFile(path));
  } catch (err) {
    throw new PublishFailedError(id, `its original cannot be read (${errorText(err)}); drop it`);
  }
  const surface = item.meta.surface;
  if (!isPublishSurface(surface) || held.surface !== surface) {
    throw new PublishFailedError(id, "its original does not match the item; drop it");
  }
  const publisher = deps.gate.publisher(surface);
  if (!publisher) {
    throw new PublishFailedError(id, `nothing that sends a ${surfaceName(surface)} is running`);
  }
  try {
    await publisher(held.payload);
  } catch (err) {
    throw new PublishFailedError(id, errorText(err));
  }
  const closed = deps.inbox.settlePublishHold(id, "released", acting, AUDIT_PUBLISH.released);
  await Deno.remove(path);
  return closed;
}

export function dropHeld(deps: ReleaseDeps, id: number, acting: Acting): Promise<InboxItem> {
  return deps.gate.exclusive(id, async () => {
    heldItem(deps, id);
    await Deno.remove(heldPath(deps.home, id)).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
    return deps.inbox.settlePublishHold(id, "dropped", acting, AUDIT_PUBLISH.dropped);
  });
}
