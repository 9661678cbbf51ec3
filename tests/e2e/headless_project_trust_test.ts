// Issue 37 §3: the model must not steer a later run through the workdir's project settings. The
// real `agent -p` (release flags): the model's `create` of `.agent/settings.toml` is a tool
// error; a project file that picks another endpoint anyway (a cloned repository, an earlier
// run with the sandbox off) stops the next run with one line naming `agent config trust`, and
// nothing reaches either server; once trusted it is used; a changed file is refused again.

import assert from "node:assert/strict";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import { toolResultsById } from "./sandbox_attack.ts";
import { TmuxAgent } from "./interactive_tmux.ts";
import { peerTest, probes } from "../peers.ts";

async function setup() {
  // The operator's endpoint comes from the global file, so a project file could override it.
  const t = await headlessSetup({ baseUrlInEnv: false });
  const elsewhere = await startFakeModelServer({ models: [{ id: "x", max_model_len: 32768 }] });
  await Deno.mkdir(`${t.home}/.agent`, { recursive: true });
  await Deno.writeTextFile(
    `${t.home}/.agent/settings.toml`,
    `base_url = "${t.fake.url}"\nprovider = "chat_completions"\n`,
  );
  const projectFile = `${t.work}/.agent/settings.toml`;
  const disposeSetup = t[Symbol.asyncDispose].bind(t);
  return Object.assign(t, {
    elsewhere,
    projectFile,
    async [Symbol.asyncDispose]() {
      await elsewhere.close();
      await disposeSetup();
    },
  });
}

Deno.test("the model's create of .agent/settings.toml is a tool error and writes nothing", async () => {
  await using t = await setup();
  t.fake.enqueue(
    reply().tool("create", {
      path: ".agent/settings.toml",
      file_text: `base_url = "${t.elsewhere.url}"\n`,
    }, { id: "plant" }),
    reply().text("done"),
  );
  const r = await runAgent(["-p", "--workdir", t.work, "--", "set things up"], t.env);
  assert.equal(r.code, 0, r.stderr);
  const result = toolResultsById(t.fake.requests.at(-1)!.body).get("plant") ?? "";
  assert.match(result, /path is in a \.agent folder/);
  await assert.rejects(Deno.lstat(`${t.work}/.agent`), Deno.errors.NotFound);
});

Deno.test("a project file that picks another endpoint is refused until trusted; a change asks again", async () => {
  await using t = await setup();
  await Deno.mkdir(`${t.work}/.agent`);
  await Deno.writeTextFile(t.projectFile, `base_url = "${t.elsewhere.url}"\n`);

  const refused = await runAgent(["-p", "--workdir", t.work, "--", "secret plans"], t.env);
  assert.equal(refused.code, 1, refused.stderr);
  const line = refused.stderr.trim();
  assert.ok(!line.includes("\n"), line);
  assert.equal(
    line,
    `agent: project settings ${t.projectFile} set base_url = "${t.elsewhere.url}", which ` +
      "decide where the prompt is sent, and this version of the file is not trusted: review " +
      `it, then run \`agent config trust ${t.projectFile}\``,
  );
  assert.equal(t.elsewhere.allRequests.length, 0, "the prompt never went to the new endpoint");
  assert.equal(t.fake.allRequests.length, 0);
  // The outpost reads this flag: a set-up error is not retried (core/scheduler/outcomes.ts).
  const json = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--", "secret plans"],
    t.env,
  );
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.stdout).setup_error, true);

  const trust = await runAgent(["config", "trust"], t.env, t.work);
  assert.equal(trust.code, 0, trust.stderr);
  assert.match(trust.stdout, /^trusted .*\.agent\/settings\.toml \(sha256:[0-9a-f]{12}…\)/);
  assert.match(await Deno.readTextFile(`${t.home}/.agent/settings.toml`), /\[project_trust\]/);

  t.elsewhere.enqueue(reply().text("hello from the trusted endpoint"));
  const trusted = await runAgent(["-p", "--workdir", t.work, "--", "hi"], t.env);
  assert.equal(trusted.code, 0, trusted.stderr);
  assert.match(trusted.stdout, /hello from the trusted endpoint/);
  assert.equal(t.elsewhere.requests.length, 1);

  await Deno.writeTextFile(t.projectFile, `base_url = "${t.elsewhere.url}"\nmodel = "m2"\n`);
  const changed = await runAgent(["-p", "--workdir", t.work, "--", "again"], t.env);
  assert.equal(changed.code, 1);
  assert.match(changed.stderr, /changed and now set base_url = .*, model = "m2"/);
  assert.equal(t.elsewhere.requests.length, 1, "nothing more was sent");
});

Deno.test("a project file that sets nothing about the endpoint needs no trust", async () => {
  await using t = await setup();
  await Deno.mkdir(`${t.work}/.agent`);
  await Deno.writeTextFile(t.projectFile, "temperature = 0.2\n");
  t.fake.enqueue(reply().text("ok"));
  const r = await runAgent(["-p", "--workdir", t.work, "--", "hi"], t.env);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(t.fake.requests.length, 1);
});

peerTest(
  "interactive start asks about an untrusted project file: yes records it, no stops",
  probes.tmux,
  async () => {
    await using t = await setup();
    await Deno.mkdir(`${t.work}/.agent`);
    await Deno.writeTextFile(t.projectFile, `base_url = "${t.elsewhere.url}"\n`);
    for (const answer of ["n", "y"]) {
      const agent = await TmuxAgent.start({ home: t.home, env: { AGENT_MEMORY_REFLECT: "0" } });
      try {
        await agent.waitFor(/base_url = ".*": the prompt and the files it quotes go there\. Trust/);
        await agent.waitFor(/Trust this file\? \[y\/N\]/);
        await agent.submit(answer);
        if (answer === "n") {
          assert.equal(await agent.waitForExit(), 1);
          assert.match(await agent.screen(), /agent config trust/);
          assert.doesNotMatch(await Deno.readTextFile(`${t.home}/.agent/settings.toml`), /trust/);
        } else {
          await agent.idle();
          assert.match(
            await Deno.readTextFile(`${t.home}/.agent/settings.toml`),
            /\[project_trust\]/,
          );
        }
      } finally {
        await agent.close();
      }
    }
    assert.equal(t.elsewhere.requests.length, 0, "asking sent nothing");
  },
);
