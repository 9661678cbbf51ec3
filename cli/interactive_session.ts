// One interactive session: the input loop, a reply per message, and the state the session
// commands act on (interactive_commands.ts). Keys: ctrl+c or esc interrupts a reply (ctrl+c at
// an empty prompt, twice within 2 s, quits), ctrl+q quits from anywhere, ctrl+d at an empty
// prompt quits, ctrl+o at the prompt expands the last tool output. What is typed while a reply
// runs is kept (interactive_typeahead.ts) and sent after it.

import type { Clock, Env, WireFetch } from "../core/ports.ts";
import type { Message, ServedModel, Usage } from "../core/wires/types.ts";
import type { Question } from "../core/tools/types.ts";
import type { Flags } from "../core/settings/resolve.ts";
import type { AgentContext } from "./setup.ts";
import type { ParsedArgs } from "./args.ts";
import type { Terminal, WatchedKey } from "./terminal/terminal.ts";
import type { Style } from "./terminal/style.ts";
import type { SessionState, ToolOutput } from "./interactive_types.ts";
import type { InputEvent } from "./terminal/terminal.ts";
import { Journal, type LoadedSession, newSessionId } from "../core/agent/journal.ts";
import { type LoopConfig, runLoop, type ToolCallPart } from "../core/agent/loop.ts";
import { resumeWith } from "../core/agent/resume.ts";
import { appendUserText, repairHistory } from "../core/agent/history_convert.ts";
import { CostMeter } from "../core/pricing/cost_meter.ts";
import { addUsage } from "../core/wires/usage.ts";
import { ReplyView } from "./interactive_view.ts";
import { markdownLoader } from "./interactive_markdown.ts";
import { TypeAhead } from "./interactive_typeahead.ts";
import { expandCommand } from "./interactive_expand.ts";
import { banner, statusLine } from "./interactive_status.ts";
import { runCommand } from "./interactive_commands.ts";
import { answerEffortProposal } from "./interactive_effort.ts";
import { reflectOnQuit } from "./interactive_memory.ts";
import { askApproval, SessionAllowances } from "./interactive_approval.ts";
import { SessionChanges } from "./interactive_changes.ts";
import type { PermissionMode } from "../core/agent/permissions.ts";
import type { Approval } from "../core/agent/types.ts";
import { missingKeyMessage, needsKey, providerLabel } from "./interactive_swap.ts";
import { PromptInput } from "./interactive_input.ts";
import { attachMentions } from "./interactive_mentions.ts";
import { agentHome } from "../core/settings/project.ts";
import { showLastTurns } from "./interactive_resume_view.ts";

export interface SessionDeps {
  terminal: Terminal;
  style: Style;
  env: Env;
  /** How wires built for /model and /providers reach the model server. */
  modelFetch: WireFetch;
  clock: Clock;
  args: ParsedArgs;
  ctx: AgentContext;
  /** A saved session to continue (--resume). */
  resumed?: LoadedSession & { id: string };
}

const PROMPT = "› ";
/** A second ctrl+c at an empty prompt within this long quits. */
const QUIT_CONFIRM_MS = 2_000;
const CONTINUATION = "… ";

