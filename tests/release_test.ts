// `deno task release` stages the assets of a version: both binaries for every target under
// their asset names, SHA256SUMS that `sha256sum -c` accepts, and the version's CHANGELOG.md
// section as the notes. Binaries cannot be compiled here (no denort), so stand-ins are staged
// through --binaries, the same path a CI job uses after its compile step.

import assert from "node:assert/strict";
import { assetName, releaseNotes } from "../scripts/release.ts";
import { targetFormatError } from "../scripts/executable_format.ts";
import { TARGETS } from "../scripts/compile.ts";
import { VERSION } from "../cli/version.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const PROGRAMS = ["agent", "agent-outpost"];

async function release(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/scripts/release.ts`, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

/**
 * A stand-in binary of a target: the real header of its format (ELF e_machine, Mach-O cputype)
 * and then the program's name, so each asset's bytes can be told apart.
 */
function standIn(target: string, program: string): Uint8Array {
  const head = new Uint8Array(64);
  const view = new DataView(head.buffer);
  if (target.includes("linux")) {
    head.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]); // ELF, 64-bit, little-endian
    view.setUint16(18, target.startsWith("x86_64") ? 0x3e : 0xb7, true);
  } else {
    head.set([0xcf, 0xfa, 0xed, 0xfe]); // Mach-O 64-bit
    view.setUint32(4, target.startsWith("x86_64") ? 0x01000007 : 0x0100000c, true);
  }
  return new Uint8Array([...head, ...new TextEncoder().encode(`${program} ${target}\n`)]);
}

async function stageBinaries(dir: string, skip?: string): Promise<void> {
  for (const target of TARGETS) {
    await Deno.mkdir(`${dir}/${target}`, { recursive: true });
    for (const program of PROGRAMS) {
      const path = `${dir}/${target}/${program}`;
      if (path !== skip) await Deno.writeFile(path, standIn(target, program));
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
    assert.deepEqual(
      await Deno.readFile(`${dir}/out/agent-x86_64-apple-darwin`),
      standIn("x86_64-apple-darwin", "agent"),
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
      `release: missing binary ${missing} (run \`deno task compile\` first, or pass --binaries DIR ` +
        "holding <target>/agent and <target>/agent-outpost as `deno task compile` writes them)",
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

Deno.test("a file that is not its target's executable stops the release, naming what it is", async () => {
  const cases: [string, (target: string) => Uint8Array, RegExp][] = [
    ["a script", () => new TextEncoder().encode("#!/bin/sh\necho hi\n"), /is a script \(#!\)/],
    [
      "another CPU",
      (t) => standIn(t.replace("x86_64", "aarch64"), "agent"),
      /is an executable for ELF aarch64, not the ELF x86_64 binary/,
    ],
    [
      "another OS",
      () => standIn("x86_64-apple-darwin", "agent"),
      /is an executable for Mach-O x86_64, not the ELF x86_64 binary/,
    ],
    ["a Windows PE", () => new TextEncoder().encode("MZ\x90\x00"), /is an executable for PE/],
    ["an empty file", () => new Uint8Array(), /is an empty file/],
  ];
  for (const [what, bytes, reason] of cases) {
    const dir = await Deno.makeTempDir({ prefix: "agent-release-" });
    try {
      await stageBinaries(`${dir}/bin`);
      const wrong = `${dir}/bin/x86_64-unknown-linux-gnu/agent`;
      await Deno.writeFile(wrong, bytes("x86_64-unknown-linux-gnu"));
      const r = await release(["--binaries", `${dir}/bin`, "--out", `${dir}/out`]);
      assert.equal(r.code, 1, what);
      const line = r.stderr.trim();
      assert.ok(line.startsWith(`release: ${wrong} is `), `${what}: ${line}`);
      assert.match(line, reason, what);
      assert.match(line, /--binaries DIR/, what);
      await assert.rejects(Deno.stat(`${dir}/out`), Deno.errors.NotFound, what);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("a release that cannot compile names --binaries and leaves no empty build folder", async () => {
  const dir = await Deno.makeTempDir({ prefix: "agent-release-" });
  try {
    const r = await release(["--out", `${dir}/out`], {
      DENORT_BIN: `${dir}/no-such-denort`,
      NO_COLOR: "1",
    });
    assert.equal(r.code, 1);
    const last = r.stderr.trim().split("\n").at(-1)!;
    assert.match(last, /^release: compiling failed \(exit 1, see above\)/);
    assert.match(last, /pass --binaries DIR/);
    await assert.rejects(Deno.stat(`${dir}/out/build`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the deno binary running this test passes as an executable of its own target", async () => {
  const host = TARGETS.find((t) => t === Deno.build.target);
  if (host === undefined) return; // not a release target (Windows): nothing to compare
  assert.equal(await targetFormatError(Deno.execPath(), host), null);
  const other = host.includes("linux") ? "x86_64-apple-darwin" : "x86_64-unknown-linux-gnu";
  assert.match((await targetFormatError(Deno.execPath(), other))!, /not the .* binary/);
});
