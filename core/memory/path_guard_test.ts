import assert from "node:assert/strict";
import { MemoryPathError } from "./errors.ts";
import { isGoneError, parseVirtualPath, resolveMemoryPath } from "./path_guard.ts";
import { memoryTool } from "./memory_tool.ts";
import type { MemoryStore } from "./store.ts";
import {
  type Sandbox,
  sandbox,
  SENTINEL_TEXT,
  snapshotTree,
} from "../../tests/fixtures/memory/sandbox.ts";

// Hostile paths refused by the lexical checks alone (36 of them).
const LEXICAL_HOSTILE: string[] = [
  "../x.md",
  "../../etc/passwd",
  "/memories/../x.md",
  "/memories/../outside/secret.txt",
  "/memories/../../etc/passwd",
  "/memories/facts/../../outside/secret.txt",
  "/memories/..",
  "/memories/facts/..",
  "%2e%2e/x.md",
  "/memories/%2e%2e/outside/secret.txt",
  "/memories/%2E%2E/outside/secret.txt",
  "/memories/.%2e/outside/secret.txt",
  "/memories/%252e%252e/outside/secret.txt",
  "/memories/%25252e%25252e/outside/secret.txt",
  "/memories/..%2foutside%2fsecret.txt",
  "/memories/..%252foutside%252fsecret.txt",
  "/memories/%2e%2e%5coutside%5csecret.txt",
  "/memories/x%00.md",
  "/memories\\..\\outside\\secret.txt",
  "\\memories\\x.md",
  "/memories/facts\\..\\..\\outside",
  "/memories/x\0.md",
  "/memories/x.md\0",
  "/memories/a\nb.md",
  "/etc/passwd",
  "/outside/secret.txt",
  "//etc/passwd",
  "/memoriesX/x.md",
  "/memories-evil/x.md",
  "memories/x.md",
  "x.md",
  "~/x.md",
  "file:///etc/passwd",
  "",
  "/memories/.index/recall.db",
  "/memories/.index",
  "/memories/.hidden.md",
  "/memories/facts/.git/config",
  "/memories/./x.md",
  "/memories/facts/.",
  "/memories/...",
  "/memories/.tmp-abc",
];

const NON_STRINGS: unknown[] = [undefined, null, 42, {}, ["/memories/x.md"]];

function rootSnapshot(sb: Sandbox): string {
  // The index directory legitimately changes (WAL); everything else must not.
  return snapshotTree(sb.root).split("\n").filter((l) => !l.includes("/.index")).join("\n");
}

/** Every operation that takes a path, each expected to refuse `p` with MemoryPathError. */
function attempts(store: MemoryStore, p: unknown): [string, () => unknown][] {
  return [
    ["view", () => store.view(p)],
    ["view range", () => store.view(p, [1, 2])],
    ["create", () => store.create(p, "---\ncategory: preference\n---\npwned\n")],
    ["str_replace", () => store.strReplace(p, "TOP SECRET", "pwned")],
    ["insert", () => store.insert(p, 0, "pwned")],
    ["delete", () => store.delete(p)],
    ["rename from", () => store.rename(p, "/memories/moved.md")],
    ["rename to", () => store.rename("/memories/keep.md", p)],
    ["readBody", () => store.readBody(p)],
  ];
}

async function assertAllRefused(sb: Sandbox, paths: unknown[]): Promise<void> {
  sb.store.create("/memories/keep.md", "---\ncategory: preference\n---\nkeep me\n");
  const outsideBefore = sb.snapshotOutside();
  const rootBefore = rootSnapshot(sb);
  const tool = memoryTool(sb.store);
  const ctx = { workdir: sb.cwd, signal: new AbortController().signal };
  for (const p of paths) {
    for (const [op, fn] of attempts(sb.store, p)) {
      assert.throws(fn, MemoryPathError, `${op} ${JSON.stringify(p)} must be refused`);
    }
    for (
      const input of [{ command: "view", path: p }, { command: "create", path: p, file_text: "x" }]
    ) {
      const out = await tool.execute(input, ctx);
      assert.equal(out.type, "result");
      assert.equal(out.type === "result" && out.is_error, true, `tool ${JSON.stringify(p)}`);
      assert.match(out.content, /refused/);
      assert.doesNotMatch(out.content, /TOP SECRET/);
    }
  }
  assert.equal(sb.snapshotOutside(), outsideBefore, "nothing outside the root changed");
  assert.equal(Deno.readTextFileSync(sb.sentinel), SENTINEL_TEXT);
  assert.equal(rootSnapshot(sb), rootBefore, "nothing inside the root changed");
  assert.equal(sb.store.readBody("/memories/keep.md").body, "keep me\n");
}

