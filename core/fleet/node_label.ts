// The one rule for a fleet node label (docs/fleet.md, "Pinning"): the labels a node offers in
// AGENT_OUTPOST_NODE_LABELS and the label a job is pinned to (`pin_label`, from the API, the
// dashboard's job form and its edit) are checked by this rule and no other, so a label a job
// may be pinned to is always one a node can offer. Imports nothing: the scheduler's job input
// validation loads it without the PostgreSQL fleet.

/** Letters, digits, dots, dashes and underscores; 1 to 50 of them. */
export const NODE_LABEL_PATTERN = "[A-Za-z0-9_.\\-]{1,50}";
const WHOLE_LABEL = new RegExp(`^${NODE_LABEL_PATTERN}$`);

/** What a label must be, as every error that refuses one says it. */
export const NODE_LABEL_RULE = "a node label: 1 to 50 letters, digits, dots, dashes or underscores";

export function isNodeLabel(value: unknown): value is string {
  return typeof value === "string" && WHOLE_LABEL.test(value);
}

/** The label a job is pinned to (jobs.meta.pin_label), or null for any node. */
export function pinLabelOf(meta: Record<string, unknown>): string | null {
  const label = meta.pin_label;
  return typeof label === "string" && label !== "" ? label : null;
}
