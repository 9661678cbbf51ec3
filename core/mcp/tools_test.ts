// How an MCP tool's annotations become a permission kind (tools.ts mcpToolKind), the stricter
// reading when a server says nothing, and the tool's agent-side name.

import assert from "node:assert/strict";
import { mcpToolKind, mcpToolName } from "./tools.ts";
import type { McpToolInfo } from "./connection.ts";

const info = (annotations?: McpToolInfo["annotations"]): McpToolInfo => ({
  name: "t",
  inputSchema: { type: "object" },
  ...(annotations ? { annotations } : {}),
});

Deno.test("annotations map to kinds: read-only is read, non-destructive is edit, the rest shell", () => {
  assert.equal(mcpToolKind(info({ readOnlyHint: true })), "read");
  // readOnlyHint wins over a destructive hint (the spec: destructiveHint only means something
  // when the tool is not read-only).
  assert.equal(mcpToolKind(info({ readOnlyHint: true, destructiveHint: true })), "read");
  assert.equal(mcpToolKind(info({ readOnlyHint: false, destructiveHint: false })), "edit");
  assert.equal(mcpToolKind(info({ readOnlyHint: false, destructiveHint: true })), "shell");
});

Deno.test("an unannotated tool, or one annotated only in part, gets the stricter kind (shell)", () => {
  assert.equal(mcpToolKind(info()), "shell");
  assert.equal(mcpToolKind(info({})), "shell");
  assert.equal(mcpToolKind(info({ title: "Write a note" })), "shell");
  // Not read-only but silent on destruction: the spec's default destructiveHint is true.
  assert.equal(mcpToolKind(info({ readOnlyHint: false })), "shell");
  // Non-destructive but silent on read-only: the default readOnlyHint is false, yet edit needs
  // both said; the stricter reading stands.
  assert.equal(mcpToolKind(info({ destructiveHint: false })), "shell");
});

Deno.test("tool names: mcp__<server>__<tool>, other characters become _, at most 64", () => {
  assert.equal(mcpToolName("files", "read_file"), "mcp__files__read_file");
  assert.equal(mcpToolName("web", "search.query/v2"), "mcp__web__search_query_v2");
  const long = mcpToolName("s", "x".repeat(100));
  assert.equal(long.length, 64);
  assert.ok(long.startsWith("mcp__s__xxx"));
});
