// Markup rendered once per data object: for views of store reads kept until the store commits
// (commit_cache.ts), whose object stays the same while nothing is written. The markup is kept
// beside the object (a WeakMap, so it goes when the object goes) and inserted as it is. The
// /runs charts are ~170 bars of nested elements and the largest part of that page's rendering.
// renderNow is the one way a view is rendered ahead for such reuse (the job form uses it too).

import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/**
 * `view` as a component that renders each `data` object once. The view must be a pure,
 * synchronous function of `data` (no context, no async children): it is rendered on its own.
 */
export function renderedOncePer<T extends object>(
  view: FC<{ data: T }>,
): FC<{ data: T }> {
  const done = new WeakMap<T, HtmlEscapedString>();
  return ({ data }) => {
    let html = done.get(data);
    if (html === undefined) {
      html = renderNow(view, { data });
      done.set(data, html);
    }
    return html;
  };
}

/**
 * A synchronous view's markup now, to insert as it is (an async child would leave a promise:
 * refused as a TypeError, never inserted as "[object Promise]").
 */
export function renderNow<P>(view: FC<P>, props: P): HtmlEscapedString {
  const text: unknown = view(props as P & { children?: never })?.toString();
  if (typeof text !== "string") {
    throw new TypeError(`${view.name || "a view"} did not render synchronously`);
  }
  return raw(text);
}
