// One pass of what users run, used by offline_test.ts inside a loopback-only network namespace
// and under strace: `agent -p` on both wires (reflection on) and one outpost fire, all against
// the fake model server on 127.0.0.1. Prints one JSON line and exits 0 only if all succeeded.

import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { runAgent, tempHome } from "./agent_process.ts";
import { dashboardApi, startOutpost, stop, waitForRun } from "./outpost_process_kit.ts";

async function scenario(): Promise<Record<string, unknown>> {
  const fake = await startFakeModelServer({
    models: [{ id: "served-model", max_model_len: 32768 }],
  });
  const home = await tempHome();
  const work = `${home}/work`;
  await Deno.mkdir(work);
  const env = { home, AGENT_BASE_URL: fake.url, AGENT_MEMORY_REFLECT: "1" };
  const results: Record<string, unknown> = {};
  try {
    await Deno.writeTextFile(`${work}/notes.txt`, "offline notes\n");
    for (const provider of ["chat_completions", "messages"]) {
      // A tool call, so the reflection pass really runs (a short tool-less run skips it).
      fake.enqueue(reply().tool("view", { path: "notes.txt" }));
      fake.enqueue(reply().text(`${provider} ok`));
      fake.enqueue(reply().text("Nothing durable."));
      const r = await runAgent(["-p", "--workdir", work, "--provider", provider, "--", "hi"], env);
      if (r.code !== 0 || r.stdout.trim() !== `${provider} ok` || r.stderr !== "") {
        throw new Error(`${provider}: exit ${r.code}, stdout ${r.stdout}, stderr ${r.stderr}`);
      }
      results[provider] = "ok";
    }
    const outpost = await startOutpost(home, { ...env, AGENT_PROVIDER: "chat_completions" });
    try {
      const api = await dashboardApi(outpost.url);
      const created = await api("POST", "api/jobs", {
        name: "offline",
        prompt: "say hi",
        schedule: { kind: "every", expr: "1h", tz: "UTC" },
        workdir: work,
      });
      if (created.status !== 201) throw new Error(`job not created: ${created.text}`);
      const job = created.json.job.id as number;
      fake.enqueue(reply().tool("view", { path: "notes.txt" }));
      fake.enqueue(reply().text("outpost ok"));
      fake.enqueue(reply().text("Nothing durable."));
      const fired = await api("POST", `api/jobs/${job}/trigger`);
      const run = fired.json.run.id as number;
      await waitForRun(outpost.url, run, "ok");
      results.outpost = "ok";
      // Every scripted reply was asked for: the three reflection passes really ran.
      if (fake.pending !== 0) throw new Error(`${fake.pending} scripted replies never requested`);
    } finally {
      await stop(outpost);
    }
    return results;
  } finally {
    await fake.close();
    await Deno.remove(home, { recursive: true });
  }
}

if (import.meta.main) {
  try {
    console.log(JSON.stringify({ ok: true, ...(await scenario()) }));
  } catch (err) {
    console.log(
      JSON.stringify({ ok: false, error: err instanceof Error ? err.message : String(err) }),
    );
    Deno.exit(1);
  }
}
