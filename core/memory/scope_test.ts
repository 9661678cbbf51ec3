// Memory scope "workspace" (scope.ts): every command that names another workspace's file is
// refused with a tool error and changes nothing; listings leave such files out; scope "all"
// (the default) is unchanged.

import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { MemoryCommandError } from "./errors.ts";
import { openMemory } from "./store.ts";
import type { MemoryScope } from "./memory_scope.ts";

const FOREIGN = "---\ncategory: project-fact\nworkspace: /srv/other\n---\nsecret plan\n";

async function memoryWith(scope: MemoryScope) {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(join(root, "facts"));
  await Deno.writeTextFile(join(root, "facts", "other.md"), FOREIGN);
  await Deno.writeTextFile(join(root, "facts", "global.md"), "---\nworkspace: global\n---\nhi\n");
  await Deno.writeTextFile(join(root, "legacy.md"), "no frontmatter here\n");
  const store = await openMemory({
    root,
    cwd: root,
    workspace: "/repo",
    clock: new FakeClock(),
    scope,
  });
  return {
    root,
    store,
    async [Symbol.asyncDispose]() {
      store.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("memory scope workspace: another workspace's file is refused for every command", async () => {
  await using m = await memoryWith("workspace");
  const calls: Record<string, unknown>[] = [
    { command: "view", path: "/memories/facts/other.md" },
    { command: "create", path: "/memories/facts/other.md", file_text: "x" },
    { command: "str_replace", path: "/memories/facts/other.md", old_str: "secret", new_str: "x" },
    { command: "insert", path: "/memories/facts/other.md", insert_line: 0, insert_text: "x" },
    { command: "delete", path: "/memories/facts/other.md" },
    { command: "delete", path: "/memories/facts" },
    { command: "rename", old_path: "/memories/facts/other.md", new_path: "/memories/x.md" },
    { command: "rename", old_path: "/memories/legacy.md", new_path: "/memories/facts/other.md" },
  ];
  for (const input of calls) {
    assert.throws(() => m.store.execute(input), MemoryCommandError, JSON.stringify(input));
  }
  assert.equal(await Deno.readTextFile(join(m.root, "facts", "other.md")), FOREIGN, "unchanged");
  const listing = m.store.execute({ command: "view", path: "/memories" });
  assert.doesNotMatch(listing, /other\.md/);
  assert.match(listing, /global\.md/);
  assert.match(listing, /legacy\.md/);
  assert.match(m.store.execute({ command: "view", path: "/memories/legacy.md" }), /no frontmatter/);
  assert.match(m.store.execute({ command: "view", path: "/memories/facts/global.md" }), /hi/);
  // Its own new files work as usual.
  m.store.execute({ command: "create", path: "/memories/facts/mine.md", file_text: "mine" });
  assert.match(m.store.execute({ command: "view", path: "/memories/facts/mine.md" }), /mine/);
});

Deno.test("memory scope all (the default): another workspace's file stays reachable", async () => {
  await using m = await memoryWith("all");
  assert.match(m.store.execute({ command: "view", path: "/memories/facts/other.md" }), /secret/);
  assert.match(m.store.execute({ command: "view", path: "/memories" }), /other\.md/);
});
