// `deno task release` stages the assets of a version: both binaries for every target under
// their asset names, SHA256SUMS that `sha256sum -c` accepts, and the version's CHANGELOG.md
// section as the notes. Binaries cannot be compiled here (no denort), so stand-ins are staged
// through --binaries, the same path a CI job uses after its compile step.

import assert from "node:assert/strict";
import { assetName, releaseNotes } from "../scripts/release.ts";
import { TARGETS } from "../scripts/compile.ts";
import { VERSION } from "../cli/version.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const PROGRAMS = ["agent", "agent-outpost"];

async function release(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/scripts/release.ts`, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

async function stageBinaries(dir: string, skip?: string): Promise<void> {
  for (const target of TARGETS) {
    await Deno.mkdir(`${dir}/${target}`, { recursive: true });
    for (const program of PROGRAMS) {
      const path = `${dir}/${target}/${program}`;
      if (path !== skip) await Deno.writeTextFile(path, `#!/bin/sh\necho ${program} ${target}\n`);
    }
  }
}

Deno.test("the release holds every binary, checksums sha256sum accepts, and the version's notes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "agent-release-" });
  try {
    await stageBinaries(`${dir}/bin`);
    const r = await release(["--binaries", `${dir}/bin`, "--out", `${dir}/out`]);
    assert.equal(r.code, 0, r.stderr);
    const names = [...Deno.readDirSync(`${dir}/out`)].map((e) => e.name).sort();
    const assets = TARGETS.flatMap((t) => PROGRAMS.map((p) => assetName(p as "agent", t)));
    assert.deepEqual(names, [...assets, "RELEASE_NOTES.md", "SHA256SUMS"].sort());
    assert.equal(
      assetName("agent-outpost", "aarch64-apple-darwin"),
      "agent-outpost-aarch64-apple-darwin",
    );
    assert.equal(
      await Deno.readTextFile(`${dir}/out/agent-x86_64-apple-darwin`),
      "#!/bin/sh\necho agent x86_64-apple-darwin\n",
    );
    const sums = await Deno.readTextFile(`${dir}/out/SHA256SUMS`);
    assert.equal(sums.trim().split("\n").length, assets.length);
    const check = await new Deno.Command("sha256sum", {
      args: ["-c", "SHA256SUMS"],
      cwd: `${dir}/out`,
      stdout: "piped",
    }).output();
    assert.ok(check.success, new TextDecoder().decode(check.stdout));
    const notes = await Deno.readTextFile(`${dir}/out/RELEASE_NOTES.md`);
    assert.equal(notes, releaseNotes(await Deno.readTextFile(`${ROOT}/CHANGELOG.md`), VERSION));
    assert.match(notes, new RegExp(`^# agent ${VERSION.replaceAll(".", "\\.")}\n`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing binary or changelog section stops the release with one line, writing nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "agent-release-" });
  try {
    const missing = `${dir}/bin/aarch64-unknown-linux-gnu/agent-outpost`;
    await stageBinaries(`${dir}/bin`, missing);
    const r = await release(["--binaries", `${dir}/bin`, "--out", `${dir}/out`]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stderr.trim(),
      `release: missing binary ${missing} (run deno task compile first)`,
    );
    await assert.rejects(Deno.stat(`${dir}/out`), Deno.errors.NotFound);
    const v = await release([
      "--binaries",
      `${dir}/bin`,
      "--out",
      `${dir}/out`,
      "--version",
      "9.9.9",
    ]);
    assert.equal(v.code, 1);
    assert.equal(
      v.stderr.trim(),
      'release: CHANGELOG.md has no "## [9.9.9]" section; write one first',
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("release notes are the body of the version's section only", () => {
  const log =
    "# Changelog\n\n## [Unreleased]\n\n- next\n\n## [1.2.0] - 2026-01-01\n\n- a\n- b\n\n## [1.1.0]\n\n- old\n";
  assert.equal(releaseNotes(log, "1.2.0"), "# agent 1.2.0\n\n- a\n- b\n");
  assert.equal(releaseNotes(log, "1.1.0"), "# agent 1.1.0\n\n- old\n");
  assert.throws(() => releaseNotes("## [1.0.0]\n\n## [0.9.0]\n- x\n", "1.0.0"), /section is empty/);
  assert.throws(() => releaseNotes(log, "1.2"), /no "## \[1\.2\]" section/);
});
