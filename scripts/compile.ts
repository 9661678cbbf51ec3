// Builds the two release binaries with `deno compile`, baking in the permission flags
// from scripts/permissions.ts. Needs a machine that can download Deno's `denort` runtime.
//   deno task compile [--target x86_64-unknown-linux-gnu] [--out dist]

import { parseArgs } from "node:util";
import { ENTRY_POINTS, type ProgramName } from "./permissions.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { target: { type: "string" }, out: { type: "string", default: "dist" } },
});
const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

for (const name of Object.keys(ENTRY_POINTS) as ProgramName[]) {
  const { entry, permissions } = ENTRY_POINTS[name];
  const args = [
    "compile",
    ...permissions,
    ...(values.target ? ["--target", values.target] : []),
    "--include",
    `${root}/recipes`,
    "--include",
    `${root}/schemas`,
    "--output",
    `${values.out}/${name}`,
    `${root}/${entry}`,
  ];
  console.error(`compiling ${name} …`);
  const { code } = await new Deno.Command(Deno.execPath(), { args, stdout: "inherit", stderr: "inherit" })
    .output();
  if (code !== 0) {
    console.error(`deno compile failed for ${name} (exit ${code})`);
    Deno.exit(code);
  }
}
