// The recipe catalog (spec 2.7, 4.5): every `*.json` file of the recipes folder, checked
// against schemas/recipe.schema.json and then against what a schema cannot say (the file is
// named after its id, ids are unique, every placeholder names a config field, defaults pass
// their own field's checks, a schedule binding computes, a workdir path field exists).
// A file that fails is left out of the catalog and listed in load_errors with the reason,
// so one bad file never hides the others.

import { join } from "node:path";
import schema from "../../schemas/recipe.schema.json" with { type: "json" };
import { errorText } from "../logger.ts";
import { validateSchedule } from "../scheduler/schedule.ts";
import { templatePlaceholders, validateConfig } from "./render.ts";
import type { Recipe, RecipeLoadError } from "./types.ts";

/** The shipped recipes folder of this checkout (also baked into compiled binaries). */
export const SHIPPED_RECIPES_DIR = new URL("../../recipes/", import.meta.url).pathname;

/** Recipe files larger than this are refused unread (the longest shipped one is ~4 KB). */
const FILE_MAX_BYTES = 64 * 1024;

export interface Catalog {
  recipes: Recipe[];
  load_errors: RecipeLoadError[];
  get(id: string): Recipe | undefined;
}

type Validator = ((doc: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string }> | null;
};

let compiled: Promise<Validator> | null = null;

/** ajv is loaded on first use only (it is not needed to start serving). */
export function recipeValidator(): Promise<Validator> {
  compiled ??= (async () => {
    const { default: Ajv2020 } = await import("ajv/dist/2020.js");
    // deno-lint-ignore no-explicit-any
    const ajv = new (Ajv2020 as any)({ allErrors: true, strict: true, strictRequired: false });
    return ajv.compile(schema) as Validator;
  })();
  return compiled;
}

/** Loads the catalog from `dir`. A missing folder is an error; a bad file is a load error. */
export async function loadCatalog(dir: string = SHIPPED_RECIPES_DIR): Promise<Catalog> {
  const validate = await recipeValidator();
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(".json")) names.push(entry.name);
  }
  names.sort();
  const recipes: Recipe[] = [];
  const load_errors: RecipeLoadError[] = [];
  for (const file of names) {
    try {
      const recipe = await loadOne(join(dir, file), file, validate);
      if (recipes.some((r) => r.id === recipe.id)) {
        throw new Error(`id ${recipe.id} is already used by another file`);
      }
      recipes.push(recipe);
    } catch (err) {
      load_errors.push({ file, error: errorText(err) });
    }
  }
  const byId = new Map(recipes.map((r) => [r.id, r]));
  return { recipes, load_errors, get: (id) => byId.get(id) };
}

async function loadOne(path: string, file: string, validate: Validator): Promise<Recipe> {
  const info = await Deno.lstat(path);
  if (!info.isFile) throw new Error("not a regular file (symlinks are not followed)");
  if (info.size > FILE_MAX_BYTES) throw new Error(`larger than ${FILE_MAX_BYTES} bytes`);
  let doc: unknown;
  try {
    doc = JSON.parse(await Deno.readTextFile(path));
  } catch (err) {
    throw new Error(`not valid JSON: ${errorText(err)}`);
  }
  if (!validate(doc)) {
    const first = (validate.errors ?? []).slice(0, 3)
      .map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`);
    throw new Error(`does not match schemas/recipe.schema.json: ${first.join("; ")}`);
  }
  const { $schema: _schema, ...recipe } = doc as Recipe & { $schema?: string };
  checkRecipe(recipe, file);
  return recipe;
}

/** The checks a JSON Schema cannot express. Throws with the first problem found. */
export function checkRecipe(recipe: Recipe, file: string): void {
  if (file !== `${recipe.id}.json`) {
    throw new Error(`file name must be ${recipe.id}.json (the recipe's id)`);
  }
  const fields = recipe.config_fields.map((f) => f.name);
  const dup = fields.find((name, i) => fields.indexOf(name) !== i);
  if (dup) throw new Error(`config field ${dup} is listed twice`);
  if (!recipe.config_fields.some((f) => f.name === "workdir" && f.type === "path")) {
    throw new Error('needs a config field {"name": "workdir", "type": "path"} (where jobs run)');
  }
  if (
    recipe.binding.kind === "trigger" &&
    !recipe.config_fields.some((f) => f.name === "repo" && f.type === "repo")
  ) {
    throw new Error('a trigger recipe needs {"name": "repo", "type": "repo"} (whose events fire)');
  }
  if (recipe.binding.kind === "trigger" && recipe.untrusted_intake === false) {
    throw new Error(
      "untrusted_intake cannot be false for a trigger recipe: its prompt carries outside text",
    );
  }
  for (const f of recipe.config_fields) {
    if (f.type === "integer" && f.min > f.max) {
      throw new Error(`config field ${f.name}: min ${f.min} is above max ${f.max}`);
    }
  }
  for (const name of templatePlaceholders(recipe.prompt_template)) {
    if (!fields.includes(name)) {
      throw new Error(`prompt_template uses {{${name}}}, which is not a config field`);
    }
  }
  // Every default must pass its own field's checks (validateConfig applies the defaults).
  const defaults = Object.fromEntries(
    recipe.config_fields.filter((f) => f.default !== undefined).map((f) => [f.name, f.default]),
  );
  try {
    validateConfig(
      { ...recipe, config_fields: recipe.config_fields.map((f) => ({ ...f, required: false })) },
      defaults,
    );
  } catch (err) {
    throw new Error(`a default is refused: ${errorText(err)}`);
  }
  if (recipe.binding.kind === "schedule") {
    try {
      validateSchedule(recipe.binding.schedule, new Date());
    } catch (err) {
      throw new Error(`binding.schedule: ${errorText(err)}`);
    }
  }
}
