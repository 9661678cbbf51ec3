// Test doubles for the process side of the scheduler: a Spawner whose children end when a
// test says so, and a ProcessTable with scripted identities. No real process, no waiting.

import type { HeadlessResult } from "../../core/agent/types.ts";
import type { SpawnedProcess, Spawner, SpawnRequest } from "../../core/ports.ts";
import type { ProcessTable } from "../../core/scheduler/proc.ts";

export class FakeProcess implements SpawnedProcess {
  readonly pid: number;
  readonly req: SpawnRequest;
  readonly exited: Promise<number>;
  readonly stdout: Promise<string>;
  /** Set when the process group was SIGKILLed while the process was alive. */
  killed = false;
  done = false;
  #exit!: (code: number) => void;
  #stdout!: (text: string) => void;
  readonly #onDone: ((proc: FakeProcess) => void) | undefined;

  constructor(pid: number, req: SpawnRequest, onDone?: (proc: FakeProcess) => void) {
    this.pid = pid;
    this.req = req;
    this.#onDone = onDone;
    this.exited = new Promise((resolve) => (this.#exit = resolve));
    this.stdout = new Promise((resolve) => (this.#stdout = resolve));
  }

  /** The trailing positional after `--` (the prompt, or the answer of a resume). */
  get prompt(): string {
    return this.req.args[this.req.args.length - 1] ?? "";
  }

  /** The value after `flag` in the argument list, if present. */
  arg(flag: string): string | undefined {
    const i = this.req.args.indexOf(flag);
    return i >= 0 ? this.req.args[i + 1] : undefined;
  }

  /** Ends the child: prints `result` (an object becomes the JSON line) and exits. */
  exit(code: number, result: Partial<HeadlessResult> | string = {}): void {
    if (this.done) return;
    this.done = true;
    this.#onDone?.(this);
    this.#stdout(typeof result === "string" ? result : JSON.stringify(result));
    this.#exit(code);
  }

  killGroup(): void {
    if (this.done) return;
    this.killed = true;
    this.exit(137, "");
  }
}

export class FakeSpawner implements Spawner {
  readonly spawned: FakeProcess[] = [];
  /** The next spawn throws this (once). */
  failNext: Error | null = null;
  onSpawn: ((proc: FakeProcess) => void) | null = null;
  #nextPid = 40_000;
  #waiters: ((p: FakeProcess) => void)[] = [];
  // Kept beside `spawned` so live() costs the children running, not every child ever
  // spawned: the 30-day simulation spawns ~4,500 and asks for the live ones at each spawn.
  readonly #live = new Set<FakeProcess>();

  spawn(req: SpawnRequest): FakeProcess {
    if (this.failNext) {
      const err = this.failNext;
      this.failNext = null;
      throw err;
    }
    const proc = new FakeProcess(this.#nextPid++, req, (p) => this.#live.delete(p));
    this.spawned.push(proc);
    this.#live.add(proc);
    this.onSpawn?.(proc);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w(proc);
    return proc;
  }

  /** Children still running. */
  live(): FakeProcess[] {
    return [...this.#live];
  }

  /** Resolves with the next child spawned after this call. */
  nextSpawn(): Promise<FakeProcess> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** Identities are whatever the test sets; killGroup records the group and forgets the pid. */
export class FakeProcessTable implements ProcessTable {
  readonly identities = new Map<number, string>();
  readonly killed: number[] = [];
  identity(pid: number): string | null {
    return this.identities.get(pid) ?? null;
  }
  killGroup(pgid: number): void {
    this.killed.push(pgid);
    this.identities.delete(pgid);
  }
  probe(): void {}
}

/**
 * Kills every live child of `spawner` until `scheduler` has no active run: killed runs may be
 * retried and runs still starting may spawn after a first sweep, so one sweep is not enough.
 */
export async function killUntilIdle(
  scheduler: { activeRuns(): readonly unknown[]; idle(): Promise<void> },
  spawner: FakeSpawner,
): Promise<void> {
  while (scheduler.activeRuns().length > 0) {
    for (const p of spawner.live()) p.killGroup();
    await Promise.race([scheduler.idle(), spawner.nextSpawn()]);
  }
}
