// The conversation commands in a real pseudo-terminal: /mode switches the permission mode
// the loop and the model see, /diff shows what this session's edits changed, /clear starts a
// new conversation that /resume can leave again for the saved one, /compact summarizes now;
// /resume refuses a conversation saved in another folder.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { fakeModelSession, lastUserText, TmuxAgent, toolResults } from "./interactive_tmux.ts";
import { runAgent, tempHome } from "./agent_process.ts";

const QUIET = { AGENT_MEMORY_REFLECT: "0" };

function systemOf(body: unknown): string {
  const b = body as { system?: unknown; messages?: Array<{ role: string; content: unknown }> };
  if (typeof b.system === "string") return b.system;
  const sys = b.messages?.find((m) => m.role === "system");
  return typeof sys?.content === "string" ? sys.content : JSON.stringify(b.system ?? sys);
}

peerTest(
  "/mode changes what the loop allows and what the prompt says; /diff shows the edits",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession();
    const { fake, agent } = s;
    await Deno.writeTextFile(`${agent.workdir}/app.txt`, "version 1\n");
    await agent.idle();
    await agent.submit("/diff");
    await agent.waitFor("no file edits in this session yet");

    // auto: the edit runs without a question.
    fake.enqueue(
      reply().tool("str_replace", { path: "app.txt", old_str: "1", new_str: "2" }),
      reply().text("Bumped."),
    );
    await agent.submit("bump it");
    await agent.waitFor("Bumped.");
    assert.equal(await Deno.readTextFile(`${agent.workdir}/app.txt`), "version 2\n");

    await agent.submit("/mode plan");
    await agent.waitFor("mode plan: edits and shell commands are refused");
    fake.enqueue(
      reply().tool("create", { path: "new.txt", file_text: "x" }),
      reply().text("Planned instead."),
    );
    await agent.submit("make a file");
    await agent.waitFor("Planned instead.");
    await assert.rejects(Deno.stat(`${agent.workdir}/new.txt`));
    const planReq = fake.requests.at(-1)!.body;
    assert.match(toolResults(planReq).at(-1)!, /plan mode/);
    assert.match(systemOf(planReq), /Permission mode: plan/);
    await agent.submit("/mode yolo");
    await agent.waitFor('Unknown mode "yolo": use auto, strict, plan.');
    await agent.submit("/mode");
    await agent.waitFor("mode plan (choose with /mode auto | strict | plan)");

    await agent.submit("/diff");
    const screen = await agent.waitFor("1 file changed by this session's edits");
    assert.match(
      screen,
      /--- a\/app\.txt\s+\+\+\+ b\/app\.txt\s+@@ -1,1 \+1,1 @@\s+-version 1\s+\+version 2/,
    );
  },
);

peerTest(
  "/clear starts over, /resume goes back to the saved conversation, /compact summarizes",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession();
    const { fake, agent } = s;
    await agent.idle();
    fake.enqueue(reply().text("First answer."), reply().text("Second answer."));
    await agent.submit("remember the word heron");
    await agent.waitFor("First answer.");
    await agent.submit("and the word kestrel");
    await agent.waitFor("Second answer.");

    await agent.submit("/clear");
    const cleared = await agent.waitFor(
      /new conversation; the previous one is saved \(\/resume, or agent --resume (\S+)\)/,
    );
    const savedId = /agent --resume (\S+)\)/.exec(cleared)![1]!;
    fake.enqueue(reply().text("Fresh."));
    await agent.submit("hello again");
    await agent.waitFor("Fresh.");
    const fresh = fake.requests.at(-1)!.body as { messages: unknown[] };
    assert.ok(!JSON.stringify(fresh).includes("heron"), "a cleared conversation is not sent");
    await agent.submit("/compact"); // one exchange: less than what is kept verbatim
    await agent.waitFor("nothing to compact yet");

    await agent.submit("/resume");
    await agent.waitFor("Resume which conversation?");
    await agent.waitFor("remember the word heron");
    await agent.keys("Enter");
    await agent.waitFor(`resumed ${savedId} (4 messages)`);
    fake.enqueue(reply().text("Back."));
    await agent.submit("which words?");
    await agent.waitFor("Back.");
    const resumed = JSON.stringify(fake.requests.at(-1)!.body);
    assert.ok(resumed.includes("heron") && resumed.includes("kestrel"));
    assert.ok(!resumed.includes("hello again"));

    // Three exchanges: the oldest is summarized, the summary replaces it.
    fake.enqueue(reply().text("SUMMARY: heron and kestrel were named."));
    await agent.submit("/compact");
    await agent.waitFor(/history compacted: \d+ → \d+ messages/);
    fake.enqueue(reply().text("Still with you."));
    await agent.submit("go on");
    await agent.waitFor("Still with you.");
    const after = JSON.stringify(fake.requests.at(-1)!.body);
    assert.match(after, /SUMMARY: heron and kestrel were named\./);
    assert.equal(lastUserText(fake.requests.at(-1)!.body), "go on");
  },
);

peerTest(
  "/resume refuses a conversation saved in another folder, naming both and how to resume it",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer();
    const home = await tempHome();
    const elsewhere = `${home}/elsewhere`;
    const env = { ...QUIET, AGENT_BASE_URL: fake.url };
    let agent: TmuxAgent | undefined;
    try {
      // A strict headless run in another folder stops with an edit awaiting approval.
      await Deno.mkdir(elsewhere);
      await Deno.writeTextFile(`${elsewhere}/app.txt`, "version 1\n");
      fake.enqueue(reply().tool("str_replace", { path: "app.txt", old_str: "1", new_str: "2" }));
      const stopped = await runAgent(
        [
          "-p",
          "--workdir",
          elsewhere,
          "--mode",
          "strict",
          "--output-format",
          "json",
          "--",
          "bump it",
        ],
        { home, ...env },
      );
      assert.equal(stopped.code, 2, stopped.stderr);
      const id = JSON.parse(stopped.stdout).session_id as string;

      agent = await TmuxAgent.start({ home, env });
      await Deno.writeTextFile(`${agent.workdir}/app.txt`, "version 1\n");
      await agent.idle();
      await agent.submit("/resume");
      await agent.waitFor(/❯ bump it /);
      await agent.keys("Enter");
      await agent.waitFor(
        `${id} was saved in ${elsewhere}, but this session works in ${agent.workdir}; its tools ` +
          `would act on the wrong folder. Resume it where it was started: ` +
          `cd ${elsewhere} && agent --resume ${id}`,
      );
      await agent.submit(`/resume ${id}`);
      await agent.waitFor(`cd ${elsewhere} && agent --resume ${id}`, { count: 2 });

      // The next message starts a new conversation here; the pending edit runs nowhere.
      fake.enqueue(reply().text("Fresh start."));
      await agent.submit("approved");
      await agent.waitFor("Fresh start.");
      assert.ok(!JSON.stringify(fake.requests.at(-1)!.body).includes("bump it"));
      assert.equal(await Deno.readTextFile(`${agent.workdir}/app.txt`), "version 1\n");
      assert.equal(await Deno.readTextFile(`${elsewhere}/app.txt`), "version 1\n");
    } finally {
      await agent?.close();
      await fake.close();
      await Deno.remove(home, { recursive: true });
    }
  },
);