export class Session implements SessionState {
  readonly term: Terminal;
  readonly style: Style;
  readonly env: Env;
  readonly modelFetch: WireFetch;
  readonly clock: Clock;
  readonly args: ParsedArgs;
  /** The live agent context; /model and /providers replace its endpoint, wire and settings. */
  readonly ctx: AgentContext;
  /** Settings flags the session resolves with (the command line's, then a swap's pins). */
  flags: Flags;
  history: Message[] = [];
  effort: string | undefined;
  meter: CostMeter;
  /** The last completed turn's usage as the server reported it. */
  lastUsage: Usage | undefined;
  readonly sessionUsage: Usage = { input_tokens: 0, output_tokens: 0 };
  /** Reasoning blocks of the last reply (/reasoning). */
  lastReasoning: string[] = [];
  /** Context window from a `[1m]` model id, unless context_window pins it. */
  contextOverride: number | undefined;
  /** The active endpoint's model listing, fetched when the /model picker first needs it. */
  listing: { endpoint: string; models: ServedModel[] | null } | undefined;
  completedReplies = 0;
  /** The permission mode (/mode changes it for the rest of the session). */
  mode: PermissionMode;
  /** Files the edit tools changed in this session, for /diff. */
  readonly changes: SessionChanges;
  lastTools: ToolOutput[] = [];
  #journal: Journal | undefined;
  #pending: LoadedSession | undefined;
  #activity: AbortController | undefined;
  #keys: { stop: () => void; onKey: (k: WatchedKey) => void } | undefined;
  /** Text typed while something runs, sent once it has ended. */
  readonly #typeAhead = new TypeAhead();
  /** The reply being drawn, to show the type-ahead count on. */
  #view: ReplyView | undefined;
  #quitRequested = false;
  /** "Yes for the rest of this session" answers. */
  readonly #allowances = new SessionAllowances();
  /** When ctrl+c was last pressed at an empty prompt. */
  #ctrlCAt: number | undefined;
  /** The project's messages across sessions (up arrow, ctrl+r) and Tab completion. */
  readonly #input: PromptInput;

  constructor(deps: SessionDeps) {
    this.term = deps.terminal;
    this.style = deps.style;
    this.env = deps.env;
    this.modelFetch = deps.modelFetch;
    this.clock = deps.clock;
    this.args = deps.args;
    this.ctx = deps.ctx;
    this.flags = { ...deps.args.settingsFlags };
    this.effort = deps.args.effort;
    this.meter = new CostMeter({
      enabled: deps.ctx.settings.pricing_enabled,
      provider: deps.ctx.settings.provider,
      label: providerLabel(deps.ctx.settings, deps.ctx.endpoint),
    });
    this.mode = deps.args.mode;
    this.changes = new SessionChanges(deps.ctx.workdir);
    this.#input = new PromptInput(agentHome(deps.env), deps.ctx.workdir, (t) => this.error(t));
    if (deps.resumed) this.#continue(deps.resumed);
  }

