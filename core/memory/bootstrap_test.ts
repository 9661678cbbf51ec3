import assert from "node:assert/strict";
import {
  BOOTSTRAP_LIMITS,
  bootstrapFallback,
  bootstrapMemory,
  collectBootstrapSources,
  FALLBACK_PATH,
} from "./bootstrap.ts";
import type { ReflectionRunner } from "./reflection.ts";
import { REFLECTION_TIMEOUT_INTERACTIVE_MS } from "./limits.ts";
import { FakeClock, flushMicrotasks } from "../../tests/fakes/clock.ts";
import { type Sandbox, sandbox, SENTINEL_TEXT } from "../../tests/fixtures/memory/sandbox.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";

function writeRepo(sb: Sandbox): void {
  const w = sb.cwd;
  Deno.writeTextFileSync(`${w}/AGENTS.md`, "# Agent rules\nRun `deno task ok` before finishing.\n");
  Deno.writeTextFileSync(`${w}/CLAUDE.md`, "# Claude notes\nSee AGENTS.md.\n");
  Deno.writeTextFileSync(
    `${w}/readme.md`,
    "# Widget\n\nWidget turns gizmos into widgets.\nIt is fast.\n\n## Usage\n",
  );
  Deno.writeTextFileSync(`${w}/STATUS.md`, "# Status\nMilestone 2 in progress.\n");
  Deno.mkdirSync(`${w}/docs`);
  Deno.writeTextFileSync(`${w}/docs/b.md`, "# B doc\n");
  Deno.writeTextFileSync(`${w}/docs/a.md`, "# A doc\n" + "y".repeat(40_000));
  Deno.writeTextFileSync(`${w}/docs/image.png`, "\0PNG");
  Deno.writeTextFileSync(`${w}/docs/blob.md`, "bin\0ary");
  Deno.symlinkSync(sb.sentinel, `${w}/docs/leak.md`); // must not be read
  Deno.symlinkSync(sb.sentinel, `${w}/CONVENTIONS.md`);
}

Deno.test("bootstrap: collects agent, status, readme and docs files, confined and capped", async () => {
  const sb = await sandbox();
  try {
    writeRepo(sb);
    const sources = collectBootstrapSources(sb.cwd);
    assert.deepEqual(sources.map((s) => [s.path, s.kind]), [
      ["AGENTS.md", "agent"],
      ["CLAUDE.md", "agent"],
      ["STATUS.md", "status"],
      ["readme.md", "readme"],
      ["docs/a.md", "docs"],
      ["docs/b.md", "docs"],
    ]);
    const a = sources.find((s) => s.path === "docs/a.md")!;
    assert.equal(a.truncated, true);
    assert.equal(a.text.length, BOOTSTRAP_LIMITS.perFileBytes);
    assert.ok(sources.every((s) => !s.text.includes("TOP SECRET")));
  } finally {
    await sb.cleanup();
  }
});

