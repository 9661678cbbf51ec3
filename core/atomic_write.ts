// Write-then-rename so a reader never sees a half-written file and a crash never leaves one.

import { dirname } from "./path.ts";

export async function writeFileAtomic(
  path: string,
  data: string,
  options: { mode?: number; createDirs?: boolean; dirMode?: number } = {},
): Promise<void> {
  if (options.createDirs) {
    await Deno.mkdir(
      dirname(path),
      options.dirMode === undefined
        ? { recursive: true }
        : { recursive: true, mode: options.dirMode },
    );
  }
  const tmp = `${path}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.writeTextFile(tmp, data, options.mode === undefined ? {} : { mode: options.mode });
    if (options.mode !== undefined) await Deno.chmod(tmp, options.mode);
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
}
