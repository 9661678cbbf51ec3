// Checks a tool's structured result against its output schema (the MCP spec asks clients to),
// with @cfworker/json-schema: an interpreter, so nothing is generated or compiled ahead, and a
// few milliseconds to load where ajv (what the SDK's own Client uses) took ~100 ms of start-up.
// Loaded by core/mcp/client.ts only when a tool with an output schema first returns structured
// content, through a dynamic import.

import { type Schema, Validator } from "@cfworker/json-schema";

/** One schema's check: undefined when the value matches, else what is wrong, on one line. */
export function compileOutputSchema(
  schema: Record<string, unknown>,
): (value: unknown) => string | undefined {
  // Draft 2020-12, the MCP spec's default dialect (as the SDK's cfworker provider); all errors,
  // as the SDK's ajv check reports them.
  const validator = new Validator(schema as Schema, "2020-12", false);
  return (value) => {
    const result = validator.validate(value);
    if (result.valid) return undefined;
    return result.errors.map((e) => `${e.instanceLocation}: ${e.error}`).join("; ");
  };
}
