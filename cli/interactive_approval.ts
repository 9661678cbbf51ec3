// Strict-mode approvals in the terminal: show what the call will do (a coloured unified diff
// for an edit, the command and its directory for the shell), then ask: yes, yes for the rest
// of this session (per tool, or per command prefix for the shell), or no with a note for the
// model. What was allowed for the session is remembered here, never written anywhere.

import type { ToolCallPart } from "../core/agent/loop.ts";
import type { Approval } from "../core/agent/types.ts";
import type { Style } from "./terminal/style.ts";
import type { SessionState } from "./interactive_types.ts";

type Choice = "yes" | "always" | "no" | "full";

/**
 * Calls allowed for the rest of the session, by tool or by the shell command's first word.
 * A remembered word covers only a simple command: one program with its arguments. Anything
 * the shell would run as more than that (`&&`, `;`, a pipe, `$(…)`, backticks, a redirection,
 * a subshell, a second line) always asks, since `ls && curl … | sh` starts with `ls` too.
 */
export class SessionAllowances {
  #tools = new Set<string>();
  #commands = new Set<string>();

  /** The rule that already allows this call, or null. */
  allows(call: ToolCallPart): string | null {
    if (call.name === "shell") {
      const word = commandWord(call);
      return word !== null && this.#commands.has(word) ? `shell commands starting ${word}` : null;
    }
    return this.#tools.has(call.name) ? `every ${call.name} call` : null;
  }

  /** Remembers the call's rule; returns how it reads, or null when the call allows no rule. */
  remember(call: ToolCallPart): string | null {
    if (call.name === "shell") {
      const word = commandWord(call);
      if (word === null) return null;
      this.#commands.add(word);
      return `shell commands starting ${word}`;
    }
    this.#tools.add(call.name);
    return `every ${call.name} call`;
  }

  /** The choice's label: what "yes for the rest of this session" would cover, or null if nothing. */
  static scope(call: ToolCallPart): string | null {
    if (call.name !== "shell") return `${call.name} calls`;
    const word = commandWord(call);
    return word !== null ? `commands starting \`${word}\`` : null;
  }
}

/**
 * Characters that make a shell line more than one simple command: separators and operators
 * (`; & |`), redirections (`< >`), subshells and groups (`( ) { }`), substitutions (`$` for
 * `$(…)`/`${…}`, backticks), line breaks, and `\` (a line continuation or an escaped one of
 * these). Quotes do not help: `ls "a;b"` also asks, which costs one question and nothing else.
 */
const COMPOUND = /[;&|<>(){}$`\\\n\r]/;

/**
 * The program of a simple shell command, or null when the call is not a shell call, the
 * command is compound (see COMPOUND), or it starts with a variable assignment (`X=1 rm …`
 * would otherwise be remembered as the program `X=1`).
 */
export function commandWord(call: ToolCallPart): string | null {
  if (call.name !== "shell" || typeof call.input.command !== "string") return null;
  const command = call.input.command.trim();
  if (command === "" || COMPOUND.test(command)) return null;
  const word = command.split(/\s+/)[0]!;
  return word.includes("=") ? null : word;
}

/** Colours a unified diff or a command preview for the terminal. */
export function paintDetail(detail: string, style: Style): string[] {
  return detail.split("\n").map((line) => {
    if (line.startsWith("+++") || line.startsWith("---")) return style.bold(line);
    if (line.startsWith("+")) return style.green(line);
    if (line.startsWith("-")) return style.red(line);
    if (line.startsWith("@@")) return style.cyan(line);
    if (line.startsWith("$ ")) return style.bold(line);
    return line;
  });
}

/** Asks about one call; `allowances` answers for the session when it already covers it. */
export async function askApproval(
  s: SessionState,
  allowances: SessionAllowances,
  call: ToolCallPart,
  summary: string,
  detail: string | undefined,
): Promise<Approval | null> {
  const rule = allowances.allows(call);
  if (rule !== null) {
    s.note(`  allowed for this session: ${rule}`);
    return { approved: true };
  }
  const lines = detail ? paintDetail(detail, s.style) : [];
  const room = Math.max(10, s.term.rows() - 10);
  s.print(lines.slice(0, room).map((l) => `  ${l}`).join("\n") || summary);
  const cut = lines.length - room;
  if (cut > 0) s.note(`  … ${cut} more lines`);
  // A compound shell command has no session rule to offer: it is asked about every time.
  const scope = SessionAllowances.scope(call);
  for (;;) {
    const choice = await s.withPrompt(() =>
      s.term.prompts.pick<Choice>({
        message: call.name === "shell" ? "Run this command?" : "Apply this change?",
        items: [
          { type: "row", value: "yes", key: "yes", label: "Yes" },
          ...(scope !== null
            ? [{
              type: "row" as const,
              value: "always" as const,
              key: "always",
              label: `Yes, and allow ${scope} for the rest of this session`,
            }]
            : []),
          ...(cut > 0
            ? [{ type: "row" as const, value: "full" as const, key: "full", label: "Show it all" }]
            : []),
          {
            type: "row",
            value: "no",
            key: "no",
            label: "No, and tell the agent what to do instead",
          },
        ],
      })
    );
    if (choice === null) return null;
    if (choice === "full") {
      s.print(lines.map((l) => `  ${l}`).join("\n"));
      continue;
    }
    if (choice === "yes") return { approved: true };
    if (choice === "always") {
      const rule = allowances.remember(call);
      if (rule !== null) s.note(`  allowed ${rule} for this session`);
      return { approved: true };
    }
    const feedback = await s.withPrompt(() =>
      s.term.prompts.text("What should the agent do instead? (enter to just decline)")
    );
    if (feedback === null) return null;
    return feedback.trim() === "" ? { approved: false } : { approved: false, feedback };
  }
}
