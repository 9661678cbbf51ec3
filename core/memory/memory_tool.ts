// The memory tool: one tool, six commands, in the input shape of the Messages API memory
// tool (command, path, file_text, old_str, new_str, insert_line, insert_text, old_path,
// new_path, view_range), so a model trained on that tool needs no new instructions.
// `view` is a read; every other command is an edit (permission mode decides).

import type { Tool, ToolKind, ToolOutcome } from "../tools/types.ts";
import description from "./memory_tool.md" with { type: "text" };

export const MEMORY_TOOL_NAME = "memory";
export const MEMORY_COMMANDS = [
  "view",
  "create",
  "str_replace",
  "insert",
  "delete",
  "rename",
] as const;

/** The part of the store the tool drives. */
export interface MemoryExecutor {
  execute(input: Record<string, unknown>): string;
}

export const MEMORY_INPUT_SCHEMA = {
  type: "object",
  properties: {
    command: { type: "string", enum: [...MEMORY_COMMANDS] },
    path: {
      type: "string",
      description: "Path under /memories (view, create, str_replace, insert, delete).",
    },
    file_text: { type: "string", description: "Full file content (create)." },
    old_str: {
      type: "string",
      description: "Exact text to replace; must occur once (str_replace).",
    },
    new_str: { type: "string", description: "Replacement text (str_replace)." },
    insert_line: {
      type: "integer",
      minimum: 0,
      description: "Insert after this line; 0 = top (insert).",
    },
    insert_text: { type: "string", description: "Text to insert (insert)." },
    old_path: { type: "string", description: "Current path (rename)." },
    new_path: { type: "string", description: "New path (rename)." },
    view_range: {
      type: "array",
      items: { type: "integer" },
      minItems: 2,
      maxItems: 2,
      description: "[start, end] lines, 1-based; end -1 = to the end (view of a file).",
    },
  },
  required: ["command"],
  additionalProperties: false,
} as const;

export function memoryKind(input: Record<string, unknown>): ToolKind {
  return input.command === "view" ? "read" : "edit";
}

export function summarizeMemoryCall(input: Record<string, unknown>): string {
  const cmd = typeof input.command === "string" ? input.command : "?";
  if (cmd === "rename") {
    return `memory rename ${String(input.old_path)} → ${String(input.new_path)}`;
  }
  return `memory ${cmd} ${String(input.path ?? "")}`.trimEnd();
}

/** Wraps any thrown error (path refusal, bad input, too large) as an error result. */
export function runMemoryCommand(
  store: MemoryExecutor,
  input: Record<string, unknown>,
): ToolOutcome {
  try {
    return { type: "result", content: store.execute(input) };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return { type: "result", content: `Error: ${e.message}`, is_error: true };
  }
}

export function memoryTool(store: MemoryExecutor): Tool {
  return {
    name: MEMORY_TOOL_NAME,
    description,
    input_schema: MEMORY_INPUT_SCHEMA as unknown as Record<string, unknown>,
    kind: memoryKind,
    execute: (input, ctx) =>
      Promise.resolve(
        ctx.signal.aborted
          ? { type: "result", content: "Error: cancelled before it ran.", is_error: true }
          : runMemoryCommand(store, input),
      ),
    summarize: summarizeMemoryCall,
  };
}
