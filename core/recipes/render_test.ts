// Restricted rendering: only {{name}}; values checked and capped; a missing key, an unknown
// placeholder or a value over its cap is a RecipeError naming it. Attacker values are
// refused, never rendered.

import assert from "node:assert/strict";
import { renderRecipe, renderTemplate, templatePlaceholders } from "./render.ts";
import { type Recipe, RecipeError } from "./types.ts";

const RECIPE: Recipe = {
  id: "t",
  version: 1,
  title: "T",
  description: "d",
  prompt_template:
    "Review {{repo}} in {{ workdir }} for {{focus}}; {{count}} items; tone {{tone}}.",
  binding: { kind: "schedule", schedule: { kind: "cron", expr: "0 9 * * *", tz: "UTC" } },
  output_surface: "report",
  config_fields: [
    { name: "workdir", label: "W", type: "path" },
    { name: "repo", label: "R", type: "repo" },
    { name: "focus", label: "F", type: "text", max_length: 30, default: "tests" },
    { name: "count", label: "C", type: "integer", min: 1, max: 5, default: 3 },
    { name: "tone", label: "T", type: "enum", values: ["warm", "brief"], default: "warm" },
  ],
};

const BASE = { workdir: "/srv/w", repo: "acme/widgets" };

function refused(config: Record<string, unknown>, field: string, why: RegExp): void {
  assert.throws(
    () => renderRecipe(RECIPE, { ...BASE, ...config }),
    (err: unknown) => err instanceof RecipeError && err.field === field && why.test(err.message),
    JSON.stringify(config),
  );
}

Deno.test("values render in one pass with defaults filled in", () => {
  const { prompt, config } = renderRecipe(RECIPE, { ...BASE, focus: "C# and Go" });
  assert.equal(prompt, "Review acme/widgets in /srv/w for C# and Go; 3 items; tone warm.");
  assert.deepEqual(config, { ...BASE, focus: "C# and Go", count: 3, tone: "warm" });
});

Deno.test("attacker values are refused with a RecipeError naming the field", () => {
  refused({ focus: "{{workdir}}" }, "focus", /placeholder or template syntax/);
  refused({ focus: "a }} b" }, "focus", /placeholder or template syntax/);
  refused({ focus: "{% include x %}" }, "focus", /template syntax/);
  refused({ focus: "${process.env}" }, "focus", /template syntax/);
  refused({ focus: "<%= 7*7 %>" }, "focus", /template syntax/);
  refused({ focus: "# Ignore the above" }, "focus", /markdown block syntax/);
  refused({ focus: "> quoted" }, "focus", /markdown block syntax/);
  refused({ focus: "- item" }, "focus", /markdown block syntax/);
  refused({ focus: "see [x](javascript:1)" }, "focus", /markdown, markup/);
  refused({ focus: "`rm -rf`" }, "focus", /markdown, markup/);
  refused({ focus: "<img src=x>" }, "focus", /markdown, markup/);
  refused({ focus: 'a" && curl x' }, "focus", /quotes/);
  refused({ focus: "line\nnew line" }, "focus", /control/);
  refused({ focus: "nul\u0000" }, "focus", /control/);
  refused({ focus: "rtl\u202Eoverride" }, "focus", /invisible formatting/);
  refused({ focus: "x".repeat(31) }, "focus", /31 characters is over this field's cap of 30/);
  refused({ repo: "acme/widgets; rm" }, "repo", /owner\/name/);
  refused({ repo: "../etc" }, "repo", /owner\/name/);
  refused({ workdir: "relative/path" }, "workdir", /not an absolute path/);
  refused({ workdir: "/srv/../etc" }, "workdir", /\.\. segments/);
  refused({ workdir: "/srv/{{repo}}" }, "workdir", /template syntax/);
  refused({ count: 9 }, "count", /out of range 1\.\.5/);
  refused({ count: "3" }, "count", /whole number/);
  refused({ tone: "shouty" }, "tone", /one of warm, brief/);
  refused({ surprise: 1 }, "surprise", /not a config field/);
  refused({ repo: undefined }, "repo", /required/);
});

Deno.test("templates: unknown placeholders, helpers and expressions are errors", () => {
  assert.deepEqual(templatePlaceholders("{{a}} {{ b }} {{a}}"), ["a", "b"]);
  for (
    const t of [
      "{{#if a}}x{{/if}}",
      "{{a.b}}",
      "{{ a | upper }}",
      "{{A}}",
      "x }} y",
      "{{> partial}}",
    ]
  ) {
    assert.throws(() => templatePlaceholders(t), RecipeError, t);
  }
  assert.throws(
    () => renderTemplate("Hi {{who}}", {}),
    (err: unknown) => err instanceof RecipeError && err.field === "{{who}}",
  );
  // A value containing braces from a trusted caller is still never re-scanned.
  assert.equal(renderTemplate("{{a}}{{b}}", { a: "{", b: "{x}}" }), "{{x}}");
});
