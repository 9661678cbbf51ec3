// action.yml is action metadata, which actionlint does not read: its keys are checked here
// against GitHub's documented metadata syntax for a composite action
// (https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax), so a
// misspelt key (`default` as `defualt`, `working_directory`) fails here rather than being
// ignored by the runner.

import assert from "node:assert/strict";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The keys GitHub documents, per place in a composite action's metadata. */
const DOCUMENTED = {
  top: ["name", "author", "description", "inputs", "outputs", "runs", "branding"],
  input: ["description", "required", "default", "deprecationMessage"],
  output: ["description", "value"],
  runs: ["using", "steps"],
  step: [
    "run",
    "shell",
    "if",
    "name",
    "id",
    "env",
    "working-directory",
    "uses",
    "with",
    "continue-on-error",
  ],
  branding: ["icon", "color"],
};

interface Entry {
  key: string;
  line: number;
  indent: number;
}

/** Every `key:` of a block-style YAML file with its indent (list items count as their key). */
function keys(text: string): Entry[] {
  const out: Entry[] = [];
  let blockIndent = -1; // inside a `|` / `>` scalar: skip until dedent
  for (const [i, raw] of text.split("\n").entries()) {
    if (raw.trim() === "" || raw.trimStart().startsWith("#")) continue;
    const indent = raw.length - raw.trimStart().length;
    if (blockIndent >= 0 && indent > blockIndent) continue;
    blockIndent = -1;
    const m = /^( *)(- )?([\w-]+):(?: (.*))?$/.exec(raw);
    if (!m) continue;
    const at = m[1]!.length + (m[2] ? 2 : 0);
    out.push({ key: m[3]!, line: i + 1, indent: at });
    if (/^[|>][-+]?$/.test(m[4] ?? "")) blockIndent = at;
  }
  return out;
}

/** The keys of action metadata that GitHub does not document for their place. */
export function undocumentedKeys(text: string): string[] {
  const found: string[] = [];
  let section = "";
  const check = (e: Entry, allowed: readonly string[], where: string) => {
    if (!allowed.includes(e.key)) found.push(`line ${e.line}: ${where}.${e.key}`);
  };
  let inSteps = false;
  for (const e of keys(text)) {
    if (e.indent === 0) {
      section = e.key;
      inSteps = false;
      check(e, DOCUMENTED.top, "(top)");
    } else if (section === "inputs" && e.indent === 4) check(e, DOCUMENTED.input, "inputs.<id>");
    else if (section === "outputs" && e.indent === 4) check(e, DOCUMENTED.output, "outputs.<id>");
    else if (section === "branding" && e.indent === 2) check(e, DOCUMENTED.branding, "branding");
    else if (section === "runs" && e.indent === 2) {
      check(e, DOCUMENTED.runs, "runs");
      inSteps = e.key === "steps";
    } else if (section === "runs" && inSteps && e.indent === 6) {
      check(e, DOCUMENTED.step, "runs.steps[]");
    }
  }
  return found;
}

Deno.test("action.yml uses only the metadata keys GitHub documents for a composite action", async () => {
  const text = await Deno.readTextFile(`${ROOT}/action.yml`);
  assert.deepEqual(undocumentedKeys(text), []);
  // Required by the syntax: a name, a description, each input's description, each output's
  // value, and `using: composite` with steps.
  const all = keys(text);
  for (const top of ["name", "description", "runs"]) {
    assert.ok(all.some((e) => e.indent === 0 && e.key === top), `missing ${top}`);
  }
  assert.match(text, /^runs:\n {2}using: composite\n {2}steps:\n/m);
  const inputs = text.slice(text.indexOf("\ninputs:\n"), text.indexOf("\noutputs:\n"));
  const inputIds = keys(inputs).filter((e) => e.indent === 2).length;
  assert.equal(keys(inputs).filter((e) => e.key === "description").length, inputIds);
  const outputs = text.slice(text.indexOf("\noutputs:\n"), text.indexOf("\nruns:\n"));
  const outputIds = keys(outputs).filter((e) => e.indent === 2).length;
  assert.equal(keys(outputs).filter((e) => e.key === "value").length, outputIds);
  // Every composite `run` step names its shell (required for run steps in composite actions).
  const steps = text.slice(text.indexOf("\n  steps:\n")).split(/\n {4}- /).slice(1);
  for (const step of steps) {
    if (/^ *run:/m.test(step) || step.startsWith("run:")) {
      assert.match(step, /shell: bash/, step);
    }
  }
});

Deno.test("the key check flags misspelt and misplaced keys, and only those", () => {
  const good = [
    "name: a",
    "description: b",
    "inputs:",
    "  x:",
    "    description: >-",
    "      folded text: with a colon",
    "    default: y",
    "runs:",
    "  using: composite",
    "  steps:",
    "    - name: s",
    "      shell: bash",
    "      working-directory: sub",
    "      run: |",
    "        echo key: value",
  ].join("\n");
  assert.deepEqual(undocumentedKeys(good), []);
  const bad = good.replace("    default: y", "    defualt: y")
    .replace("      working-directory: sub", "      working_directory: sub")
    .replace("name: a", "name: a\nversion: 1");
  assert.deepEqual(undocumentedKeys(bad), [
    "line 2: (top).version",
    "line 8: inputs.<id>.defualt",
    "line 14: runs.steps[].working_directory",
  ]);
});
