// The workspace brief reader: present, absent, capped, confined, and composed into the prompt.

import assert from "node:assert/strict";
import { BRIEF_MAX_BYTES, readWorkspaceBrief } from "./workspace_brief.ts";
import { composeSystemPrompt } from "./system_prompt.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";
import { fifoWithWriter } from "../../tests/fakes/hostile_report.ts";

async function workspace(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "brief-" }));
}

Deno.test("an AGENTS.md at the workspace root becomes the brief of the system prompt", async () => {
  const dir = await workspace();
  try {
    await Deno.writeTextFile(`${dir}/AGENTS.md`, "# House rules\nOnly read STATUS.md.\n");
    const { brief, warning } = await readWorkspaceBrief(dir);
    assert.equal(warning, undefined);
    assert.match(brief!, /^Workspace brief \(AGENTS\.md/);
    assert.match(brief!, /# House rules\nOnly read STATUS\.md\.$/);
    const system = composeSystemPrompt({
      workdir: dir,
      today: "2026-03-02",
      mode: "strict",
      brief: brief!,
    });
    assert.ok(system.includes("Only read STATUS.md."), system);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("no AGENTS.md, or an empty one, gives no brief", async () => {
  const dir = await workspace();
  try {
    assert.deepEqual(await readWorkspaceBrief(dir), {});
    await Deno.writeTextFile(`${dir}/AGENTS.md`, "  \n\n");
    assert.deepEqual(await readWorkspaceBrief(dir), {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a large AGENTS.md is cut at the cap on a line boundary, with a note", async () => {
  const dir = await workspace();
  try {
    const line = "é".repeat(39) + "\n"; // 79 bytes: the cap falls inside a character
    const text = line.repeat(Math.ceil((BRIEF_MAX_BYTES * 2) / line.length));
    await Deno.writeTextFile(`${dir}/AGENTS.md`, text);
    const { brief } = await readWorkspaceBrief(dir);
    const body = brief!.split("\n\n")[1]!;
    assert.ok(new TextEncoder().encode(body).length <= BRIEF_MAX_BYTES);
    assert.ok(!body.includes("\uFFFD"), "no broken character");
    assert.ok(body.split("\n").every((l) => l === "é".repeat(39)));
    assert.match(brief!, /only its first 16384 are shown/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an AGENTS.md symlink leading outside the workspace is not followed", async () => {
  const dir = await workspace();
  const outside = await workspace();
  try {
    await Deno.writeTextFile(`${outside}/secret.md`, "do something else");
    await Deno.symlink(`${outside}/secret.md`, `${dir}/AGENTS.md`);
    const { brief, warning } = await readWorkspaceBrief(dir);
    assert.equal(brief, undefined);
    assert.match(warning!, /leads outside the workspace/);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("an unreadable AGENTS.md is an error naming the file, never a missing brief", async () => {
  // Root reads a 000 file, so the agent's own flags plus a --deny-read make the refusal.
  const dir = await workspace();
  try {
    await Deno.writeTextFile(`${dir}/AGENTS.md`, "rules");
    const [line] = await runRefused(
      `const { readWorkspaceBrief } = await import(repo + "core/agent/workspace_brief.ts");
console.log(await outcome(() => readWorkspaceBrief(${JSON.stringify(dir)})));`,
      [`--deny-read=${dir}/AGENTS.md`],
    );
    assert.match(line!, /^error: cannot read the workspace brief .*AGENTS\.md/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an AGENTS.md that is a FIFO or a directory is skipped with one line, never opened", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "brief_fifo_" }));
  try {
    // Opening a FIFO for reading blocks until a writer comes. A writer waits on the other end,
    // so code that opened it would read "planted" as the brief instead of hanging the test;
    // code that never opens it leaves the writer waiting, and it is killed at the block's end.
    let got;
    {
      await using _writer = await fifoWithWriter(`${dir}/AGENTS.md`, "planted");
      got = await readWorkspaceBrief(dir);
    }
    assert.deepEqual(got, { warning: "AGENTS.md is a FIFO, not a regular file; it is not used" });
    await Deno.remove(`${dir}/AGENTS.md`);
    await Deno.mkdir(`${dir}/AGENTS.md`);
    assert.deepEqual(await readWorkspaceBrief(dir), {
      warning: "AGENTS.md is a directory, not a regular file; it is not used",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
