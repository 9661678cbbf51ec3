// The five-layer chat gate (spec 5.7), in order, for one operator message:
//   1. allowlist: a stranger is ignored silently (logged once per sender);
//   2. room: refused with a typed reason unless every member is the bot or an operator;
//   3. grammar: verb table, usage replies, free-text fall-through;
//   4. AGENT_MATRIX_VERBS, rate limits (30/min per sender, 5/min per target), risk and
//      target existence (risk and targets are checked by the command runner);
//   5. execute, audit, confirm (CommandRunner).
// It returns the reply to post, or null when nothing visible should happen.

import { errorText, type Logger } from "../logger.ts";
import type { Clock } from "../ports.ts";
import { CommandRunner, targetKey } from "./commands.ts";
import type { GatedVerb } from "./config.ts";
import { ANSWER, parseMessage } from "./grammar.ts";
import { PER_SENDER, PER_TARGET } from "./rate_limit.ts";
import { SlidingLimiter } from "../sliding_limiter.ts";
import { RefusalError } from "./replies.ts";
import type { RoomTrust } from "./room_trust.ts";

export interface IncomingMessage {
  sender: string;
  room: string;
  event_id: string;
  body: string;
}

export interface GateOptions {
  allowlist: ReadonlySet<string>;
  verbs: ReadonlySet<GatedVerb>;
  verbsSetting: string;
  rooms: RoomTrust;
  runner: CommandRunner;
  clock: Clock;
  logger: Logger;
}

const MAX_LOGGED_STRANGERS = 1000;

export class Gate {
  readonly #o: GateOptions;
  readonly #perSender: SlidingLimiter;
  readonly #perTarget: SlidingLimiter;
  readonly #strangers = new Set<string>();

  constructor(options: GateOptions) {
    this.#o = options;
    this.#perSender = new SlidingLimiter(options.clock, PER_SENDER);
    this.#perTarget = new SlidingLimiter(options.clock, PER_TARGET);
  }

  async handle(msg: IncomingMessage): Promise<string | null> {
    // 1. allowlist
    if (!this.#o.allowlist.has(msg.sender)) {
      this.#logStranger(msg);
      return null;
    }
    try {
      // 2. room
      const verdict = await this.#o.rooms.verdict(msg.room);
      if (!verdict.trusted) {
        throw new RefusalError(
          "untrusted_room",
          `this room has ${verdict.outsiders} member(s) who are not on the operator ` +
            `allowlist; send commands in a direct message or a room of operators only`,
        );
      }
      // 3. grammar
      const parsed = parseMessage(msg.body);
      if (parsed.kind === "empty") return null;
      if (parsed.kind === "too_long") {
        throw new RefusalError(
          "too_long",
          `the message has ${parsed.length} characters; the limit is 16000`,
        );
      }
      const verb: GatedVerb = parsed.kind === "answer"
        ? ANSWER
        : parsed.kind === "usage"
        ? parsed.verb
        : parsed.command.verb;
      // 4. flag
      if (!this.#o.verbs.has(verb)) {
        if (parsed.kind === "answer") return null; // free text switched off: stay quiet
        throw new RefusalError(
          "verb_disabled",
          `"${verb}" is turned off on this outpost (AGENT_MATRIX_VERBS=${this.#o.verbsSetting})`,
        );
      }
      if (parsed.kind === "usage") {
        throw new RefusalError("usage", `usage: ${parsed.usage}`);
      }
      // 4. rate limits
      this.#rate(this.#perSender, `sender:${msg.sender}`, "30 commands a minute per operator");
      const origin = { sender: msg.sender, room: msg.room };
      if (parsed.kind === "answer") {
        if (parsed.item !== null) {
          this.#rate(this.#perTarget, `item:${parsed.item}`, "5 commands a minute per target");
        }
        // 4-5. target, risk (a high-risk item holds the answer), execute
        return this.#o.runner.answer(parsed.item, parsed.text, origin);
      }
      const target = targetKey(parsed.command);
      if (target !== null) this.#rate(this.#perTarget, target, "5 commands a minute per target");
      // 4-5. risk, target, execute
      return await this.#o.runner.execute(parsed.command, origin);
    } catch (err) {
      if (err instanceof RefusalError) return err.reply;
      this.#o.logger.log("warn", "chat command failed", {
        room: msg.room,
        sender: msg.sender,
        error: errorText(err),
      });
      return `Something went wrong on the outpost: ${errorText(err)}`;
    }
  }

  #rate(limiter: SlidingLimiter, key: string, what: string): void {
    const r = limiter.take(key);
    if (!r.ok) {
      throw new RefusalError(
        "rate_limited",
        `${what}; try again in ${Math.ceil(r.retryInMs / 1000)} s`,
      );
    }
  }

  #logStranger(msg: IncomingMessage): void {
    if (this.#strangers.has(msg.sender)) return;
    if (this.#strangers.size >= MAX_LOGGED_STRANGERS) return;
    this.#strangers.add(msg.sender);
    this.#o.logger.log("info", "chat message from a sender not on MX_ALLOWLIST ignored", {
      sender: msg.sender,
      room: msg.room,
    });
  }
}
