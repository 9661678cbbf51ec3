// What Tab offers: slash commands, and workspace files ranked fuzzily with ignored ones left
// out, both inside a git work tree (git's own list) and outside one (the walk).

import assert from "node:assert/strict";
import { fuzzyRank, sessionCompleter, workspaceFiles } from "./interactive_completion.ts";

async function workspace(files: Record<string, string>): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "completion-" }));
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  return dir;
}

const FILES = {
  ".gitignore": "build/\n*.log\n",
  "src/main.ts": "",
  "src/terminal/line_editor.ts": "",
  "build/out.js": "",
  "debug.log": "",
  "README.md": "",
};

Deno.test("completion: inside a git work tree, git's list without ignored files", async () => {
  const dir = await workspace(FILES);
  try {
    const init = await new Deno.Command("git", { args: ["init", "-q"], cwd: dir }).output();
    assert.ok(init.success);
    const files = (await workspaceFiles(dir)).sort();
    assert.deepEqual(files, [
      ".gitignore",
      "README.md",
      "src/main.ts",
      "src/terminal/line_editor.ts",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("completion: outside git, the walk skips the root .gitignore's patterns", async () => {
  const dir = await workspace(FILES);
  try {
    // The same list as git's above.
    const files = (await workspaceFiles(dir)).sort();
    assert.deepEqual(files, [
      ".gitignore",
      "README.md",
      "src/main.ts",
      "src/terminal/line_editor.ts",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("completion: fuzzy ranking puts a match in the file name first", () => {
  const files = ["docs/editor/notes.md", "src/terminal/line_editor.ts", "src/ed.ts"];
  assert.deepEqual(fuzzyRank(files, "editor"), [
    "src/terminal/line_editor.ts",
    "docs/editor/notes.md",
  ]);
  assert.deepEqual(fuzzyRank(files, "lnedt"), ["src/terminal/line_editor.ts"]);
  assert.deepEqual(fuzzyRank(files, "zzz"), []);
});

Deno.test("completion: slash commands at the start, @ paths anywhere, nothing else", async () => {
  const dir = await workspace({ "notes.txt": "" });
  try {
    const complete = sessionCompleter(["model", "mode", "help"], dir);
    assert.deepEqual(await complete("/mo", 3), {
      from: 0,
      to: 3,
      candidates: ["/model ", "/mode "],
    });
    assert.deepEqual(await complete("read @nts", 9), {
      from: 5,
      to: 9,
      candidates: ["@notes.txt "],
    });
    assert.equal(await complete("plain words", 11), undefined);
    assert.equal(await complete("not /a command", 14), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
