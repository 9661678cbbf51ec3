// The run page's transcript read from a journal the real agent wrote: a real `agent-outpost`
// runs the real `agent -p` in strict mode against the fake model server; the model reads a
// file, then asks to edit it, so the run stops for approval; the operator approves from the
// inbox and the resumed run applies the edit. Both run pages must show the legs from the
// journal on disk. The transcript unit tests use hand-written journals, so this is the test
// that fails when core/agent/journal.ts and server/views/transcript_data.ts drift apart.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { startStack, waitForRun } from "./outpost_process_kit.ts";

/** The transcript card of a run page (it is the page's last card). */
async function transcriptOf(url: string, jobId: number, runId: number): Promise<string> {
  const res = await fetch(`${url}runs/${jobId}/${runId}`);
  assert.equal(res.status, 200);
  const html = await res.text();
  const at = html.indexOf('id="card-transcript"');
  assert.ok(at >= 0, "the run page has no transcript card");
  return html.slice(at);
}

/** The HTML of leg `n` (1-based) of a transcript card. */
function leg(card: string, n: number): string {
  const start = card.indexOf(`data-leg="${n}"`);
  assert.ok(start >= 0, `no leg ${n} in the transcript`);
  const next = card.indexOf(`data-leg="${n + 1}"`, start);
  return card.slice(start, next < 0 ? undefined : next);
}

Deno.test("the run page renders the transcript from the journal the real agent wrote: tool call, strict stop, approval, resumed leg", async () => {
  const stack = await startStack();
  const { home, fake, api } = stack;
  try {
    const { url } = stack.outpost;
    const work = `${home}/work`;
    await Deno.mkdir(work);
    await Deno.writeTextFile(`${work}/status.txt`, "draft <b>v1</b>\n");
    const created = await api("POST", "api/jobs", {
      name: "finalize",
      prompt: "mark the <status> final",
      schedule: { kind: "every", expr: "1h", tz: "UTC" },
      workdir: work,
      mode: "strict",
      model: "served-model",
    });
    assert.equal(created.status, 201, created.text);
    const jobId = created.json.job.id as number;

    // Leg 1: reasoning and a read (allowed in strict mode), then an edit that needs approval.
    fake.enqueue(
      reply().reasoning("Look at the file before editing.").tool("view", { path: "status.txt" }),
    );
    fake.enqueue(
      reply().text("Editing it now.").tool("str_replace", {
        path: "status.txt",
        old_str: "draft",
        new_str: "final",
      }),
    );
    const first = (await api("POST", `api/jobs/${jobId}/trigger`)).json.run.id as number;
    await waitForRun(url, first, "needs_human");
    assert.equal(await Deno.readTextFile(`${work}/status.txt`), "draft <b>v1</b>\n");

    const inbox = await api("GET", "api/inbox?state=open");
    const item = inbox.json.items.find((i: { run_id: number }) => i.run_id === first);
    assert.equal(item?.questions[0]?.kind, "approval", JSON.stringify(inbox.json));

    // Leg 2: the operator approves; the resumed run applies the edit and finishes.
    fake.enqueue(reply().text("Status is final."));
    const answered = await api("POST", `api/inbox/${item.id}/answer`, { answer: "approve" });
    assert.equal(answered.status, 200, answered.text);
    const resumed = answered.json.run.id as number;
    await waitForRun(url, resumed, "ok");
    assert.equal(await Deno.readTextFile(`${work}/status.txt`), "final <b>v1</b>\n");

    const card = await transcriptOf(url, jobId, first);
    assert.doesNotMatch(card, /data-testid="transcript-none"/);
    // The journal's meta: the model the run used and its permission mode.
    assert.match(card, /<span class="muted small mono"[^>]*>served-model · strict<\/span>/);

    const one = leg(card, 1);
    assert.match(one, /First leg<span class="muted">\(this run\)<\/span>/);
    assert.match(one, /data-item="prompt">.*mark the &lt;status&gt; final/s);
    assert.match(
      one,
      /<details class="reasoning"><summary>Reasoning<\/summary><pre>Look at the file before editing\.<\/pre>/,
    );
    // The read: its arguments, and its result (the file's text, escaped) attached to it.
    assert.match(
      one,
      /data-tool="view">.*data-part="arguments">\{\n {2}&quot;path&quot;: &quot;status.txt&quot;\n\}<\/pre>.*data-part="result" class="">[^<]*draft &lt;b&gt;v1&lt;\/b&gt;/s,
    );
    // The edit the run stopped on, and the approval question.
    assert.match(one, /Editing it now\./);
    assert.match(one, /data-tool="str_replace">.*&quot;new_str&quot;: &quot;final&quot;/s);
    assert.match(one, /Stopped: needs_human.*<strong>approval:<\/strong>/s);

    const two = leg(card, 2);
    assert.match(
      two,
      new RegExp(`Resumed leg 1<a href="/runs/${jobId}/${resumed}">run ${resumed}`),
    );
    assert.match(two, /data-item="answer">.*Approved by the operator and run\./s);
    assert.match(two, /Status is final\./);
    // Once approved and run, the edit call has its result: nothing shows as still waiting.
    assert.doesNotMatch(card, /waiting for the operator/);
    assert.equal(card.match(/data-leg="/g)?.length, 2, "exactly two legs");

    // The resumed run's own page reads the same journal and marks its own leg.
    const own = await transcriptOf(url, jobId, resumed);
    assert.match(own, /Resumed leg 1<span class="muted">\(this run\)<\/span>/);
    assert.match(
      leg(own, 1),
      new RegExp(`First leg<a href="/runs/${jobId}/${first}">run ${first}`),
    );
    fake.assertNoViolations();
  } finally {
    await stack.close();
  }
});
