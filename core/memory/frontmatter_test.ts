import assert from "node:assert/strict";
import { extractTitle, formatValue, normalizeOnCreate, parseMemory } from "./frontmatter.ts";

Deno.test("frontmatter: a fenced block is parsed; the body is what follows the fence", () => {
  const p = parseMemory("---\ncategory: preference\nTitle: X\n---\n# Hello\nbody\n");
  assert.equal(p.hasFrontmatter, true);
  assert.equal(p.category, "preference");
  assert.deepEqual(p.fields, { category: "preference", title: "X" });
  assert.equal(p.body, "# Hello\nbody\n");
  assert.equal(p.workspace, null);
  assert.equal(p.legacy, false);
});

Deno.test("frontmatter: rule 1 — no frontmatter reads as project-fact (legacy)", () => {
  for (const text of ["plain text\n", "", "# Title\n---\ncategory: preference\n---\n"]) {
    const p = parseMemory(text);
    assert.equal(p.hasFrontmatter, false);
    assert.equal(p.category, "project-fact");
    assert.equal(p.legacy, true);
    assert.equal(p.body, text);
  }
});

Deno.test("frontmatter: fences are required — a bare category line is content", () => {
  for (
    const text of [
      "category: preference\nbody\n",
      "---\ncategory: preference\nno closing fence\n",
      " ---\ncategory: preference\n---\n",
    ]
  ) {
    const p = parseMemory(text);
    assert.equal(p.hasFrontmatter, false, JSON.stringify(text));
    assert.equal(p.category, "project-fact");
  }
});

Deno.test("frontmatter: unknown or missing category on read is project-fact (never swept)", () => {
  assert.equal(parseMemory("---\ncategory: nonsense\n---\nx").category, "project-fact");
  assert.equal(parseMemory("---\nworkspace: /a\n---\nx").category, "project-fact");
  assert.equal(parseMemory("---\nworkspace: /a\n---\nx").legacy, false);
});

Deno.test("frontmatter: CRLF files, quoted values and empty workspace", () => {
  const p = parseMemory("---\r\ncategory: \"episodic\"\r\nworkspace: '/a b'\r\n---\r\nbody\r\n");
  assert.equal(p.category, "episodic");
  assert.equal(p.workspace, "/a b");
  assert.equal(p.body, "body\r\n");
  assert.equal(parseMemory("---\ncategory: episodic\nworkspace:\n---\n").workspace, null);
  assert.equal(parseMemory('---\nworkspace: "/x\\ny"\n---\n').workspace, "/x\ny");
});

Deno.test("frontmatter: rule 2 — missing or unknown category becomes episodic on create", () => {
  const a = normalizeOnCreate("just a note\n", "/repo");
  assert.equal(a.category, "episodic");
  assert.equal(a.text, "---\ncategory: episodic\nworkspace: /repo\n---\njust a note\n");
  assert.equal(a.changes.length, 2);

  const b = normalizeOnCreate("---\ncategory: bogus\ntitle: t\n---\nbody", "/repo");
  assert.equal(b.text, "---\ncategory: episodic\ntitle: t\nworkspace: /repo\n---\nbody");
  assert.match(b.changes[0] ?? "", /unknown category "bogus"/);

  const c = normalizeOnCreate("---\ntitle: t\n---\nbody", "/repo");
  assert.equal(c.text, "---\ncategory: episodic\ntitle: t\nworkspace: /repo\n---\nbody");
  // A bare category line is content, so the file gets its own frontmatter above it.
  const d = normalizeOnCreate("category: preference\nbody\n", "/repo");
  assert.equal(d.category, "episodic");
  assert.equal(
    d.text,
    "---\ncategory: episodic\nworkspace: /repo\n---\ncategory: preference\nbody\n",
  );
});

Deno.test("frontmatter: rule 3 — project-fact and episodic are stamped, preference is not", () => {
  const fact = normalizeOnCreate("---\ncategory: project-fact\n---\nx\n", "/repo");
  assert.equal(fact.workspace, "/repo");
  assert.equal(fact.text, "---\ncategory: project-fact\nworkspace: /repo\n---\nx\n");
  const pref = normalizeOnCreate("---\ncategory: preference\n---\nx\n", "/repo");
  assert.equal(pref.workspace, null);
  assert.equal(pref.text, "---\ncategory: preference\n---\nx\n");
  assert.deepEqual(pref.changes, []);
  const session = normalizeOnCreate("---\ncategory: session\n---\nx\n", "/repo");
  assert.equal(session.workspace, null);
});

Deno.test("frontmatter: rule 4 — explicit workspace values are kept verbatim", () => {
  for (const ws of ["global", "team-infra", "/some/other/repo", "'quoted label'"]) {
    const text = `---\ncategory: project-fact\nworkspace: ${ws}\n---\nx\n`;
    const n = normalizeOnCreate(text, "/repo");
    assert.equal(n.text, text, ws);
    assert.deepEqual(n.changes, []);
  }
  // An empty workspace key is not a value: it gets stamped in place.
  assert.equal(
    normalizeOnCreate("---\ncategory: episodic\nworkspace:\n---\nx", "/repo").text,
    "---\ncategory: episodic\nworkspace: /repo\n---\nx",
  );
});

Deno.test("frontmatter: awkward workspace paths round-trip", () => {
  for (const ws of ["/tmp/a: b", " /lead", "/x\ny", '"/q"']) {
    const n = normalizeOnCreate("note", ws);
    assert.equal(parseMemory(n.text).workspace, ws);
  }
  assert.equal(formatValue("/plain/path"), "/plain/path");
});

Deno.test("frontmatter: title is the first heading, else the first line, else the name", () => {
  assert.equal(extractTitle("intro\n## Build steps ##\n", "f.md"), "Build steps");
  assert.equal(extractTitle("\n\n  first line here\nsecond", "f.md"), "first line here");
  assert.equal(extractTitle("", "f.md"), "f.md");
  assert.equal(extractTitle("#".repeat(3) + " " + "x".repeat(300), "f").length, 100);
});
