// The trigger path as whole processes: a real `agent-outpost` (release permission flags)
// enables issue-triage, receives a signed GitHub issue-opened delivery, runs the real
// `agent -p` against the fake model server, and posts the answer as an issue comment to
// the loopback GitHub stand-in, with the token from its environment; the child never sees
// that token, and a replay of the same delivery fires nothing.

import assert from "node:assert/strict";
import { githubSignature } from "../../core/recipes/trigger_secret.ts";
import { FakeGithubApi } from "../fakes/github_api.ts";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { tempHome } from "./agent_process.ts";
import { startOutpost, stop, waitForRun } from "./outpost_process_kit.ts";

const TOKEN = "ghp_whole_process_token_0123456789";

Deno.test("outpost process: a signed issue-opened delivery runs issue-triage and comments on the issue", async () => {
  const home = await tempHome();
  const fake = await startFakeModelServer({
    models: [{ id: "served-model", max_model_len: 32768 }],
  });
  await using github = new FakeGithubApi();
  const outpost = await startOutpost(home, {
    AGENT_BASE_URL: fake.url,
    AGENT_PROVIDER: "chat_completions",
    AGENT_MEMORY_REFLECT: "0",
    AGENT_OUTPOST_GITHUB_TOKEN: TOKEN,
    AGENT_OUTPOST_GITHUB_API_URL: github.url,
  });
  try {
    const { url } = outpost;
    const first = await fetch(`${url}api/recipes`);
    const csrf = /outpost_csrf=([^;]+)/.exec(first.headers.get("set-cookie")!)![1]!;
    assert.equal((await first.json()).recipes.length, 6);
    const work = `${home}/checkout`;
    await Deno.mkdir(work);
    const enabled = await fetch(`${url}api/recipes/issue-triage/enable`, {
      method: "POST",
      headers: {
        Cookie: `outpost_csrf=${csrf}`,
        "X-CSRF-Token": csrf,
        "Content-Type": "application/json",
      },
      body: JSON.stringify({ config: { workdir: work, repo: "acme/widgets" } }),
    });
    assert.equal(enabled.status, 201);
    const { trigger, secret, setup } = await enabled.json();
    const hook = `${url.replace(/\/$/, "")}${new URL(setup[0].payload_url).pathname}`;

    const body = JSON.stringify({
      action: "opened",
      issue: {
        number: 7,
        title: "Widgets spin backwards",
        body: "Since 2.0 the widgets spin backwards.",
        html_url: "https://github.com/acme/widgets/issues/7",
        user: { login: "reporter" },
        updated_at: new Date().toISOString(),
      },
      repository: { full_name: "acme/widgets" },
    });
    const send = (delivery = "72d3162e-cc78-11e3-81ab-4c9367dc0958") =>
      fetch(hook, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "X-GitHub-Event": "issues",
          "X-GitHub-Delivery": delivery,
          "X-Hub-Signature-256": githubSignature(secret, body),
        },
        body,
      });
    fake.enqueue(reply().text("**Kind:** bug report. Thanks for the report!").usage(40, 9));
    const posted = github.nextRequest();
    const res = await send();
    assert.equal(res.status, 202, await res.clone().text());
    const { fired } = await res.json();
    await waitForRun(url, fired.run_id, "ok");
    const comment = await posted;
    assert.equal(comment.path, "/repos/acme/widgets/issues/7/comments");
    assert.equal(comment.headers.authorization, `Bearer ${TOKEN}`);
    assert.match(
      JSON.parse(comment.body).body,
      /^\*\*Kind:\*\* bug report\. Thanks for the report!/,
    );
    // The model saw the issue as fenced, untrusted data after the frozen prompt.
    const prompt = JSON.stringify(fake.requests.at(-1)!.body);
    assert.match(prompt, /BEGIN ISSUE \(untrusted text/);
    assert.match(prompt, /Widgets spin backwards/);
    assert.ok(!JSON.stringify(fake.requests).includes(TOKEN), "the child never had the token");

    // The captured body again, under a new delivery id: the same event, so nothing fires.
    const replay = await send("5b0c8e5a-0000-4000-8000-000000000001");
    assert.equal(replay.status, 200);
    assert.equal((await replay.json()).duplicate, true);
    const jobs = await fetch(`${url}api/jobs`);
    assert.equal((await jobs.json()).jobs.length, 1, "one job, from the first delivery");
    assert.equal(trigger.repo, "acme/widgets");
  } finally {
    const { stderr } = await stop(outpost);
    assert.ok(!stderr.includes(TOKEN), "the token is not logged");
    await fake.close();
    await Deno.remove(home, { recursive: true });
  }
});
