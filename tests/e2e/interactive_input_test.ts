// The message box in a real pseudo-terminal (tmux, NO_COLOR=1, widths 60 and 140): pastes of
// every kind stay in the box until Enter and are sent whole, line breaks from Shift+Enter (both
// encodings), Alt+Enter and a trailing backslash, the cursor moving between lines.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { reply } from "../fakes/model_server.ts";
import { fakeModelSession, lastUserText } from "./interactive_tmux.ts";

const PLAIN = { NO_COLOR: "1" };

peerTest(
  "a bracketed paste keeps its lines in the box until Enter, then goes as one message",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 60 });
    const { fake, agent } = s;
    await agent.idle();
    fake.enqueue(reply().text("Got both lines."));
    await agent.paste("alpha\nbeta");
    await agent.waitFor(/› alpha\n… beta/);
    // Still editable: the text typed now lands after the paste, in the same message.
    await agent.type(" gamma");
    await agent.waitFor("… beta gamma");
    assert.equal(fake.requests.length, 0, "nothing is sent before Enter");
    await agent.keys("Enter");
    await agent.waitFor("Got both lines.");
    assert.equal(lastUserText(fake.requests[0]!.body), "alpha\nbeta gamma");
    fake.assertNoViolations();
  },
);

peerTest(
  "a 120-line paste is shown as one collapsed line and sent whole",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 140 });
    const { fake, agent } = s;
    await agent.idle();
    const lines = Array.from({ length: 120 }, (_, i) => `line ${i + 1} of the log`);
    fake.enqueue(reply().text("Read the log."));
    await agent.type("look at this: ");
    await agent.paste(lines.join("\n"));
    const screen = await agent.waitFor("[pasted 120 lines #1]");
    assert.doesNotMatch(screen, /line 60 of the log/, "the paste is not drawn line by line");
    await agent.keys("Enter");
    await agent.waitFor("Read the log.");
    assert.equal(lastUserText(fake.requests[0]!.body), `look at this: ${lines.join("\n")}`);
  },
);

peerTest(
  "pastes the peers lose: CSI u line breaks inside a paste, and a paste that came unbracketed",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 60 });
    const { fake, agent } = s;
    await agent.idle();
    // tmux with extended keys encodes a CR inside a paste as ESC[13;1u.
    fake.enqueue(reply().text("First done."), reply().text("Second done."));
    await agent.bytes("\x1b[200~one\x1b[13;1utwo\x1b[13utree\x1b[201~");
    await agent.waitFor(/› one\n… two\n… tree/);
    await agent.keys("Enter");
    await agent.waitFor("First done.");
    assert.equal(lastUserText(fake.requests[0]!.body), "one\ntwo\ntree");
    await agent.idle();
    // No bracketed paste (tmux paste-buffer without -p): the lines arrive as fast keys.
    await agent.paste("red\ngreen\nblue", { bracketed: false });
    await agent.waitFor(/› red\n… green\n… blue/);
    assert.equal(fake.requests.length, 1, "an unbracketed paste is not sent line by line");
    await agent.keys("Enter");
    await agent.waitFor("Second done.");
    assert.equal(lastUserText(fake.requests[1]!.body).trim(), "red\ngreen\nblue");
  },
);

peerTest(
  "Shift+Enter (CSI u and modifyOtherKeys), Alt+Enter and a trailing backslash start new lines; kitty keys type",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 140 });
    const { fake, agent } = s;
    await agent.idle();
    fake.enqueue(reply().text("Four lines seen."));
    await agent.type("one");
    await agent.bytes("\x1b[13;2u"); // Shift+Enter, CSI u (kitty, tmux extended keys)
    await agent.type("two");
    await agent.bytes("\x1b[27;2;13~"); // Shift+Enter, xterm modifyOtherKeys
    // kitty keyboard protocol: every key as CSI u, here t h r e e.
    await agent.bytes("\x1b[116u\x1b[104u\x1b[114u\x1b[101u\x1b[101u");
    await agent.keys("M-Enter");
    await agent.type("four\\");
    await agent.keys("Enter");
    await agent.waitFor(/› one\n… two\n… three\n… four\n…$/m);
    assert.doesNotMatch(await agent.screen(), /13~|\[13;2u/);
    await agent.type("five");
    assert.equal(fake.requests.length, 0);
    await agent.keys("Enter");
    await agent.waitFor("Four lines seen.");
    assert.equal(lastUserText(fake.requests[0]!.body), "one\ntwo\nthree\nfour\nfive");
  },
);

