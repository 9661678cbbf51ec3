// Drives the real `agent` program in a pseudo-terminal: a private tmux server per session,
// keys in with send-keys, the screen out with capture-pane. Waiting is polling the screen
// against a pattern under a deadline, never a fixed sleep.

import { agentArgs, type AgentEnv, childEnv, tempHome } from "./agent_process.ts";
import {
  type FakeModelServer,
  type FakeServerOptions,
  startFakeModelServer,
} from "../fakes/model_server.ts";

export interface TmuxAgentOptions {
  args?: string[];
  /** Extra environment for the agent (AGENT_BASE_URL, AGENT_PRICING, …). */
  env?: Record<string, string>;
  /** Global settings file text, written to $AGENT_HOME/settings.toml before start. */
  settings?: string;
  width?: number;
  height?: number;
  /** Reuse this home (an earlier session's); it is then left for its creator to remove. */
  home?: string;
}

export interface WaitOptions {
  timeoutMs?: number;
  /** Wait until the pattern occurs this many times (default 1). */
  count?: number;
}

const POLL_MS = 40;
const DEFAULT_TIMEOUT_MS = 15_000;

export class TmuxAgent {
  readonly home: string;
  readonly workdir: string;
  readonly #socket: string;
  readonly #ownsHome: boolean;
  #socketPath = "";

  private constructor(home: string, workdir: string, socket: string, ownsHome: boolean) {
    this.home = home;
    this.workdir = workdir;
    this.#socket = socket;
    this.#ownsHome = ownsHome;
  }

  get agentHome(): string {
    return `${this.home}/.agent`;
  }

  get settingsPath(): string {
    return `${this.agentHome}/settings.toml`;
  }

