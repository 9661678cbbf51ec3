// Recipe operations for the dashboard (spec 4.5): the catalog with enabled counts, a
// preview of what enabling would make, enabling (a stamped job for a schedule binding, a
// trigger row plus a one-time webhook secret for a trigger binding) and the list of what
// recipes made. The rendered prompt is frozen on the job or trigger; a newer recipe version
// only marks it stale and never rewrites it.

import { audit } from "../audit/audit.ts";
import { errorText, type Logger } from "../logger.ts";
import type { Clock } from "../ports.ts";
import { previewFires } from "../scheduler/schedule.ts";
import { type JobStamp, JobValidationError, validateJobInput } from "../scheduler/job_input.ts";
import { UNTRUSTED_INTAKE } from "../scheduler/intake.ts";
import { checkJobWorkdir } from "../scheduler/workdir_check.ts";
import type { ProtectedPlaces } from "../workdir_policy.ts";
import type { Job, Store } from "../store/store.ts";
import type { RecipeTrigger } from "../store/triggers.ts";
import { isoZ } from "../time.ts";
import { AUDIT_RECIPES } from "./audit_actions.ts";
import { type Catalog, loadCatalog } from "./catalog.ts";
import { renderRecipe } from "./render.ts";
import { githubSetup, type SetupInstructions } from "./setup.ts";
import { newSalt, type TriggerSecrets } from "./trigger_secret.ts";
import { type ConfigValue, type Recipe, RecipeError, type RecipeLoadError } from "./types.ts";

/** What the service needs of the scheduler (job creation with a trusted stamp). */
export interface RecipeJobMaker {
  createJob(raw: unknown, stamp?: JobStamp): Job;
}

export interface RecipeServiceOptions {
  store: Store;
  jobs: RecipeJobMaker;
  clock: Clock;
  logger: Logger;
  secrets: TriggerSecrets;
  /** Public base address of the dashboard: webhook URLs are built on it. */
  baseUrl: string;
  /** Folder of recipe files (default: the shipped recipes/). */
  dir?: string;
  /** What no job's workdir may be, hold or lie inside (core/workdir_policy.ts). */
  workdirPlaces: ProtectedPlaces;
}

export interface CatalogEntry extends Recipe {
  enabled_count: number;
}

/** A recipe-made job or trigger as listed by GET /api/recipes/enabled. */
export interface StaleMark {
  /** The catalog's version of the recipe, or null when the recipe is no longer shipped. */
  current_version: number | null;
  /** Made from an older version than the catalog's (the stale badge). */
  stale: boolean;
}

export type PublicTrigger = Omit<RecipeTrigger, "salt">;

export type EnableResult =
  | { kind: "job"; job: Job }
  | { kind: "trigger"; trigger: PublicTrigger; secret: string; setup: SetupInstructions[] };

const ENABLE_KEYS = new Set(["config", "name"]);
const PREVIEW_FIRES = 5;

export class RecipeService {
  readonly #o: RecipeServiceOptions;
  #catalog: Promise<Catalog> | null = null;

  constructor(options: RecipeServiceOptions) {
    this.#o = options;
  }

