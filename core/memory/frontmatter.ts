// Memory frontmatter: a fenced `---` block at the very start of a file holding simple
// `key: value` lines. Both fences are required; a bare `category:` first line is content.
// Rules (spec 2.1): no frontmatter reads as project-fact; on create a missing or unknown
// category becomes episodic; project-fact and episodic files are stamped with the
// workspace; explicit workspace values are kept verbatim; no workspace key means global.

export type Category = "project-fact" | "preference" | "episodic" | "session";
export const CATEGORIES: readonly Category[] = [
  "project-fact",
  "preference",
  "episodic",
  "session",
];

export function isCategory(value: unknown): value is Category {
  return typeof value === "string" && (CATEGORIES as readonly string[]).includes(value);
}

/**
 * The curated index at the root (spec 2.1 layout), root-relative. It is written as given
 * (never categorized or stamped), shown at the top of every workspace's cached index whatever
 * workspace key it carries, and never swept or flagged stale. Only the root's file counts.
 */
export const CURATED_FILE = "MEMORY.md";

export function isCuratedIndex(rel: string): boolean {
  return rel === CURATED_FILE;
}

/**
 * The category a file's top folder suggests: preferences/ → preference, facts/ →
 * project-fact. Advice only: rule 2 of spec 2.1 makes a missing category episodic on create,
 * so the tool keeps that and tells the model how to correct it (see episodicDefaultAdvice).
 */
export function folderCategory(rel: string): Category | null {
  const top = rel.split("/")[0];
  if (rel.includes("/") && top === "preferences") return "preference";
  if (rel.includes("/") && top === "facts") return "project-fact";
  return null;
}

/** What the tool tells the model when rule 2 made a file episodic. */
export function episodicDefaultAdvice(rel: string): string {
  const suggested = folderCategory(rel);
  const fix = suggested
    ? `\`category: ${suggested}\``
    : "`category: preference` or `category: project-fact`";
  return "Episodic files are deleted after about 6 weeks untouched; if this should last, " +
    `replace \`category: episodic\` with ${fix} (str_replace).`;
}

/** The workspace value that explicitly means "everywhere". */
export const GLOBAL_WORKSPACE = "global";

export interface ParsedMemory {
  hasFrontmatter: boolean;
  /** Header lines between the fences, verbatim. */
  headerLines: string[];
  /** Lower-cased keys; the first occurrence of a key wins. */
  fields: Record<string, string>;
  /** Everything after the closing fence (the whole text when there is no frontmatter). */
  body: string;
  /** Effective category: missing frontmatter or an unknown value reads as project-fact. */
  category: Category;
  /** The workspace value, or null when there is no (or an empty) workspace key. */
  workspace: string | null;
  /** No frontmatter at all (a hand-written or pre-frontmatter file). */
  legacy: boolean;
}

const MAX_HEADER_LINES = 64;
const KEY_LINE = /^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)$/;

function isFence(line: string | undefined): boolean {
  return line !== undefined && line.replace(/\r$/, "").trimEnd() === "---";
}

function unquote(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) {
    try {
      const parsed = JSON.parse(v);
      if (typeof parsed === "string") return parsed;
    } catch { /* not JSON: strip the quotes below */ }
    return v.slice(1, -1);
  }
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1);
  return v;
}

export function parseMemory(text: string): ParsedMemory {
  const lines = text.split("\n");
  if (isFence(lines[0])) {
    const limit = Math.min(lines.length, MAX_HEADER_LINES + 2);
    for (let i = 1; i < limit; i++) {
      if (!isFence(lines[i])) continue;
      const headerLines = lines.slice(1, i).map((l) => l.replace(/\r$/, ""));
      const fields: Record<string, string> = {};
      for (const line of headerLines) {
        const m = KEY_LINE.exec(line);
        if (!m || m[1] === undefined) continue;
        const key = m[1].toLowerCase();
        if (!(key in fields)) fields[key] = unquote(m[2] ?? "");
      }
      const body = lines.slice(i + 1).join("\n");
      const category = isCategory(fields.category) ? fields.category : "project-fact";
      const ws = fields.workspace;
      return {
        hasFrontmatter: true,
        headerLines,
        fields,
        body,
        category,
        workspace: ws ? ws : null,
        legacy: false,
      };
    }
  }
  return {
    hasFrontmatter: false,
    headerLines: [],
    fields: {},
    body: text,
    category: "project-fact",
    workspace: null,
    legacy: true,
  };
}

