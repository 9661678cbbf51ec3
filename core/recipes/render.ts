// Restricted prompt rendering (spec 2.7): `{{name}}` placeholders and nothing else: no
// expressions, helpers, sections, partials or dotted paths. Config values are checked
// against their field (type, bounds, cap) and refused, never silently altered, when they
// carry text that could change the prompt's structure: placeholder or template syntax,
// markdown block syntax, markup, quotes or control characters. Rendering is one pass over
// the template, so a value is never scanned for placeholders again.

import { type ConfigField, type ConfigValue, type Recipe, RecipeError } from "./types.ts";

/** One placeholder: `{{name}}`, optional spaces inside the braces. */
const PLACEHOLDER = /\{\{\s*([a-z][a-z0-9_]{0,39})\s*\}\}/g;
/** Hard ceilings whatever a recipe file says. */
export const TEXT_MAX = 500;
export const PATH_MAX = 4096;
export const REPO_MAX = 140;

/**
 * The placeholder names of a template, in order of first use. Throws RecipeError for any
 * other double-brace text (`{{#if}}`, `{{a.b}}`, `{{x | upper}}`, a stray `}}`).
 */
export function templatePlaceholders(template: string): string[] {
  const names: string[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (!names.includes(m[1]!)) names.push(m[1]!);
  }
  const rest = template.replace(PLACEHOLDER, "");
  const bad = /\{\{[^}]{0,40}\}?\}?|\}\}/.exec(rest);
  if (bad) {
    throw new RecipeError(
      "prompt_template",
      `unsupported placeholder ${JSON.stringify(bad[0])}: only {{name}} with a config field ` +
        `name (lower case, digits, _) is allowed, no expressions or helpers`,
      "unsupported placeholder in the template",
    );
  }
  return names;
}

/**
 * Fills every placeholder from `values` in one pass. A placeholder without a value is a
 * RecipeError naming it (a missing template key).
 */
export function renderTemplate(template: string, values: Record<string, ConfigValue>): string {
  templatePlaceholders(template);
  return template.replace(PLACEHOLDER, (_all, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (value === undefined) {
      throw new RecipeError(
        `{{${name}}}`,
        "the template uses this key but no value was given",
        "missing template key",
      );
    }
    return String(value);
  });
}

/**
 * The operator's config checked against the recipe's config_fields, with defaults filled
 * in. Unknown keys, missing required values and refused values throw RecipeError.
 */
export function validateConfig(recipe: Recipe, raw: unknown): Record<string, ConfigValue> {
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new RecipeError(
      "config",
      "expected a JSON object of field name to value",
      "not a JSON object",
    );
  }
  const input = raw as Record<string, unknown>;
  const names = recipe.config_fields.map((f) => f.name);
  for (const key of Object.keys(input)) {
    if (!names.includes(key)) {
      throw new RecipeError(
        key.slice(0, 60),
        `not a config field of ${recipe.id}; its fields are ${names.join(", ")}`,
        "unknown key",
      );
    }
  }
  const out: Record<string, ConfigValue> = {};
  for (const field of recipe.config_fields) {
    const given = input[field.name];
    const blank = given === undefined || given === null || given === "";
    if (blank) {
      if (field.default !== undefined) out[field.name] = checkValue(field, field.default);
      else if (field.required !== false) {
        throw new RecipeError(field.name, `required (${field.label})`, "missing");
      } else if (field.type !== "integer") out[field.name] = "";
      continue;
    }
    out[field.name] = checkValue(field, given);
  }
  return out;
}

/** Validates and renders: the prompt a job made from this recipe and config would get. */
export function renderRecipe(
  recipe: Recipe,
  raw: unknown,
): { config: Record<string, ConfigValue>; prompt: string } {
  const config = validateConfig(recipe, raw);
  return { config, prompt: renderTemplate(recipe.prompt_template, config) };
}

