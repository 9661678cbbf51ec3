import type { ParsedArgs } from "./args.ts";

/** Interactive sessions arrive with the terminal-experience work; headless runs work today. */
export function runInteractive(_args: ParsedArgs): Promise<number> {
  console.error(
    "agent: interactive sessions are not available in this build yet; use agent -p -- PROMPT",
  );
  return Promise.resolve(1);
}
