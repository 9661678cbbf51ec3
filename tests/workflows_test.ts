// The workflows are linted with actionlint (installed by .ci/run from the Go module proxy):
// .github/workflows/*.yml and the README's example workflow, which users copy. actionlint does
// not read action.yml (action metadata, not a workflow), so action_metadata_test.ts checks that.

import assert from "node:assert/strict";
import { peerTest, probes } from "./peers.ts";
import { readmeWorkflow } from "./e2e/github_action_kit.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

async function actionlint(files: string[]) {
  const out = await new Deno.Command("actionlint", {
    args: ["-no-color", ...files],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, text: dec.decode(out.stdout) + dec.decode(out.stderr) };
}

peerTest(
  "actionlint passes on every workflow and on the README's example workflow",
  probes.actionlint,
  async () => {
    const workflows = [...Deno.readDirSync(`${ROOT}/.github/workflows`)]
      .filter((e) => /\.ya?ml$/.test(e.name)).map((e) => `.github/workflows/${e.name}`).sort();
    for (const name of ["ci.yml", "release.yml"]) {
      assert.ok(workflows.includes(`.github/workflows/${name}`), `${name} in ${workflows}`);
    }
    const dir = await Deno.makeTempDir({ prefix: "agent-readme-workflow-" });
    try {
      const example = `${dir}/agent-review.yml`;
      await Deno.writeTextFile(example, await readmeWorkflow());
      const lint = await actionlint([...workflows, example]);
      assert.equal(lint.code, 0, lint.text);
      // The lint is not vacuous: a broken workflow fails it.
      const broken = `${dir}/broken.yml`;
      await Deno.writeTextFile(
        broken,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ${{ steps.nope.outputs.x }}\n",
      );
      const bad = await actionlint([broken]);
      assert.equal(bad.code, 1, bad.text);
      assert.match(bad.text, /steps\.nope/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