function checkValue(field: ConfigField, value: unknown): ConfigValue {
  switch (field.type) {
    case "integer": {
      if (typeof value !== "number" || !Number.isSafeInteger(value)) {
        throw new RecipeError(
          field.name,
          `expected a whole number, got ${describe(value)}`,
          "not a whole number",
        );
      }
      if (value < field.min || value > field.max) {
        throw new RecipeError(
          field.name,
          `${value} is out of range ${field.min}..${field.max}`,
          `out of range ${field.min}..${field.max}`,
        );
      }
      return value;
    }
    case "enum": {
      if (typeof value !== "string" || !field.values.includes(value)) {
        throw new RecipeError(
          field.name,
          `expected one of ${field.values.join(", ")}, got ${describe(value)}`,
          "not one of the choices",
        );
      }
      return value;
    }
    case "repo":
      return repo(field.name, value);
    case "path":
      return absolutePath(field.name, value);
    case "text":
      return plainText(field.name, value, Math.min(field.max_length, TEXT_MAX));
  }
}

function describe(value: unknown): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (value === null) return "null";
  return Array.isArray(value) ? "an array" : typeof value;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u200B-\u200F\u202A-\u202E\u2066-\u2069]/;

function asString(field: string, value: unknown, cap: number): string {
  if (typeof value !== "string") {
    throw new RecipeError(field, `expected a string, got ${describe(value)}`, "not a string");
  }
  if (value.length > cap) {
    throw new RecipeError(
      field,
      `${value.length} characters is over this field's cap of ${cap}`,
      `over its cap of ${cap} characters`,
    );
  }
  if (CONTROL.test(value)) {
    throw new RecipeError(
      field,
      "contains control or invisible formatting characters (newlines included); use one " +
        "line of plain text",
      "control or invisible characters",
    );
  }
  if (value.includes("{{") || value.includes("}}") || /\{%|%\}|\$\{|<%/.test(value)) {
    throw new RecipeError(
      field,
      "contains placeholder or template syntax ({{ }}, {% %}, ${ }, <% %>); values are " +
        "plain text and are never rendered as templates",
      "placeholder or template syntax",
    );
  }
  return value;
}

/**
 * One line of plain words. Refused: markdown block syntax at the start (headings, quotes,
 * list or table markers, rules), inline code, links and images, markup and quotes, which
 * could close a quoted command or restructure the prompt around the value.
 */
export function plainText(field: string, value: unknown, cap: number): string {
  const text = asString(field, value, cap).trim();
  if (/^(#|>|[-*+]\s|\d+[.)]\s|\||={3}|-{3}|_{3}|\*{3})/.test(text)) {
    throw new RecipeError(
      field,
      "starts with markdown block syntax (heading, quote, list, table or rule); write plain words",
      "markdown block syntax",
    );
  }
  const bad = /[`<>[\]{}"\\$]/.exec(text);
  if (bad) {
    throw new RecipeError(
      field,
      `contains ${JSON.stringify(bad[0])}: markdown, markup, quotes and template characters ` +
        "are refused in recipe values; write plain words",
      "markdown, markup, quote or template characters",
    );
  }
  return text;
}

function repo(field: string, value: unknown): string {
  const text = asString(field, value, REPO_MAX).trim();
  if (
    !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/.test(text) ||
    /\/\.\.?$/.test(text)
  ) {
    throw new RecipeError(
      field,
      `expected owner/name (e.g. acme/widgets), got ${describe(text)}`,
      "not owner/name",
    );
  }
  return text;
}

function absolutePath(field: string, value: unknown): string {
  const text = asString(field, value, PATH_MAX).trim();
  if (!text.startsWith("/")) {
    throw new RecipeError(
      field,
      `${JSON.stringify(text.slice(0, 60))} is not an absolute path`,
      "not an absolute path",
    );
  }
  if (text.split("/").some((part) => part === "..")) {
    throw new RecipeError(
      field,
      "must not contain .. segments; give the folder's real path",
      ".. segments",
    );
  }
  if (/[`<>{}"\\$]/.test(text)) {
    throw new RecipeError(
      field,
      'contains characters a folder path here may not use (` < > { } " \\ $)',
      "characters a path may not use",
    );
  }
  return text;
}
