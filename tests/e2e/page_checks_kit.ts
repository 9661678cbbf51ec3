// Checks a browser test makes of any dashboard page (issue 30): horizontal overflow past the
// viewport (and which element causes it), and axe-core's serious or critical violations, with
// axe loaded from the project's own npm dependency.

import axe from "axe-core";
import type { Page } from "playwright-core";

/** CSS px by which the page is wider than its viewport (0: it fits). */
export async function overflow(page: Page): Promise<number> {
  return Number(
    await page.evaluate(
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    ),
  );
}

/** The innermost elements reaching past the viewport's right edge, to name the culprit. */
export async function widest(page: Page): Promise<string> {
  return await page.evaluate(`(() => {
    const w = document.documentElement.clientWidth;
    const out = [];
    for (const el of document.querySelectorAll("body *")) {
      if (el.getBoundingClientRect().right <= w + 1) continue;
      if ([...el.children].some((c) => c.getBoundingClientRect().right > w + 1)) continue;
      out.push(el.tagName.toLowerCase() + "." + el.className);
    }
    return out.slice(0, 4).join(", ");
  })()`);
}

/** axe-core's serious and critical violations on the current page. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol, so the page's CSP (script-src 'self') stays as served.
  await page.evaluate(axe.source);
  const found = await page.evaluate(`(async () => {
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => v.id + ": " + v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | "));
  })()`);
  return found as string[];
}
