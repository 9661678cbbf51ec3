// The recipe model (spec 2.7): what a recipe file holds once the catalog has loaded and
// checked it (schemas/recipe.schema.json plus catalog.ts), and the one error type of the
// recipe code. A RecipeError is always the operator's or the recipe author's to fix, so
// the routes answer it with 400 and its field.

import type { Schedule } from "../scheduler/schedule.ts";

export type RecipeSurface = "report" | "messenger" | "github_pr_comment";

export type ScheduleBinding = { kind: "schedule"; schedule: Schedule };
export type TriggerBinding = { kind: "trigger"; source: "github"; event: "issues.opened" };
export type RecipeBinding = ScheduleBinding | TriggerBinding;

interface FieldBase {
  name: string;
  label: string;
  help?: string;
  /** Default true: a field without a default must then be filled in. */
  required?: boolean;
}

export type ConfigField =
  & FieldBase
  & (
    | { type: "text"; max_length: number; default?: string }
    | { type: "repo" | "path"; default?: string }
    | { type: "integer"; min: number; max: number; default?: number }
    | { type: "enum"; values: string[]; default?: string }
  );

export interface RecipeJobSettings {
  mode?: "auto" | "strict";
  timeout_s?: number;
  max_retries?: number;
  token_budget?: number;
}

export interface Recipe {
  id: string;
  version: number;
  title: string;
  description: string;
  prompt_template: string;
  binding: RecipeBinding;
  output_surface: RecipeSurface;
  job?: RecipeJobSettings;
  /**
   * The prompt carries text from outside (an issue, a feed, a mailbox): its runs get only
   * their own workspace's memory (core/scheduler/intake.ts). Trigger recipes always do.
   */
  untrusted_intake?: boolean;
  config_fields: ConfigField[];
}

/** A recipe file the catalog refused, with why (GET /api/recipes `load_errors`). */
export interface RecipeLoadError {
  file: string;
  error: string;
}

/** A rendered config value: what the template receives for one field. */
export type ConfigValue = string | number;

/**
 * A recipe could not be used as asked: a config value refused (placeholder or template text,
 * markdown, control characters, over its cap), a missing key, an unknown placeholder, an
 * unknown source. `field` names the config field or template placeholder at fault.
 */
export class RecipeError extends Error {
  override readonly name = "RecipeError";
  readonly field: string;
  /**
   * What was wrong, in words that never quote the value (the message may, to help the person
   * at the form). The audit row of a refusal uses this, because a refused value can be a
   * secret pasted into the wrong field.
   */
  readonly rule: string;
  constructor(field: string, detail: string, rule = "refused") {
    super(`${field}: ${detail}`);
    this.field = field;
    this.rule = rule;
  }
}
