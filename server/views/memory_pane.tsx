// The memory pane: search (top 10 hits through the API), the file list with per-category
// stats, and a panel that shows one body. Bodies are fetched by the page script from the
// API (which audits the read) and shown as text, never as markup.

import type { FC } from "hono/jsx";
import type { MemoryList } from "../../core/memory/mod.ts";
import { CATEGORIES } from "../../core/memory/mod.ts";
import { count, shortTime } from "./format.ts";
import { MemoryAdminForm } from "./memory_admin_form.tsx";

/** Files listed before "… and N more" (the search box reaches the rest). */
export const MEMORY_LIST_MAX = 100;

export type MemoryPaneData = { ok: true; list: MemoryList } | { ok: false; error: string };

const Stats: FC<{ list: MemoryList }> = ({ list }) => (
  <dl class="stats" aria-label="Memory files per category">
    {[...CATEGORIES, "total" as const].map((c) => {
      const s = list.stats[c];
      return (
        <div class={c === "total" ? "stat stat-total" : "stat"} data-category={c}>
          <dt>{c}</dt>
          <dd>
            <span class="num">{s.files}</span>
            <span class="muted small">
              {" "}
              {s.files === 1 ? "file" : "files"}, {count(Math.ceil(s.bytes / 1024))} KB
              {s.stale > 0 ? `, ${s.stale} stale` : ""}
            </span>
          </dd>
        </div>
      );
    })}
  </dl>
);

const Files: FC<{ list: MemoryList }> = ({ list }) => {
  if (list.files.length === 0) {
    return (
      <p class="empty">
        No memory files yet. The agent saves here what later runs should know; nothing to do until
        it does.
      </p>
    );
  }
  const files = [...list.files].sort((a, b) => b.mtime.localeCompare(a.mtime));
  const shown = files.slice(0, MEMORY_LIST_MAX);
  return (
    <>
      <ul class="rows compact memory-files" aria-label="Memory files">
        {shown.map((f) => (
          <li class="row">
            <button
              type="button"
              class="row-link as-button"
              data-action="open-memory"
              data-path={f.path}
            >
              <span class={`badge cat-${f.category}`}>{f.category}</span>
              <span class="row-text">
                <span>{f.title || f.path}</span>
                <span class="muted small mono">{f.path}</span>
                <span class="muted small">
                  {f.stale ? "stale · " : ""}
                  <time datetime={f.mtime}>{shortTime(f.mtime)}</time>
                </span>
              </span>
            </button>
          </li>
        ))}
      </ul>
      {files.length > shown.length
        ? <p class="muted small">… and {files.length - shown.length} more; search to find them.</p>
        : null}
    </>
  );
};

export const MemoryPane: FC<{ data: MemoryPaneData }> = ({ data }) => (
  <div class="memory-pane">
    <form class="search" id="memory-search" role="search">
      <label for="memory-q" class="sr-only">Search memory</label>
      <input
        id="memory-q"
        name="q"
        type="search"
        placeholder="Search memory"
        autocomplete="off"
        required
      />
      <button type="submit" class="btn">Search</button>
    </form>
    <div id="memory-hits" aria-live="polite"></div>
    {data.ok
      ? (
        <>
          <Stats list={data.list} />
          <Files list={data.list} />
        </>
      )
      : <p class="error-note">Memory is unavailable: {data.error}</p>}
    <section class="memory-body" id="memory-body" hidden aria-labelledby="memory-body-title">
      <header class="item-head">
        <h3 id="memory-body-title" class="mono item-title">Memory file</h3>
        <button type="button" class="btn btn-quiet" data-action="close-memory">Close</button>
      </header>
      <p class="muted small" id="memory-body-meta"></p>
      <MemoryAdminForm />
      <pre class="memory-text" id="memory-body-text" tabindex={0}></pre>
    </section>
  </div>
);
