// What each permission mode does with each tool kind (spec 4.1, 7.2).

import type { ToolKind } from "../tools/types.ts";

export type PermissionMode = "auto" | "strict" | "plan";
export const PERMISSION_MODES: readonly PermissionMode[] = ["auto", "strict", "plan"];

/**
 * allow: run it. approval: a human must approve first (interactive prompt, or a needs-human
 * ending when nobody is there). deny: refuse with a message the model can act on.
 */
export type Decision = "allow" | "approval" | "deny";

export function decide(mode: PermissionMode, kind: ToolKind): Decision {
  if (kind === "read" || kind === "ask") return "allow";
  switch (mode) {
    case "auto":
      return "allow";
    case "strict":
      return "approval";
    case "plan":
      return "deny";
  }
}

export const PLAN_DENIAL =
  "Not done: this session is in plan mode, where edits and shell commands are denied. " +
  "Describe the change you would make instead, or finish with your plan.";
