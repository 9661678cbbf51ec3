// The document shell every page shares: viewport and CSRF meta tags, the stylesheets and
// the page script module (all same-origin, so the CSP can say script-src 'self'), the top bar.

import type { Child, FC } from "hono/jsx";
import type { AssetUrls } from "../static/assets.ts";
import { StatusBar, type StatusBarData } from "./status_bar.tsx";

const Stylesheet: FC<{ href: string }> = ({ href }) => <link rel="stylesheet" href={href} />;

export interface LayoutProps {
  title: string;
  csrf: string;
  /** Which page this is; the page script picks its live regions by it. */
  page:
    | "landing"
    | "jobs"
    | "run"
    | "inbox"
    | "not-found"
    | "runs"
    | "job"
    | "audit"
    | "fleet";
  status: StatusBarData | null;
  /** Versioned (content-hashed) URLs of the page script and stylesheets. */
  assets: AssetUrls;
  /** Extra data-* attributes on <body> for the page script (job/run/item ids). */
  data?: Record<string, string | number>;
  children?: Child;
}

export const Layout: FC<LayoutProps> = (p) => {
  const bodyData: Record<string, string> = { "data-page": p.page };
  for (const [k, v] of Object.entries(p.data ?? {})) bodyData[`data-${k}`] = String(v);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover" />
        <meta name="color-scheme" content="light dark" />
        <meta name="referrer" content="no-referrer" />
        <meta name="csrf-token" content={p.csrf} />
        <title>{p.title} · outpost</title>
        <link rel="icon" href={p.assets.icon} type="image/svg+xml" />
        {p.assets.styles.map((href) => <Stylesheet key={href} href={href} />)}
        <script type="module" src={p.assets.script}></script>
      </head>
      <body {...bodyData}>
        <a class="skip" href="#main">Skip to content</a>
        <header class="topbar">
          <a class="brand" href="/" aria-label="outpost home">
            <span class="brand-mark" aria-hidden="true">◆</span> outpost
          </a>
          <nav class="topnav" aria-label="Pages">
            <a href="/jobs" aria-current={p.page === "jobs" ? "page" : undefined}>Jobs</a>
            <a href="/runs" aria-current={p.page === "runs" ? "page" : undefined}>Runs</a>
            <a href="/audit" aria-current={p.page === "audit" ? "page" : undefined}>Audit</a>
            <a href="/fleet" aria-current={p.page === "fleet" ? "page" : undefined}>Fleet</a>
          </nav>
          <div data-live="status" data-src="/partials/status">
            {p.status ? <StatusBar data={p.status} /> : null}
          </div>
        </header>
        <main id="main">{p.children}</main>
        <div class="toast" id="toast" role="status" aria-live="polite" hidden></div>
        <noscript>
          <p class="noscript">This dashboard needs JavaScript for actions and live updates.</p>
        </noscript>
      </body>
    </html>
  );
};

/**
 * A card: a titled section with an id for deep links (/#card-jobs). The one card of a page
 * that has no other title takes `level={1}`, so every page has exactly one h1.
 */
export const Card: FC<
  { id: string; title: string; wide?: boolean; level?: 1; actions?: Child; children?: Child }
> = (p) => (
  <section class={p.wide ? "card card-wide" : "card"} id={p.id} aria-labelledby={`${p.id}-title`}>
    <header class="card-head">
      {p.level === 1
        ? <h1 id={`${p.id}-title`}>{p.title}</h1>
        : <h2 id={`${p.id}-title`}>{p.title}</h2>}
      {p.actions ?? null}
    </header>
    {p.children}
  </section>
);
