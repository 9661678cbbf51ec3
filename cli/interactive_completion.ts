// What Tab completes at the prompt: a slash command at the start of the message, and an
// `@path` anywhere, from the workspace's files (fuzzy: the typed letters in order, best match
// first). The file list honours .gitignore: inside a git work tree it is git's own list
// (`git ls-files --cached --others --exclude-standard`); elsewhere a walk that skips hidden
// and vendored folders and the root .gitignore's patterns. Listed once per session, capped.

import type { Completer, Completion } from "./terminal/line_editor.ts";
import { globToRegExp } from "../core/tools/search.ts";

const MAX_FILES = 20_000;
const MAX_CANDIDATES = 50;
const SKIP_DIRS = new Set([".git", "node_modules", ".agent"]);

export function sessionCompleter(commands: readonly string[], workdir: string): Completer {
  let files: Promise<string[]> | undefined;
  return async (text, cursor) => {
    const before = text.slice(0, cursor);
    const command = /^\/(\S*)$/.exec(before);
    if (command) return completeCommand(commands, command[1]!, cursor);
    const mention = /(?:^|\s)@(\S*)$/.exec(before);
    if (!mention) return undefined;
    files ??= workspaceFiles(workdir);
    const query = mention[1]!;
    return {
      from: cursor - query.length - 1,
      to: cursor,
      candidates: fuzzyRank(await files, query).slice(0, MAX_CANDIDATES).map((f) => `@${f} `),
    };
  };
}

function completeCommand(commands: readonly string[], typed: string, cursor: number): Completion {
  const lower = typed.toLowerCase();
  return {
    from: 0,
    to: cursor,
    candidates: commands.filter((c) => c.startsWith(lower)).map((c) => `/${c} `),
  };
}

/** Files whose path holds the query's characters in order; tighter and shorter matches first. */
export function fuzzyRank(files: readonly string[], query: string): string[] {
  if (query === "") return [...files].sort((a, b) => a.length - b.length || a.localeCompare(b));
  const q = query.toLowerCase();
  const scored: { file: string; score: number }[] = [];
  for (const file of files) {
    const score = fuzzyScore(file.toLowerCase(), q);
    if (score !== undefined) scored.push({ file, score });
  }
  scored.sort((a, b) => a.score - b.score || a.file.length - b.file.length);
  return scored.map((s) => s.file);
}

/** Lower is better: the span the match covers, with a bonus for a match in the file name. */
function fuzzyScore(path: string, query: string): number | undefined {
  const contiguous = path.indexOf(query);
  if (contiguous !== -1) {
    const inName = contiguous > path.lastIndexOf("/") ? 0 : 1_000;
    return inName + contiguous;
  }
  let at = -1;
  let first = -1;
  for (const ch of query) {
    at = path.indexOf(ch, at + 1);
    if (at === -1) return undefined;
    if (first === -1) first = at;
  }
  return 10_000 + (at - first);
}

export async function workspaceFiles(workdir: string): Promise<string[]> {
  const fromGit = await gitFiles(workdir);
  return fromGit ?? await walkFiles(workdir);
}

/** git's list of tracked and untracked, not ignored files; undefined outside a work tree. */
async function gitFiles(workdir: string): Promise<string[] | undefined> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("git", {
      args: ["ls-files", "--cached", "--others", "--exclude-standard", "-z"],
      cwd: workdir,
      stdout: "piped",
      stderr: "null",
      stdin: "null",
    }).output();
  } catch (err) {
    // No git on this machine: the walk below stands in for it.
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  if (!out.success) return undefined; // not a git work tree
  const names = new TextDecoder().decode(out.stdout).split("\0").filter((n) => n !== "");
  return names.slice(0, MAX_FILES);
}

async function walkFiles(workdir: string): Promise<string[]> {
  const ignored = await rootIgnorePatterns(workdir);
  const out: string[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    const entries: Deno.DirEntry[] = [];
    for await (const e of Deno.readDir(dir)) entries.push(e);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (out.length >= MAX_FILES) return;
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (ignored.some((re) => re.test(path))) continue;
      if (e.isDirectory && !SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) {
        await walk(`${dir}/${e.name}`, path);
      } else if (e.isFile) out.push(path);
    }
  };
  await walk(workdir, "");
  return out;
}

/** The root .gitignore's plain patterns (negations and other files' rules are not applied). */
async function rootIgnorePatterns(workdir: string): Promise<RegExp[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${workdir}/.gitignore`);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  return text.split("\n").map((l) => l.trim()).filter((l) =>
    l !== "" && !l.startsWith("#") && !l.startsWith("!")
  ).map((l) => globToRegExp(l.replace(/^\//, "").replace(/\/$/, "")));
}
