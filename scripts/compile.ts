// `deno task compile`: builds the two release binaries with `deno compile`, baking in the
// permission flags of scripts/permissions.ts, for the four release targets.
//   deno task compile                          # every target: dist/<target>/{agent,agent-outpost}
//   deno task compile --target host --out DIR  # this machine's target: DIR/{agent,agent-outpost}
//   deno task compile --target aarch64-apple-darwin
// `deno compile` needs Deno's `denort` runtime for each target, downloaded from dl.deno.land
// (or named by DENORT_BIN). Where it cannot be had, the script stops with one line saying so.

import { stripVTControlCharacters } from "node:util";
import { ENTRY_POINTS, programFlags, type ProgramName } from "./permissions.ts";
import { parseFlags } from "../cli/args.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The release targets: Linux and macOS, x86_64 and arm64. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
] as const;
export type Target = (typeof TARGETS)[number];

/** Folders every binary embeds: read at run time through import.meta paths. */
export const EMBEDDED_DIRS = ["recipes", "schemas"] as const;

/**
 * Worker modules a program starts with `new Worker(new URL(…))`, which `deno compile` cannot see
 * by itself: the outpost's PostgreSQL client runs in one (core/store/pg/pg_worker.ts).
 */
export const EMBEDDED_WORKERS: Readonly<Record<ProgramName, readonly string[]>> = {
  agent: [],
  "agent-outpost": ["core/store/pg/pg_worker.ts"],
};

/** The `deno compile` arguments for one program. */
export function compileArgs(
  name: ProgramName,
  opts: { out: string; target?: string; root?: string },
): string[] {
  const root = opts.root ?? ROOT;
  return [
    "compile",
    ...programFlags(name),
    ...(opts.target ? ["--target", opts.target] : []),
    ...EMBEDDED_DIRS.flatMap((dir) => ["--include", `${root}/${dir}`]),
    ...EMBEDDED_WORKERS[name].flatMap((file) => ["--include", `${root}/${file}`]),
    "--output",
    `${opts.out}/${name}`,
    `${root}/${ENTRY_POINTS[name].entry}`,
  ];
}

export interface Build {
  program: ProgramName;
  target: Target;
  /** Where the binary is written. */
  output: string;
  args: string[];
}

/**
 * Every build of one `deno task compile`: one target writes into `out` itself (what the
 * Containerfile copies), several write into `out/<target>/` so the names never collide.
 */
export function plan(targets: readonly Target[], out: string, root = ROOT): Build[] {
  return targets.flatMap((target) => {
    const dir = targets.length === 1 ? out : `${out}/${target}`;
    return (Object.keys(ENTRY_POINTS) as ProgramName[]).map((program) => ({
      program,
      target,
      output: `${dir}/${program}`,
      args: compileArgs(program, { out: dir, target, root }),
    }));
  });
}

function dirOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf("/"))) || ".";
}

/** `--target`: a release target, `host` (this machine's, when it is one) or `all`. */
export function parseTargets(value: string | undefined, host = Deno.build.target): Target[] {
  if (value === undefined || value === "all") return [...TARGETS];
  const wanted = value === "host" ? host : value;
  if ((TARGETS as readonly string[]).includes(wanted)) return [wanted as Target];
  throw new Error(
    `--target: ${JSON.stringify(wanted)} is not one of ${TARGETS.join(", ")} (or host, all)`,
  );
}

/**
 * The one line for a failed `deno compile`: when its runtime (denort) was the problem, say
 * that and how to get past it; otherwise the exit code (deno's own error was shown above).
 */
export function failureLine(build: Build, code: number, stderr: string): string {
  // deno's "Caused by:" chain numbers its causes (`  1: error sending request for url …`).
  const cause = stripVTControlCharacters(stderr).split("\n").map((l) =>
    /^\s*\d+:\s*(.*)$/.exec(l)?.[1]?.trim()
  )
    .find((l) => l !== undefined && /denort/i.test(l));
  if (cause !== undefined) {
    return `compile: Deno's denort runtime for ${build.target} is unavailable (${cause}); ` +
      `build where https://dl.deno.land is reachable, or set DENORT_BIN to a denort ${Deno.version.deno} binary`;
  }
  return `compile: deno compile of ${build.program} for ${build.target} failed (exit ${code})`;
}

async function compile(build: Build): Promise<string | null> {
  console.error(`compiling ${build.program} for ${build.target} → ${build.output}`);
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: build.args,
    stdout: "inherit",
    stderr: "piped",
  }).output();
  if (code === 0) return null;
  const text = new TextDecoder().decode(stderr);
  const line = failureLine(build, code, text);
  // deno's own error is useful unless it only says what the line says (denort).
  if (!line.includes("denort")) console.error(text.trimEnd());
  return line;
}

/** `dir` and each parent of it that does not exist yet, deepest first. */
export function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (
    let d = dir;
    d !== "" && d !== "." && d !== "/";
    d = d.slice(0, Math.max(0, d.lastIndexOf("/")))
  ) {
    try {
      Deno.statSync(d);
      break;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      missing.push(d);
    }
  }
  return missing;
}

/**
 * After a failed build: removes the folders this run created that are still empty (deno
 * compile makes the output folder before it fails), deepest first, so a failure leaves no
 * empty dist/<target>/ behind. A folder with anything in it stays.
 */
export function removeEmptyDirs(created: readonly string[]): void {
  for (const dir of [...created].sort((a, b) => b.length - a.length)) {
    let empty: boolean;
    try {
      empty = Deno.readDirSync(dir)[Symbol.iterator]().next().done === true;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) continue; // a later target's, never made
      throw err;
    }
    // A folder with an earlier target's binaries stays, and so do its parents.
    if (empty) Deno.removeSync(dir);
  }
}

if (import.meta.main) {
  let targets: Target[];
  let out: string;
  try {
    const { values } = parseFlags(Deno.args, {
      target: { type: "string" },
      out: { type: "string" },
    });
    out = typeof values.out === "string" ? values.out : "dist";
    targets = parseTargets(typeof values.target === "string" ? values.target : undefined);
  } catch (err) {
    console.error(`compile: ${(err as Error).message}`);
    Deno.exit(2);
  }
  const builds = plan(targets, out);
  const created = [...new Set(builds.flatMap((b) => missingDirs(dirOf(b.output))))];
  for (const build of builds) {
    const failed = await compile(build);
    if (failed !== null) {
      removeEmptyDirs(created);
      console.error(failed);
      Deno.exit(1);
    }
  }
}