/** Quotes a value only when it could not round-trip as a bare value. */
export function formatValue(value: string): string {
  // deno-lint-ignore no-control-regex
  const risky = /[\u0000-\u001f\u007f]/.test(value) || value !== value.trim() ||
    /^["']/.test(value);
  return risky ? JSON.stringify(value) : value;
}

export interface NormalizedCreate {
  text: string;
  category: Category;
  /** The workspace value written (null = global). */
  workspace: string | null;
  /** Human-readable notes on what was changed, for the tool's reply. */
  changes: string[];
  /** The category was missing or unknown and became episodic (rule 2). */
  defaulted: boolean;
}

/**
 * Applies the create-time rules to `text`. The body is kept byte for byte; only the header
 * lines for category and workspace are added or rewritten.
 */
export function normalizeOnCreate(text: string, workspace: string): NormalizedCreate {
  const parsed = parseMemory(text);
  const header = [...parsed.headerLines];
  const changes: string[] = [];
  const keyIndex = (key: string) =>
    header.findIndex((l) => KEY_LINE.exec(l)?.[1]?.toLowerCase() === key);

  let category: Category;
  const raw = parsed.fields.category;
  if (isCategory(raw)) {
    category = raw;
  } else {
    category = "episodic";
    const i = keyIndex("category");
    if (i >= 0) header[i] = "category: episodic";
    else header.unshift("category: episodic");
    changes.push(
      raw === undefined || raw === ""
        ? "no category given: set to episodic"
        : `unknown category ${JSON.stringify(raw)}: set to episodic`,
    );
  }

  let ws: string | null = parsed.fields.workspace ? parsed.fields.workspace : null;
  if (ws === null && (category === "project-fact" || category === "episodic")) {
    ws = workspace;
    const line = `workspace: ${formatValue(workspace)}`;
    const i = keyIndex("workspace");
    if (i >= 0) header[i] = line;
    else header.push(line);
    changes.push(`stamped workspace ${workspace}`);
  }

  const out = `---\n${header.join("\n")}\n---\n${parsed.hasFrontmatter ? parsed.body : text}`;
  return { text: out, category, workspace: ws, changes, defaulted: !isCategory(raw) };
}

/**
 * A file's title: its first markdown heading, else its first non-empty line with the inline
 * markdown taken off (list and quote markers, emphasis, code ticks, link targets), else its
 * name. Headings lose their trailing #s and inline markdown too.
 */
export function extractTitle(body: string, fallbackName: string): string {
  let firstLine: string | undefined;
  let seen = 0;
  for (const raw of body.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    const heading = /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
    if (heading?.[1]) return clip(plainInline(heading[1]));
    firstLine ??= line;
    if (++seen >= 40) break;
  }
  const plain = firstLine === undefined ? "" : plainInline(firstLine.replace(BLOCK_MARKER, ""));
  return clip(plain || fallbackName);
}

/** A memory file's title: its own `title:` frontmatter value when set, else extractTitle. */
export function memoryTitle(parsed: ParsedMemory, fallbackName: string): string {
  const own = parsed.fields.title?.trim();
  return own ? clip(own) : extractTitle(parsed.body, fallbackName);
}

/** A line's leading list, quote or rule marker ("- ", "* ", "1. ", "> ", "[ ] "). */
const BLOCK_MARKER = /^(?:>\s*)*(?:[-*+]\s+|\d+[.)]\s+)?(?:\[[ xX]\]\s+)?/;

/** Inline markdown to plain text: [text](url) → text, emphasis and code ticks dropped. */
function plainInline(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__|\*|_|~~|`+)(?=\S)([^]*?\S)\1/g, "$2")
    .trim();
}

function clip(s: string, max = 100): string {
  // deno-lint-ignore no-control-regex
  const flat = s.replace(/[\u0000-\u001f\u007f]/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
