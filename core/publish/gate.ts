// The publish gate (issue 37): everything the outpost publishes outside the box — a GitHub
// comment, a chat message, push text — is screened here first, by the one secret scanner
// (secret_scan.ts). A clean text goes out. A text with a finding (or one the scanner could
// not check) is held: nothing is sent, an audit row records why (surface, place, rules; never
// the secret), and an inbox item of kind publish_hold shows the REDACTED text for a human to
// release (publish the original) or drop. The original waits in <home>/outpost/held/<id>.json
// (0600, like the run reports it usually comes from); the store holds only the redacted text.
//
// A publication without a run (a chat command's reply, an alert about no run) has no item to
// hang on: it is blocked and audited only, and its surface says so where it can.

import { audit } from "../audit/audit.ts";
import { writeFileAtomic } from "../atomic_write.ts";
import { PublishHoldError } from "../inbox/errors.ts";
import { errorText, type Logger } from "../logger.ts";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../private_files.ts";
import { join } from "node:path";
import type { InboxItemEvent } from "../delivery/types.ts";
import type { InboxItem, Store } from "../store/store.ts";
import { ruleNames, type SecretScanner } from "./secret_scan.ts";

export const PUBLISH_SURFACES = ["github_comment", "chat", "push"] as const;
export type PublishSurface = typeof PUBLISH_SURFACES[number];

export function isPublishSurface(value: unknown): value is PublishSurface {
  return (PUBLISH_SURFACES as readonly unknown[]).includes(value);
}

export const PUBLISH_HOLD = "publish_hold";

export const AUDIT_PUBLISH = {
  held: "publish_held",
  released: "publish_released",
  dropped: "publish_dropped",
} as const;

export interface Publication {
  surface: PublishSurface;
  /** Where it was going, for people: "comment on acme/widgets#42", "room !abc:example.org". */
  where: string;
  job_id: number | null;
  run_id: number | null;
  /** The text that would be published (what is scanned). */
  text: string;
  /** What release hands back to the surface's publisher (JSON). */
  payload: unknown;
}

export type Screened =
  | { kind: "clear" }
  | { kind: "held"; item: InboxItem | null; rules: string[] };

/** Sends a released publication's original payload on its surface. */
export type Publisher = (payload: unknown) => Promise<void>;

/** The meta of a publish_hold inbox item. */
export interface PublishHoldMeta {
  kind: typeof PUBLISH_HOLD;
  surface: PublishSurface;
  where: string;
  rules: string[];
}

export interface PublishGateOptions {
  store: Pick<Store, "createInboxItem" | "appendAudit">;
  scanner: SecretScanner;
  /** The agent home; held originals live in <home>/outpost/held/. */
  home: string;
  logger: Logger;
}

export function isPublishHold(item: Pick<InboxItem, "meta">): boolean {
  return item.meta.kind === PUBLISH_HOLD;
}

export function heldDir(home: string): string {
  return join(home, "outpost", "held");
}

export class PublishGate {
  readonly #o: PublishGateOptions;
  readonly #publishers = new Map<PublishSurface, Publisher>();
  readonly #busy = new Set<number>();
  readonly #listeners = new Set<(item: InboxItem) => void>();

  constructor(options: PublishGateOptions) {
    this.#o = options;
  }

  /** The one secret scanner, for a copy that leaves this box another way (a fleet's run files). */
  get scanner(): SecretScanner {
    return this.#o.scanner;
  }

