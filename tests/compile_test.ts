// `deno task compile` up to the point these machines can reach: the builds it plans (targets,
// output names, the permission flags and the include list of each), and the one clear line it
// ends with when Deno's denort runtime cannot be had (DENORT_BIN naming a missing file makes
// that deterministic, with or without a network).

import assert from "node:assert/strict";
import {
  compileArgs,
  EMBEDDED_DIRS,
  EMBEDDED_WORKERS,
  failureLine,
  missingDirs,
  parseTargets,
  plan,
  removeEmptyDirs,
  TARGETS,
} from "../scripts/compile.ts";
import { ENTRY_POINTS } from "../scripts/permissions.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("the release targets are Linux and macOS on x86_64 and arm64", () => {
  assert.deepEqual([...TARGETS].sort(), [
    "aarch64-apple-darwin",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "x86_64-unknown-linux-gnu",
  ]);
  assert.deepEqual(parseTargets(undefined), [...TARGETS]);
  assert.deepEqual(parseTargets("all"), [...TARGETS]);
  assert.deepEqual(parseTargets("host", "aarch64-apple-darwin"), ["aarch64-apple-darwin"]);
  assert.throws(() => parseTargets("host", "x86_64-pc-windows-msvc"), /x86_64-pc-windows-msvc/);
  assert.throws(() => parseTargets("linux"), /--target: "linux" is not one of/);
});

Deno.test("every target builds both programs under its own name with the program's flags", () => {
  const builds = plan(TARGETS, "dist", "/r");
  assert.equal(builds.length, TARGETS.length * 2);
  for (const b of builds) {
    assert.equal(b.output, `dist/${b.target}/${b.program}`);
    assert.deepEqual(
      b.args,
      compileArgs(b.program, { out: `dist/${b.target}`, target: b.target, root: "/r" }),
    );
    const { engine, permissions, entry } = ENTRY_POINTS[b.program];
    assert.deepEqual(b.args.slice(1, 1 + engine.length + permissions.length), [
      ...engine,
      ...permissions,
    ]);
    assert.equal(b.args[b.args.indexOf("--target") + 1], b.target);
    assert.equal(b.args.at(-1), `/r/${entry}`);
    assert.ok(!b.args.includes("-A") && !b.args.includes("--allow-all"));
  }
  assert.equal(new Set(builds.map((b) => b.output)).size, builds.length, "no two builds collide");
  // One target (the Containerfile's `--target host`) writes straight into the folder.
  assert.deepEqual(plan(["x86_64-unknown-linux-gnu"], "/stage/bin").map((b) => b.output), [
    "/stage/bin/agent",
    "/stage/bin/agent-outpost",
  ]);
});

Deno.test("the include list names the data folders and worker modules, all present", async () => {
  for (const program of Object.keys(ENTRY_POINTS) as (keyof typeof ENTRY_POINTS)[]) {
    const args = compileArgs(program, { out: "d" });
    const included = args.flatMap((a, i) => (args[i - 1] === "--include" ? [a] : []));
    assert.deepEqual(included, [
      ...EMBEDDED_DIRS.map((d) => `${ROOT}/${d}`),
      ...EMBEDDED_WORKERS[program].map((f) => `${ROOT}/${f}`),
    ]);
    for (const path of included) await Deno.stat(path);
  }
});

Deno.test("a missing denort runtime ends the compile with one clear line and no binary", async () => {
  const out = await Deno.makeTempDir({ prefix: "agent-compile-" });
  try {
    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        `${ROOT}/scripts/compile.ts`,
        "--target",
        "aarch64-apple-darwin",
        "--out",
        out,
      ],
      env: { DENORT_BIN: `${out}/no-such-denort`, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(run.stderr).trim().split("\n");
    assert.equal(run.code, 1);
    assert.deepEqual(stderr.slice(0, -1), [
      `compiling agent for aarch64-apple-darwin → ${out}/agent`,
    ]);
    assert.match(
      stderr.at(-1)!,
      /^compile: Deno's denort runtime for aarch64-apple-darwin is unavailable \(Could not find denort at '.*no-such-denort'\); build where https:\/\/dl\.deno\.land is reachable, or set DENORT_BIN/,
    );
    assert.deepEqual([...Deno.readDirSync(out)], [], "nothing half-written is left");
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("a failed compile of every target leaves no empty dist/<target>/ behind", async () => {
  const dir = await Deno.makeTempDir({ prefix: "agent-compile-" });
  try {
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `${ROOT}/scripts/compile.ts`, "--out", `${dir}/dist`],
      cwd: dir,
      env: { DENORT_BIN: `${dir}/no-such-denort`, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(run.code, 1);
    assert.match(
      new TextDecoder().decode(run.stderr),
      /denort runtime for x86_64-unknown-linux-gnu/,
    );
    assert.deepEqual([...Deno.readDirSync(dir)], [], "neither dist/ nor dist/<target>/ is left");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("after a failure only the folders the run made and left empty go", async () => {
  const dir = await Deno.makeTempDir({ prefix: "agent-compile-" });
  try {
    const created = missingDirs(`${dir}/dist/b`);
    assert.deepEqual(created, [`${dir}/dist/b`, `${dir}/dist`]);
    // An earlier target's binary is in dist/a; dist/b was made and is empty; dist/c never was.
    await Deno.mkdir(`${dir}/dist/a`, { recursive: true });
    await Deno.mkdir(`${dir}/dist/b`);
    await Deno.writeTextFile(`${dir}/dist/a/agent`, "bin");
    removeEmptyDirs([...created, `${dir}/dist/a`, `${dir}/dist/c`]);
    assert.deepEqual([...Deno.readDirSync(`${dir}/dist`)].map((e) => e.name), ["a"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a compile failing for another reason says which build failed and its exit code", () => {
  const [build] = plan(["x86_64-apple-darwin"], "d", "/r");
  assert.equal(
    failureLine(build!, 1, 'error: Module not found "file:///r/cli/main.ts".\n'),
    "compile: deno compile of agent for x86_64-apple-darwin failed (exit 1)",
  );
  assert.match(
    failureLine(
      build!,
      1,
      "error: …\n\nCaused by:\n    0: Setting up base binary.\n    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-x86_64-apple-darwin.zip): dns error\n",
    ),
    /denort runtime for x86_64-apple-darwin is unavailable \(error sending request for url \(https:\/\/dl\.deno\.land\/release\/v2\.9\.6\/denort-x86_64-apple-darwin\.zip\): dns error\)/,
  );
});
