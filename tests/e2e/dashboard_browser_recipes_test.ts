// Browser end-to-end: the Recipes card in real Chromium against a real outpost. The catalog
// with binding, surface and counts; the enable form built from config_fields with inline
// validation and a live preview of the prompt and next fires; the stale badge on a job from
// an older recipe version and a new job from the new version (the old one unchanged); the
// one-time secret of a trigger recipe.

import assert from "node:assert/strict";
import { join } from "node:path";
import { SHIPPED_RECIPES_DIR } from "../../core/recipes/catalog.ts";
import { deriveSecret, triggerKeyPath } from "../../core/recipes/trigger_secret.ts";
import { peerTest, probes } from "../peers.ts";
import { openDashboard } from "./dashboard_browser_kit.ts";

/** The shipped recipes, with daily-brief-9am at version 2 (a later release). */
async function recipesWithNewBrief(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "recipes_browser_" });
  for await (const entry of Deno.readDir(SHIPPED_RECIPES_DIR)) {
    if (!entry.name.endsWith(".json")) continue;
    const doc = JSON.parse(await Deno.readTextFile(join(SHIPPED_RECIPES_DIR, entry.name)));
    if (doc.id === "daily-brief-9am") {
      doc.version = 2;
      doc.prompt_template = `Version 2: ${doc.prompt_template}`;
    }
    await Deno.writeTextFile(join(dir, entry.name), JSON.stringify(doc));
  }
  return dir;
}

peerTest(
  "dashboard: the Recipes card enables recipes from generated forms",
  probes.chromium,
  async () => {
    const recipesDir = await recipesWithNewBrief();
    await using d = await openDashboard({ recipesDir });
    const { page } = d;
    // A job made from version 1 of daily-brief-9am, before version 2 shipped.
    const old = d.deps.scheduler.createJob({
      name: "Old brief",
      prompt: "the version 1 prompt, as rendered then",
      schedule: { kind: "cron", expr: "0 9 * * *", tz: "UTC" },
      workdir: d.workdir,
    }, {
      recipe_id: "daily-brief-9am",
      recipe_version: 1,
      meta: { recipe_config: { workdir: d.workdir, since_hours: 48 } },
    });

    await page.goto("/");
    const card = page.locator("#card-recipes");
    await card.locator('[data-recipe="morning-pr-review"]').waitFor();
    assert.equal(await card.locator(".recipe").count(), 6);
    const pr = card.locator('[data-recipe="morning-pr-review"]');
    const prText = await pr.innerText();
    assert.match(prText, /reviews the open pull requests/);
    assert.match(prText, /Binding: cron 0 9 \* \* \* \(UTC\)/);
    assert.match(prText, /Surface: chat room/);
    assert.match(prText, /0 enabled/);
    assert.match(
      await card.locator('[data-recipe="issue-triage"]').innerText(),
      /Surface: comment on the issue/,
    );

    // The form is generated from config_fields; a value carrying a placeholder is refused inline.
    await pr.locator("[data-recipe-open]").click();
    const form = pr.locator("form[data-recipe-form]");
    await form.waitFor();
    assert.equal(await form.locator('input[name="max_prs"]').getAttribute("max"), "20");
    await form.locator('input[name="workdir"]').fill(d.workdir);
    await form.locator('input[name="repo"]').fill("acme/widgets");
    await form.locator('input[name="focus"]').fill("{{workdir}}");
    const focusError = form.locator('[data-error-for="focus"]');
    await focusError.waitFor({ state: "visible" });
    assert.match(await focusError.innerText(), /placeholder or template syntax/);
    await form.locator('input[name="focus"]').fill("tests and naming");
    await focusError.waitFor({ state: "hidden" });
    const prompt = form.locator('[data-preview="prompt"]');
    await prompt.filter({ hasText: "tests and naming" }).waitFor();
    assert.match(await prompt.innerText(), /repository acme\/widgets/);
    assert.equal(await form.locator('[data-preview="fires"] li').count(), 5);
    await d.screenshot("recipes_enable_form");

    await form.locator('button[type="submit"]').click();
    await pr.locator(".recipe-count", { hasText: "1 enabled" }).waitFor();
    const made = d.deps.store.listJobs().find((j) => j.recipe_id === "morning-pr-review")!;
    assert.equal(made.recipe_version, 1);
    assert.match(made.prompt, /tests and naming/);

    // The old job carries the stale badge; a new job comes from version 2, the old stays as it was.
    const row = card.locator(`[data-made-job="${old.id}"]`);
    assert.match(await row.innerText(), /updated: v2 available/);
    await row.locator("[data-recipe-open]").click();
    const briefForm = card.locator('form[data-recipe-form="daily-brief-9am"]');
    await briefForm.waitFor();
    assert.equal(await briefForm.locator('input[name="workdir"]').inputValue(), d.workdir);
    assert.equal(await briefForm.locator('input[name="since_hours"]').inputValue(), "48");
    await briefForm.locator('button[type="submit"]').click();
    await card.locator('[data-recipe="daily-brief-9am"] .recipe-count', { hasText: "2 enabled" })
      .waitFor();
    const v2 = d.deps.store.listJobs().find((j) =>
      j.recipe_id === "daily-brief-9am" && j.id !== old.id
    )!;
    assert.equal(v2.recipe_version, 2);
    assert.match(v2.prompt, /^Version 2: /);
    assert.equal(d.deps.store.getJob(old.id)!.prompt, "the version 1 prompt, as rendered then");
    assert.equal(d.deps.store.getJob(old.id)!.recipe_version, 1);

    // A trigger recipe shows its secret once, with the setup steps.
    const triage = card.locator('[data-recipe="issue-triage"]');
    await triage.locator("[data-recipe-open]").click();
    const tform = triage.locator("form[data-recipe-form]");
    await tform.waitFor();
    await tform.locator('input[name="workdir"]').fill(d.workdir);
    await tform.locator('input[name="repo"]').fill("acme/widgets");
    await tform.locator('button[type="submit"]').click();
    const secret = await triage.locator("[data-trigger-secret]").innerText();
    const [trigger] = d.deps.store.triggers.list();
    const key = (await Deno.readTextFile(triggerKeyPath(d.home))).trim();
    assert.equal(secret, deriveSecret(key, trigger!.id, trigger!.salt));
    assert.match(await triage.innerText(), /hooks\/github\/\d+/);
    await d.screenshot("recipes_trigger_secret");
    assert.deepEqual(d.pageErrors, []);
    await Deno.remove(recipesDir, { recursive: true });
  },
);
