// Audit action names of the recipe code (docs/dashboard-api.md, "Audit rows"). Kept beside
// the recipes rather than in core/audit's table so parallel work on other doors does not
// collide; the names follow the same vocabulary.

export const AUDIT_RECIPES = {
  /** A recipe enabled: a job (schedule) or a trigger row (trigger) made. */
  recipeEnable: "recipe_enable",
  /** An enable refused (a config value or the body): the recipe, the field and the rule, never the value. */
  recipeRefused: "recipe_refused",
  /** A trigger row soft-disabled (a failure after it was made, or the operator). */
  triggerDisable: "trigger_disable",
  /** A webhook delivery accepted: a one-shot job fired. */
  webhookFire: "webhook_fire",
  /** A webhook delivery refused (signature, replay, size, event, disabled, repository, rate). */
  webhookRefused: "webhook_refused",
  /** A signed delivery of an event that already fired (a replay or a redelivery): ignored. */
  webhookDuplicate: "webhook_duplicate",
  githubComment: "github_comment",
  githubCommentFailed: "github_comment_failed",
} as const;
