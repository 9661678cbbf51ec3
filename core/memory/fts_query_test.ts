import assert from "node:assert/strict";
import { MAX_QUERY_TERMS, queryTerms, selectTerms, toFtsQuery } from "./fts_query.ts";
import { sandbox } from "../../tests/fixtures/memory/sandbox.ts";

const HOSTILE_QUERIES = [
  'foo" OR (',
  '"',
  '""""',
  "(",
  ")",
  "*",
  "^foo",
  "NEAR(a b, 3)",
  "a AND",
  "OR",
  "AND OR NOT",
  "NOT x",
  "title: secret",
  "path:.index",
  "{title body}: x",
  "-x +y",
  "foo*",
  "'); DROP TABLE files; --",
  "\u0000\u0001\u001f",
  "\\",
  "%2e%2e",
  ":",
  "x\"y'z`w",
  "🦀 rust 🦀",
  "e\u0301te\u0301 café",
  "مرحبا بالعالم",
  "日本語のテキスト",
  "a".repeat(10_000),
  "word ".repeat(5_000),
  "",
  "   \n\t ",
];

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
  for (const q of HOSTILE_QUERIES) {
    const m = toFtsQuery(q);
    if (m === null) continue;
    // Only "term" OR "term" …, each term letters/digits/marks.
    assert.match(m, /^"[\p{L}\p{N}\p{M}]+"( OR "[\p{L}\p{N}\p{M}]+")*$/u, JSON.stringify(q));
  }
});

Deno.test("fts query: hostile strings never throw from recall or search, data intact", async () => {
  const sb = await sandbox();
  try {
    sb.store.create(
      "/memories/preferences/style.md",
      "---\ncategory: preference\n---\n# Style\nUse tabs. Rust and café notes. 日本語のテキスト\n",
    );
    for (const q of HOSTILE_QUERIES) {
      assert.doesNotThrow(() => sb.store.recall(q), JSON.stringify(q.slice(0, 40)));
      assert.doesNotThrow(() => sb.store.search(q));
      assert.doesNotThrow(() => sb.store.recallReminder(q));
    }
    assert.equal(sb.store.search("rust 🦀")[0]?.path, "/memories/preferences/style.md");
    assert.equal(sb.store.search("café")[0]?.path, "/memories/preferences/style.md");
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
