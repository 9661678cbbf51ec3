// /inbox/<id>: one item with answer/dismiss (and Confirm for a live hold). The item is the
// live region (/partials/inbox-item/<id>), so an answer from chat shows up here too.

import type { FC } from "hono/jsx";
import type { InboxView } from "../../core/inbox/service.ts";
import { InboxItemView } from "./inbox_item.tsx";

export const InboxPage: FC<{ item: InboxView; jobName: string | null; now: Date }> = (p) => (
  <div class="stack narrow">
    <nav class="crumbs" aria-label="Breadcrumb">
      <a href="/">Dashboard</a> <span aria-hidden="true">/</span> <a href="/#card-inbox">Inbox</a>
    </nav>
    <h1 class="page-title">Inbox item #{p.item.id}</h1>
    <section class="card card-wide">
      <div data-live="inbox-item" data-src={`/partials/inbox-item/${p.item.id}`}>
        <InboxItemView item={p.item} jobName={p.jobName} now={p.now} standalone />
      </div>
    </section>
  </div>
);
