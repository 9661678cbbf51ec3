// The friendly 404 for unknown runs, inbox items and paths.

import type { FC } from "hono/jsx";

export const NotFoundPage: FC<{ what: string }> = ({ what }) => (
  <div class="stack narrow">
    <section class="card card-wide not-found" aria-labelledby="nf-title">
      <h1 id="nf-title">Not found</h1>
      <p>{what}</p>
      <p>
        It may have been deleted, or the link is mistyped. <a href="/">Back to the dashboard</a>
      </p>
    </section>
  </div>
);
