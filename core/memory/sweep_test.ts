import assert from "node:assert/strict";
import { DAY } from "./limits.ts";
import { planSweep } from "./sweep.ts";
import { RecallIndex } from "./recall_index.ts";
import { sandbox, touch } from "../../tests/fixtures/memory/sandbox.ts";

const HOUR = DAY / 24;

Deno.test("sweep: ages decide on the injected clock", async () => {
  const sb = await sandbox();
  const s = sb.store;
  try {
    const files: Record<string, string> = {
      "session.md": "---\ncategory: session\n---\nscratch\n",
      "episode.md": "---\ncategory: episodic\n---\nwhat happened\n",
      "fact.md": "---\ncategory: project-fact\n---\na fact\n",
      "pref.md": "---\ncategory: preference\n---\na taste\n",
    };
    for (const [name, text] of Object.entries(files)) s.create(`/memories/${name}`, text);
    Deno.writeTextFileSync(`${sb.root}/legacy.md`, "no frontmatter\n");
    s.refresh();
    // Pin every mtime to the clock's now, then move only the clock.
    const t0 = sb.clock.now();
    for (const name of [...Object.keys(files), "legacy.md"]) touch(`${sb.root}/${name}`, t0);
    s.refresh();
    const exists = (name: string) => {
      try {
        return Deno.statSync(`${sb.root}/${name}`).isFile;
      } catch {
        return false;
      }
    };

    await sb.clock.advance(23 * HOUR);
    assert.deepEqual(s.sweep(), { deleted: [], stale: [], failed: [] });

    await sb.clock.advance(2 * HOUR); // 25 h
    assert.deepEqual(s.sweep().deleted, ["/memories/session.md"]);
    assert.equal(exists("session.md"), false);

    await sb.clock.advance(40 * DAY); // ~41 days
    assert.deepEqual(s.sweep().deleted, []);
    assert.ok(exists("episode.md"));

    await sb.clock.advance(2 * DAY); // ~43 days
    assert.deepEqual(s.sweep().deleted, ["/memories/episode.md"]);
    assert.equal(exists("episode.md"), false);

    await sb.clock.advance(140 * DAY); // ~183 days
    const report = s.sweep();
    assert.deepEqual(report.deleted, []);
    assert.deepEqual(report.stale.sort(), ["/memories/fact.md", "/memories/legacy.md"]);
    assert.equal(s.list().stats["project-fact"].stale, 2);
    assert.equal(s.list().files.find((f) => f.path === "/memories/fact.md")?.stale, true);

    await sb.clock.advance(3650 * DAY); // ten years: nothing else is ever deleted
    assert.deepEqual(s.sweep().deleted, []);
    assert.ok(exists("fact.md") && exists("pref.md") && exists("legacy.md"));

    // Touching a fact (an edit) clears its stale flag.
    s.strReplace("/memories/fact.md", "a fact", "a fact, re-checked");
    touch(`${sb.root}/fact.md`, sb.clock.now());
    assert.deepEqual(s.sweep().stale, ["/memories/legacy.md"]);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("sweep: re-reads a file before deleting it (same mtime and size, new category)", async () => {
  const sb = await sandbox();
  try {
    sb.store.create("/memories/x.md", "---\ncategory: session\n---\nscratch\n");
    touch(`${sb.root}/x.md`, sb.clock.now());
    sb.store.refresh();
    // Outside the tool, the file becomes a preference with the same size and mtime, which
    // the cheap mtime/size check cannot see; the sweep re-reads before it deletes.
    Deno.writeTextFileSync(`${sb.root}/x.md`, "---\ncategory: preference\n---\nkeep\n");
    touch(`${sb.root}/x.md`, sb.clock.now());
    await sb.clock.advance(30 * HOUR);
    assert.deepEqual(sb.store.sweep().deleted, []);
    assert.equal(Deno.readTextFileSync(`${sb.root}/x.md`).includes("keep"), true);
    assert.equal(sb.store.list().files[0]?.category, "preference", "index corrected");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("sweep: the planner is pure", () => {
  const base = { size: 1, workspace: null, legacy: false, title: "t" };
  const plan = planSweep([
    { ...base, path: "s", category: "session", mtimeMs: 0 },
    { ...base, path: "e", category: "episodic", mtimeMs: 0 },
    { ...base, path: "f", category: "project-fact", mtimeMs: 0 },
    { ...base, path: "p", category: "preference", mtimeMs: 0 },
  ], 200 * DAY);
  assert.deepEqual(plan, { expired: ["s", "e"], stale: ["f"] });
});

Deno.test("sweep: the index's candidate filter agrees with the planner at every boundary", async () => {
  const sb = await sandbox();
  try {
    const now = sb.clock.now().getTime();
    const ages = [0, HOUR, DAY - 1, DAY, DAY + 1, 42 * DAY, 42 * DAY + 1, 182 * DAY, 182 * DAY + 1];
    const kinds = ["session", "episodic", "project-fact", "preference", null];
    let i = 0;
    for (const kind of kinds) {
      for (const age of ages) {
        const name = `f${i++}.md`;
        const text = kind ? `---\ncategory: ${kind}\n---\nx\n` : "legacy, no frontmatter\n";
        Deno.writeTextFileSync(`${sb.root}/${name}`, text);
        touch(`${sb.root}/${name}`, new Date(now - age));
      }
    }
    sb.store.refresh();
    const index = RecallIndex.open(sb.store.root);
    try {
      const all = index.all();
      assert.equal(all.length, kinds.length * ages.length);
      for (const at of [now, now + 1, now + DAY, now + 200 * DAY]) {
        assert.deepEqual(planSweep(index.sweepCandidates(at), at), planSweep(all, at));
      }
      assert.ok(planSweep(all, now).expired.length > 0 && planSweep(all, now).stale.length > 0);
    } finally {
      index.close();
    }
  } finally {
    await sb.cleanup();
  }
});

Deno.test("sweep: the curated MEMORY.md is never swept or flagged, whatever its category", async () => {
  const sb = await sandbox({ workspace: "/repo" });
  try {
    // Through the tool without frontmatter (once stamped episodic), then hand-written ones.
    sb.store.create("/memories/MEMORY.md", "# Index\n- facts/ holds the build notes\n");
    const texts = [
      null,
      "---\ncategory: episodic\nworkspace: /repo\n---\n# Index\n",
      "---\ncategory: session\n---\n# Index\n",
      "# Index, no frontmatter\n",
    ];
    for (const text of texts) {
      if (text !== null) Deno.writeTextFileSync(`${sb.root}/MEMORY.md`, text);
      touch(`${sb.root}/MEMORY.md`, sb.clock.now());
      sb.store.refresh();
      await sb.clock.advance(400 * DAY);
      const report = sb.store.sweep();
      assert.deepEqual(report, { deleted: [], stale: [], failed: [] }, String(text));
      assert.ok(Deno.statSync(`${sb.root}/MEMORY.md`).isFile, String(text));
    }
    // Only the root's MEMORY.md is the curated index: elsewhere the name is an ordinary file.
    sb.store.create("/memories/notes/MEMORY.md", "---\ncategory: episodic\n---\nold\n");
    await sb.clock.advance(43 * DAY);
    assert.deepEqual(sb.store.sweep().deleted, ["/memories/notes/MEMORY.md"]);
  } finally {
    await sb.cleanup();
  }
});
