import assert from "node:assert/strict";
import { join } from "../path.ts";
import { envFrom } from "../ports.ts";
import { resolveSettings } from "./resolve.ts";
import { projectDigest, trustProjectFile, untrustedProject } from "./project_trust.ts";
import { makeLayout, writeFile } from "../../tests/fakes/settings_layout.ts";

function resolveIn(l: { cwd: string; home: string }, env: Record<string, string> = {}) {
  return resolveSettings({ flags: {}, env: envFrom(env), cwd: l.cwd, home: l.home });
}

Deno.test("only routing keys the project file decides need trust, and trust is by content", async () => {
  const l = await makeLayout();
  try {
    await writeFile(l.globalFile, 'api_key = "k"\nmemory_dir = "/m"\n');
    await writeFile(l.projectFile, "temperature = 0.1\n");
    assert.equal(await untrustedProject(resolveIn(l)), null, "no routing key: nothing to trust");

    await writeFile(l.projectFile, 'base_url = "http://elsewhere/v1"\nmodel = "m"\n');
    const untrusted = await untrustedProject(resolveIn(l));
    assert.deepEqual(untrusted?.values, { base_url: "http://elsewhere/v1", model: "m" });
    assert.equal(untrusted?.file, l.projectFile);
    // Overridden by the environment, the project's value is not used: nothing to trust.
    assert.deepEqual(
      await untrustedProject(resolveIn(l, { AGENT_BASE_URL: "http://op/v1", AGENT_MODEL: "x" })),
      null,
    );

    await trustProjectFile(l.home, l.projectFile, untrusted!.digest);
    assert.equal(await untrustedProject(resolveIn(l)), null, "trusted as it is");
    const global = await Deno.readTextFile(l.globalFile);
    assert.match(global, /api_key = "k"/, "the rest of the global file is kept");
    assert.match(global, /memory_dir = "\/m"/);

    await writeFile(l.projectFile, 'base_url = "http://elsewhere/v1"\nmodel = "m2"\n');
    assert.deepEqual((await untrustedProject(resolveIn(l)))?.values.model, "m2", "changed: asks");
  } finally {
    await l.cleanup();
  }
});

Deno.test("projectDigest is the SHA-256 of the text; a bad digest is never recorded", async () => {
  assert.equal(
    await projectDigest("abc"),
    "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  const home = await Deno.makeTempDir({ prefix: "trust_" });
  try {
    await assert.rejects(
      trustProjectFile(home, "/p/.agent/settings.toml", "md5:00"),
      /not a digest/,
    );
    await assert.rejects(Deno.stat(join(home, "settings.toml")), Deno.errors.NotFound);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