Deno.test("path guard: table of lexical traversal variants is refused", async () => {
  assert.ok(LEXICAL_HOSTILE.length >= 30);
  const sb = await sandbox();
  try {
    for (const p of LEXICAL_HOSTILE) {
      assert.throws(() => parseVirtualPath(p), MemoryPathError, JSON.stringify(p));
    }
    const absolute = [`${sb.outside}/secret.txt`, sb.sentinel, `${sb.root}/keep.md`];
    await assertAllRefused(sb, [...LEXICAL_HOSTILE, ...absolute, ...NON_STRINGS]);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("path guard: refusals are typed and say what to do", () => {
  const err = (() => {
    try {
      parseVirtualPath("/memories/%2e%2e/x");
    } catch (e) {
      return e as MemoryPathError;
    }
    throw new Error("not refused");
  })();
  assert.equal(err.name, "MemoryPathError");
  assert.equal(err.reason, "encoded");
  assert.equal(err.path, '"/memories/%2e%2e/x"');
  assert.match(err.message, /percent-encoded/);
  assert.match(err.message, /plain path under \/memories/);
  assert.equal(
    (() => {
      try {
        parseVirtualPath("/memories/x\0y");
      } catch (e) {
        return (e as MemoryPathError).message;
      }
    })()?.includes("\\u0000"),
    true,
    "NUL is shown escaped",
  );
});

Deno.test("path guard: plain paths are canonicalized, never rewritten", () => {
  assert.deepEqual(parseVirtualPath("/memories"), []);
  assert.deepEqual(parseVirtualPath("/memories/"), []);
  assert.deepEqual(parseVirtualPath("/memories//facts///a.md"), ["facts", "a.md"]);
  assert.deepEqual(parseVirtualPath("/memories/a..b/c.d.md"), ["a..b", "c.d.md"]);
  assert.deepEqual(parseVirtualPath("/memories/50% off.md"), ["50% off.md"]);
  assert.deepEqual(parseVirtualPath("/memories/ünïcode ☃.md"), ["ünïcode ☃.md"]);
});

// Names that read as something else once Unicode compatibility forms are folded (NFKC):
// full-width dots and solidus, one- and two-dot leaders, ligatures, decomposed accents.
const COMPATIBILITY_FORMS: string[] = [
  "/memories/\uff0e\uff0e/outside/secret.txt", // ．．
  "/memories/facts/\uff0e\uff0e/\uff0e\uff0e/outside/secret.txt",
  "/memories/\uff0e\uff0e",
  "/memories/\u2025/x.md", // ‥ two dot leader
  "/memories/\u2024\u2024/x.md", // ․․ one dot leaders
  "/memories/\uff0e/x.md", // ．
  "/memories/\uff0eindex/recall.db", // ．index
  "/memories/\uff0ehidden.md",
  "/memories/facts\uff0f..\uff0f..\uff0foutside", // ／ full-width solidus
  "/memories/\ufb01le.md", // ﬁ ligature
  "/memories/cafe\u0301.md", // e + combining acute (NFKC composes it)
];

Deno.test("path guard: names that change under Unicode NFKC are refused with a clear message", async () => {
  for (const p of COMPATIBILITY_FORMS) {
    const err = (() => {
      try {
        parseVirtualPath(p);
      } catch (e) {
        return e as MemoryPathError;
      }
      throw new Error(`not refused: ${JSON.stringify(p)}`);
    })();
    assert.ok(err instanceof MemoryPathError, p);
    assert.equal(err.reason, "unicode", p);
    assert.match(err.message, /Unicode|NFKC/, p);
  }
  const dots = (() => {
    try {
      parseVirtualPath("/memories/\uff0e\uff0e/x.md");
    } catch (e) {
      return (e as MemoryPathError).message;
    }
  })();
  assert.match(dots ?? "", /reads as "\.\."/);
  const sb = await sandbox();
  try {
    await assertAllRefused(sb, COMPATIBILITY_FORMS);
    // Such a name made outside the tool is neither listed nor indexed (no command could open it).
    Deno.mkdirSync(`${sb.root}/\uff0e\uff0e`);
    Deno.writeTextFileSync(`${sb.root}/\uff0e\uff0e/x.md`, "zebra\n");
    sb.store.refresh();
    assert.doesNotMatch(sb.store.view("/memories"), /\uff0e/);
    assert.deepEqual(sb.store.search("zebra"), []);
  } finally {
    await sb.cleanup();
  }
  // Plain Unicode already in NFKC form stays allowed.
  assert.deepEqual(parseVirtualPath("/memories/caf\u00e9 \u2603.md"), ["caf\u00e9 \u2603.md"]);
});

Deno.test("path guard: symlinks that resolve outside the root are refused", async () => {
  const sb = await sandbox();
  try {
    Deno.mkdirSync(`${sb.root}/facts`);
    Deno.writeTextFileSync(`${sb.root}/facts/a.md`, "inside\n");
    Deno.symlinkSync(sb.sentinel, `${sb.root}/out.md`); // file link outside
    Deno.symlinkSync(sb.outside, `${sb.root}/outdir`); // symlinked sub-directory
    Deno.symlinkSync("../..", `${sb.root}/facts/up`); // relative link above the root
    Deno.symlinkSync(`${sb.outside}/new.md`, `${sb.root}/dangling.md`); // dangling, outside
    Deno.symlinkSync("loop", `${sb.root}/loop`); // self loop
    Deno.symlinkSync(".index", `${sb.root}/idx`); // in-root link into the hidden index
    Deno.symlinkSync("/etc", `${sb.root}/etc`);
    await sb.reopen();
    await assertAllRefused(sb, [
      "/memories/out.md",
      "/memories/outdir",
      "/memories/outdir/secret.txt",
      "/memories/outdir/new.md",
      "/memories/outdir/sub/new.md",
      "/memories/facts/up",
      "/memories/facts/up/outside/secret.txt",
      "/memories/facts/up/outside/new.md",
      "/memories/dangling.md",
      "/memories/loop",
      "/memories/loop/x.md",
      "/memories/idx/recall.db",
      "/memories/idx",
      "/memories/etc/passwd",
      "/memories/etc/pwned.md",
    ]);
    assert.throws(() => Deno.statSync(`${sb.outside}/new.md`), Deno.errors.NotFound);
    // The walk never follows links: nothing outside was indexed.
    assert.deepEqual(sb.store.search("secret sentinel"), []);
    // Deleting or moving a directory that holds a link to the outside touches only the link.
    const before = sb.snapshotOutside();
    Deno.mkdirSync(`${sb.root}/trash/deep`, { recursive: true });
    Deno.symlinkSync(sb.outside, `${sb.root}/trash/deep/out`);
    Deno.symlinkSync(sb.sentinel, `${sb.root}/trash/secret.md`);
    sb.store.rename("/memories/trash", "/memories/bin");
    assert.match(sb.store.view("/memories/bin"), /link\t\/memories\/bin\/secret\.md/);
    assert.match(sb.store.delete("/memories/bin"), /Successfully deleted/);
    assert.equal(sb.snapshotOutside(), before);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("path guard: a symlink staying inside the root resolves to its canonical path", async () => {
  const sb = await sandbox();
  try {
    sb.store.create("/memories/facts/a.md", "---\ncategory: preference\n---\nhello\n");
    Deno.symlinkSync("facts", `${sb.root}/alias`);
    const p = resolveMemoryPath(sb.store.root, "/memories/alias/a.md");
    assert.equal(p.virtual, "/memories/facts/a.md");
    assert.match(sb.store.view("/memories/alias/a.md"), /content of \/memories\/facts\/a\.md/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("path guard: a memory root swapped for a symlink after open is refused", async () => {
  const sb = await sandbox();
  try {
    sb.store.create("/memories/a.md", "---\ncategory: preference\n---\nx\n");
    Deno.copyFileSync(sb.sentinel, `${sb.outside}/a.md`);
    const before = sb.snapshotOutside();
    Deno.renameSync(sb.root, `${sb.root}.old`);
    Deno.symlinkSync(sb.outside, sb.root);
    for (const p of ["/memories", "/memories/a.md", "/memories/secret.txt", "/memories/b.md"]) {
      for (const [op, fn] of attempts(sb.store, p)) {
        assert.throws(fn, MemoryPathError, `${op} ${p}`);
      }
    }
    assert.throws(() => sb.store.cachedIndex() && sb.store.view("/memories"), MemoryPathError);
    assert.equal(sb.snapshotOutside(), before);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("path guard: a root configured through a symlink is resolved once at open", async () => {
  const sb = await sandbox();
  try {
    const link = `${sb.base}/mem-link`;
    Deno.symlinkSync(sb.root, link);
    const { openMemory } = await import("./store.ts");
    const store = await openMemory({ root: link, cwd: sb.cwd, clock: sb.clock });
    try {
      assert.equal(store.root, sb.root);
      store.create("/memories/x.md", "---\ncategory: preference\n---\nvia link\n");
      assert.equal(Deno.readTextFileSync(`${sb.root}/x.md`).includes("via link"), true);
    } finally {
      store.close();
    }
  } finally {
    await sb.cleanup();
  }
});

/** Swaps root/facts for a symlink to the outside directory (a racing attacker). */
function swapFactsOut(sb: Sandbox): void {
  Deno.renameSync(`${sb.root}/facts`, `${sb.root}/facts.real`);
  Deno.symlinkSync(sb.outside, `${sb.root}/facts`);
}

Deno.test("path guard: a link swapped in between check and use is caught", async (t) => {
  let armed: (() => void) | null = null;
  const hooks = {
    beforeUse() {
      const fn = armed;
      armed = null;
      fn?.();
    },
  };
  const cases: [string, (s: MemoryStore) => unknown][] = [
    ["view", (s) => s.view("/memories/facts/a.md")],
    ["readBody", (s) => s.readBody("/memories/facts/a.md")],
    ["str_replace", (s) => s.strReplace("/memories/facts/a.md", "inside", "pwned")],
    ["insert", (s) => s.insert("/memories/facts/a.md", 0, "pwned")],
    ["create new", (s) => s.create("/memories/facts/new.md", "pwned")],
    ["create over", (s) => s.create("/memories/facts/a.md", "pwned")],
    ["delete", (s) => s.delete("/memories/facts/a.md")],
    ["rename", (s) => s.rename("/memories/facts/a.md", "/memories/b.md")],
  ];
  for (const [name, run] of cases) {
    await t.step(name, async () => {
      const sb = await sandbox({ hooks });
      try {
        sb.store.create("/memories/facts/a.md", "---\ncategory: preference\n---\ninside\n");
        // The outside directory holds a same-named file, so a followed link would succeed.
        Deno.writeTextFileSync(`${sb.outside}/a.md`, SENTINEL_TEXT);
        const before = sb.snapshotOutside();
        armed = () => swapFactsOut(sb);
        assert.throws(() => run(sb.store), MemoryPathError);
        assert.equal(armed, null, "the swap happened");
        assert.equal(sb.snapshotOutside(), before);
        assert.equal(
          Deno.readTextFileSync(`${sb.root}/facts.real/a.md`),
          "---\ncategory: preference\n---\ninside\n",
        );
      } finally {
        armed = null;
        await sb.cleanup();
      }
    });
  }
});

Deno.test("path guard: the root itself cannot be deleted, renamed or written", async () => {
  const sb = await sandbox();
  try {
    sb.store.create("/memories/a.md", "---\ncategory: preference\n---\nx\n");
    for (const p of ["/memories", "/memories/", "/memories//"]) {
      assert.throws(() => sb.store.delete(p), MemoryPathError);
      assert.throws(() => sb.store.rename(p, "/memories/sub"), MemoryPathError);
      assert.throws(() => sb.store.rename("/memories/a.md", p), MemoryPathError);
      assert.throws(() => sb.store.create(p, "x"), MemoryPathError);
    }
    assert.ok(Deno.statSync(`${sb.root}/a.md`).isFile);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("path guard: only a gone or looping path reads as a race; a refusal is re-thrown as itself", () => {
  assert.equal(isGoneError(new Deno.errors.NotFound("x")), true);
  assert.equal(isGoneError(new Deno.errors.NotADirectory("x")), true);
  assert.equal(isGoneError(new Deno.errors.FilesystemLoop("x")), true);
  assert.equal(isGoneError(new Deno.errors.NotCapable("x")), false);
  assert.equal(isGoneError(new Deno.errors.PermissionDenied("x")), false);
  assert.equal(isGoneError(new Error("EIO")), false);
});
