// What a headless user sees about their settings: unknown keys warned about one line each,
// a broken settings file shown with its excerpt and caret on lines of their own, and a
// missing key explained with what to do outside the interactive session, which
// `agent config set-key` then fixes (the key read from stdin, never from the command line).

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { agentArgs, childEnv, headlessSetup, runAgent } from "./agent_process.ts";

/** The tests write the server's address into settings.toml themselves, so none in the env. */
async function setup() {
  const t = await headlessSetup({ baseUrlInEnv: false });
  await Deno.mkdir(`${t.home}/.agent`);
  return t;
}

Deno.test("a misspelled settings key is warned about on stderr, and the run goes on", async () => {
  await using t = await setup();
  await Deno.writeTextFile(
    `${t.home}/.agent/settings.toml`,
    `modle = "x"\nbase_url = "${t.fake.url}"\n`,
  );
  t.fake.enqueue(reply().text("fine"));
  const r = await runAgent(["-p", "--workdir", t.work, "--", "hi"], t.env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "fine\n");
  assert.equal(
    r.stderr,
    `agent: warning: ${t.home}/.agent/settings.toml:1: unknown setting modle (ignored; did you mean model?)\n`,
  );
});

Deno.test("a TOML syntax error shows the excerpt and the caret on lines of their own", async () => {
  await using t = await setup();
  await Deno.writeTextFile(`${t.home}/.agent/settings.toml`, `model = "x"\nbase_url = \n`);
  const r = await runAgent(["-p", "--workdir", t.work, "--", "hi"], t.env);
  assert.equal(r.code, 1);
  const lines = r.stderr.split("\n");
  assert.match(lines[0]!, /^agent: Settings file .*settings\.toml is not valid TOML at line 2/);
  const caretRow = lines.findIndex((l) => /^\s+\^$/.test(l));
  assert.ok(caretRow > 0, r.stderr);
  assert.match(lines[caretRow - 1]!, /2:\s+base_url = $/);
  assert.equal(lines[caretRow]!.indexOf("^"), lines[caretRow - 1]!.length);
});

Deno.test("no key: the hint names what to do without a session; config set-key stores one from stdin", async () => {
  await using t = await setup();
  const env = { ...t.env, AGENT_PROVIDER: "messages", AGENT_PRESET: "hosted-messages" };
  const before = await runAgent(["-p", "--workdir", t.work, "--", "hi"], env);
  assert.equal(before.code, 1);
  assert.match(before.stderr, /agent config set-key hosted-messages/);

  const child = new Deno.Command(Deno.execPath(), {
    args: [...await agentArgs(), "config", "set-key", "hosted-messages"],
    env: childEnv(env),
    clearEnv: true,
    cwd: t.home,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("sk-canary-123\n"));
  await writer.close();
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(new TextDecoder().decode(out.stdout), /stored provider_keys\.hosted-messages/);
  const file = await Deno.readTextFile(`${t.home}/.agent/settings.toml`);
  assert.match(file, /\[provider_keys\]\n"?hosted-messages"? = "sk-canary-123"/);
  if (Deno.build.os !== "windows") {
    assert.equal((await Deno.stat(`${t.home}/.agent/settings.toml`)).mode! & 0o077, 0);
  }

  // An unknown provider is refused before anything is read or written.
  const unknown = await runAgent(["config", "set-key", "nope"], env);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Unknown provider preset "nope"\. Known presets: hosted-messages/);
  assert.equal(await Deno.readTextFile(`${t.home}/.agent/settings.toml`), file);
});
