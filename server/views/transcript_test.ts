// The run page's transcript: a session journal in the agent's own format becomes legs with
// the prompt, reasoning (collapsed), tool calls with arguments and results (collapsed), the
// question the run stopped on, the operator's answer and the resumed leg. Hostile text stays
// text; a journal swapped for a symlink is refused, not followed.

import assert from "node:assert/strict";
import { TEST_WORKDIR } from "../../tests/fakes/scheduler_kit.ts";
import { join } from "node:path";
import { makeTestOutpost, type TestOutpost } from "../../tests/fakes/test_outpost.ts";

const JOURNAL = [
  {
    type: "meta",
    meta: {
      id: "s-1",
      created_at: "2026-03-02T08:00:00Z",
      workdir: "/w",
      provider: "p",
      model: "qwen3",
      mode: "auto",
    },
  },
  {
    type: "message",
    message: { role: "user", parts: [{ type: "text", text: "Release the <b>build</b>" }] },
  },
  {
    type: "message",
    message: {
      role: "assistant",
      parts: [
        { type: "reasoning", text: "Check the branch first." },
        {
          type: "tool_call",
          id: "c1",
          name: "shell",
          input: { command: "git branch --show-current" },
        },
      ],
    },
  },
  {
    type: "message",
    message: {
      role: "user",
      parts: [{ type: "tool_result", call_id: "c1", content: "main<script>x()</script>" }],
    },
  },
  {
    type: "message",
    message: {
      role: "assistant",
      parts: [{ type: "tool_call", id: "c2", name: "ask", input: { question: "Tag it v2?" } }],
    },
  },
  {
    type: "pending",
    results: [],
    waiting: [{ id: "c2", name: "ask", input: { question: "Tag it v2?" }, reason: "ask" }],
  },
  {
    type: "outcome",
    done_reason: "needs_human",
    questions: [{ kind: "question", text: "Tag it v2?" }],
    final_text: "",
    at: "2026-03-02T08:01:00Z",
  },
  {
    type: "message",
    message: {
      role: "user",
      parts: [{ type: "tool_result", call_id: "c2", content: "The operator answered: yes, v2" }],
    },
  },
  {
    type: "message",
    message: { role: "assistant", parts: [{ type: "text", text: "Tagged v2." }] },
  },
  {
    type: "outcome",
    done_reason: "stop",
    questions: [],
    final_text: "Tagged v2.",
    at: "2026-03-02T08:30:00Z",
  },
];

async function seed(t: TestOutpost) {
  await Deno.mkdir(join(t.home, "sessions"), { recursive: true });
  await Deno.writeTextFile(
    join(t.home, "sessions", "s-1.jsonl"),
    JOURNAL.map((e) => JSON.stringify(e)).join("\n") + "\n",
  );
  const job = t.scheduler.createJob({
    name: "release",
    prompt: "p",
    schedule: { kind: "every", expr: "1h", tz: "UTC" },
    workdir: TEST_WORKDIR,
  });
  const base = {
    job_id: job.id,
    attempt: 1,
    priority: 10,
    class: "scheduled" as const,
    session_id: "s-1",
  };
  const first = t.store.createRun({ ...base, status: "needs_human" });
  const resumed = t.store.createRun({
    ...base,
    status: "ok",
    resume_of_run: first.id,
    answer: "yes, v2",
  });
  return { job, first, resumed };
}

Deno.test("the run page shows the session transcript: prompt, reasoning, tool calls, the question, the answer and the resumed leg", async () => {
  await using t = await makeTestOutpost();
  const { job, first, resumed } = await seed(t);
  const res = await t.app.request(`/runs/${job.id}/${first.id}`);
  assert.equal(res.status, 200);
  const html = await res.text();
  const card = html.slice(html.indexOf('id="card-transcript"'));
  assert.match(card, /data-item="prompt">.*Release the &lt;b&gt;build&lt;\/b&gt;/s);
  assert.match(
    card,
    /<details class="reasoning"><summary>Reasoning<\/summary><pre>Check the branch first\.<\/pre>/,
  );
  assert.match(card, /<details class="tool-call" data-tool="shell">/);
  assert.match(
    card,
    /data-part="arguments">\{\n {2}&quot;command&quot;: &quot;git branch --show-current&quot;\n\}/,
  );
  assert.match(card, /data-part="result" class="">main&lt;script&gt;x\(\)&lt;\/script&gt;/);
  assert.doesNotMatch(card, /<script>x\(\)/);
  assert.match(card, /Stopped: needs_human.*<strong>question:<\/strong> Tag it v2\?/s);
  assert.match(card, /data-leg="2".*Resumed leg 1.*href="\/runs\/\d+\/\d+">run \d+/s);
  assert.match(card, new RegExp(`href="/runs/${job.id}/${resumed.id}">run ${resumed.id}`));
  assert.match(card, /data-item="answer">.*The operator answered: yes, v2/s);
  assert.match(card, /Tagged v2\./);
  // The ask call got its result on resume: it no longer shows as waiting.
  assert.doesNotMatch(card, /waiting for the operator/);
  // The resume run's page marks its own leg.
  const own = await (await t.app.request(`/runs/${job.id}/${resumed.id}`)).text();
  assert.match(own, /Resumed leg 1<span class="muted">\(this run\)<\/span>/);
});

