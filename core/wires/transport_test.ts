// Every WireError the wires raise, against the fake model server. Time is a FakeClock:
// nothing here waits for real.

import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { httpError, reply, startFakeModelServer } from "../../tests/fakes/model_server.ts";
import { defaultWireOptions, fakeEndpoint } from "../../tests/fakes/model_server_wiring.ts";
import { type Clock, envFrom, type WireFetch } from "../ports.ts";
import { modelServerFetch } from "./plain_http.ts";
import type { WireKind } from "../settings/types.ts";
import { createWire } from "./create.ts";
import { WireError } from "./errors.ts";
import { retryAfterMs } from "./transport.ts";
import type { Endpoint, WireEvent } from "./types.ts";
import {
  collectEvents as collect,
  wireRequest as req,
} from "../../tests/fakes/model_server_wiring.ts";

/** A FakeClock that tells the test each time someone starts sleeping on it. */
class WatchedClock implements Clock {
  readonly inner = new FakeClock();
  readonly sleeps: number[] = [];
  #unclaimed: number[] = [];
  #waiters: ((ms: number) => void)[] = [];

  now(): Date {
    return this.inner.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    const p = this.inner.sleep(ms, signal);
    const waiter = this.#waiters.shift();
    if (waiter) waiter(ms);
    else this.#unclaimed.push(ms);
    return p;
  }

