// The chat command grammar (spec 4.6, gate layer 3): one operator message becomes a parsed
// command, a usage refusal, or a free-text answer.
//
// Decisions (docs/messenger.md):
// - The first word is the verb, matched case-insensitively after Unicode NFKC folding, so
//   "APPROVE", "Approve" and the full-width "ａｐｐｒｏｖｅ" are all approve.
// - A message whose first word is a verb but whose arguments do not fit the verb's shape
//   gets a usage reply. It never falls through to a free-text answer: free text is not
//   risk-gated, so "approve abc" must not silently answer an item with that text.
// - Only a message whose first word is not a verb falls through to free text; "N: answer"
//   picks item N, anything else answers the most recent open item.
// - Ids are decimal digits with an optional leading "#" (after NFKC, so "１２" is 12).
// - Invisible and control characters are removed first; a message longer than
//   MESSAGE_MAX characters is refused as too long.

/** The eleven verbs and the ask alias. */
export const VERBS = [
  "help",
  "status",
  "list",
  "run",
  "ask",
  "approve",
  "reject",
  "revise",
  "dismiss",
  "pause",
  "resume",
  "stop",
] as const;

export type Verb = (typeof VERBS)[number];

/** The free-text fall-through, as AGENT_MATRIX_VERBS names it. */
export const ANSWER = "answer";

export type ListWhat = "inbox" | "jobs" | "schedules";

export type Command =
  | { verb: "help" }
  | { verb: "status" }
  | { verb: "list"; what: ListWhat }
  | { verb: "run"; workspace: string; prompt: string }
  | { verb: "ask"; prompt: string }
  | { verb: "approve" | "reject"; item: number; note: string }
  | { verb: "revise"; item: number; text: string }
  | { verb: "dismiss"; item: number }
  | { verb: "pause" | "resume" | "stop"; job: number };

export type Parsed =
  | { kind: "command"; command: Command }
  /** The verb was recognized but its arguments were not: reply with its usage. */
  | { kind: "usage"; verb: Verb; usage: string }
  | { kind: "too_long"; length: number }
  /** Free text; `item` is set when the message was "N: <answer>". */
  | { kind: "answer"; item: number | null; text: string }
  | { kind: "empty" };

/** Longest message the bot reads (an answer or prompt longer than this is refused). */
export const MESSAGE_MAX = 16_000;

export const USAGE: Record<Verb, string> = {
  help: "help",
  status: "status",
  list: "list [inbox|jobs|schedules]",
  run: "run <workspace>: <prompt>",
  ask: "ask <question>",
  approve: "approve <item> [note]",
  reject: "reject <item> [reason]",
  revise: "revise <item>[:] <text>",
  dismiss: "dismiss <item>",
  pause: "pause <job>",
  resume: "resume <job>",
  stop: "stop <job>",
};

/** C0/C1 controls except tab and newline, zero-width and bidi controls, BOM. */
const INVISIBLE = new RegExp(
  "[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F" +
    "\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF]",
  "g",
);

const VERB_SET: ReadonlySet<string> = new Set(VERBS);
const ID = /^#?([0-9]{1,15})$/;
const WORKSPACE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Removes invisible characters and normalizes line ends; keeps the text otherwise. */
export function cleanMessage(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(INVISIBLE, "").trim();
}

function fold(word: string): string {
  return word.normalize("NFKC").toLowerCase();
}

/** A decimal id (optional "#"), after NFKC folding; null when the word is not one. */
export function parseId(word: string): number | null {
  const m = ID.exec(word.normalize("NFKC"));
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** Splits off the first whitespace-delimited word. */
function head(text: string): [string, string] {
  const m = /^(\S+)\s*([\s\S]*)$/.exec(text);
  return m ? [m[1]!, m[2]!.trim()] : ["", ""];
}

/** Splits an "<id>[:] rest" argument; the id may carry its colon ("12:" or "12 :"). */
function idAndRest(args: string): { id: number | null; rest: string } {
  const m = /^(\S+?)\s*(?::\s*)?(?:\s([\s\S]*))?$/.exec(args);
  if (!m) return { id: null, rest: "" };
  let word = m[1]!;
  let rest = (m[2] ?? "").trim();
  // "12:note" (no space after the colon)
  const glued = /^([^:]+):([\s\S]*)$/.exec(word);
  if (glued) {
    word = glued[1]!;
    rest = (glued[2]! + (rest ? " " + rest : "")).trim();
  }
  if (rest.startsWith(":")) rest = rest.slice(1).trim();
  return { id: parseId(word), rest };
}

function usage(verb: Verb): Parsed {
  return { kind: "usage", verb, usage: USAGE[verb] };
}

function command(command: Command): Parsed {
  return { kind: "command", command };
}

/** Parses one operator message. `text` is the raw message body. */
export function parseMessage(text: string): Parsed {
  const clean = cleanMessage(text);
  if (clean === "") return { kind: "empty" };
  const length = Array.from(clean).length;
  if (length > MESSAGE_MAX) return { kind: "too_long", length };
  const [first, args] = head(clean);
  const word = fold(first);
  if (!VERB_SET.has(word)) return freeText(clean);
  const verb = word as Verb;
  switch (verb) {
    case "help":
      return command({ verb }); // "help me" still means help
    case "status":
      return args === "" ? command({ verb }) : usage(verb);
    case "list": {
      if (args === "") return command({ verb, what: "inbox" });
      const what = fold(args);
      return what === "inbox" || what === "jobs" || what === "schedules"
        ? command({ verb, what })
        : usage(verb);
    }
    case "run": {
      const m = /^([^\s:]+)\s*:\s*([\s\S]+)$/.exec(args);
      if (!m || !WORKSPACE.test(m[1]!)) return usage(verb);
      return command({ verb, workspace: m[1]!, prompt: m[2]!.trim() });
    }
    case "ask":
      return args === "" ? usage(verb) : command({ verb, prompt: args });
    case "approve":
    case "reject": {
      const { id, rest } = idAndRest(args);
      return id === null ? usage(verb) : command({ verb, item: id, note: rest });
    }
    case "revise": {
      const { id, rest } = idAndRest(args);
      return id === null || rest === "" ? usage(verb) : command({ verb, item: id, text: rest });
    }
    case "dismiss":
    case "pause":
    case "resume":
    case "stop": {
      const id = parseId(args);
      if (id === null) return usage(verb);
      return verb === "dismiss" ? command({ verb, item: id }) : command({ verb, job: id });
    }
  }
}

/** "N: answer" picks item N; anything else answers the most recent open item. */
function freeText(clean: string): Parsed {
  // An ASCII colon needs whitespace after it, so "10:30 works" stays plain text.
  const m = /^#?([0-9\uFF10-\uFF19]{1,15})\s*(?::\s+|：\s*)([\s\S]+)$/.exec(clean);
  if (m) {
    const id = parseId(m[1]!);
    if (id !== null) return { kind: "answer", item: id, text: m[2]!.trim() };
  }
  return { kind: "answer", item: null, text: clean };
}