Deno.test("the transcript header names the run's served model, never the journal's `default` beside it", async () => {
  await using t = await makeTestOutpost();
  const { job, first, resumed } = await seed(t);
  // The journal meta was written at start with the sentinel; the run's result named the model.
  const meta = { ...JOURNAL[0]!, meta: { ...JOURNAL[0]!.meta, model: "default" } };
  await Deno.writeTextFile(
    join(t.home, "sessions", "s-1.jsonl"),
    [meta, ...JOURNAL.slice(1)].map((e) => JSON.stringify(e)).join("\n") + "\n",
  );
  t.store.updateRun(first.id, { model: "served-7b" });
  const html = await (await t.app.request(`/runs/${job.id}/${first.id}`)).text();
  assert.match(html, /<dt>Model<\/dt><dd >served-7b<\/dd>/);
  assert.match(html, /data-testid="transcript-model">served-7b · auto</);
  assert.doesNotMatch(html, />default</);
  // A run that named no model: the sentinel is left out rather than shown as a name.
  const bare = await (await t.app.request(`/runs/${job.id}/${resumed.id}`)).text();
  assert.match(bare, /data-testid="transcript-model">auto</);
  assert.doesNotMatch(bare, /default · auto/);
});

Deno.test("a journal that is a symlink is refused, and a run without a session says so", async () => {
  await using t = await makeTestOutpost();
  const { job, first } = await seed(t);
  const secret = join(t.home, "secret.txt");
  await Deno.writeTextFile(secret, JSON.stringify(JOURNAL[1]));
  const path = join(t.home, "sessions", "s-1.jsonl");
  await Deno.remove(path);
  await Deno.symlink(secret, path);
  const html = await (await t.app.request(`/runs/${job.id}/${first.id}`)).text();
  assert.match(
    html,
    /data-testid="transcript-none">The session journal is not shown: the journal file is a symlink/,
  );
  assert.doesNotMatch(html, /Release the/);
  const bare = t.store.createRun({
    job_id: job.id,
    status: "error",
    attempt: 1,
    priority: 10,
    class: "scheduled",
  });
  assert.match(
    await (await t.app.request(`/runs/${job.id}/${bare.id}`)).text(),
    /This run recorded no session/,
  );
});

Deno.test("the transcript renders the model's markdown like the report, and the final answer once", async () => {
  await using t = await makeTestOutpost();
  const { job, resumed } = await seed(t);
  const reply = "## Done\n\nTagged **v2**: <script>alert(1)</script> see [notes](javascript:x)";
  const journal = JOURNAL.map((e) => {
    if (e.type === "outcome" && e.done_reason === "stop") return { ...e, final_text: reply };
    const m = (e as { message?: { role: string; parts: { text?: string }[] } }).message;
    if (m?.role === "assistant" && m.parts[0]?.text === "Tagged v2.") {
      return {
        type: "message",
        message: { role: "assistant", parts: [{ type: "text", text: reply }] },
      };
    }
    return e;
  });
  await Deno.writeTextFile(
    join(t.home, "sessions", "s-1.jsonl"),
    journal.map((e) => JSON.stringify(e)).join("\n") + "\n",
  );
  const html = await (await t.app.request(`/runs/${job.id}/${resumed.id}`)).text();
  const card = html.slice(html.indexOf('id="card-transcript"'));
  assert.match(card, /<div[^>]* class="text md"><h2[^>]*>Done<\/h2>/);
  assert.match(card, /<strong>v2<\/strong>/);
  assert.doesNotMatch(card, /<script>alert/);
  assert.doesNotMatch(card, /href="javascript:/);
  // Said once: the stop item does not repeat the reply the last turn shows.
  assert.equal(card.split("Tagged <strong>v2</strong>").length - 1, 1);
  assert.doesNotMatch(card, /Tagged \*\*v2\*\*/);
});