  /** The catalog, loaded on first use (a folder that cannot be read is retried next time). */
  catalog(): Promise<Catalog> {
    this.#catalog ??= loadCatalog(this.#o.dir).catch((err) => {
      this.#catalog = null;
      throw err;
    });
    return this.#catalog;
  }

  /** GET /api/recipes: the catalog with per-recipe enabled counts and the load errors. */
  async listing(): Promise<{
    recipes: CatalogEntry[];
    enabled_counts: Record<string, number>;
    load_errors: RecipeLoadError[];
  }> {
    const catalog = await this.catalog();
    const counts: Record<string, number> = {};
    for (const r of catalog.recipes) counts[r.id] = 0;
    // An enabled instance: a scheduled job made by the recipe and enabled, or an enabled
    // trigger row. The one-shots a trigger fires are not instances of their own.
    for (const job of this.#o.store.listJobs()) {
      if (job.recipe_id !== null && job.class === "scheduled" && job.enabled) {
        counts[job.recipe_id] = (counts[job.recipe_id] ?? 0) + 1;
      }
    }
    for (const t of this.#o.store.triggers.list()) {
      if (t.enabled) counts[t.recipe_id] = (counts[t.recipe_id] ?? 0) + 1;
    }
    return {
      recipes: catalog.recipes.map((r) => ({ ...r, enabled_count: counts[r.id] ?? 0 })),
      enabled_counts: counts,
      load_errors: catalog.load_errors,
    };
  }

  async #recipe(id: string): Promise<Recipe> {
    const recipe = (await this.catalog()).get(id);
    if (!recipe) throw new RecipeNotFoundError(id);
    return recipe;
  }

  /** What enabling would make: the rendered prompt and (schedule binding) the next fires. */
  async preview(id: string, body: unknown): Promise<{
    prompt: string;
    config: Record<string, ConfigValue>;
    fires: string[];
  }> {
    const recipe = await this.#recipe(id);
    const { config: raw } = enableBody(body);
    const { prompt, config } = renderRecipe(recipe, raw);
    const now = this.#o.clock.now();
    const fires = recipe.binding.kind === "schedule"
      ? previewFires(recipe.binding.schedule, now, PREVIEW_FIRES).map(isoZ)
      : [];
    return { prompt, config, fires };
  }

  /**
   * POST /api/recipes/{id}/enable. Validates the config against config_fields, renders the
   * prompt, then makes a stamped job (schedule) or a trigger row with its one-time secret
   * (trigger). A failure after the trigger row is made soft-disables that row.
   */
  async enable(id: string, body: unknown, actor: string): Promise<EnableResult> {
    const recipe = await this.#recipe(id);
    let checked: { name?: string; prompt: string; config: Record<string, ConfigValue> };
    try {
      const { config: raw, name } = enableBody(body);
      checked = { ...renderRecipe(recipe, raw), ...(name === undefined ? {} : { name }) };
      const workdir = await checkJobWorkdir(checked.config.workdir, this.#o.workdirPlaces);
      if (typeof workdir === "string") checked.config = { ...checked.config, workdir };
    } catch (err) {
      this.#auditRefusal(recipe, err, actor);
      throw err;
    }
    const { prompt, config, name } = checked;
    const workdir = String(config.workdir);
    const job = {
      name: name ?? recipe.title,
      prompt,
      workdir,
      mode: recipe.job?.mode ?? "auto",
      ...(recipe.job?.timeout_s === undefined ? {} : { timeout_s: recipe.job.timeout_s }),
      ...(recipe.job?.max_retries === undefined ? {} : { max_retries: recipe.job.max_retries }),
      ...(recipe.job?.token_budget === undefined ? {} : { token_budget: recipe.job.token_budget }),
    };
    const stamp: JobStamp = {
      recipe_id: recipe.id,
      recipe_version: recipe.version,
      meta: {
        recipe_config: config,
        surface: recipe.output_surface,
        ...(recipe.untrusted_intake === true ? { [UNTRUSTED_INTAKE]: true } : {}),
      },
    };
    if (recipe.binding.kind === "schedule") {
      const made = this.#o.jobs.createJob({
        ...job,
        schedule: recipe.binding.schedule,
        output_surface: recipe.output_surface === "messenger" ? "messenger" : "",
      }, stamp);
      this.#audit(actor, `job:${made.id}`, `${recipe.id} v${recipe.version} -> job ${made.id}`);
      return { kind: "job", job: made };
    }
    return await this.#enableTrigger(recipe, job, config, actor);
  }

  async #enableTrigger(
    recipe: Recipe,
    job: { name: string; prompt: string; workdir: string; mode: string },
    config: Record<string, ConfigValue>,
    actor: string,
  ): Promise<EnableResult> {
    const repo = config.repo;
    let settings: ReturnType<typeof validateJobInput>;
    try {
      if (typeof repo !== "string" || repo === "") {
        throw new RecipeError(
          "repo",
          "a trigger recipe needs the repository its events come from",
          "missing",
        );
      }
      // The same checks a one-shot gets at fire time, now, so a bad setting fails the enable.
      settings = validateJobInput(job, { now: this.#o.clock.now(), oneShot: true, class: "api" });
    } catch (err) {
      this.#auditRefusal(recipe, err, actor);
      throw err;
    }
    const { store } = this.#o;
    const trigger = store.triggers.create({
      recipe_id: recipe.id,
      recipe_version: recipe.version,
      source: "github",
      repo,
      name: settings.name,
      prompt: settings.prompt,
      job: {
        workdir: settings.workdir,
        mode: settings.mode,
        timeout_s: settings.timeout_s,
        max_retries: settings.max_retries,
        token_budget: settings.token_budget,
      },
      config,
      salt: newSalt(),
    });
    let step = "deriving its webhook secret from the install's trigger key (outpost/trigger_key)";
    try {
      const secret = await this.#o.secrets.secretFor(trigger.id, trigger.salt);
      step = "building its webhook setup instructions";
      const setup = [githubSetup(this.#o.baseUrl, trigger, secret)];
      this.#audit(actor, `trigger:${trigger.id}`, `${recipe.id} v${recipe.version} for ${repo}`);
      return { kind: "trigger", trigger: publicTrigger(trigger), secret, setup };
    } catch (err) {
      const why = `enable failed after the trigger was made: ${errorText(err)}`;
      store.triggers.setEnabled(trigger.id, false, why);
      audit(store, this.#o.logger, {
        action: AUDIT_RECIPES.triggerDisable,
        target: `trigger:${trigger.id}`,
        actor,
        channel: "dashboard",
        detail: why,
      });
      throw new TriggerEnableError(trigger.id, step, err);
    }
  }

  /** Enables or soft-disables a trigger row (the operator's switch). */
  setTriggerEnabled(id: number, enabled: boolean, actor: string): PublicTrigger {
    const t = this.#o.store.triggers.setEnabled(id, enabled, "disabled by operator");
    audit(this.#o.store, this.#o.logger, {
      action: enabled ? AUDIT_RECIPES.recipeEnable : AUDIT_RECIPES.triggerDisable,
      target: `trigger:${id}`,
      actor,
      channel: "dashboard",
      detail: enabled ? "trigger re-enabled" : "disabled by operator",
    });
    return publicTrigger(t);
  }

  /** GET /api/recipes/enabled: every recipe-made job and trigger, with the stale mark. */
  async enabled(): Promise<{
    jobs: Array<Job & StaleMark>;
    triggers: Array<PublicTrigger & StaleMark>;
  }> {
    const catalog = await this.catalog();
    const mark = (recipeId: string, version: number | null): StaleMark => {
      const current = catalog.get(recipeId)?.version ?? null;
      return { current_version: current, stale: current !== null && (version ?? 0) < current };
    };
    return {
      jobs: this.#o.store.listJobs().filter((j) => j.recipe_id !== null)
        .map((j) => ({ ...j, ...mark(j.recipe_id!, j.recipe_version) })),
      triggers: this.#o.store.triggers.list()
        .map((t) => ({ ...publicTrigger(t), ...mark(t.recipe_id, t.recipe_version) })),
    };
  }

  /**
   * A refused enable (spec 2.7: attacker config is refused and audited). The row names the
   * recipe and the field and says what rule refused it, never the value: a secret pasted
   * into the wrong field must not land in the audit log. A field name the recipe does not
   * declare came from the request body, so it is left out too. Errors other than a
   * refusal (a store failure) are not refusals and write nothing here.
   */
  #auditRefusal(recipe: Recipe, err: unknown, actor: string): void {
    let why: string;
    let field: string;
    if (err instanceof RecipeError) {
      why = err.rule;
      field = knownField(recipe, err.field);
    } else if (err instanceof JobValidationError) {
      // The job checks run on a job this code built, so the field is one of its own keys.
      // The message is left out: it quotes the value (the workdir path).
      why = "refused by the job checks";
      field = `field ${err.field}:`;
    } else return;
    audit(this.#o.store, this.#o.logger, {
      action: AUDIT_RECIPES.recipeRefused,
      target: `recipe:${recipe.id}`,
      actor,
      channel: "dashboard",
      detail: `${recipe.id} v${recipe.version}: ${field} ${why}`,
    });
  }

  #audit(actor: string, target: string, detail: string): void {
    audit(this.#o.store, this.#o.logger, {
      action: AUDIT_RECIPES.recipeEnable,
      target,
      actor,
      channel: "dashboard",
      detail,
    });
  }
}

