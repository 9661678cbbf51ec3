// The README's example workflow (a pull-request review that comments on the PR) run the way
// tests/e2e/github_action_test.ts runs the action: its agent step's `with:` inputs go through
// action.yml's run step against the fake model server, and its comment step's shell runs as
// the runner would (bash -eo pipefail, its env block) against a stand-in GitHub API. Workflow
// expressions are filled with a pull request's values; the model server's address is the fake's,
// since the README's is an example. actionlint checks the same block in .ci/run.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { FakeGithubApi } from "../fakes/github_api.ts";
import { KEY, readmeWorkflow, setup } from "./github_action_kit.ts";

interface Step {
  text: string;
  /** `with:` or `env:` entries (folded `>-` values joined by spaces). */
  map(section: "with" | "env"): Record<string, string>;
  /** A key of the step itself (`uses`, `id`, `if`, `name`); a `|` block for `run`. */
  key(name: string): string | undefined;
}

/** The job's steps, in order (each starts with `      - ` in the README's layout). */
function steps(workflow: string): Step[] {
  const lines = workflow.split("\n");
  const starts = lines.flatMap((l, i) => /^ {6}- /.test(l) ? [i] : []);
  return starts.map((start, n) => {
    const own = lines.slice(start, starts[n + 1] ?? lines.length)
      .map((l, i) => i === 0 ? l.replace(/^ {6}- /, "        ") : l);
    const indent = (l: string) => /^ */.exec(l)![0].length;
    const blockAfter = (i: number) => {
      const body: string[] = [];
      for (const l of own.slice(i + 1)) {
        if (l.trim() !== "" && indent(l) <= indent(own[i]!)) break;
        body.push(l);
      }
      return body;
    };
    return {
      text: own.join("\n"),
      map(section) {
        const at = own.findIndex((l) => l === `        ${section}:`);
        if (at < 0) return {};
        const out: Record<string, string> = {};
        const body = blockAfter(at);
        for (const [i, l] of body.entries()) {
          const m = /^ {10}([\w-]+): ?(.*?)(?: #.*)?$/.exec(l);
          if (!m) continue;
          if (m[2] !== ">-") {
            out[m[1]!] = m[2]!.replace(/^"(.*)"$/, "$1");
            continue;
          }
          const folded: string[] = [];
          for (const x of body.slice(i + 1)) {
            if (x.trim() !== "" && indent(x) < 12) break;
            folded.push(x.trim());
          }
          out[m[1]!] = folded.join(" ").trim();
        }
        return out;
      },
      key(name) {
        const at = own.findIndex((l) => new RegExp(`^ {8}${name}:`).test(l));
        if (at < 0) return undefined;
        const value = own[at]!.replace(new RegExp(`^ {8}${name}: ?`), "").replace(/ #.*$/, "");
        if (value !== "|") return value;
        return blockAfter(at).map((l) => l.slice(10)).join("\n").trim() + "\n";
      },
    };
  });
}

/** Fills `${{ … }}` with the values a pull_request run would have; an unknown one throws. */
function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (!(expr in values)) throw new Error(`the test has no value for \${{ ${expr} }}`);
    return values[expr]!;
  });
}

Deno.test("the README's workflow reviews a pull request with the action and comments the report on it", async () => {
  const workflow = await readmeWorkflow();
  assert.match(workflow, /^on:\n {2}pull_request:\n/m);
  assert.match(workflow, /^permissions:\n {2}contents: read\n {2}pull-requests: write\n/m);
  const [checkout, agent, comment] = steps(workflow);
  assert.equal(checkout!.key("uses"), "actions/checkout@v4");
  assert.match(agent!.key("uses")!, /^[\w-]+\/agent@v\d+\.\d+\.\d+$/);
  assert.equal(agent!.key("id"), "agent");
  assert.equal(comment!.key("if"), "${{ always() && steps.agent.outputs.report_path != '' }}");

  await using t = await setup();
  await using github = new FakeGithubApi();
  const context: Record<string, string> = {
    "github.base_ref": "main",
    "secrets.MODEL_API_KEY": KEY,
    "github.token": "ghs_test_token",
    "github.event.pull_request.number": "7",
  };

  // The agent step: the README's inputs, the model server's address replaced by the fake's.
  const inputs = Object.fromEntries(
    Object.entries(agent!.map("with")).map(([k, v]) => [k, fill(v, context)]),
  );
  assert.match(inputs.prompt!, /^Review this pull request: run `git diff origin\/main\.\.\.HEAD`/);
  assert.equal(inputs.api_key, KEY);
  t.fake.enqueue(reply().text("- no bugs found\n- add a test for the new flag").usage(90, 12));
  const r = await t.step({
    ...inputs,
    base_url: t.fake.url,
    provider: "chat_completions",
    model: "served-model",
  });
  assert.equal(r.code, 0, r.log);
  assert.equal(r.outputs.outcome, "ok");
  assert.equal(t.fake.requests[0]!.headers["authorization"], `Bearer ${KEY}`);
  const sent = JSON.stringify(t.fake.requests[0]!.body);
  assert.ok(sent.includes("git diff origin/main...HEAD"), "the prompt reached the model");

  // The comment step: its env block filled, its script under bash -eo pipefail, as Actions runs it.
  context["steps.agent.outputs.report_path"] = r.outputs.report_path!;
  const env = Object.fromEntries(
    Object.entries(comment!.map("env")).map(([k, v]) => [k, fill(v, context)]),
  );
  const script = comment!.key("run")!;
  assert.ok(!script.includes("${{"), "no expression is pasted into the shell");
  const posted = await new Deno.Command("bash", {
    args: ["--noprofile", "--norc", "-eo", "pipefail", "-c", script],
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      GITHUB_API_URL: github.url,
      GITHUB_REPOSITORY: "octo/widgets",
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(posted.code, 0, new TextDecoder().decode(posted.stderr));
  assert.equal(github.requests.length, 1);
  const [request] = github.requests;
  assert.equal(request!.method, "POST");
  assert.equal(request!.path, "/repos/octo/widgets/issues/7/comments");
  assert.equal(request!.headers["authorization"], "Bearer ghs_test_token");
  const report = await Deno.readTextFile(r.outputs.report_path!);
  assert.deepEqual(JSON.parse(request!.body), { body: report });
  assert.match(report, /add a test for the new flag/);
});
