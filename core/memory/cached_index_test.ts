import assert from "node:assert/strict";
import { composeCachedIndex, foreignSummary } from "./cached_index.ts";
import { CACHED_INDEX_MAX_BYTES, CACHED_INDEX_MAX_LINES, DAY } from "./limits.ts";
import type { IndexedFile } from "./recall_index.ts";
import { sandbox, touch } from "../../tests/fixtures/memory/sandbox.ts";

const bytes = (s: string) => new TextEncoder().encode(s).length;

Deno.test("cached index: MEMORY.md first, own + global + legacy files, foreign collapsed", async () => {
  const sb = await sandbox({ workspace: "/repo/here" });
  const s = sb.store;
  try {
    s.create(
      "/memories/MEMORY.md",
      "---\ncategory: project-fact\nworkspace: global\n---\n# Curated\n- read facts/\n",
    );
    s.create("/memories/facts/mine.md", "---\ncategory: project-fact\n---\n# Mine\n");
    s.create(
      "/memories/facts/glob.md",
      "---\ncategory: episodic\nworkspace: global\n---\n# Glob\n",
    );
    s.create("/memories/preferences/p.md", "---\ncategory: preference\n---\n# Pref\n");
    Deno.writeTextFileSync(`${sb.root}/legacy.md`, "# Legacy note\n");
    for (let i = 0; i < 12; i++) {
      const ws = ["/a", "/b", "team-x"][i % 3];
      s.create(
        `/memories/other/f${i}.md`,
        `---\ncategory: project-fact\nworkspace: ${ws}\n---\n# F${i}\n`,
      );
    }
    const text = s.reload();
    const lines = text.split("\n");
    const at = (needle: string) => lines.findIndex((l) => l.includes(needle));
    assert.ok(at("## MEMORY.md") >= 0 && at("# Curated") > at("## MEMORY.md"));
    assert.ok(at("# Curated") < at("## Files"), "MEMORY.md content comes first");
    assert.ok(at("/memories/preferences/p.md — Pref (preference)") > at("## Files"));
    assert.ok(at("/memories/facts/mine.md — Mine (project-fact)") > 0);
    assert.ok(at("/memories/facts/glob.md — Glob (episodic)") > 0);
    assert.ok(at("/memories/legacy.md — Legacy note (project-fact, no frontmatter)") > 0);
    assert.equal(at("/memories/MEMORY.md"), -1, "MEMORY.md is shown as content, not listed");
    assert.equal(at("/memories/other/"), -1, "foreign files are not listed");
    assert.equal(lines.at(-1), "12 files from 3 other workspaces (use view to see them).");
    assert.ok(at("Current workspace: /repo/here") > 0);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("cached index: bounded to ~200 lines and 25 KB with a 'more files' line", async () => {
  const sb = await sandbox({ workspace: "/w" });
  try {
    const longTitle = "T".repeat(300);
    for (let i = 0; i < 400; i++) {
      Deno.writeTextFileSync(
        `${sb.root}/f${String(i).padStart(3, "0")}.md`,
        `# ${longTitle} ${i}\n`,
      );
    }
    Deno.writeTextFileSync(
      `${sb.root}/foreign.md`,
      "---\ncategory: episodic\nworkspace: /x\n---\nx\n",
    );
    const text = sb.store.reload();
    assert.ok(text.split("\n").length <= CACHED_INDEX_MAX_LINES);
    assert.ok(bytes(text) <= CACHED_INDEX_MAX_BYTES, `${bytes(text)} bytes`);
    assert.match(text, /… \d+ more files not listed \(use view \/memories to browse\)\./);
    assert.match(text, /1 file from 1 other workspace \(use view to see them\)\.$/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("cached index: a huge MEMORY.md is cut and the file list still shows", async () => {
  const sb = await sandbox({ workspace: "/w" });
  try {
    const curated = Array.from({ length: 1000 }, (_, i) => `- line ${i} ${"x".repeat(60)}`).join(
      "\n",
    );
    Deno.writeTextFileSync(`${sb.root}/MEMORY.md`, curated);
    sb.store.create("/memories/p.md", "---\ncategory: preference\n---\n# Pref\n");
    const text = sb.store.reload();
    assert.ok(text.split("\n").length <= CACHED_INDEX_MAX_LINES);
    assert.ok(bytes(text) <= CACHED_INDEX_MAX_BYTES);
    assert.match(text, /\(MEMORY\.md continues; view \/memories\/MEMORY\.md for the rest\)/);
    assert.match(text, /\/memories\/p\.md — Pref \(preference\)/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("cached index: session files are never listed or counted", async () => {
  const sb = await sandbox({ workspace: "/w" });
  try {
    sb.store.create("/memories/scratch/mine.md", "---\ncategory: session\n---\n# Scratch here\n");
    sb.store.create(
      "/memories/scratch/theirs.md",
      "---\ncategory: session\nworkspace: /elsewhere\n---\n# Scratch there\n",
    );
    const text = sb.store.reload();
    assert.doesNotMatch(text, /Scratch|scratch\//);
    assert.match(text, /\(no memory files for this workspace yet\)/);
    assert.doesNotMatch(text, /other workspace/);
    // The operator listing still shows them (sweeps and the dashboard need them).
    assert.equal(sb.store.list().stats.session.files, 2);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("cached index: MEMORY.md shows in every workspace and never counts as foreign", async () => {
  const sb = await sandbox({ workspace: "/repo/a" });
  try {
    // A curated index stamped by an older version with another workspace.
    Deno.writeTextFileSync(
      `${sb.root}/MEMORY.md`,
      "---\ncategory: episodic\nworkspace: /repo/b\n---\n# Curated\n- see facts/\n",
    );
    const text = sb.store.reload();
    assert.match(text, /## MEMORY\.md\n# Curated/);
    assert.doesNotMatch(text, /other workspace/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("cached index: empty memory and stale marks", async () => {
  const sb = await sandbox({ workspace: "/w" });
  try {
    assert.match(sb.store.cachedIndex(), /\(no memory files for this workspace yet\)/);
    sb.store.create("/memories/old.md", "---\ncategory: project-fact\n---\n# Old fact\n");
    touch(`${sb.root}/old.md`, new Date(sb.clock.now().getTime() - 190 * DAY));
    assert.match(sb.store.reload(), /old\.md — Old fact \(project-fact, stale\)/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("cached index: pure composition keeps within limits for any input", () => {
  const files: IndexedFile[] = Array.from({ length: 1000 }, (_, i) => ({
    path: `dir/${"n".repeat(200)}${i}.md`,
    mtimeMs: 0,
    size: 1,
    category: "preference",
    workspace: null,
    legacy: false,
    title: "é".repeat(100),
  }));
  const text = composeCachedIndex({
    workspace: "/w",
    curated: "c\n".repeat(5000),
    files,
    scopedTotal: 1000,
    foreignFiles: 7,
    foreignWorkspaces: 1,
    nowMs: 0,
  });
  assert.ok(text.split("\n").length <= CACHED_INDEX_MAX_LINES);
  assert.ok(bytes(text) <= CACHED_INDEX_MAX_BYTES);
  assert.ok(text.endsWith(foreignSummary(7, 1)));
});