/**
 * An enable that failed after its trigger row was made (500 `trigger_enable_failed`): the
 * message says which step failed and why, and that the row is now disabled.
 */
export class TriggerEnableError extends Error {
  override readonly name = "TriggerEnableError";
  constructor(id: number, step: string, cause: unknown) {
    super(
      `trigger ${id} was made, then ${step} failed: ${errorText(cause)}; the trigger is ` +
        `disabled: fix the cause and enable the recipe again`,
      { cause },
    );
  }
}

/** An unknown recipe id (404). */
export class RecipeNotFoundError extends Error {
  override readonly name = "RecipeNotFoundError";
  constructor(id: string) {
    super(`no recipe ${JSON.stringify(id.slice(0, 100))} in the catalog (GET /api/recipes)`);
  }
}

export function publicTrigger(t: RecipeTrigger): PublicTrigger {
  const { salt: _salt, ...rest } = t;
  return rest;
}

/** Field names a refusal may come with that are not config fields but are ours, not the caller's. */
const FIXED_FIELDS = new Set(["body", "config", "name", "prompt_template"]);

/** "field X:" when X is a name the recipe or this code owns; a caller's unknown key is not echoed. */
function knownField(recipe: Recipe, field: string): string {
  const known = FIXED_FIELDS.has(field) || recipe.config_fields.some((f) => f.name === field) ||
    /^\{\{[a-z][a-z0-9_]{0,39}\}\}$/.test(field) && recipe.prompt_template.includes(field);
  return known ? `field ${field}:` : "an unknown key:";
}

function enableBody(body: unknown): { config: unknown; name?: string } {
  if (body === undefined || body === null) return { config: {} };
  if (typeof body !== "object" || Array.isArray(body)) {
    throw new RecipeError(
      "body",
      'expected a JSON object {"config": {...}, "name"?: "..."}',
      "not a JSON object",
    );
  }
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!ENABLE_KEYS.has(key)) {
      throw new RecipeError(
        key.slice(0, 60),
        'unknown field; send {"config": {...}, "name"?: "..."}',
        "unknown key",
      );
    }
  }
  if (input.name !== undefined && typeof input.name !== "string") {
    throw new RecipeError("name", "expected a string", "not a string");
  }
  const name = typeof input.name === "string" && input.name.trim() !== "" ? input.name : undefined;
  return name === undefined ? { config: input.config } : { config: input.config, name };
}