  /** Resolves with the duration of the next sleep() call not yet reported. */
  nextSleep(): Promise<number> {
    const ms = this.#unclaimed.shift();
    if (ms !== undefined) return Promise.resolve(ms);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  advance(ms: number): Promise<void> {
    return this.inner.advance(ms);
  }
}

function isWireError(check: (e: WireError) => boolean) {
  return (e: unknown) => {
    if (!(e instanceof WireError)) throw e;
    equal(e.name, "WireError");
    return check(e);
  };
}

/**
 * The process's open resources (connections, response bodies), by id. Deno 2 dropped
 * Deno.resources(); this is the table its test sanitizer reads.
 */
function openResources(): Record<string, string> {
  const deno = Deno as unknown as {
    internal: symbol;
    [key: symbol]: { core: { resources(): Record<string, string> } };
  };
  const core = deno[deno.internal]?.core;
  if (!core) throw new Error("Deno's resource table is not where this Deno version kept it");
  return { ...core.resources() };
}

/** What is open now that was not in `before`, as "id:kind". */
function openedSince(before: Record<string, string>): string[] {
  return Object.entries(openResources())
    .filter(([id]) => !(id in before))
    .map(([id, kind]) => `${id}:${kind}`);
}

/**
 * Both clients the wires use run every case: fetch, and the plain-http client that reaches
 * model servers on http (core/wires/plain_http.ts; no proxy in its environment).
 */
const CLIENTS: [string, WireFetch | undefined][] = [
  ["fetch", undefined],
  ["plain http", modelServerFetch(envFrom({}))],
];

for (const [client, fetchFn] of CLIENTS) {
  const wireFor = (endpoint: Endpoint, clock: Clock, idleTimeoutMs = 0) =>
    createWire(endpoint, defaultWireOptions(), fetchFn, { clock, idleTimeoutMs });

  for (const kind of ["chat_completions", "messages"] as WireKind[]) {
    Deno.test(`${client}: ${kind}: 429 honors Retry-After, then succeeds`, async () => {
      const fake = await startFakeModelServer();
      const clock = new WatchedClock();
      try {
        fake.enqueue(httpError(429, { error: { message: "slow down" } }, { "retry-after": "2" }));
        fake.enqueue(reply().text("ok"));
        const run = collect(wireFor(fakeEndpoint(fake, kind), clock).stream(req()));
        equal(await clock.nextSleep(), 2000);
        await clock.advance(2000);
        const events = await run;
        equal(events.at(-1)?.type, "done");
        equal(fake.requests.length, 2);
      } finally {
        await fake.close();
      }
    });

    Deno.test(`${client}: ${kind}: 5xx backs off exponentially, then gives up with an explained error`, async () => {
      const fake = await startFakeModelServer();
      const clock = new WatchedClock();
      try {
        for (let i = 0; i < 4; i++) {
          fake.enqueue(httpError(503, { error: { message: "overloaded" } }));
        }
        const run = collect(wireFor(fakeEndpoint(fake, kind), clock).stream(req()));
        const failed = rejects(
          run,
          isWireError((e) =>
            e.kind === "http" && e.status === 503 && e.retryable && e.attempts === 4 &&
            e.message.includes("Gave up after 4 attempts") && e.message.includes("overloaded")
          ),
        );
        for (const expected of [1000, 2000, 4000]) {
          equal(await clock.nextSleep(), expected);
          await clock.advance(expected);
        }
        await failed;
        deepEqual(clock.sleeps, [1000, 2000, 4000]);
      } finally {
        await fake.close();
      }
    });
  }

  Deno.test(`${client}: retry: a Retry-After beyond the cap is not waited for`, async () => {
    const fake = await startFakeModelServer();
    try {
      fake.enqueue(httpError(429, { error: { message: "quota" } }, { "retry-after": "3600" }));
      const clock = new WatchedClock();
      await rejects(
        collect(wireFor(fakeEndpoint(fake, "chat_completions"), clock).stream(req())),
        isWireError((e) => e.status === 429 && e.message.includes("asked to wait 3600 s")),
      );
      deepEqual(clock.sleeps, []);
    } finally {
      await fake.close();
    }
  });

  Deno.test(`${client}: retry: x-should-retry false stops retries (the fake's unscripted 500)`, async () => {
    const fake = await startFakeModelServer();
    try {
      await rejects(
        collect(wireFor(fakeEndpoint(fake, "chat_completions"), new WatchedClock()).stream(req())),
        isWireError((e) =>
          e.status === 500 && !e.retryable && e.message.includes("no reply was scripted")
        ),
      );
      equal(fake.requests.length, 1);
    } finally {
      await fake.close();
    }
  });

  Deno.test(`${client}: 401 without a key names where the key was looked for`, async () => {
    const fake = await startFakeModelServer({ apiKey: "secret" });
    try {
      const endpoint = fakeEndpoint(fake, "messages", {
        preset: "acme",
        key_hint: "provider_keys[acme], AGENT_API_KEY, api_key",
      });
      await rejects(
        collect(wireFor(endpoint, new WatchedClock()).stream(req())),
        isWireError((e) =>
          e.status === 401 && !e.retryable && e.message.includes("No API key was sent") &&
          e.message.includes("provider_keys[acme], AGENT_API_KEY, api_key") &&
          e.message.includes("/providers acme")
        ),
      );
    } finally {
      await fake.close();
    }
  });

  Deno.test(`${client}: 401/403 with a wrong key says it was rejected and where it came from`, async () => {
    const fake = await startFakeModelServer({ apiKey: "secret" });
    try {
      const endpoint = fakeEndpoint(fake, "chat_completions", {
        api_key: "wrong",
        key_hint: "AGENT_API_KEY",
      });
      await rejects(
        collect(wireFor(endpoint, new WatchedClock()).stream(req())),
        isWireError((e) =>
          e.status === 401 && e.message.includes("rejected the API key") &&
          e.message.includes("AGENT_API_KEY")
        ),
      );
      fake.enqueue(httpError(403, { error: { message: "forbidden" } }));
      const ok403 = fakeEndpoint(fake, "chat_completions", {
        api_key: "secret",
        key_hint: "provider_keys[x]",
      });
      await rejects(
        collect(wireFor(ok403, new WatchedClock()).stream(req())),
        isWireError((e) => e.status === 403 && e.message.includes("provider_keys[x]")),
      );
    } finally {
      await fake.close();
    }
  });

  Deno.test(`${client}: 404 on the Messages wire with a base_url ending in /v1 explains the trim`, async () => {
    const fake = await startFakeModelServer();
    try {
      fake.enqueue(httpError(404, { error: { message: "Not Found" } }));
      await rejects(
        collect(wireFor(fakeEndpoint(fake, "messages"), new WatchedClock()).stream(req())),
        isWireError((e) =>
          e.status === 404 && e.message.includes("ends in /v1") &&
          e.message.includes('provider = "chat_completions"')
        ),
      );
    } finally {
      await fake.close();
    }
  });

  Deno.test(`${client}: the fake refuses an untrimmed /v1/v1/messages with 404 and records it`, async () => {
    const fake = await startFakeModelServer();
    try {
      const res = await fetch(`${fake.url}/v1/messages`, { method: "POST", body: "{}" });
      equal(res.status, 404);
      ok((await res.text()).includes("not trimmed"));
      equal(fake.violations[0]?.status, 404);
    } finally {
      await fake.close();
    }
  });

  Deno.test(`${client}: 400 for priority on a server without priority scheduling explains the fix`, async () => {
    const fake = await startFakeModelServer({ priorityScheduling: false });
    try {
      const wire = createWire(
        fakeEndpoint(fake, "chat_completions"),
        defaultWireOptions({ request_priority: 10 }),
        undefined,
        { clock: new WatchedClock(), idleTimeoutMs: 0 },
      );
      await rejects(
        collect(wire.stream(req())),
        isWireError((e) =>
          e.status === 400 && !e.retryable &&
          e.message.includes("Priority scheduling is not enabled") &&
          e.message.includes("AGENT_REQUEST_PRIORITY")
        ),
      );
      equal(fake.violations.length, 1);
    } finally {
      await fake.close();
    }
  });

  Deno.test(`${client}: 400 for sampling knobs on the Messages wire explains that sampling is server-side`, async () => {
    const fake = await startFakeModelServer();
    try {
      fake.enqueue(httpError(400, {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "temperature is not supported on this model",
        },
      }));
      await rejects(
        collect(wireFor(fakeEndpoint(fake, "messages"), new WatchedClock()).stream(req())),
        isWireError((e) => e.status === 400 && e.message.includes("set sampling on the server")),
      );
    } finally {
      await fake.close();
    }
  });

