// Entry point of `agent`. Kept tiny so `--version` starts fast: Deno loads every module a
// string-literal `import("…")` names when the process starts, lazy or not, so the rest of
// the program is reached through a computed specifier (measured: `--version` 1.43x → 1.08x
// of an empty `deno run`). scripts/permissions.ts lists such modules so install, the test
// task and compile still cache and embed them.
import { VERSION } from "./version.ts";

const args = Deno.args;
if (args[0] === "--version" || args[0] === "-V") {
  console.log(`agent ${VERSION}`);
} else {
  const run: typeof import("./run.ts") = await import(new URL("./run.ts", import.meta.url).href);
  Deno.exit(await run.main(args));
}
