// `agent adoption validate` as a whole process, started with the release permission flags
// (scripts/permissions.ts): violations with pointer and fix and exit 1; exit 0 when valid;
// the default file is adoption-declaration.json at the repository root.

import assert from "node:assert/strict";
import { ROOT, runAgent, tempHome } from "./agent_process.ts";

Deno.test("agent adoption validate: pointer and fix per violation, exit 1; a valid file exits 0", async () => {
  const home = await tempHome();
  try {
    const repo = `${home}/repo`;
    await Deno.mkdir(`${repo}/.git`, { recursive: true });
    await Deno.mkdir(`${repo}/sub/dir`, { recursive: true });
    await Deno.writeTextFile(
      `${repo}/adoption-declaration.json`,
      JSON.stringify({ spec_version: "1.0", patterns: { front_door: { adopted: false } } }),
    );
    // From a subfolder, the default is the file at the repository root.
    const bad = await runAgent(["adoption", "validate"], { home }, `${repo}/sub/dir`);
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(
      bad.stdout,
      /adoption-declaration\.json: \/spec_version: .*\n {2}fix: write it like "1\.0\.0"/,
    );
    assert.match(
      bad.stdout,
      /\/patterns\/front_door\/reason: required key reason is missing\n {2}fix: /,
    );
    assert.match(bad.stdout, /2 violations\n$/);

    await Deno.writeTextFile(
      `${home}/ok.json`,
      JSON.stringify({ spec_version: "1.0.0", patterns: {} }),
    );
    const good = await runAgent(["adoption", "validate", `${home}/ok.json`], { home }, repo);
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /ok\.json: valid adoption declaration/);

    const none = await runAgent(["adoption", "validate"], { home }, home);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /adoption-declaration\.json: no such file; create/);

    // This repository's own declaration is valid.
    const own = await runAgent(["adoption", "validate"], { home }, ROOT);
    assert.equal(own.code, 0, own.stdout + own.stderr);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
