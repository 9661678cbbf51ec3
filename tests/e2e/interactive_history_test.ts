// The prompt's memory and completion in a real pseudo-terminal (tmux, NO_COLOR=1): the project's
// messages across sessions (one entry per message, however many lines), ctrl+r, Tab on slash
// commands and on `@` paths (fuzzy, .gitignore honoured), and an `@file` sent with its content.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { reply } from "../fakes/model_server.ts";
import { tempHome } from "./agent_process.ts";
import { fakeModelSession, lastUserText } from "./interactive_tmux.ts";

const PLAIN = { NO_COLOR: "1" };

peerTest(
  "input history is kept per project across sessions, a multi-line message as one entry; ctrl+r searches it",
  probes.tmux,
  async () => {
    const home = await tempHome();
    try {
      {
        await using s = await fakeModelSession({ env: PLAIN, width: 60, home });
        const { fake, agent } = s;
        await agent.idle();
        fake.enqueue(reply().text("One."), reply().text("Two."));
        await agent.paste("select *\nfrom logs");
        await agent.keys("Enter");
        await agent.waitFor("One.");
        await agent.idle();
        await agent.submit("second message");
        await agent.waitFor("Two.");
        await agent.idle();
        await agent.keys("C-d");
        assert.equal(await agent.waitForExit(), 0);
      }
      const dir = `${home}/.agent/history`;
      const files = [...Deno.readDirSync(dir)].map((e) => e.name);
      assert.equal(files.length, 1, "one history file for the one project");
      const file = `${dir}/${files[0]}`;
      assert.equal(Deno.statSync(file).mode! & 0o777, 0o600);
      assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
      const entries = Deno.readTextFileSync(file).trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(entries, ["select *\nfrom logs", "second message"]);

      await using s = await fakeModelSession({ env: PLAIN, width: 140, home });
      const { fake, agent } = s;
      await agent.idle();
      fake.enqueue(reply().text("Again one."), reply().text("Again two."));
      await agent.keys("Up");
      await agent.waitFor(/› second message$/m);
      await agent.keys("Up");
      await agent.waitFor(/› select \*\n… from logs/);
      await agent.keys("Enter");
      await agent.waitFor("Again one.");
      assert.equal(lastUserText(fake.requests[0]!.body), "select *\nfrom logs");
      await agent.idle();
      await agent.keys("C-r");
      await agent.type("cond");
      await agent.waitFor(/› second message\n\(ctrl\+r\) search history: cond/);
      await agent.keys("Enter");
      await agent.waitFor("Again two.");
      assert.equal(lastUserText(fake.requests[1]!.body), "second message");
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
);

peerTest(
  "Tab completes slash commands and @ paths (fuzzy, not ignored ones); an @file goes with its content",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 60 });
    const { fake, agent } = s;
    await Deno.mkdir(`${agent.workdir}/docs`);
    await Deno.writeTextFile(`${agent.workdir}/docs/release_notes.md`, "Version 2 adds paste.\n");
    await Deno.writeTextFile(`${agent.workdir}/secret_notes.md`, "not for completion\n");
    await Deno.writeTextFile(`${agent.workdir}/.gitignore`, "secret_notes.md\n");
    await agent.idle();

    await agent.type("/hel");
    await agent.keys("Tab");
    await agent.waitFor(/› \/help $|› \/help$/m);
    await agent.keys("Enter");
    await agent.waitFor("this list");
    await agent.idle();

    await agent.type("/mo");
    await agent.keys("Tab");
    // Two commands start with /mo: the common start stays, both are listed.
    await agent.waitFor(/› \/mode\n *\/model\n *\/mode$/m);
    await agent.keys("C-u");

    fake.enqueue(reply().text("Summarized."));
    await agent.type("summarize @rlsnot");
    await agent.keys("Tab");
    await agent.waitFor("› summarize @docs/release_notes.md");
    await agent.type("please");
    await agent.keys("C-a");
    await agent.keys("C-k");
    await agent.type("summarize @notes");
    await agent.keys("Tab");
    // Only the one file not ignored matches: it is completed at once.
    await agent.waitFor("› summarize @docs/release_notes.md");
    await agent.keys("Enter");
    await agent.waitFor("Summarized.");
    const sent = lastUserText(fake.requests[0]!.body);
    assert.match(sent, /^summarize @docs\/release_notes\.md/);
    assert.match(sent, /<file path="docs\/release_notes\.md">\nVersion 2 adds paste\.\n/);
    assert.doesNotMatch(sent, /not for completion/);
  },
);