  #continue(resumed: LoadedSession & { id: string }): void {
    this.history = repairHistory(resumed.messages);
    this.#pending = resumed.pending ? resumed : undefined;
    this.#journal = Journal.reopen(this.ctx.sessionsDir, resumed.id);
    // The server's count of the last turn, when the journal kept it (else an estimate shows).
    const usage = resumed.lastOutcome?.last_usage;
    this.lastUsage = usage && Number.isFinite(usage.input_tokens) &&
        Number.isFinite(usage.output_tokens)
      ? usage
      : undefined;
  }

  /** /clear: a new conversation; the current one stays saved and resumable. */
  async newConversation(): Promise<string | undefined> {
    const previous = this.#journal;
    await previous?.close();
    this.#journal = undefined;
    this.#pending = undefined;
    this.history = [];
    this.lastUsage = undefined;
    this.lastReasoning = [];
    return previous?.id;
  }

  /** /resume: continue a saved conversation in this session, in place of the current one. */
  async switchTo(resumed: LoadedSession & { id: string }): Promise<void> {
    await this.#journal?.close();
    this.lastUsage = undefined;
    this.lastReasoning = [];
    this.#continue(resumed);
    await showLastTurns(this);
    if (this.#pending) this.#showPending(this.#pending);
  }

  /** /compact: the journal records the compacted history, so a resume starts from it. */
  async recordCompaction(messages: Message[]): Promise<void> {
    this.history = messages;
    const journal = await this.#ensureJournal();
    journal.append({ type: "compaction", messages });
  }

  get contextWindow(): number {
    return this.ctx.settings.context_window ?? this.contextOverride ??
      this.ctx.resolver.contextWindow;
  }

  get sessionId(): string | undefined {
    return this.#journal?.id;
  }

  /** Runs until the user quits; resolves with the exit code. */
  async run(): Promise<number> {
    this.print(banner(this));
    if (this.history.length > 0) await showLastTurns(this);
    if (this.#pending) this.#showPending(this.#pending);
    if (this.args.prompt !== undefined && this.args.prompt.trim() !== "") {
      await this.turn(this.args.prompt);
    }
    while (!this.#quitRequested) {
      this.print(statusLine(this));
      const input = await this.#nextInput();
      if (input.type === "expand") {
        expandCommand(this, "");
        this.#typeAhead.feed(input.draft);
        continue;
      }
      if (input.type === "quit" && input.key === "ctrl+c") {
        // A stray ctrl+c (meant for a reply that just ended) must not end the session.
        const now = this.clock.now().getTime();
        if (this.#ctrlCAt !== undefined && now - this.#ctrlCAt <= QUIT_CONFIRM_MS) break;
        this.#ctrlCAt = now;
        this.note("press ctrl+c again within 2 s to quit (ctrl+d quits at once)");
        continue;
      }
      this.#ctrlCAt = undefined;
      if (input.type === "quit") break;
      if (input.type === "cancel") continue;
      const text = input.text.trim();
      if (text === "") continue;
      await this.#input.remember(input.text);
      try {
        if (text.startsWith("/")) {
          if ((await runCommand(this, text)) === "quit") break;
          continue;
        }
        await this.turn(input.text);
      } catch (err) {
        // One failed command or reply never ends the session.
        this.error(`✗ ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    await reflectOnQuit(this);
    await this.#journal?.close();
    if (this.#journal) {
      this.print(
        this.style.dim(`session ${this.#journal.id} saved · agent --resume ${this.#journal.id}`),
      );
    }
    return 0;
  }

  /** A message typed ahead during the last reply, or else the input prompt. */
  async #nextInput(): Promise<InputEvent> {
    const queued = this.#typeAhead.next();
    if (queued !== undefined) {
      this.print(`${this.style.bold(PROMPT)}${queued}`);
      return { type: "line", text: queued };
    }
    const options = await this.#input.options(this.#typeAhead.takeDraft());
    return await this.term.readInput(this.style.bold(PROMPT), CONTINUATION, options);
  }

  /** ctrl+c outside raw mode (SIGINT): interrupts whatever is running. */
  interrupt(): void {
    this.#activity?.abort(new Error("interrupted"));
  }

  print(text: string): void {
    this.term.write(text.endsWith("\n") ? text : `${text}\n`);
  }

  note(text: string): void {
    this.print(this.style.dim(text));
  }

  error(text: string): void {
    this.print(this.style.red(text));
  }

  /**
   * Runs `fn` with an abort signal that ctrl+c (and, when `escape` is set, esc) fires while
   * it runs; ctrl+q fires it too and ends the session afterwards.
   */
  async guarded<T>(
    fn: (signal: AbortSignal) => Promise<T>,
    opts: { escape?: boolean } = {},
  ): Promise<T> {
    const controller = new AbortController();
    this.#activity = controller;
    const onKey = (key: WatchedKey) => {
      if (key === "ctrl+q") this.#quitRequested = true;
      if (key !== "escape" || opts.escape) controller.abort(new Error("interrupted"));
    };
    this.#keys = { stop: this.term.watchKeys(onKey, this.#onTypeAhead), onKey };
    try {
      return await fn(controller.signal);
    } finally {
      this.#keys?.stop();
      this.#keys = undefined;
      this.#activity = undefined;
    }
  }

  #onTypeAhead = (text: string): void => {
    this.#typeAhead.feed(text);
    if (this.#view) {
      this.#view.queued = this.#typeAhead.queued;
      this.#view.typed = this.#typeAhead.draft;
    }
  };

  /** Opens a prompt (picker, confirmation) with the reply's key watch paused meanwhile. */
  /** Stops the reply's activity line (a question is about to be asked mid-reply). */
  pauseReply(): void {
    this.#view?.pause();
  }

  async withPrompt<T>(fn: () => Promise<T>): Promise<T> {
    const keys = this.#keys;
    keys?.stop();
    try {
      return await fn();
    } finally {
      if (keys && this.#keys === keys) {
        this.#keys = {
          stop: this.term.watchKeys(keys.onKey, this.#onTypeAhead),
          onKey: keys.onKey,
        };
      }
    }
  }

  /** One user message and the agent's reply, tool calls included. */
  async turn(text: string): Promise<void> {
    const missing = missingKeyMessage({
      settings: this.ctx.settings,
      endpoint: this.ctx.endpoint,
      keyNeeded: needsKey(this.ctx.settings),
    });
    if (missing) return this.error(missing);
    const journal = await this.#ensureJournal();
    let messages: Message[];
    const view = new ReplyView(this.term, this.style, {
      clock: this.clock,
      ...optional("markdown", markdownLoader(this.style, () => this.term.columns())),
    });
    const cfg: LoopConfig = this.loopConfig(view, journal);
    if (this.#pending) {
      const pending = this.#pending;
      this.#pending = undefined;
      const step = await resumeWith(pending, text, {
        tools: this.ctx.tools,
        workdir: this.ctx.workdir,
        signal: new AbortController().signal,
      });
      for (const m of step.appended) journal.append({ type: "message", message: m });
      messages = step.messages;
      if (step.effort) this.effort = step.effort;
    } else {
      const attached = attachMentions(text, this.ctx.workdir);
      for (const line of attached.notes) this.note(line);
      text = attached.text;
      const message: Message = { role: "user", parts: [{ type: "text", text }] };
      journal.append({ type: "message", message });
      messages = appendUserText(this.history, text);
    }
    this.history = messages;

    this.#view = view;
    view.queued = this.#typeAhead.queued;
    view.begin();
    const result = await this.guarded(async (signal) => {
      cfg.signal = signal;
      if (this.effort) cfg.effort = this.effort;
      // Servers connect behind the prompt; a turn waits only for those whose tools are not
      // remembered yet (at once when every list is known).
      await this.ctx.mcp?.listed();
      return await runLoop(messages, cfg);
    }, { escape: true }).finally(() => this.#view = undefined);
    await view.finish();
    this.history = result.messages;
    const interrupted = result.error === "interrupted";
    // The text streamed before an interrupt is kept: shown, saved, and sent as context next.
    const partial = interrupted ? view.unfinishedText : "";
    if (partial.trim() !== "") {
      const message: Message = { role: "assistant", parts: [{ type: "text", text: partial }] };
      journal.append({ type: "message", message });
      this.history = [...result.messages, message];
    }
    this.lastReasoning = view.reasoning;
    if (view.tools.length > 0) this.lastTools = view.tools;
    if (this.ctx.resolver.applyResponseModel(result.model)) {
      this.note(`model: ${this.ctx.resolver.displayName}`);
    }
    addUsage(this.sessionUsage, result.usage);
    if (result.usage.input_tokens + result.usage.output_tokens > 0) {
      this.meter.add(this.ctx.resolver.displayName, result.usage);
    }
    journal.append({
      type: "outcome",
      done_reason: interrupted ? "interrupted" : result.done_reason,
      questions: result.questions,
      final_text: interrupted ? partial : result.final_text,
      ...(this.lastUsage ? { last_usage: this.lastUsage } : {}),
      at: this.clock.now().toISOString(),
    });
    if (result.done_reason === "stop") this.completedReplies++;
    else if (interrupted) this.print(this.style.yellow("⏹ interrupted"));
    else this.error(`✗ ${result.error ?? result.done_reason}`);
  }

  /** The loop configuration of a reply on the current endpoint. */
  loopConfig(view: ReplyView, journal?: Journal): LoopConfig {
    const s = this.ctx.settings;
    const cfg: LoopConfig = {
      wire: this.ctx.wire,
      model: s.model,
      system: this.ctx.system,
      tools: this.ctx.tools,
      mode: this.mode,
      workdir: this.ctx.workdir,
      context_window: this.contextWindow,
      onEvent: (event) => {
        if (event.type === "tool_start") this.changes.noteCall(event.call);
        view.onEvent(event);
        if (event.type === "done") this.lastUsage = event.usage;
      },
      approve: (call, summary, detail) => {
        view.pause();
        return this.#approve(call, summary, detail, cfg);
      },
      answer: (call, questions) => this.#answer(call, questions, cfg, view),
      ...(journal ? { journal, cache_key: journal.id } : {}),
      ...(this.args.maxTurns ? { max_turns: this.args.maxTurns } : {}),
      ...(s.max_tokens ? { max_tokens: s.max_tokens } : {}),
      ...(s.token_budget ? { token_budget: s.token_budget } : {}),
      ...(s.compaction_threshold ? { compaction_threshold: s.compaction_threshold } : {}),
    };
    const memory = this.ctx.memory;
    if (memory) cfg.reminder = (text: string) => memory.recallReminder(text);
    return cfg;
  }

  /** Strict mode: every edit or shell call asks first, showing what it will do. */
  async #approve(
    call: ToolCallPart,
    summary: string,
    detail: string | undefined,
    cfg: LoopConfig,
  ): Promise<Approval> {
    if (cfg.signal?.aborted) return { approved: false };
    const answer = await askApproval(this, this.#allowances, call, summary, detail);
    // Cancelling the question (ctrl+c, esc) interrupts the reply as well.
    if (answer === null) this.interrupt();
    if (!answer?.approved) this.note("  declined");
    return answer ?? { approved: false };
  }

  async #answer(
    call: ToolCallPart,
    questions: Question[],
    cfg: LoopConfig,
    view: ReplyView,
  ): Promise<string> {
    await view.finish();
    if (call.name === "propose_settings") {
      return await this.withPrompt(() => answerEffortProposal(this, call, cfg));
    }
    const answers: string[] = [];
    for (const q of questions) {
      const answer = await this.withPrompt(() => this.#ask(q));
      answers.push(questions.length > 1 ? `${q.text} → ${answer}` : answer);
    }
    return answers.join("\n");
  }

  async #ask(q: Question): Promise<string> {
    const prompts = this.term.prompts;
    let answer: string | null;
    if (q.options && q.options.length > 0) {
      const other = "\u0000other";
      answer = await prompts.pick<string>({
        message: q.text,
        items: [
          ...q.options.map((o) => ({ type: "row" as const, value: o, key: o, label: o })),
          { type: "row" as const, value: other, key: other, label: "something else…" },
        ],
      });
      if (answer === other) answer = await prompts.text(q.text);
    } else {
      answer = await prompts.text(q.text);
    }
    return answer ?? "(the operator dismissed the question without an answer)";
  }

  async #ensureJournal(): Promise<Journal> {
    if (this.#journal) return this.#journal;
    const now = this.clock.now();
    this.#journal = await Journal.create(this.ctx.sessionsDir, {
      id: newSessionId(now),
      created_at: now.toISOString(),
      workdir: this.ctx.workdir,
      provider: this.ctx.settings.provider,
      // The served name when the server told it (the probe), not the "default" placeholder.
      model: this.ctx.resolver.displayName,
      mode: this.mode,
    });
    return this.#journal;
  }

  #showPending(session: LoadedSession): void {
    const questions = session.lastOutcome?.questions ?? [];
    this.note(`Resumed with ${session.messages.length} messages. The session was waiting for:`);
    for (const q of questions) this.print(`  ${this.style.yellow("?")} ${q.text}`);
    this.note("Your next message answers it.");
  }
}

/** `{ [key]: value }` when value is defined, else `{}` (exactOptionalPropertyTypes). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : { [key]: value } as { [P in K]?: V };
}
