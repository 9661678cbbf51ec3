// Builds the two release binaries with `deno compile`, baking in the permission flags
// from scripts/permissions.ts. Needs a machine that can download Deno's `denort` runtime.
//   deno task compile [--target x86_64-unknown-linux-gnu] [--out dist]

import { ENTRY_POINTS, type ProgramName } from "./permissions.ts";
import { parseFlags } from "../cli/args.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The `deno compile` arguments for one program. */
export function compileArgs(
  name: ProgramName,
  opts: { out: string; target?: string; root?: string },
): string[] {
  const root = opts.root ?? ROOT;
  const { entry, lazy, permissions } = ENTRY_POINTS[name];
  return [
    "compile",
    ...permissions,
    ...(opts.target ? ["--target", opts.target] : []),
    ...lazy.flatMap((path) => ["--include", `${root}/${path}`]),
    "--include",
    `${root}/recipes`,
    "--include",
    `${root}/schemas`,
    "--output",
    `${opts.out}/${name}`,
    `${root}/${entry}`,
  ];
}

if (import.meta.main) {
  const { values } = parseFlags(Deno.args, { target: { type: "string" }, out: { type: "string" } });
  const out = typeof values.out === "string" ? values.out : "dist";
  const target = typeof values.target === "string" ? values.target : undefined;
  for (const name of Object.keys(ENTRY_POINTS) as ProgramName[]) {
    console.error(`compiling ${name} …`);
    const args = compileArgs(name, { out, ...(target ? { target } : {}) });
    const { code } = await new Deno.Command(Deno.execPath(), {
      args,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (code !== 0) {
      console.error(
        `deno compile failed for ${name} (exit ${code}); it needs to download denort from the Deno release host`,
      );
      Deno.exit(code);
    }
  }
}