  Deno.test(`${client}: connection refused names the URL`, async () => {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    const endpoint: Endpoint = {
      provider: "chat_completions",
      base_url: `http://127.0.0.1:${port}/v1`,
      auth_style: "bearer",
    };
    await rejects(
      collect(wireFor(endpoint, new WatchedClock()).stream(req())),
      isWireError((e) =>
        e.kind === "transport" && e.message.includes("connection refused") &&
        e.message.includes(`http://127.0.0.1:${port}/v1/chat/completions`)
      ),
    );
  });

  for (const kind of ["chat_completions", "messages"] as WireKind[]) {
    Deno.test(`${client}: ${kind}: a mid-stream error event is a stream WireError`, async () => {
      const fake = await startFakeModelServer();
      try {
        fake.enqueue(reply().text("partial").streamError("Overloaded"));
        const seen: WireEvent[] = [];
        await rejects(
          (async () => {
            for await (
              const e of wireFor(fakeEndpoint(fake, kind), new WatchedClock()).stream(req())
            ) seen.push(e);
          })(),
          isWireError((e) => e.kind === "stream" && e.message.includes("Overloaded")),
        );
        ok(seen.some((e) => e.type === "text"), "text before the error was delivered");
        ok(!seen.some((e) => e.type === "done"));
      } finally {
        await fake.close();
      }
    });

    Deno.test(`${client}: ${kind}: a dropped connection is a retryable stream WireError`, async () => {
      const fake = await startFakeModelServer();
      try {
        fake.enqueue(reply().text("partial").reset());
        await rejects(
          collect(wireFor(fakeEndpoint(fake, kind), new WatchedClock()).stream(req())),
          isWireError((e) =>
            e.kind === "stream" && e.retryable && e.message.includes("before the response finished")
          ),
        );
      } finally {
        await fake.close();
      }
    });

    Deno.test(`${client}: ${kind}: a hung stream times out on the injected clock`, async () => {
      const fake = await startFakeModelServer();
      const clock = new WatchedClock();
      try {
        fake.enqueue(reply().text("partial").hang());
        const wire = wireFor(fakeEndpoint(fake, kind), clock, 30_000);
        const it = wire.stream(req())[Symbol.asyncIterator]();
        // Read until the text arrived; the stream then hangs.
        for (;;) {
          const r = await it.next();
          if (r.done) throw new Error("stream ended early");
          if (r.value.type === "text") break;
        }
        let settled = false;
        const failed = rejects(
          it.next(),
          isWireError((e) => e.kind === "timeout" && e.retryable && e.message.includes("30 s")),
        ).finally(() => (settled = true));
        // The idle clock restarts once the wire is back to reading, which may be just after
        // the first advance; virtual time is free, so advance until it gives up.
        for (let i = 0; i < 4 && !settled; i++) await clock.advance(30_000);
        await failed;
      } finally {
        await fake.close();
      }
    });

    Deno.test(`${client}: ${kind}: a consumer that stops early releases the connection`, async () => {
      const fake = await startFakeModelServer();
      try {
        fake.enqueue(reply().text("a long answer that we stop reading").hang());
        const before = openResources();
        const wire = wireFor(fakeEndpoint(fake, kind), new WatchedClock());
        let stoppedWhileOpen: string[] = [];
        for await (const e of wire.stream(req())) {
          stoppedWhileOpen = openedSince(before);
          if (e.type === "text") break;
        }
        ok(stoppedWhileOpen.length > 0, "the response was open while it streamed");
        // On the client side, nothing of the request is left open once the loop has left it,
        deepEqual(openedSince(before), [], "the client still holds the connection");
        // and the server sees its connection go (the stream hangs: only that can end it).
        await fake.waitForClientsGone(1);
      } finally {
        await fake.close();
      }
    });

    Deno.test(`${client}: ${kind}: aborting a hung stream rethrows the abort reason`, async () => {
      const fake = await startFakeModelServer();
      try {
        fake.enqueue(reply().text("partial").hang());
        const ctl = new AbortController();
        const wire = wireFor(fakeEndpoint(fake, kind), new WatchedClock());
        const reason = new Error("user pressed esc");
        await rejects(
          (async () => {
            for await (const e of wire.stream(req({ signal: ctl.signal }))) {
              if (e.type === "text") ctl.abort(reason);
            }
          })(),
          (e) => e === reason,
        );
      } finally {
        await fake.close();
      }
    });
  }

  Deno.test(`${client}: a 200 JSON answer instead of a stream is a clear stream error`, async () => {
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => Response.json({ error: { message: "streaming disabled" } }),
    );
    try {
      const endpoint: Endpoint = {
        provider: "chat_completions",
        base_url: `http://127.0.0.1:${server.addr.port}/v1`,
        auth_style: "bearer",
      };
      await rejects(
        collect(wireFor(endpoint, new WatchedClock()).stream(req())),
        isWireError((e) => e.kind === "stream" && e.message.includes("streaming disabled")),
      );
    } finally {
      await server.shutdown();
    }
  });
}

Deno.test("retry-after parsing: seconds, milliseconds and HTTP dates", () => {
  const now = new Date("2026-01-01T00:00:00Z");
  equal(retryAfterMs(new Headers({ "retry-after": "1.5" }), now), 1500);
  equal(retryAfterMs(new Headers({ "retry-after-ms": "250" }), now), 250);
  equal(retryAfterMs(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:10 GMT" }), now), 10_000);
  equal(retryAfterMs(new Headers({ "retry-after": "soon" }), now), undefined);
  equal(retryAfterMs(new Headers(), now), undefined);
});
