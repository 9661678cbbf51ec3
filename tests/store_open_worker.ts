// Opens (and so migrates) a store in a thread of its own, for the concurrent-openers test of
// core/store/migrations_test.ts: several workers meet at a barrier, then all open the same
// blank database at once. Answers { ok: true } or { ok: false, error }.

/// <reference lib="deno.worker" />

import { FakeClock } from "./fakes/clock.ts";
import { type BackendName, postgresBackend, sqliteBackend } from "./store_backends.ts";

export interface OpenRequest {
  engine: BackendName;
  where: string;
  /** [0]: workers arrived; all start once it reaches `parties`. */
  barrier: SharedArrayBuffer;
  parties: number;
}

self.onmessage = (event: MessageEvent<OpenRequest>) => {
  const { engine, where, barrier, parties } = event.data;
  const word = new Int32Array(barrier);
  Atomics.add(word, 0, 1);
  Atomics.notify(word, 0);
  for (let n = Atomics.load(word, 0); n < parties; n = Atomics.load(word, 0)) {
    Atomics.wait(word, 0, n, 100);
  }
  try {
    const backend = engine === "sqlite" ? sqliteBackend : postgresBackend;
    backend.openAt(where, new FakeClock()).close();
    self.postMessage({ ok: true });
  } catch (err) {
    self.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
