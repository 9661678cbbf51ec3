// Entry point of `agent`. Kept tiny: heavy modules load lazily so `--version` and
// headless runs start fast.
import { VERSION } from "./version.ts";

const args = Deno.args;
if (args[0] === "--version" || args[0] === "-V") {
  console.log(`agent ${VERSION}`);
} else {
  const { main } = await import("./run.ts");
  Deno.exit(await main(args));
}
