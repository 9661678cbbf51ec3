// `agent -p` with piped input: `echo hi | agent -p` takes stdin as the prompt, and
// `cat notes.txt | agent -p -- "summarize notes"` sends the prompt with stdin attached after it.
// stdin is read only when it is not a terminal; the outpost's children have /dev/null, which
// ends at once. With a prompt, a stdin that stays silent for STDIN_WAIT_MS (a parent that
// left its pipe open) is given up with a note on stderr; without one, the run waits for it as
// `cat` would. Bounded: more than MAX_STDIN_BYTES, or
// bytes that are not text, is an error that says so, never a silent cut.

import { concatBytes } from "../core/bytes.ts";

export const MAX_STDIN_BYTES = 1_000_000;
/** With a prompt given, how long an open stdin may stay silent before it is ignored. */
export const STDIN_WAIT_MS = 3_000;

export class StdinError extends Error {
  override name = "StdinError";
}

/** The prompt with piped stdin folded in; the prompt unchanged when nothing is piped. */
export async function promptWithStdin(
  prompt: string | undefined,
  stderr: (text: string) => void,
): Promise<string | undefined> {
  if (Deno.stdin.isTerminal()) return prompt;
  const given = prompt !== undefined && prompt.trim() !== "";
  const piped = await readBounded(given ? STDIN_WAIT_MS : undefined);
  if (piped === undefined) {
    stderr(
      `agent: stdin is open but sent nothing in ${
        STDIN_WAIT_MS / 1000
      } s; going on without it (give < /dev/null to skip the wait)\n`,
    );
    return prompt;
  }
  if (piped.trim() === "") return prompt;
  if (!given) return piped;
  return `${prompt}\n\n<stdin>\n${piped.replace(/\n$/, "")}\n</stdin>`;
}

/**
 * Reads stdin to its end with Deno.stdin.read (its stream would load web streams into every
 * run). /dev/null, how the outpost starts its children, ends at once. With `firstWaitMs`, a
 * pipe that sends nothing that long is given up (undefined): a parent that left stdin open
 * must not hang a run that has its prompt. AbortSignal.timeout, not setTimeout: the global
 * setTimeout loads Node's timers (tests/e2e/headless_lazy_modules_test.ts).
 */
async function readBounded(firstWaitMs: number | undefined): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const buffer = new Uint8Array(64 * 1024);
    const reading = Deno.stdin.read(buffer);
    let n: number | null;
    if (chunks.length === 0 && firstWaitMs !== undefined) {
      const first = await Promise.race([reading, gaveUp(AbortSignal.timeout(firstWaitMs))]);
      if (first === "gave up") return undefined;
      n = first;
    } else {
      n = await reading;
    }
    if (n === null) break;
    const chunk = buffer.subarray(0, n);
    size += chunk.length;
    if (size > MAX_STDIN_BYTES) {
      throw new StdinError(
        `stdin has more than ${MAX_STDIN_BYTES} bytes; pass a smaller part (e.g. head -c ${MAX_STDIN_BYTES}) or name the file in the prompt for the agent to read`,
      );
    }
    chunks.push(chunk);
  }
  const bytes = concatBytes(chunks);
  if (bytes.includes(0)) throw new StdinError("stdin is not text (it holds NUL bytes)");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new StdinError("stdin is not UTF-8 text");
  }
}

function gaveUp(signal: AbortSignal): Promise<"gave up"> {
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve("gave up")));
}
