// The controls of a held publication (inbox item kind publish_hold, core/publish/gate.ts):
// what was held and where it was going, and Release (publish the original, unredacted text)
// or Drop (discard it). The redacted text itself is the item's question detail, shown above
// these controls like any other item's detail.

import type { FC } from "hono/jsx";
import type { InboxView } from "../../core/inbox/service.ts";
import { type PublishSurface, surfaceName } from "../../core/publish/gate.ts";

export const PublishHoldControls: FC<{ item: InboxView }> = ({ item }) => {
  const surface = String(item.meta.surface) as PublishSurface;
  const rules = Array.isArray(item.meta.rules) ? item.meta.rules.map(String) : [];
  return (
    <div class="hold-note" role="note" data-publish-hold={surface}>
      <p>
        <strong>Held publication.</strong> A {surfaceName(surface)} to{" "}
        <span class="mono">{String(item.meta.where ?? "")}</span> was stopped by the secret scanner
        {rules.length > 0 ? ` (${rules.join(", ")})` : ""}. The text above is redacted.
      </p>
      <p class="muted small">
        Release publishes the original text as it was, secrets included. Drop discards it.
      </p>
      <div class="form-actions">
        <button type="button" class="btn btn-warn" data-action="release-held" data-id={item.id}>
          Release
        </button>
        <button type="button" class="btn btn-quiet" data-action="drop-held" data-id={item.id}>
          Drop
        </button>
      </div>
    </div>
  );
};
