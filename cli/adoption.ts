// `agent adoption validate [FILE]`: checks an adoption declaration (spec 2.10) and prints
// each violation with its JSON pointer and a one-line fix; exit 1 on any violation or when
// the file cannot be read. Without FILE it checks adoption-declaration.json at the root of
// the git repository around the current directory (the current directory outside one).
// Reached through a dynamic import from run.ts, so ajv never loads for other commands.

import { join, resolve } from "../core/path.ts";
import { checkDeclarationText, DECLARATION_FILE } from "../core/adoption/declaration.ts";

export interface AdoptionIo {
  cwd: string;
  out: (text: string) => void;
  err: (text: string) => void;
}

export async function runAdoption(args: string[], io: AdoptionIo): Promise<number> {
  const [verb, file, ...rest] = args;
  if (verb !== "validate" || rest.length > 0) {
    io.err("usage: agent adoption validate [FILE]\n");
    return 1;
  }
  const path = file === undefined
    ? join(await repositoryRoot(io.cwd), DECLARATION_FILE)
    : resolve(io.cwd, file);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    const why = e instanceof Deno.errors.NotFound
      ? `no such file; create ${DECLARATION_FILE} at the repository root (README: "Adoption ` +
        `declaration") or name the file to check`
      : (e as Error).message;
    io.err(`agent: ${path}: ${why}\n`);
    return 1;
  }
  const violations = await checkDeclarationText(text);
  if (violations.length === 0) {
    io.out(`${path}: valid adoption declaration\n`);
    return 0;
  }
  for (const v of violations) {
    io.out(
      `${path}: ${v.pointer === "" ? "(document)" : v.pointer}: ${v.message}\n  fix: ${v.fix}\n`,
    );
  }
  io.out(`${violations.length} violation${violations.length === 1 ? "" : "s"}\n`);
  return 1;
}

/** The nearest directory at or above `start` holding `.git`; `start` when there is none. */
async function repositoryRoot(start: string): Promise<string> {
  let dir = resolve(start);
  for (;;) {
    try {
      await Deno.lstat(join(dir, ".git"));
      return dir;
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    const parent = resolve(dir, "..");
    if (parent === dir) return resolve(start);
    dir = parent;
  }
}