peerTest(
  "the cursor moves between the lines of a message and edits there",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 60 });
    const { fake, agent } = s;
    await agent.idle();
    fake.enqueue(reply().text("Edited."));
    await agent.paste("first line\nsecond line\nthird line");
    await agent.waitFor("… third line");
    // Up twice: to the first line, same column (the end, clipped); Home; type at its start.
    await agent.keys("Up", "Up", "Home");
    await agent.type("> ");
    await agent.keys("Down", "End");
    await agent.type("!");
    await agent.waitFor(/› > first line\n… second line!\n… third line/);
    await agent.keys("Enter");
    await agent.waitFor("Edited.");
    assert.equal(lastUserText(fake.requests[0]!.body), "> first line\nsecond line!\nthird line");
  },
);

peerTest(
  "a message longer than the row wraps in the box and edits cleanly at 60 columns",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 60 });
    const { fake, agent } = s;
    await agent.idle();
    fake.enqueue(reply().text("Long one read."));
    const words = Array.from({ length: 24 }, (_, i) => `word${i}`).join(" ");
    await agent.type(words);
    await agent.keys("C-a");
    await agent.type(">> ");
    await agent.keys("End");
    await agent.type(" <<");
    const screen = await agent.waitFor(/ <<$/m);
    const box = screen.slice(screen.lastIndexOf("› >> word0"));
    // The box holds the text once, wrapped by the terminal at 60 columns, nothing stale.
    assert.equal(box.replace(/\n/g, ""), `› >> ${words} <<`);
    assert.equal(screen.match(/word23/g)?.length, 1);
    await agent.keys("Enter");
    await agent.waitFor("Long one read.");
    assert.equal(lastUserText(fake.requests[0]!.body), `>> ${words} <<`);
  },
);

peerTest(
  "a resize while a long message is typed redraws the box once, at the new width",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 140 });
    const { fake, agent } = s;
    await agent.idle();
    fake.enqueue(reply().text("Resized fine."));
    const words = Array.from({ length: 20 }, (_, i) => `item${i}`).join(" ");
    await agent.type(words);
    await agent.paste("\nsecond line of it");
    await agent.waitFor("… second line of it");
    await agent.resize(60);
    await agent.type(" more");
    await agent.waitFor(/second line of it more$/m);
    // What the terminal shows holds the box once: tmux reflows the old rows on a resize and
    // may push the top ones into its history (unreachable there), but nothing stale stays in
    // view. (capture-pane joins wrapped rows, so a stale row shows as text glued before "› ".)
    const clean = async () => {
      const visible = await agent.screen({ visibleOnly: true });
      assert.match(visible, /^› item0 /m, visible);
      assert.equal(visible.match(/item10 /g)?.length, 1, visible);
      assert.equal(visible.match(/second line/g)?.length, 1, visible);
    };
    await clean();
    await agent.resize(140);
    await agent.type("!");
    const screen = await agent.waitFor(/second line of it more!$/m);
    await clean();
    assert.match(screen, new RegExp(`› ${words}\\n… second line of it more!`));
    await agent.keys("Enter");
    await agent.waitFor("Resized fine.");
    assert.equal(lastUserText(fake.requests[0]!.body), `${words}\nsecond line of it more!`);
  },
);

peerTest(
  "wide characters (CJK) take two columns: the cursor sits where the text is edited",
  probes.tmux,
  async () => {
    await using s = await fakeModelSession({ env: PLAIN, width: 60 });
    const { fake, agent } = s;
    await agent.idle();
    fake.enqueue(reply().text("Wide text read."));
    await agent.type("你好世界");
    await agent.waitFor("› 你好世界");
    // "› " is two columns, each character two more.
    assert.equal((await agent.cursor()).x, 2 + 8);
    await agent.keys("Left", "Left");
    await agent.type("X");
    await agent.waitFor("› 你好X世界");
    assert.equal((await agent.cursor()).x, 2 + 4 + 1);
    await agent.keys("Enter");
    await agent.waitFor("Wide text read.");
    assert.equal(lastUserText(fake.requests[0]!.body), "你好X世界");
  },
);
