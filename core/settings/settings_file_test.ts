import assert from "node:assert/strict";
import { join } from "../path.ts";
import { parse } from "smol-toml";
import { envFrom } from "../ports.ts";
import { SettingsError } from "./errors.ts";
import { resolveSettings } from "./resolve.ts";
import { setProviderKey, toggleFavorite, updateGlobalSettings } from "./settings_file.ts";

async function withHome(fn: (home: string, file: string) => Promise<void>): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "agent_settings_file_" });
  try {
    const home = join(root, ".agent");
    await fn(home, join(home, "settings.toml"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function readBack(file: string) {
  return parse(await Deno.readTextFile(file), { integersAsBigInt: "asNeeded" });
}

async function listDir(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) names.push(e.name);
  return names.sort();
}

const EXISTING = `# my settings
model = "m1"
temperature = 0.3
big = 99999999999999999999
when = 1979-05-27T07:32:00Z
model_favorites = ["fav-a"]

[provider_keys]
other = "k-other"

[thinking]
type = "enabled"

[[providers]]
id = "local"
base_url = "http://127.0.0.1:8000/v1"
`;

Deno.test("setProviderKey keeps every other key and setting", () =>
  withHome(async (home, file) => {
    await Deno.mkdir(home, { recursive: true });
    await Deno.writeTextFile(file, EXISTING);
    await setProviderKey(home, "hosted-messages", "  sk-new-key-1234  ");
    const doc = parse(await Deno.readTextFile(file), { integersAsBigInt: "asNeeded" });
    assert.deepEqual({ ...(doc.provider_keys as object) }, {
      other: "k-other",
      "hosted-messages": "sk-new-key-1234",
    });
    assert.equal(doc.model, "m1");
    assert.equal(doc.temperature, 0.3);
    assert.equal(doc.big, 99999999999999999999n);
    assert.equal((doc.when as Date).getTime(), Date.UTC(1979, 4, 27, 7, 32));
    assert.deepEqual(doc.model_favorites, ["fav-a"]);
    assert.equal((doc.thinking as Record<string, unknown>).type, "enabled");
    assert.equal((doc.providers as Array<Record<string, unknown>>)[0]?.id, "local");
    // Overwriting one provider's key leaves the other alone.
    await setProviderKey(home, "other", "k-other-2");
    const again = await readBack(file);
    assert.deepEqual({ ...(again.provider_keys as object) }, {
      other: "k-other-2",
      "hosted-messages": "sk-new-key-1234",
    });
    // The resolver sees the write.
    const s = resolveSettings({ flags: {}, env: envFrom({}), cwd: home, home });
    assert.equal(s.provider_keys["hosted-messages"], "sk-new-key-1234");
  }));

Deno.test("writes create the home with a 0600 file and leave no temp files", () =>
  withHome(async (home, file) => {
    await setProviderKey(home, "p", "k-1234");
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    assert.deepEqual(await listDir(home), ["settings.toml"]);
    // An existing file with wider permissions is replaced by a 0600 one.
    await Deno.chmod(file, 0o644);
    await toggleFavorite(home, "m");
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    assert.deepEqual(await listDir(home), ["settings.toml"]);
  }));

Deno.test("the write is a rename: a reader holding the old file sees it unchanged", () =>
  withHome(async (home, file) => {
    await Deno.mkdir(home, { recursive: true });
    await Deno.writeTextFile(file, `model = "old"\n`);
    const before = await Deno.stat(file);
    const handle = await Deno.open(file, { read: true });
    try {
      await setProviderKey(home, "p", "k-1234");
      const after = await Deno.stat(file);
      assert.notEqual(after.ino, before.ino, "a new inode replaced the file atomically");
      const buf = new Uint8Array(64);
      const n = await handle.read(buf);
      assert.equal(new TextDecoder().decode(buf.subarray(0, n ?? 0)), `model = "old"\n`);
    } finally {
      handle.close();
    }
  }));

Deno.test("toggleFavorite adds then removes, keeping other favorites", () =>
  withHome(async (home, file) => {
    await Deno.mkdir(home, { recursive: true });
    await Deno.writeTextFile(file, EXISTING);
    assert.equal(await toggleFavorite(home, "fav-b"), true);
    assert.deepEqual((await readBack(file)).model_favorites, ["fav-a", "fav-b"]);
    assert.equal(await toggleFavorite(home, "fav-a"), false);
    assert.deepEqual((await readBack(file)).model_favorites, ["fav-b"]);
    assert.equal((await readBack(file)).model, "m1");
  }));

Deno.test("concurrent writes in one process are serialized: none is lost", () =>
  withHome(async (home, file) => {
    await Promise.all([
      setProviderKey(home, "a", "key-a"),
      setProviderKey(home, "b", "key-b"),
      toggleFavorite(home, "m1"),
      setProviderKey(home, "c", "key-c"),
      toggleFavorite(home, "m2"),
    ]);
    const doc = await readBack(file);
    assert.deepEqual({ ...(doc.provider_keys as object) }, { a: "key-a", b: "key-b", c: "key-c" });
    assert.deepEqual(doc.model_favorites, ["m1", "m2"]);
  }));

Deno.test("a malformed file is never overwritten and stays byte-identical", () =>
  withHome(async (home, file) => {
    await Deno.mkdir(home, { recursive: true });
    const bad = `model = "m"\n[provider_keys\nx = "k"\n`;
    await Deno.writeTextFile(file, bad);
    const before = await Deno.readFile(file);
    for (
      const attempt of [() => setProviderKey(home, "p", "k-123"), () => toggleFavorite(home, "m")]
    ) {
      await assert.rejects(attempt, (e: unknown) => {
        assert.ok(e instanceof SettingsError);
        assert.equal(e.file, file);
        assert.equal(e.line, 2);
        assert.match(e.message, /Refusing to write .* not valid TOML at line 2/);
        assert.match(e.message, /left untouched/);
        return true;
      });
    }
    assert.deepEqual(await Deno.readFile(file), before);
    assert.deepEqual(await listDir(home), ["settings.toml"]);
  }));

Deno.test("wrongly-typed tables are refused rather than clobbered", () =>
  withHome(async (home, file) => {
    await Deno.mkdir(home, { recursive: true });
    const text = `provider_keys = "oops"\nmodel_favorites = "also oops"\n`;
    await Deno.writeTextFile(file, text);
    await assert.rejects(() => setProviderKey(home, "p", "k-123"), /provider_keys is not a table/);
    await assert.rejects(() => toggleFavorite(home, "m"), /model_favorites is not a list/);
    assert.equal(await Deno.readTextFile(file), text);
  }));

Deno.test("bad ids and keys are rejected before touching the file", () =>
  withHome(async (home, file) => {
    await assert.rejects(() => setProviderKey(home, "bad id", "k-123"), /not valid/);
    await assert.rejects(() => setProviderKey(home, "p", "   "), /empty or contains whitespace/);
    await assert.rejects(() => setProviderKey(home, "p", "two words"), /whitespace/);
    await assert.rejects(() => toggleFavorite(home, " "), /empty model id/);
    await assert.rejects(() => Deno.stat(file), Deno.errors.NotFound);
  }));

Deno.test("a mutate that throws aborts the write", () =>
  withHome(async (home, file) => {
    await Deno.mkdir(home, { recursive: true });
    await Deno.writeTextFile(file, `model = "m"\n`);
    await assert.rejects(
      () =>
        updateGlobalSettings(home, (doc) => {
          doc.model = "changed";
          throw new Error("abort");
        }),
      /abort/,
    );
    assert.equal(await Deno.readTextFile(file), `model = "m"\n`);
    // The queue recovers after a failed update.
    assert.equal(await updateGlobalSettings(home, (doc) => doc.model), "m");
  }));
