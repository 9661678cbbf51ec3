// `deno task release`: the release assets of one version in one folder: both binaries for
// every target (compiled by scripts/compile.ts, or staged from an existing build with
// --binaries where denort cannot be had), SHA256SUMS (`sha256sum -c` format) and
// RELEASE_NOTES.md, the CHANGELOG.md section of the version.
//   deno task release [--out dist/release] [--binaries DIR] [--version X.Y.Z]
// DIR holds <target>/agent and <target>/agent-outpost, as `deno task compile` writes them.

import { parseFlags } from "../cli/args.ts";
import { VERSION } from "../cli/version.ts";
import { plan, TARGETS } from "./compile.ts";
import { ENTRY_POINTS, type ProgramName } from "./permissions.ts";
import { targetFormatError } from "./executable_format.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

export class ReleaseError extends Error {
  override name = "ReleaseError";
}

/** The asset name of one binary: `agent-outpost-aarch64-apple-darwin`. */
export function assetName(program: ProgramName, target: string): string {
  return `${program}-${target}`;
}

/** The body of the `## [version]` section of a Keep-a-Changelog file. */
export function releaseNotes(changelog: string, version: string): string {
  const lines = changelog.split("\n");
  const heading = new RegExp(`^## \\[${version.replaceAll(".", "\\.")}\\]`);
  const start = lines.findIndex((l) => heading.test(l));
  if (start < 0) {
    throw new ReleaseError(`CHANGELOG.md has no "## [${version}]" section; write one first`);
  }
  const end = lines.findIndex((l, i) => i > start && l.startsWith("## "));
  const body = lines.slice(start + 1, end < 0 ? undefined : end).join("\n").trim();
  if (body === "") throw new ReleaseError(`CHANGELOG.md's "## [${version}]" section is empty`);
  return `# agent ${version}\n\n${body}\n`;
}

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** How to hand the release binaries built elsewhere, said with every binary failure. */
const BINARIES_HINT = "run `deno task compile` first, or pass --binaries DIR holding " +
  "<target>/agent and <target>/agent-outpost as `deno task compile` writes them";

/**
 * Copies every target's binaries from `binaries` into `out` under their asset names and
 * writes SHA256SUMS and RELEASE_NOTES.md. A missing binary, or a file that is not an
 * executable of its target's format and CPU, is an error naming it, before anything is written.
 */
export async function stageRelease(
  opts: { binaries: string; out: string; version: string; changelog: string },
): Promise<string[]> {
  const notes = releaseNotes(opts.changelog, opts.version);
  const builds = plan(TARGETS, opts.binaries);
  for (const b of builds) {
    let ok = false;
    try {
      ok = (await Deno.stat(b.output)).isFile;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
    if (!ok) throw new ReleaseError(`missing binary ${b.output} (${BINARIES_HINT})`);
    const wrong = await targetFormatError(b.output, b.target);
    if (wrong !== null) throw new ReleaseError(`${wrong} (${BINARIES_HINT})`);
  }
  await Deno.mkdir(opts.out, { recursive: true });
  const sums: string[] = [];
  const written: string[] = [];
  for (const b of builds) {
    const name = assetName(b.program, b.target);
    await Deno.copyFile(b.output, `${opts.out}/${name}`);
    await Deno.chmod(`${opts.out}/${name}`, 0o755);
    sums.push(`${await sha256(`${opts.out}/${name}`)}  ${name}`);
    written.push(name);
  }
  await Deno.writeTextFile(`${opts.out}/SHA256SUMS`, `${sums.join("\n")}\n`);
  await Deno.writeTextFile(`${opts.out}/RELEASE_NOTES.md`, notes);
  return [...written, "SHA256SUMS", "RELEASE_NOTES.md"];
}

async function compileAll(out: string): Promise<void> {
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/scripts/compile.ts`, "--target", "all", "--out", out],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  // compile.ts has said why in one line (e.g. denort unavailable).
  if (code !== 0) {
    throw new ReleaseError(
      `compiling failed (exit ${code}, see above); where the binaries cannot be compiled here, ` +
        `compile them elsewhere and pass --binaries DIR (<target>/agent, <target>/agent-outpost)`,
    );
  }
}

if (import.meta.main) {
  try {
    const { values } = parseFlags(Deno.args, {
      out: { type: "string" },
      binaries: { type: "string" },
      version: { type: "string" },
    });
    const version = typeof values.version === "string" ? values.version : VERSION;
    const out = typeof values.out === "string" ? values.out : "dist/release";
    const changelog = await Deno.readTextFile(`${ROOT}/CHANGELOG.md`);
    releaseNotes(changelog, version); // refuse before compiling for minutes
    let binaries = typeof values.binaries === "string" ? values.binaries : null;
    if (binaries === null) {
      binaries = `${out}/build`;
      await compileAll(binaries);
    }
    const written = await stageRelease({ binaries, out, version, changelog });
    console.error(`release ${version} in ${out}: ${written.join(", ")}`);
    console.error(`programs: ${Object.keys(ENTRY_POINTS).join(", ")} × ${TARGETS.join(", ")}`);
  } catch (err) {
    console.error(`release: ${(err as Error).message}`);
    Deno.exit(1);
  }
}