  /** A surface registers how to send a released original; returns the unregister function. */
  register(surface: PublishSurface, publisher: Publisher): () => void {
    this.#publishers.set(surface, publisher);
    return () => {
      if (this.#publishers.get(surface) === publisher) this.#publishers.delete(surface);
    };
  }

  /** Told of each item the gate opens (the outpost announces it); returns the unsubscribe. */
  on(listener: (item: InboxItem) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publisher(surface: PublishSurface): Publisher | undefined {
    return this.#publishers.get(surface);
  }

  /** Runs `fn` unless another release or drop of item `id` is under way (then throws). */
  async exclusive<T>(id: number, fn: () => Promise<T>): Promise<T> {
    if (this.#busy.has(id)) throw new PublishHoldError(id, "is being released or dropped already");
    this.#busy.add(id);
    try {
      return await fn();
    } finally {
      this.#busy.delete(id);
    }
  }

  /** Clear to send, or held (audited, and an inbox item opened when there is a run). */
  async screen(p: Publication): Promise<Screened> {
    let redacted: string;
    let rules: string[];
    try {
      const result = await this.#o.scanner.scan(p.text);
      if (result.findings.length === 0) return { kind: "clear" };
      redacted = result.redacted;
      rules = ruleNames(result.findings);
    } catch (err) {
      // Not a "no finding": a text nobody could check does not leave the box. Why it failed
      // goes to the log only: a settings parser's message may quote the line it choked on,
      // and that line may hold a key, so it stays out of the audit row and the inbox item.
      this.#o.logger.log("error", "secret scanner failed; the publication is held", {
        surface: p.surface,
        error: errorText(err).slice(0, 300),
      });
      redacted = "(the secret scanner failed, so the text is not shown; release sends it as is)";
      rules = ["scanner-failed"];
    }
    const item = p.job_id !== null && p.run_id !== null
      ? await this.#open(p, redacted, rules).catch((err) => {
        // Still held (nothing is sent); the audit row below says there is no item.
        this.#o.logger.log("error", "could not open the inbox item of a held publication", {
          surface: p.surface,
          error: errorText(err),
        });
        return null;
      })
      : null;
    audit(this.#o.store, this.#o.logger, {
      action: AUDIT_PUBLISH.held,
      target: item ? `inbox:${item.id}` : p.job_id !== null ? `job:${p.job_id}` : p.surface,
      actor: "publish-gate",
      channel: "outpost",
      detail: `${p.surface} to ${p.where} held: it matched ${rules.join(", ")}` +
        (item ? `; release or drop it as inbox item ${item.id}` : "; nothing to release it from"),
    });
    return { kind: "held", item, rules };
  }

  async #open(p: Publication, redacted: string, rules: string[]): Promise<InboxItem> {
    const dir = heldDir(this.#o.home);
    await makePrivateDir(dir);
    // The original is written first, under a temporary name, so an item never exists
    // without it; it takes the item's id once the item is there.
    const temp = join(dir, `.pending-${crypto.randomUUID()}.json`);
    await writeFileAtomic(temp, JSON.stringify({ surface: p.surface, payload: p.payload }), {
      mode: PRIVATE_FILE_MODE,
    });
    const meta: PublishHoldMeta = { kind: PUBLISH_HOLD, surface: p.surface, where: p.where, rules };
    let item: InboxItem;
    try {
      item = this.#o.store.createInboxItem({
        job_id: p.job_id!,
        run_id: p.run_id!,
        questions: [{
          kind: "approval",
          text: `Held: the ${surfaceName(p.surface)} to ${p.where} matched the secret scanner ` +
            `(${rules.join(", ")}). Release publishes the original text; drop discards it.`,
          detail: redacted,
        }],
        meta: { ...meta },
      });
    } catch (err) {
      await Deno.remove(temp).catch(() => {});
      throw err;
    }
    await Deno.rename(temp, heldPath(this.#o.home, item.id));
    for (const listener of [...this.#listeners]) {
      try {
        listener(item);
      } catch (err) {
        this.#o.logger.log("warn", "publish hold listener threw", { error: errorText(err) });
      }
    }
    return item;
  }
}

/**
 * The delivery event that tells the operator a publication was held: the item, where it
 * was going and the rules, never the text (not even redacted), so announcing a hold can
 * never itself be held and announced again.
 */
export function heldNoticeEvent(item: InboxItem, at: string, room?: string): InboxItemEvent {
  const meta = item.meta as Partial<PublishHoldMeta>;
  const surface = isPublishSurface(meta.surface) ? surfaceName(meta.surface) : "publication";
  const rules = Array.isArray(meta.rules) ? meta.rules.join(", ") : "the secret scanner";
  return {
    kind: "inbox_item",
    item_id: item.id,
    job_id: item.job_id,
    run_id: item.run_id,
    risk: "high",
    title: `A ${surface} was held for review`,
    body: `The ${surface} to ${String(meta.where ?? "?")} matched ${rules}. ` +
      `Release or drop it on the dashboard.`,
    priority: "high",
    at,
    ...(room ? { room } : {}),
  };
}

export function heldPath(home: string, itemId: number): string {
  return join(heldDir(home), `${itemId}.json`);
}

export function surfaceName(surface: PublishSurface): string {
  return surface === "github_comment"
    ? "GitHub comment"
    : surface === "chat"
    ? "chat message"
    : "push notification";
}
