// The whole product at once: a real `agent-outpost` process whose runner starts the real
// `agent -p` (dev mode: `deno run` with the release flags) against the fake model server.
// Proves the runner's command line and the headless CLI agree: a run reaches ok with its
// report, and a needs-human run opens an inbox item whose answer resumes the saved session.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { startStack, waitForRun } from "./outpost_process_kit.ts";

Deno.test("outpost runs the real agent: ok with a report; needs_human → inbox → answer → resumed run", async () => {
  const stack = await startStack();
  const { home, fake, api } = stack;
  try {
    const { url } = stack.outpost;
    const work = `${home}/work`;
    await Deno.mkdir(work);

    // 1. A job that edits a file and finishes.
    await Deno.writeTextFile(`${work}/status.txt`, "draft\n");
    const created = await api("POST", "api/jobs", {
      name: "finalize",
      prompt: "mark the status final",
      schedule: { kind: "every", expr: "1h", tz: "UTC" },
      workdir: work,
    });
    assert.equal(created.status, 201, created.text);
    const jobId = created.json.job.id as number;
    fake.enqueue(
      reply().tool("str_replace", { path: "status.txt", old_str: "draft", new_str: "final" }),
    );
    fake.enqueue(reply().text("Status is final.").usage(50, 6));
    const triggered = await api("POST", `api/jobs/${jobId}/trigger`);
    assert.equal(triggered.status, 202, triggered.text);
    const runId = triggered.json.run.id as number;
    await waitForRun(url, runId, "ok");
    assert.equal(await Deno.readTextFile(`${work}/status.txt`), "final\n");
    const report = await fetch(`${url}api/jobs/${jobId}/runs/${runId}/output`);
    const md = await report.text();
    assert.match(md, /\*\*Outcome:\*\* ok \(exit 0\)/);
    assert.match(md, /Status is final\./);
    assert.match(md, new RegExp(`\\*\\*Job:\\*\\* ${jobId} \\(finalize\\)`));
    // The scheduler stamped the child's environment (spec 4.4) and passed no key.
    const modelCall = fake.requests.at(-1)!;
    assert.equal(modelCall.headers["authorization"], undefined);

    // 2. A job whose model needs a human.
    const asked = await api("POST", "api/jobs", {
      name: "deploy",
      prompt: "deploy the site",
      schedule: { kind: "every", expr: "1h", tz: "UTC" },
      workdir: work,
    });
    const askJob = asked.json.job.id as number;
    fake.enqueue(reply().tool("ask", { questions: [{ kind: "question", text: "Which region?" }] }));
    const askRun = (await api("POST", `api/jobs/${askJob}/trigger`)).json.run.id as number;
    await waitForRun(url, askRun, "needs_human");
    const inbox = await api("GET", "api/inbox?state=open");
    const item = inbox.json.items.find((i: { run_id: number }) => i.run_id === askRun);
    assert.ok(item, JSON.stringify(inbox.json));
    assert.equal(item.questions[0].kind, "question");
    assert.equal(item.questions[0].text, "Which region?");
    assert.equal(item.meta.risk, "medium");

    fake.enqueue(reply().text("Deployed to eu-west."));
    const answered = await api("POST", `api/inbox/${item.id}/answer`, { answer: "eu-west" });
    assert.equal(answered.status, 200, answered.text);
    const resumedRun = answered.json.run.id as number;
    await waitForRun(url, resumedRun, "ok");
    // The resumed session carried the answer as the result of the waiting ask call.
    const resumedCall = fake.requests.at(-1)!.body as {
      messages: Array<{ role: string; content?: unknown }>;
    };
    const toolMsg = resumedCall.messages.find((m) => m.role === "tool");
    assert.match(String(toolMsg?.content), /eu-west/);
    const resumedReport = await (await fetch(`${url}api/jobs/${askJob}/runs/${resumedRun}/output`))
      .text();
    assert.match(resumedReport, /Deployed to eu-west\./);
    fake.assertNoViolations();
  } finally {
    await stack.close();
  }
});
