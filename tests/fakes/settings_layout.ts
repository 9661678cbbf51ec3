// Temp-dir layouts shared by the settings tests: an agent home and a git project with a
// nested working directory.

import { dirname, join } from "../../core/path.ts";

export interface Layout {
  root: string;
  home: string;
  project: string;
  /** A subdirectory of the project, used as cwd. */
  cwd: string;
  globalFile: string;
  projectFile: string;
  cleanup(): Promise<void>;
}

export async function makeLayout(): Promise<Layout> {
  const root = await Deno.makeTempDir({ prefix: "agent_settings_" });
  const home = join(root, "home", ".agent");
  const project = join(root, "work", "proj");
  const cwd = join(project, "src", "deep");
  await Deno.mkdir(home, { recursive: true });
  await Deno.mkdir(join(project, ".git"), { recursive: true });
  await Deno.mkdir(cwd, { recursive: true });
  return {
    root,
    home,
    project,
    cwd,
    globalFile: join(home, "settings.toml"),
    projectFile: join(project, ".agent", "settings.toml"),
    cleanup: () => Deno.remove(root, { recursive: true }),
  };
}

export async function writeFile(path: string, text: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
}

export async function removeIfExists(path: string): Promise<void> {
  await Deno.remove(path).catch(() => {});
}

/** Runs `fn` in a fresh layout and removes the layout afterwards, whatever `fn` does. */
export async function withLayout(fn: (l: Layout) => void | Promise<void>): Promise<void> {
  const layout = await makeLayout();
  try {
    await fn(layout);
  } finally {
    await layout.cleanup();
  }
}