  static async start(opts: TmuxAgentOptions = {}): Promise<TmuxAgent> {
    const home = opts.home ?? await tempHome();
    const workdir = `${home}/work`;
    await Deno.mkdir(`${home}/.agent`, { recursive: true });
    await Deno.mkdir(workdir, { recursive: true });
    if (opts.settings !== undefined) {
      await Deno.writeTextFile(`${home}/.agent/settings.toml`, opts.settings, { mode: 0o600 });
    }
    const env: AgentEnv = { home, TERM: "screen", ...opts.env };
    const vars = Object.entries(childEnv(env)).map(([k, v]) => `${k}=${v}`);
    const command = [
      "env",
      "-i",
      ...vars,
      Deno.execPath(),
      ...await agentArgs(),
      ...(opts.args ?? []),
    ].map(shellQuote).join(" ");
    const socket = `agent-e2e-${crypto.randomUUID().slice(0, 8)}`;
    const agent = new TmuxAgent(home, workdir, socket, opts.home === undefined);
    await agent.#tmux(
      "new-session",
      "-d",
      "-s",
      "agent",
      "-x",
      String(opts.width ?? 110),
      "-y",
      String(opts.height ?? 40),
      "-c",
      workdir,
      `${command}; echo "[agent exited $?]"; sleep 3600`,
    );
    await agent.#tmux("set-option", "-t", "agent", "history-limit", "10000");
    agent.#socketPath = (await agent.#tmux("display-message", "-p", "#{socket_path}")).trim();
    return agent;
  }

  /** tmux key names: Enter, Escape, Up, Down, C-c, C-q, … */
  async keys(...keys: string[]): Promise<void> {
    await this.#tmux("send-keys", "-t", "agent", ...keys);
  }

  /** Types text literally (no key-name lookup). */
  async type(text: string): Promise<void> {
    await this.#tmux("send-keys", "-t", "agent", "-l", text);
  }

  /**
   * Pastes `text` the way a terminal does: from a tmux buffer, bracketed (`ESC[200~ … ESC[201~`)
   * unless `bracketed` is false; tmux turns each line break into a CR, as a terminal would.
   */
  async paste(text: string, opts: { bracketed?: boolean } = {}): Promise<void> {
    await this.#tmux("set-buffer", "-b", "e2e", "--", text);
    await this.#tmux(
      "paste-buffer",
      "-d",
      "-b",
      "e2e",
      ...(opts.bracketed === false ? [] : ["-p"]),
      "-t",
      "agent",
    );
  }

  /** Sends raw bytes to the program (escape sequences a terminal would encode). */
  async bytes(text: string): Promise<void> {
    const hex = [...new TextEncoder().encode(text)].map((b) => b.toString(16).padStart(2, "0"));
    await this.#tmux("send-keys", "-t", "agent", "-H", ...hex);
  }

  /** Resizes the window as a terminal emulator would (the program gets SIGWINCH). */
  async resize(width: number, height = 40): Promise<void> {
    await this.#tmux("resize-window", "-t", "agent", "-x", String(width), "-y", String(height));
  }

  /** Where the terminal's cursor is (column and row of the visible screen, from 0). */
  async cursor(): Promise<{ x: number; y: number }> {
    const out = await this.#tmux("display-message", "-p", "-t", "agent", "#{cursor_x} #{cursor_y}");
    const [x, y] = out.trim().split(" ").map(Number);
    return { x: x!, y: y! };
  }

  /** Types a line and presses Enter. */
  async submit(text: string): Promise<void> {
    await this.type(text);
    await this.keys("Enter");
  }

  /**
   * The screen plus scrollback (only the screen with `visibleOnly`), trailing blank lines
   * dropped; `escapes` keeps SGR codes.
   */
  async screen(opts: { escapes?: boolean; visibleOnly?: boolean } = {}): Promise<string> {
    const flags = opts.escapes ? ["-e"] : [];
    const from = opts.visibleOnly ? [] : ["-S", "-"];
    const out = await this.#tmux("capture-pane", "-p", "-J", ...flags, ...from, "-t", "agent");
    return out.replace(/\s+$/, "");
  }

  async waitFor(pattern: string | RegExp, opts: WaitOptions = {}): Promise<string> {
    const deadline = Date.now() + (opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const want = opts.count ?? 1;
    const re = typeof pattern === "string"
      ? new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "g")
      : new RegExp(
        pattern.source,
        pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`,
      );
    let screen = "";
    while (Date.now() < deadline) {
      screen = await this.screen();
      if ((screen.match(re)?.length ?? 0) >= want) return screen;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    throw new Error(
      `timed out waiting for ${String(pattern)}${
        want > 1 ? ` ×${want}` : ""
      }; the screen was:\n${screen}`,
    );
  }

  /** Waits until the input prompt is the last thing on the screen (the session is idle). */
  async idle(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<string> {
    return await this.waitFor(/›$(?![\s\S])/, { timeoutMs });
  }

  /** Waits for the program to end; resolves with its exit code. */
  async waitForExit(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<number> {
    const screen = await this.waitFor(/\[agent exited (\d+)\]/, { timeoutMs });
    return Number(/\[agent exited (\d+)\]/.exec(screen)![1]);
  }

  async close(): Promise<void> {
    await this.#tmux("kill-server").catch(() => {});
    if (this.#socketPath) await Deno.remove(this.#socketPath).catch(() => {});
    if (this.#ownsHome) await Deno.remove(this.home, { recursive: true }).catch(() => {});
  }

  async #tmux(...args: string[]): Promise<string> {
    const out = await new Deno.Command("tmux", {
      args: ["-L", this.#socket, "-f", "/dev/null", ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`tmux ${args[0]} failed: ${new TextDecoder().decode(out.stderr).trim()}`);
    }
    return new TextDecoder().decode(out.stdout);
  }
}

/** A fake model server and an agent session pointed at it, reflection off
 * (AGENT_MEMORY_REFLECT=0, so the requests are only the conversation's); disposing closes the
 * session, then the server. */
export async function fakeModelSession(
  opts: {
    server?: FakeServerOptions;
    env?: Record<string, string>;
    args?: string[];
    width?: number;
    home?: string;
  } = {},
): Promise<{ fake: FakeModelServer; agent: TmuxAgent } & AsyncDisposable> {
  const fake = await startFakeModelServer(opts.server);
  let agent: TmuxAgent;
  try {
    agent = await TmuxAgent.start({
      env: { AGENT_MEMORY_REFLECT: "0", AGENT_BASE_URL: fake.url, ...opts.env },
      ...(opts.args ? { args: opts.args } : {}),
      ...(opts.width ? { width: opts.width } : {}),
      ...(opts.home ? { home: opts.home } : {}),
    });
  } catch (err) {
    await fake.close();
    throw err;
  }
  return {
    fake,
    agent,
    async [Symbol.asyncDispose]() {
      await agent.close();
      await fake.close();
    },
  };
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

type Body = Record<string, unknown> | null;
type WireMessage = { role: string; content: unknown };

/** The text of the last user turn of a recorded request, on either wire. */
export function lastUserText(body: Body): string {
  const messages = (body?.messages ?? []) as WireMessage[];
  const last = messages.findLast((m) => m.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return (last.content as { type: string; text?: string }[])
    .filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

/** Every tool result of a recorded request, on either wire. */
export function toolResults(body: Body): string[] {
  const out: string[] = [];
  for (const m of (body?.messages ?? []) as WireMessage[]) {
    if (m.role === "tool") out.push(String(m.content));
    if (m.role === "user" && Array.isArray(m.content)) {
      for (const b of m.content as { type: string; content?: unknown }[]) {
        if (b.type === "tool_result") out.push(String(b.content ?? ""));
      }
    }
  }
  return out;
}

/** The user turns of a recorded request as text, on either wire. */
export function userTexts(body: Body): string[] {
  return ((body?.messages ?? []) as WireMessage[]).filter((m) => m.role === "user").map((m) =>
    typeof m.content === "string"
      ? m.content
      : (m.content as { type: string; text?: string }[]).filter((b) => b.type === "text")
        .map((b) => b.text).join("\n")
  );
}
