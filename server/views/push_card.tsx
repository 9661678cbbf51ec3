// The landing page's Notifications card: Subscribe / Unsubscribe for this browser's push
// subscription. The server renders the frame only; server/static/push.js fills in the state
// (the outpost's lane from GET /api/push/status, this browser's permission and subscription)
// and shows the one button that applies.

import type { FC } from "hono/jsx";
import { Card } from "./layout.tsx";

export const PushCard: FC = () => (
  <Card id="card-push" title="Notifications">
    <div id="push-controls" data-push-state="checking">
      <p class="muted" data-push-line aria-live="polite">
        Checking whether this browser can get push notifications…
      </p>
      <p>
        <button type="button" class="btn btn-primary" data-push="subscribe" hidden>
          Subscribe this browser
        </button>
        <button type="button" class="btn" data-push="unsubscribe" hidden>
          Unsubscribe this browser
        </button>
      </p>
    </div>
  </Card>
);
