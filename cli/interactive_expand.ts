// /expand (and ctrl+o at the prompt): a reply shows each tool call's output cut to its first
// line; this shows the last call's output whole, or with `all` every call of the last reply
// that made any.

import type { SessionState, ToolOutput } from "./interactive_types.ts";

export function expandCommand(s: SessionState, arg: string): void {
  const calls = s.lastTools;
  const last = calls.at(-1);
  if (!last) return s.note("no tool output to show yet");
  const wanted = arg.trim().toLowerCase();
  if (wanted !== "" && wanted !== "all") {
    return s.error(`Unknown /expand argument ${JSON.stringify(arg)}: use /expand or /expand all.`);
  }
  for (const call of wanted === "all" ? calls : [last]) s.print(showCall(s, call));
}

function showCall(s: SessionState, call: ToolOutput): string {
  const body = call.content.trimEnd() === "" ? "(no output)" : call.content.trimEnd();
  const lines = body.split("\n").map((l) => `  ${call.is_error ? s.style.red(l) : l}`);
  return [`${s.style.cyan("⏺")} ${call.summary}`, ...lines].join("\n");
}
