import assert from "node:assert/strict";
import { resolveWorkspace, resolveWorkspaceSync } from "./workspace.ts";
import { openMemory } from "./store.ts";
import { parseMemory } from "./frontmatter.ts";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { commandOnPath, peerTest } from "../../tests/peers.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";
import { fifoWithWriter } from "../../tests/fakes/hostile_report.ts";

function git(cwd: string, ...args: string[]): string {
  const out = new Deno.Command("git", {
    args: [
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@example.com",
      "-c",
      "init.defaultBranch=main",
      ...args,
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { GIT_CONFIG_NOSYSTEM: "1", HOME: cwd },
  }).outputSync();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

async function withTemp(fn: (base: string) => Promise<void>): Promise<void> {
  const base = Deno.realPathSync(await Deno.makeTempDir({ prefix: "memory_ws_" }));
  try {
    await fn(base);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

Deno.test("workspace: a plain directory is its own real path", async () => {
  await withTemp(async (base) => {
    Deno.mkdirSync(`${base}/plain`);
    Deno.symlinkSync(`${base}/plain`, `${base}/link`);
    assert.equal(await resolveWorkspace(`${base}/plain`), `${base}/plain`);
    assert.equal(await resolveWorkspace(`${base}/link`), `${base}/plain`);
  });
});

const gitProbe = () => commandOnPath("git") ? null : "git not installed (apt-get install git)";

peerTest("workspace: a linked git worktree stamps its main working tree", gitProbe, async () => {
  await withTemp(async (base) => {
    const main = `${base}/main`;
    Deno.mkdirSync(main);
    git(main, "init", "-q");
    Deno.writeTextFileSync(`${main}/README.md`, "hi\n");
    Deno.mkdirSync(`${main}/sub`);
    Deno.writeTextFileSync(`${main}/sub/x.txt`, "x\n");
    git(main, "add", ".");
    git(main, "commit", "-q", "-m", "init");
    git(main, "worktree", "add", "-q", `${base}/wt`, "-b", "feature");
    // Cross-check the detection against git itself.
    const common = Deno.realPathSync(
      git(`${base}/wt`, "rev-parse", "--path-format=absolute", "--git-common-dir"),
    );
    assert.equal(common, `${main}/.git`);

    assert.equal(await resolveWorkspace(main), main);
    assert.equal(await resolveWorkspace(`${base}/wt`), main);
    assert.equal(await resolveWorkspace(`${base}/wt/sub`), `${main}/sub`);
    assert.equal(await resolveWorkspace(`${main}/sub`), `${main}/sub`);

    // Through a symlinked path to the worktree, too.
    Deno.symlinkSync(`${base}/wt`, `${base}/wt-link`);
    assert.equal(await resolveWorkspace(`${base}/wt-link`), main);

    // A file created from the worktree is stamped with the main tree and surfaces there.
    const root = `${base}/mem`;
    const clock = new FakeClock(new Date());
    const fromWt = await openMemory({ root, cwd: `${base}/wt`, clock });
    try {
      fromWt.create(
        "/memories/facts/build.md",
        "---\ncategory: project-fact\n---\n# Build\nrun make\n",
      );
      const text = Deno.readTextFileSync(`${root}/facts/build.md`);
      assert.equal(parseMemory(text).workspace, main);
    } finally {
      fromWt.close();
    }
    const fromMain = await openMemory({ root, cwd: main, clock });
    try {
      assert.match(fromMain.cachedIndex(), /facts\/build\.md — Build/);
      assert.equal(fromMain.recall("make build")[0]?.path, "/memories/facts/build.md");
    } finally {
      fromMain.close();
    }
  });
});

Deno.test("workspace: a submodule-style gitfile without commondir keeps its own path", async () => {
  await withTemp(async (base) => {
    Deno.mkdirSync(`${base}/modules/sub`, { recursive: true });
    Deno.mkdirSync(`${base}/checkout`);
    Deno.writeTextFileSync(`${base}/checkout/.git`, `gitdir: ../modules/sub\n`);
    assert.equal(await resolveWorkspace(`${base}/checkout`), `${base}/checkout`);
    // A linked worktree of a bare repository has no main working tree either.
    Deno.mkdirSync(`${base}/repo.git/worktrees/w`, { recursive: true });
    Deno.writeTextFileSync(`${base}/repo.git/worktrees/w/commondir`, "../..\n");
    Deno.mkdirSync(`${base}/w`);
    Deno.writeTextFileSync(`${base}/w/.git`, `gitdir: ${base}/repo.git/worktrees/w\n`);
    assert.equal(await resolveWorkspace(`${base}/w`), `${base}/w`);
  });
});

Deno.test("workspace: rule 7 — a moved repository's files stop surfacing until re-stamped", async () => {
  await withTemp(async (base) => {
    const root = `${base}/mem`;
    const clock = new FakeClock(new Date());
    Deno.mkdirSync(`${base}/old`);
    const before = await openMemory({ root, cwd: `${base}/old`, clock });
    before.create("/memories/facts/api.md", "---\ncategory: project-fact\n---\n# API\nport 8080\n");
    before.close();
    Deno.renameSync(`${base}/old`, `${base}/new`);

    const after = await openMemory({ root, cwd: `${base}/new`, clock });
    try {
      assert.doesNotMatch(after.cachedIndex(), /api\.md/);
      assert.match(after.cachedIndex(), /1 file from 1 other workspace \(use view to see them\)/);
      assert.deepEqual(after.recall("api port"), []);
      // The file is still there (view is the cross-workspace surface) …
      assert.match(after.view("/memories/facts/api.md"), /port 8080/);
      // … and str_replace re-stamps it.
      after.strReplace(
        "/memories/facts/api.md",
        `workspace: ${base}/old`,
        `workspace: ${base}/new`,
      );
      assert.match(after.cachedIndex(), /facts\/api\.md — API/);
      assert.equal(after.recall("api port")[0]?.path, "/memories/facts/api.md");
    } finally {
      after.close();
    }
  });
});

/**
 * A linked-worktree layout as git writes it (no git needed): `<name>/main` and `<name>/wt`;
 * `commondir` points at the common dir (relative to the gitdir), and `gitdir` moves the
 * worktree's gitdir out of `main/.git` (as `git worktree add` never does, but a valid one).
 */
function fakeWorktree(
  base: string,
  name: string,
  opts: { commondir?: string; gitdir?: string } = {},
): { main: string; wt: string } {
  const main = `${base}/${name}/main`;
  const wt = `${base}/${name}/wt`;
  const gitdir = opts.gitdir ?? `${main}/.git/worktrees/wt`;
  Deno.mkdirSync(`${main}/.git`, { recursive: true });
  Deno.mkdirSync(gitdir, { recursive: true });
  Deno.mkdirSync(wt);
  Deno.writeTextFileSync(`${gitdir}/commondir`, `${opts.commondir ?? "../.."}\n`);
  Deno.writeTextFileSync(`${wt}/.git`, `gitdir: ${gitdir}\n`);
  return { main, wt };
}

Deno.test("workspace: a git pointer it may not read is an error naming it, never 'not a worktree'", async () => {
  await withTemp(async (base) => {
    // Each layout resolves to its main tree when nothing is refused …
    const pointer = fakeWorktree(base, "pointer");
    const common = fakeWorktree(base, "common");
    const viaLink = fakeWorktree(base, "link", { commondir: `${base}/link/common-link` });
    Deno.symlinkSync(`${viaLink.main}/.git`, `${base}/link/common-link`);
    const mainGit = fakeWorktree(base, "maingit", {
      commondir: `${base}/maingit/common-link`,
      gitdir: `${base}/maingit/gitdir`,
    });
    Deno.symlinkSync(`${mainGit.main}/.git`, `${base}/maingit/common-link`);
    const layouts = [pointer, common, viaLink, mainGit];
    for (const l of layouts) assert.equal(await resolveWorkspace(l.wt), l.main);
    // … and the old code, refused one of its reads, stamped the worktree's own path.
    const refused = [
      `${pointer.wt}/.git`, // the lstat that finds the .git file
      `${common.main}/.git/worktrees/wt/commondir`,
      `${base}/link/common-link`, // the common dir's real path
      `${mainGit.main}/.git`, // the main tree's .git, reached through an allowed link
    ];
    const lines = await runRefused(
      `const { resolveWorkspaceSync } = await import(repo + "core/memory/workspace.ts");
for (const wt of ${JSON.stringify(layouts.map((l) => l.wt))}) {
  console.log(await outcome(() => resolveWorkspaceSync(wt)));
}`,
      refused.map((p) => `--deny-read=${p}`),
    );
    const named = refused.map((path, i) =>
      lines[i]?.startsWith(`error: cannot work out the memory workspace: reading ${path} failed: `)
    );
    assert.deepEqual(named, [true, true, true, true], lines.join("\n"));
  });
});

Deno.test("a FIFO where git's commondir pointer should be is not a pointer and is never opened", async () => {
  const top = await Deno.realPath(await Deno.makeTempDir({ prefix: "ws_fifo_" }));
  try {
    // The workdir is the model's: it can write a `.git` file pointing at a FIFO.
    await Deno.mkdir(`${top}/gitdir`);
    await Deno.writeTextFile(`${top}/.git`, `gitdir: ${top}/gitdir\n`);
    await Deno.mkdir(`${top}/main/.git`, { recursive: true });
    // A writer waits: code that opened the FIFO would take this for the pointer.
    await using _pointer = await fifoWithWriter(`${top}/gitdir/commondir`, `${top}/main/.git`);
    assert.equal(resolveWorkspaceSync(top), top);
  } finally {
    await Deno.remove(top, { recursive: true });
  }
});
