// The GitHub Action's `run` step executed as the runner would (tests/e2e/github_action_test.ts,
// and the README's example workflow in tests/e2e/readme_workflow_test.ts): action.yml's command
// line and env block, inputs filled from the caller or the declared defaults, in a simulated
// Actions environment (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP files) against the fake
// model server.

import { dirname } from "node:path";
import { startFakeModelServer } from "../fakes/model_server.ts";
import { agentArgs, ROOT, tempHome } from "./agent_process.ts";

export const KEY = "sk-action-secret-7f3a";
export const yml = await Deno.readTextFile(`${ROOT}/action.yml`);

/** The declared inputs' defaults, the run step's env block and command, the outputs' sources. */
export function parseAction() {
  const lines = yml.split("\n");
  const section = (name: string) => {
    const start = lines.indexOf(`${name}:`);
    const end = lines.findIndex((l, i) => i > start && /^\S/.test(l));
    return lines.slice(start + 1, end);
  };
  const defaults: Record<string, string> = {};
  let current = "";
  for (const line of section("inputs")) {
    const name = /^ {2}(\w+):$/.exec(line);
    if (name) current = name[1]!;
    const value = /^ {4}default: (.*)$/.exec(line);
    if (value) defaults[current] = value[1]!.replace(/^"(.*)"$/, "$1");
  }
  const outputs: Record<string, string> = {};
  for (const line of section("outputs")) {
    const name = /^ {2}(\w+):$/.exec(line);
    if (name) current = name[1]!;
    const value = /^ {4}value: \$\{\{ steps\.run\.outputs\.(\w+) \}\}$/.exec(line);
    if (value) outputs[current] = value[1]!;
  }
  const step = lines.indexOf("      id: run");
  const env: Record<string, string> = {};
  let run = "";
  for (const line of lines.slice(step)) {
    const e = /^ {8}(\w+): \$\{\{ inputs\.(\w+) \}\}$/.exec(line);
    if (e) env[e[1]!] = e[2]!;
    const r = /^ {6}run: (.*)$/.exec(line);
    if (r) {
      run = r[1]!;
      break;
    }
  }
  return { defaults, outputs, env, run };
}

export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\w+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const end = lines.indexOf(m[2]!, i + 1);
    out[m[1]!] = lines.slice(i + 1, end).join("\n");
    i = end;
  }
  return out;
}

export async function setup() {
  const fake = await startFakeModelServer({
    models: [{ id: "served-model", max_model_len: 32768 }],
    apiKey: KEY,
  });
  const home = await tempHome();
  const work = `${home}/checkout`;
  await Deno.mkdir(work);
  await Deno.mkdir(`${home}/runner-temp`);
  const action = parseAction();
  // action.yml's install step (`deno task install`) bundles the agent the run step starts; the
  // kit builds the same bundle from this checkout.
  await agentArgs();

  /** Runs the action's `run` step like the runner would, with these inputs. */
  const step = async (inputs: Record<string, string>, runner: Record<string, string> = {}) => {
    const outputFile = `${home}/runner-temp/output-${crypto.randomUUID()}`;
    const summaryFile = `${home}/runner-temp/summary-${crypto.randomUUID()}`;
    await Deno.writeTextFile(outputFile, "");
    await Deno.writeTextFile(summaryFile, "");
    const env: Record<string, string> = {
      PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
      HOME: home,
      AGENT_HOME: `${home}/.agent`,
      AGENT_MEMORY_REFLECT: "0",
      DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
      GITHUB_ACTIONS: "true",
      GITHUB_ACTION_PATH: ROOT,
      GITHUB_WORKSPACE: work,
      GITHUB_RUN_ID: "4242",
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      RUNNER_TEMP: `${home}/runner-temp`,
      ...runner,
    };
    for (const [name, input] of Object.entries(action.env)) {
      env[name] = inputs[input] ?? action.defaults[input] ?? "";
    }
    const out = await new Deno.Command("bash", {
      args: ["-c", action.run],
      cwd: work,
      env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    const raw = await Deno.readTextFile(outputFile);
    return {
      code: out.code,
      log: dec.decode(out.stdout) + dec.decode(out.stderr),
      rawOutputs: raw,
      outputs: parseOutputs(raw),
      summary: await Deno.readTextFile(summaryFile),
    };
  };
  return {
    fake,
    home,
    work,
    action,
    step,
    async [Symbol.asyncDispose]() {
      await fake.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** The README's workflow file: the ```yaml block that names .github/workflows/agent-review.yml. */
export async function readmeWorkflow(): Promise<string> {
  const readme = await Deno.readTextFile(`${ROOT}/README.md`);
  const block = /```yaml\n(# \.github\/workflows\/agent-review\.yml\n[\s\S]*?)```/.exec(readme);
  if (!block) throw new Error("README.md has no agent-review.yml workflow block");
  return block[1]!;
}
