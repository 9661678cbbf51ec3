// Every shipped recipe passes the schema and the catalog's own checks; bad files are left
// out of the catalog with their reason instead of hiding the others.

import assert from "node:assert/strict";
import { join } from "node:path";
import { loadCatalog, SHIPPED_RECIPES_DIR } from "./catalog.ts";
import { renderRecipe, templatePlaceholders } from "./render.ts";

const SHIPPED = [
  ["daily-brief-9am", "schedule", "report", "0 9 * * *"],
  ["daily-kin-digest", "schedule", "messenger", "30 17 * * *"],
  ["issue-triage", "trigger", "github_pr_comment", null],
  ["morning-pr-review", "schedule", "messenger", "0 9 * * *"],
  ["standup-from-git", "schedule", "report", "0 9 * * *"],
  ["weekly-repo-health", "schedule", "report", "0 18 * * 0"],
] as const;

Deno.test("the six shipped recipes of spec 2.7 load with their binding and surface", async () => {
  const catalog = await loadCatalog(SHIPPED_RECIPES_DIR);
  assert.deepEqual(catalog.load_errors, []);
  assert.deepEqual(catalog.recipes.map((r) => r.id), SHIPPED.map((s) => s[0]));
  for (const [id, binding, surface, cron] of SHIPPED) {
    const r = catalog.get(id)!;
    assert.equal(r.binding.kind, binding, id);
    assert.equal(r.output_surface, surface, id);
    if (r.binding.kind === "schedule") {
      assert.deepEqual(r.binding.schedule, { kind: "cron", expr: cron, tz: "UTC" }, id);
    } else {
      assert.deepEqual(r.binding, { kind: "trigger", source: "github", event: "issues.opened" });
    }
    // Every placeholder renders from the defaults plus a workdir (and a repo, an author).
    const config: Record<string, unknown> = { workdir: "/srv/checkout" };
    for (const f of r.config_fields) {
      if (f.default === undefined && f.name !== "workdir") {
        config[f.name] = f.type === "repo" ? "acme/widgets" : "alice@example.org";
      }
    }
    // Only issue-triage takes outside text (issue 37): its runs get their workspace's memory.
    assert.equal(r.untrusted_intake === true, id === "issue-triage", id);
    const { prompt } = renderRecipe(r, config);
    assert.doesNotMatch(prompt, /\{\{|\}\}/, id);
    assert.ok(prompt.length > 400, `${id}: a useful prompt, not a stub`);
    assert.ok(templatePlaceholders(r.prompt_template).length >= 1, id);
  }
});

async function catalogOf(
  files: Record<string, unknown>,
): Promise<Awaited<ReturnType<typeof loadCatalog>>> {
  const dir = await Deno.makeTempDir({ prefix: "recipes_" });
  for (const [name, doc] of Object.entries(files)) {
    await Deno.writeTextFile(join(dir, name), typeof doc === "string" ? doc : JSON.stringify(doc));
  }
  return await loadCatalog(dir);
}

const GOOD = {
  id: "good",
  version: 1,
  title: "Good",
  description: "A recipe that loads.",
  prompt_template: "Look at {{workdir}} for {{who}}.",
  binding: { kind: "schedule", schedule: { kind: "cron", expr: "0 9 * * *", tz: "UTC" } },
  output_surface: "report",
  config_fields: [
    { name: "workdir", label: "Workspace", type: "path" },
    { name: "who", label: "Who", type: "text", max_length: 20, default: "the team" },
  ],
};

Deno.test("invalid recipe files are excluded and listed in load_errors with the reason", async () => {
  const catalog = await catalogOf({
    "good.json": GOOD,
    "broken.json": "{ not json",
    "named-wrong.json": { ...GOOD, id: "other" },
    "unknown-ph.json": { ...GOOD, id: "unknown-ph", prompt_template: "Hi {{nobody}}" },
    "helper.json": { ...GOOD, id: "helper", prompt_template: "{{#if who}}x{{/if}} {{workdir}}" },
    "expr.json": { ...GOOD, id: "expr", prompt_template: "{{ who | upper }} {{workdir}}" },
    "no-workdir.json": {
      ...GOOD,
      id: "no-workdir",
      prompt_template: "{{who}}",
      config_fields: [GOOD.config_fields[1]],
    },
    "bad-default.json": {
      ...GOOD,
      id: "bad-default",
      config_fields: [GOOD.config_fields[0], { ...GOOD.config_fields[1], default: "{{workdir}}" }],
    },
    "bad-cron.json": {
      ...GOOD,
      id: "bad-cron",
      binding: { kind: "schedule", schedule: { kind: "cron", expr: "61 9 * * *", tz: "UTC" } },
    },
    "gh-on-schedule.json": { ...GOOD, id: "gh-on-schedule", output_surface: "github_pr_comment" },
    "extra-key.json": { ...GOOD, id: "extra-key", secret: "x" },
    "no-cap.json": {
      ...GOOD,
      id: "no-cap",
      config_fields: [GOOD.config_fields[0], { name: "who", label: "Who", type: "text" }],
    },
  });
  assert.deepEqual(catalog.recipes.map((r) => r.id), ["good"]);
  const why = Object.fromEntries(catalog.load_errors.map((e) => [e.file, e.error]));
  assert.match(why["broken.json"]!, /not valid JSON/);
  assert.match(why["named-wrong.json"]!, /file name must be other\.json/);
  assert.match(why["unknown-ph.json"]!, /\{\{nobody\}\}, which is not a config field/);
  assert.match(why["helper.json"]!, /unsupported placeholder "\{\{#if who\}\}"/);
  assert.match(why["expr.json"]!, /unsupported placeholder/);
  assert.match(why["no-workdir.json"]!, /workdir/);
  assert.match(why["bad-default.json"]!, /a default is refused: who: contains placeholder/);
  assert.match(why["bad-cron.json"]!, /binding\.schedule/);
  assert.match(why["gh-on-schedule.json"]!, /recipe\.schema\.json/);
  assert.match(why["extra-key.json"]!, /must NOT have additional properties/);
  assert.match(why["no-cap.json"]!, /recipe\.schema\.json/);
  assert.equal(catalog.load_errors.length, 11);
});

Deno.test("untrusted_intake: a boolean; false is refused for a trigger recipe", async () => {
  const trigger = {
    ...GOOD,
    binding: { kind: "trigger", source: "github", event: "issues.opened" },
    output_surface: "github_pr_comment",
    config_fields: [...GOOD.config_fields, { name: "repo", label: "Repository", type: "repo" }],
  };
  const catalog = await catalogOf({
    "marked.json": { ...GOOD, id: "marked", untrusted_intake: true },
    "trigger-unmarked.json": { ...trigger, id: "trigger-unmarked" },
    "trigger-false.json": { ...trigger, id: "trigger-false", untrusted_intake: false },
    "not-bool.json": { ...GOOD, id: "not-bool", untrusted_intake: "yes" },
  });
  const why = Object.fromEntries(catalog.load_errors.map((e) => [e.file, e.error]));
  assert.match(why["trigger-false.json"]!, /untrusted_intake cannot be false for a trigger recipe/);
  assert.match(why["not-bool.json"]!, /recipe\.schema\.json: \/untrusted_intake must be boolean/);
  assert.deepEqual(catalog.recipes.map((r) => r.id).sort(), ["marked", "trigger-unmarked"]);
});
