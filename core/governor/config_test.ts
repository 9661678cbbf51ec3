import assert from "node:assert/strict";
import { join } from "node:path";
import { envFrom } from "../ports.ts";
import {
  DEFAULT_GOVERNOR_CONFIG,
  governorPath,
  loadGovernorConfig,
  mergeGovernorConfig,
  saveGovernorConfig,
  totalCapFrom,
} from "./config.ts";
import { GovernorConfigError } from "./errors.ts";

async function withHome(fn: (home: string) => Promise<void>) {
  const home = await Deno.makeTempDir();
  try {
    await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("defaults match spec 2.5 and a missing file gives them without writing one", () =>
  withHome(async (home) => {
    assert.deepEqual(DEFAULT_GOVERNOR_CONFIG, {
      max_concurrent: { api: 2, scheduled: 2 },
      queue_depth_max: 16,
      tokens_per_hour: { api: 0, scheduled: 0 },
      defer_when_interactive: false,
      defer_threshold: 2,
    });
    const path = governorPath(home);
    assert.equal(path, join(home, "outpost", "governor.json"));
    assert.deepEqual(await loadGovernorConfig(path), DEFAULT_GOVERNOR_CONFIG);
    await assert.rejects(() => Deno.stat(path), Deno.errors.NotFound);
  }));

Deno.test("a saved file round-trips; a partial file fills the rest from defaults", () =>
  withHome(async (home) => {
    const path = governorPath(home);
    const config = mergeGovernorConfig(
      DEFAULT_GOVERNOR_CONFIG,
      { max_concurrent: { api: 1 } },
      "t",
    );
    await saveGovernorConfig(path, config);
    assert.deepEqual(await loadGovernorConfig(path), config);
    await Deno.writeTextFile(path, '{"queue_depth_max": 4}');
    assert.deepEqual(await loadGovernorConfig(path), {
      ...DEFAULT_GOVERNOR_CONFIG,
      queue_depth_max: 4,
    });
  }));

Deno.test("a malformed governor.json is a clear error and is never overwritten with defaults", () =>
  withHome(async (home) => {
    const path = governorPath(home);
    await Deno.mkdir(join(home, "outpost"), { recursive: true });
    for (
      const [text, pattern] of [
        ['{"max_concurrent": {"api": 2', /is not valid JSON.*fix or delete the file/],
        ["[1, 2]", /expected a JSON object/],
        [
          '{"max_concurrent": {"api": -1}}',
          /max_concurrent\.api: expected a whole number in 0\.\.64, got -1/,
        ],
        ['{"max_concurrent": {"gpu": 1}}', /max_concurrent\.gpu: unknown class/],
        ['{"queue_depth": 3}', /queue_depth: unknown lever/],
        ['{"tokens_per_hour": {"api": 1.5}}', /tokens_per_hour\.api/],
        ['{"defer_when_interactive": "yes"}', /defer_when_interactive: expected true or false/],
        ['{"defer_threshold": 0}', /defer_threshold/],
      ] as const
    ) {
      await Deno.writeTextFile(path, text);
      await assert.rejects(() => loadGovernorConfig(path), (err: unknown) => {
        assert.ok(err instanceof GovernorConfigError, String(err));
        assert.equal(err.source, path);
        assert.match(err.message, pattern);
        return true;
      });
      assert.equal(await Deno.readTextFile(path), text, "file left as the operator wrote it");
    }
  }));

Deno.test("MAX_CONCURRENT_RUNS: default 4, a whole number 1..64, anything else is an error", () => {
  assert.equal(totalCapFrom(envFrom({})), 4);
  assert.equal(totalCapFrom(envFrom({ MAX_CONCURRENT_RUNS: " 6 " })), 6);
  for (const bad of ["0", "-2", "2.5", "many", "65"]) {
    assert.throws(() => totalCapFrom(envFrom({ MAX_CONCURRENT_RUNS: bad })), {
      name: "GovernorConfigError",
      message: /MAX_CONCURRENT_RUNS: .* is not a whole number in 1\.\.64/,
    });
  }
});
