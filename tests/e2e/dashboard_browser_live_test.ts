// Browser end-to-end for the live feed's catch-up, in real Chromium against a real outpost: a
// change made after a page was rendered but before its event stream opened sent no event the
// page could hear, so the page refreshes its live regions once on the stream's first `hello`
// (and on every reconnect's), instead of showing the change only at the next one.

import assert from "node:assert/strict";
import type { Route } from "playwright-core";
import { peerTest, probes } from "../peers.ts";
import { openDashboard } from "./dashboard_browser_kit.ts";

peerTest(
  "dashboard: a change between the page's render and its event stream opening shows at hello",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    d.createJob({ name: "there at render", prompt: "ok" });
    // Hold the page's event stream until the change is made, as a slow network would.
    let held: (route: Route) => void = () => {};
    const streamAsked = new Promise<Route>((resolve) => (held = resolve));
    await page.route("**/api/events", (route) => held(route));
    await page.goto("/");
    const jobs = page.locator('[data-live="jobs"]');
    await jobs.getByText("there at render").waitFor();
    const route = await streamAsked;
    d.createJob({ name: "made while connecting", prompt: "ok" });
    assert.equal(await jobs.getByText("made while connecting").count(), 0, "not rendered yet");
    await route.continue();
    await page.locator('body[data-live="sse"]').waitFor({ state: "attached" });
    // No event follows the change: only the refresh on hello can show it (no reload).
    await jobs.getByText("made while connecting").waitFor({ timeout: 5_000 });
    assert.deepEqual(d.pageErrors, []);
  },
);
