import assert from "node:assert/strict";
import * as node from "node:path";
import * as ours from "./path.ts";

const samples = [
  "/",
  "/a",
  "/a/b/",
  "a",
  "a/b",
  "./a",
  "../a",
  "a/../..",
  "/a/../..",
  "//a//b",
  "a/./b/../c",
  "",
  ".",
  "..",
  "/x/y.txt",
  "file.tar.gz",
  ".hidden",
  "/a/b/..",
  "a/b/../../../c",
];

Deno.test("normalize, dirname, basename, extname, isAbsolute agree with node:path", () => {
  for (const s of samples) {
    assert.equal(ours.normalize(s), strip(node.normalize(s)), `normalize ${s}`);
    if (s === "") continue;
    assert.equal(ours.dirname(s), node.dirname(s), `dirname ${s}`);
    assert.equal(ours.basename(s), node.basename(s), `basename ${s}`);
    assert.equal(ours.extname(s), node.extname(s), `extname ${s}`);
    assert.equal(ours.isAbsolute(s), node.isAbsolute(s), `isAbsolute ${s}`);
  }
});

Deno.test("join, resolve and relative agree with node:path", () => {
  const pairs: Array<[string, string]> = [
    ["/a/b", "c"],
    ["/a/b", "../c"],
    ["/a/b", "/c"],
    ["a", "b/../c"],
    ["/a", ""],
    ["/", "a"],
    ["/a/b/c", "/a/d"],
    ["/a", "/a"],
    ["/a/b", "/a/b/c/d"],
    ["/a/b/c", "/"],
  ];
  for (const [x, y] of pairs) {
    assert.equal(ours.join(x, y), strip(node.join(x, y)), `join ${x} ${y}`);
    assert.equal(ours.resolve(x, y), node.resolve(x, y), `resolve ${x} ${y}`);
    assert.equal(ours.relative(x, y), node.relative(x, y), `relative ${x} ${y}`);
  }
  assert.equal(ours.resolve("rel"), node.resolve("rel"));
  assert.equal(ours.basename("/a/b.ts", ".ts"), "b");
});

/** Our helpers never keep a trailing slash (Node's keep one from the input). */
function strip(p: string): string {
  return p.length > 1 && p.endsWith("/") ? p.slice(0, -1) : p;
}
