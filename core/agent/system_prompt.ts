// The frozen system prompt: the same bytes every turn of a session, so the Messages wire's
// prefix cache holds. Per-turn material (memory recall) goes to the reminder channel instead.

import base from "./system_prompt.md" with { type: "text" };

export interface SystemPromptInput {
  workdir: string;
  /** Date only (not time), so the prompt stays stable across a day's turns. */
  today: string;
  mode: string;
  /** The cached memory index, when memory is enabled. */
  memoryIndex?: string;
  /** Extra brief for special workspaces (for example the outpost's ranger workspace). */
  brief?: string;
}

export function composeSystemPrompt(input: SystemPromptInput): string {
  const parts = [
    base.trim(),
    `Workspace: ${input.workdir}\nToday: ${input.today}\nPermission mode: ${input.mode}`,
  ];
  if (input.brief) parts.push(input.brief.trim());
  if (input.memoryIndex) parts.push(input.memoryIndex.trim());
  return parts.join("\n\n");
}
