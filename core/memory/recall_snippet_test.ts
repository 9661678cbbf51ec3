// Regression tests for recall snippets: every hit's snippet must come from that hit's own
// file. Under Deno's node:sqlite a JavaScript number binds as REAL, and FTS5 ignores a REAL
// `rowid = ?` next to a MATCH, so every hit once carried the first matching row's text; a
// foreign-workspace file's text then leaked into recall (spec 2.1 rule 8).

import assert from "node:assert/strict";
import { sandbox } from "../../tests/fixtures/memory/sandbox.ts";

const FOREIGN_TEXT = "FOREIGN-SECRET";

/** The distinct word each file carries, so a snippet names the file it came from. */
const FILES: Record<string, { text: string; marker: string }> = {
  "/memories/facts/foreign.md": {
    text:
      `---\ncategory: project-fact\nworkspace: /somewhere/else\n---\n# Foreign\nzebra ${FOREIGN_TEXT} text\n`,
    marker: FOREIGN_TEXT,
  },
  "/memories/facts/global.md": {
    text:
      "---\ncategory: project-fact\nworkspace: global\n---\n# Global\nzebra crossing GLOBALWORD\n",
    marker: "GLOBALWORD",
  },
  "/memories/preferences/pref.md": {
    text: "---\ncategory: preference\n---\n# Pref\nzebra stripes PREFWORD\n",
    marker: "PREFWORD",
  },
  "/memories/facts/mine.md": {
    text: "---\ncategory: episodic\n---\n# Mine\nzebra herd MINEWORD\n",
    marker: "MINEWORD",
  },
};

/** Every order in which the files can be written (4! = 24). */
function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((x, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest])
  );
}

Deno.test("recall and search: each snippet comes from its own file", async () => {
  const sb = await sandbox({ workspace: "/repo/here" });
  try {
    for (const [path, f] of Object.entries(FILES)) sb.store.create(path, f.text);
    const search = sb.store.search("zebra");
    assert.equal(search.length, 4);
    for (const hit of search) {
      assert.match(hit.snippet, new RegExp(FILES[hit.path]!.marker), hit.path);
    }
    const recall = sb.store.recall("zebra");
    assert.equal(recall.length, 3);
    for (const hit of recall) {
      assert.match(hit.snippet, new RegExp(FILES[hit.path]!.marker), hit.path);
    }
  } finally {
    await sb.cleanup();
  }
});

Deno.test("recall: a foreign-workspace file's text never shows, whatever the insertion order", async () => {
  for (const order of permutations(Object.keys(FILES))) {
    const sb = await sandbox({ workspace: "/repo/here" });
    try {
      for (const path of order) sb.store.create(path, FILES[path]!.text);
      for (const reopen of [false, true]) {
        const s = reopen ? await sb.reopen() : sb.store;
        const recall = s.recall("zebra");
        assert.deepEqual(
          recall.map((r) => r.path).sort(),
          ["/memories/facts/global.md", "/memories/facts/mine.md", "/memories/preferences/pref.md"],
          order.join(" "),
        );
        assert.doesNotMatch(JSON.stringify(recall), /FOREIGN/, order.join(" "));
        assert.doesNotMatch(s.recallReminder("zebra") ?? "", /FOREIGN/, order.join(" "));
        assert.doesNotMatch(s.cachedIndex(), /FOREIGN/, order.join(" "));
      }
      // A full rebuild inserts in walk order, not creation order.
      sb.store.rebuildIndex();
      assert.doesNotMatch(sb.store.recallReminder("zebra") ?? "", /FOREIGN/, order.join(" "));
    } finally {
      await sb.cleanup();
    }
  }
});
