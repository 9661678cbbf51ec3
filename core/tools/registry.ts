// The workspace tool set a coding agent needs, in the order the model sees them.
import type { Tool } from "./types.ts";
import { viewTool } from "./view.ts";
import { createFileTool } from "./create_file.ts";
import { strReplaceTool } from "./str_replace.ts";
import { insertTool } from "./insert.ts";
import { searchTool } from "./search.ts";
import { makeShellTool } from "./shell.ts";
import { askTool } from "./ask.ts";
import { proposeSettingsTool } from "./propose_settings.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";

/** The run's workspace tools; the shell runs its commands in `sandbox`. */
export function workspaceTools(sandbox: Sandbox): Tool[] {
  return [
    viewTool,
    createFileTool,
    strReplaceTool,
    insertTool,
    searchTool,
    makeShellTool(sandbox),
    askTool,
    proposeSettingsTool,
  ];
}