Deno.test("bootstrap: a missing source, or one below a file, is simply absent", async () => {
  const dir = Deno.realPathSync(await Deno.makeTempDir({ prefix: "bootstrap_absent_" }));
  try {
    Deno.writeTextFileSync(`${dir}/README.md`, "# R\n\nHello.\n");
    Deno.writeTextFileSync(
      `${dir}/.github`,
      "a file, so .github/copilot-instructions.md is ENOTDIR",
    );
    Deno.writeTextFileSync(`${dir}/docs`, "a file named docs, not a folder");
    Deno.symlinkSync(`${dir}/gone.md`, `${dir}/AGENTS.md`); // dangling
    assert.deepEqual(collectBootstrapSources(dir).map((s) => s.path), ["README.md"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bootstrap: a source file or docs folder it may not read stops /memory init naming it", async () => {
  // Deno refuses the named paths (the agent's own flags plus --deny-read): each must be an
  // error naming the path, where the old code quietly left the file out.
  const base = Deno.realPathSync(await Deno.makeTempDir({ prefix: "bootstrap_refused_" }));
  try {
    const repos = ["agents", "linked", "docs"].map((name) => {
      const dir = `${base}/${name}`;
      Deno.mkdirSync(dir);
      Deno.writeTextFileSync(`${dir}/README.md`, "# R\n\nHello.\n");
      return dir;
    });
    const [agents, linked, docs] = repos as [string, string, string];
    Deno.writeTextFileSync(`${agents}/AGENTS.md`, "# Rules\n");
    // The link resolves (realPath is allowed on it); opening its target is refused.
    Deno.mkdirSync(`${linked}/notes`);
    Deno.writeTextFileSync(`${linked}/notes/agents.txt`, "# Rules\n");
    Deno.symlinkSync("notes/agents.txt", `${linked}/AGENTS.md`);
    Deno.mkdirSync(`${docs}/docs`);
    Deno.writeTextFileSync(`${docs}/docs/guide.md`, "# Guide\n");
    for (const dir of repos) assert.equal(collectBootstrapSources(dir).length, 2, dir);

    const lines = await runRefused(
      `const { collectBootstrapSources } = await import(repo + "core/memory/bootstrap.ts");
for (const dir of ${JSON.stringify(repos)}) {
  console.log(await outcome(() => collectBootstrapSources(dir).map((s) => s.path)));
}`,
      [
        `--deny-read=${agents}/AGENTS.md`,
        `--deny-read=${linked}/notes/agents.txt`,
        `--deny-read=${docs}/docs`,
      ],
    );
    const named = [
      `${agents}/AGENTS.md`,
      `${linked}/notes/agents.txt`,
      `${docs}/docs`,
    ].map((path, i) => lines[i]?.startsWith(`error: /memory init cannot read ${path}: `));
    assert.deepEqual(named, [true, true, true], lines.join("\n"));
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("bootstrap: one bounded pass where the model writes memory through the tool", async () => {
  const sb = await sandbox();
  try {
    writeRepo(sb);
    let seen: Parameters<ReflectionRunner>[0] | undefined;
    const r = await bootstrapMemory({
      memory: sb.store,
      workdir: sb.cwd,
      clock: sb.clock,
      timeoutMs: REFLECTION_TIMEOUT_INTERACTIVE_MS,
      run: async (inp) => {
        seen = inp;
        await inp.tools[0]!.execute({
          command: "create",
          path: "/memories/facts/checks.md",
          file_text: "---\ncategory: project-fact\n---\n# Checks\nRun deno task ok (AGENTS.md).\n",
        }, { workdir: sb.cwd, signal: inp.signal });
      },
    });
    assert.equal(r.ran, true);
    assert.equal(r.tool_calls, 1);
    assert.deepEqual(r.sources, [
      "AGENTS.md",
      "CLAUDE.md",
      "STATUS.md",
      "readme.md",
      "docs/a.md",
      "docs/b.md",
    ]);
    assert.ok(seen);
    assert.match(seen.system, /bootstrapping the persistent memory/);
    assert.match(seen.system, /# Memory/, "the current index is included");
    const text = seen.messages[0]?.parts[0];
    assert.ok(text?.type === "text");
    assert.match(text.text, /<file path="AGENTS.md" kind="agent">\n# Agent rules/);
    assert.match(text.text, /<file path="docs\/a.md" kind="docs" truncated="true">/);
    assert.doesNotMatch(text.text, /TOP SECRET/);
    assert.match(sb.store.cachedIndex(), /facts\/checks\.md — Checks \(project-fact\)/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("bootstrap: nothing to read is skipped; a hung runner is cut off", async () => {
  const sb = await sandbox();
  try {
    const none = await bootstrapMemory({
      memory: sb.store,
      workdir: sb.cwd,
      clock: sb.clock,
      timeoutMs: 1000,
      run: () => Promise.reject(new Error("must not run")),
    });
    assert.equal(none.ran, false);
    assert.match(none.skipped ?? "", /no agent, status, readme or docs files/);

    writeRepo(sb);
    const clock = new FakeClock();
    const pending = bootstrapMemory({
      memory: sb.store,
      workdir: sb.cwd,
      clock,
      timeoutMs: 20_000,
      run: () => new Promise(() => {}),
    });
    await flushMicrotasks();
    await clock.advance(20_000);
    const r = await pending;
    assert.equal(r.timed_out, true);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("bootstrap: the deterministic fallback writes one overview, never overwriting", async () => {
  const sb = await sandbox({ workspace: "/repo" });
  try {
    writeRepo(sb);
    const first = bootstrapFallback({ memory: sb.store, workdir: sb.cwd });
    assert.deepEqual(first.written, [FALLBACK_PATH]);
    const body = sb.store.readBody(FALLBACK_PATH);
    assert.equal(body.category, "project-fact");
    assert.equal(body.workspace, "/repo");
    assert.match(
      body.body,
      /^# Project overview: work\n\nWidget turns gizmos into widgets\. It is fast\.\n/,
    );
    assert.match(body.body, /- AGENTS\.md \(agent\): Agent rules/);
    assert.doesNotMatch(body.body, new RegExp(SENTINEL_TEXT.trim()));

    sb.store.strReplace(FALLBACK_PATH, "It is fast.", "It is fast. (edited)");
    const second = bootstrapFallback({ memory: sb.store, workdir: sb.cwd });
    assert.deepEqual(second.written, []);
    assert.deepEqual(second.skipped, [FALLBACK_PATH]);
    assert.match(sb.store.readBody(FALLBACK_PATH).body, /\(edited\)/);
  } finally {
    await sb.cleanup();
  }
});
