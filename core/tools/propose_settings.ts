// The model's only way to reach the effort setting: a proposal a human must approve.
import type { Tool, ToolOutcome } from "./types.ts";
import { ToolInputError } from "./text_edit.ts";
import description from "./propose_settings.md" with { type: "text" };

export const proposeSettingsTool: Tool = {
  name: "propose_settings",
  description,
  input_schema: {
    type: "object",
    properties: {
      effort: { type: "string", description: "Proposed reasoning effort level" },
      reason: { type: "string", description: "Why the change helps" },
    },
    required: ["effort", "reason"],
    additionalProperties: false,
  },
  kind: "ask",
  summarize: (input) => `propose effort ${String(input.effort)}`,
  // Promise.try: a bad input rejects the promise rather than throwing synchronously.
  execute: (input) =>
    Promise.try((): ToolOutcome => {
      if (typeof input.effort !== "string" || input.effort.trim() === "") {
        throw new ToolInputError("effort must be a non-empty string");
      }
      const reason = typeof input.reason === "string" ? input.reason : "";
      return {
        type: "needs_human",
        questions: [{
          kind: "proposal",
          text: `Change reasoning effort to "${input.effort.trim()}"? ${reason}`.trim(),
          options: ["approve", "reject"],
        }],
        content: "Proposal sent to the operator.",
      };
    }),
};
