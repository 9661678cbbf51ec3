import assert from "node:assert/strict";
import { MAX_QUERY_TERMS, queryTerms, selectTerms, toFtsQuery } from "./fts_query.ts";
import { sandbox } from "../../tests/fixtures/memory/sandbox.ts";

/**
 * Hostile user text and the MATCH expression it must become: its words (two or more letters or
 * digits, not a stop word, at most 64 characters) quoted and OR-ed, or null when it has none.
 */
const HOSTILE_QUERIES: [string, string | null][] = [
  ['foo" OR (', '"foo"'],
  ['"', null],
  ['""""', null],
  ["(", null],
  [")", null],
  ["*", null],
  ["^foo", '"foo"'],
  ["NEAR(a b, 3)", '"near"'],
  ["a AND", null],
  ["OR", null],
  ["AND OR NOT", null],
  ["NOT x", null],
  ["title: secret", '"title" OR "secret"'],
  ["path:.index", '"path" OR "index"'],
  ["{title body}: x", '"title" OR "body"'],
  ["-x +y", null],
  ["foo*", '"foo"'],
  ["'); DROP TABLE files; --", '"drop" OR "table" OR "files"'],
  ["\u0000\u0001\u001f", null],
  ["\\", null],
  ["%2e%2e", '"2e"'],
  [":", null],
  ["x\"y'z`w", null],
  ["🦀 rust 🦀", '"rust"'],
  ["e\u0301te\u0301 café", '"été" OR "café"'],
  ["مرحبا بالعالم", '"مرحبا" OR "بالعالم"'],
  ["日本語のテキスト", '"日本語のテキスト"'],
  ["a".repeat(10_000), null], // one word, over the 64-character cap
  ["word ".repeat(5_000), '"word"'],
  ["", null],
  ["   \n\t ", null],
];

/** A memory that holds every word of HOSTILE_QUERIES, so each query with a word finds it. */
const EVERY_WORD = "foo near title secret path index body drop table files 2e rust été café " +
  "مرحبا بالعالم 日本語のテキスト word";

Deno.test("fts query: user text becomes quoted OR terms, stop words dropped", () => {
  assert.equal(toFtsQuery("What's my preferred editor?"), '"preferred" OR "editor"');
  assert.equal(toFtsQuery("Postgres postgres POSTGRES"), '"postgres"');
  assert.equal(toFtsQuery("the a an"), null);
  assert.equal(toFtsQuery(""), null);
  assert.deepEqual(queryTerms("snake_case file-names"), ["snake", "case", "file", "names"]);
  const many = Array.from({ length: 100 }, (_, i) => `term${i}`).join(" ");
  assert.equal(queryTerms(many).length, MAX_QUERY_TERMS);
});

Deno.test("fts query: hostile strings never yield FTS5 syntax", () => {
  assert.ok(HOSTILE_QUERIES.some(([, m]) => m !== null), "the table has inputs with words");
  for (const [q, expected] of HOSTILE_QUERIES) {
    const m = toFtsQuery(q);
    assert.equal(m, expected, JSON.stringify(q.slice(0, 40)));
    if (m === null) continue;
    // Only "term" OR "term" …, each term letters/digits/marks.
    assert.match(m, /^"[\p{L}\p{N}\p{M}]+"( OR "[\p{L}\p{N}\p{M}]+")*$/u, JSON.stringify(q));
  }
});

Deno.test("fts query: hostile strings never throw from recall or search, data intact", async () => {
  const sb = await sandbox();
  const path = "/memories/preferences/style.md";
  try {
    sb.store.create(path, `---\ncategory: preference\n---\n# Style\nUse tabs. ${EVERY_WORD}\n`);
    for (const [q, expected] of HOSTILE_QUERIES) {
      const label = JSON.stringify(q.slice(0, 40));
      // A query with a word finds the memory holding it; one without finds nothing.
      const found = expected === null ? [] : [path];
      assert.deepEqual(sb.store.recall(q).map((h) => h.path), found, `recall ${label}`);
      assert.deepEqual(sb.store.search(q).map((h) => h.path), found, `search ${label}`);
      assert.equal(sb.store.recallReminder(q)?.includes(path) ?? false, expected !== null, label);
    }
    assert.equal(sb.store.list().files.length, 1);
    assert.equal(sb.store.searchableCount(), 1);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("fts query: ranking keeps the rarest terms within the match budget", () => {
  const df: Record<string, number> = { common: 5000, mid: 400, rare: 30, absent: 0, other: 450 };
  const freq = (t: string) => df[t] ?? 0;
  assert.deepEqual(selectTerms(["common"], freq), ["common"], "a single term is never dropped");
  assert.deepEqual(selectTerms(["common", "mid", "rare", "absent", "other"], freq), [
    "rare",
    "mid",
    "other",
  ]);
  // The rarest term is kept even when it alone is over budget.
  assert.deepEqual(selectTerms(["common", "absent"], freq), ["common"]);
  assert.deepEqual(selectTerms(["absent", "absent2"], freq), []);
  assert.deepEqual(
    selectTerms(["a", "b", "c"], () => 1, { maxTerms: 2, matchBudget: 1000 }),
    ["a", "b"],
    "ties keep message order",
  );
});

Deno.test("fts query: plain ASCII text gives the same words as the Unicode rule", () => {
  // The general rule, which non-ASCII text still takes: NFKC, lowercase, letter/digit/mark runs.
  const unicodeWords = (text: string) =>
    queryTerms(`${text} é`).filter((w) => w !== "é").slice(0, MAX_QUERY_TERMS);
  const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");
  const samples = [
    printable,
    "Fix the FAILING test in src/app_test.ts:42 (v2.0)\n\tthen run `deno task ok`",
    "über", // not ASCII: the general rule
    "x86_64 ARM64 IPv6 0xFF e2e O(n) C++ C# a1b2",
    "tabs\there\r\nand\nlines",
  ];
  for (const text of samples) assert.deepEqual(queryTerms(text), unicodeWords(text), text);
  assert.deepEqual(queryTerms("über straße"), ["über", "straße"]);
});
