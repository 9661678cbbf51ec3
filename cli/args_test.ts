import assert from "node:assert/strict";
import { parseAgentArgs, UsageError } from "./args.ts";

Deno.test("the headless shape parses, with the prompt after --", () => {
  const a = parseAgentArgs([
    "-p",
    "--workdir",
    "/w",
    "--mode",
    "strict",
    "--output",
    "r.md",
    "--token-budget",
    "500",
    "--",
    "-rf is a flag",
    "too",
  ]);
  assert.equal(a.headless, true);
  assert.equal(a.workdir, "/w");
  assert.equal(a.mode, "strict");
  assert.equal(a.output, "r.md");
  assert.equal(a.settingsFlags["token-budget"], "500");
  assert.equal(a.prompt, "-rf is a flag too");
});

Deno.test("--name=value, negated booleans, negative numbers and a single positional", () => {
  const a = parseAgentArgs([
    "-p",
    "--temperature=0.2",
    "--no-memory",
    "--top-k",
    "-1",
    "hello world",
  ]);
  assert.equal(a.settingsFlags.temperature, "0.2");
  assert.equal(a.settingsFlags["no-memory"], true);
  assert.equal(a.settingsFlags["top-k"], "-1");
  assert.equal(a.prompt, "hello world");
});

Deno.test("bad command lines are usage errors with a clear message", () => {
  const bad: Array<[string[], RegExp]> = [
    [["--bogus"], /unknown option --bogus/],
    [["-z"], /unknown option -z/],
    [["--workdir"], /--workdir needs a value/],
    [["--workdir", "--mode"], /--workdir needs a value/],
    [["-p=1"], /unknown option/],
    [["--print=yes"], /does not take a value/],
    [["--mode", "yolo"], /--mode must be one of auto, strict, plan/],
    [["--output-format", "xml"], /text or json/],
    [["--max-turns", "0"], /positive integer/],
    [["two", "words"], /quote the prompt or put it after --/],
    [["a", "--", "b"], /not both/],
    [["--outptu", "json"], /unknown option --outptu; did you mean --output\?/],
    [["--wrokdir", "."], /did you mean --workdir\?/],
    [["--zzzzzzzz"], /^unknown option --zzzzzzzz$/],
    [["config", "set-key"], /usage: agent config set-key PROVIDER/],
    [["config", "frobnicate"], /unknown config command "frobnicate"/],
  ];
  for (const [args, pattern] of bad) {
    assert.throws(
      () => parseAgentArgs(args),
      (e: Error) => e instanceof UsageError && pattern.test(e.message),
      args.join(" "),
    );
  }
});

Deno.test("config and sessions are subcommands", () => {
  assert.equal(parseAgentArgs(["config", "--json"]).command, "config");
  assert.equal(parseAgentArgs(["config", "--json"]).json, true);
  assert.equal(parseAgentArgs(["sessions"]).command, "sessions");
  const setKey = parseAgentArgs(["config", "set-key", "hosted-messages"]);
  assert.equal(setKey.command, "config");
  assert.equal(setKey.setKeyFor, "hosted-messages");
  assert.equal(setKey.prompt, undefined);
  const adoption = parseAgentArgs(["adoption", "validate", "decl.json"]);
  assert.equal(adoption.command, "adoption");
  assert.deepEqual(adoption.commandArgs, ["validate", "decl.json"]);
  assert.equal(adoption.prompt, undefined);
});
