// A stand-in for a Web Push service (FCM, Mozilla autopush, …) on 127.0.0.1 port 0, with an
// independent check of what the outpost sends: the VAPID JWT is verified with WebCrypto
// (ES256 over the key in the `k=` parameter, audience, expiry, subject) and the body is
// decrypted with npm:http_ece using the fake browser's own private key. Each fake
// subscription can be scripted to answer 201 (default), 404, 410, 5xx, or to hang.
//
//   await using push = await startPushService();
//   const sub = push.subscribe();            // {endpoint, keys} as a browser would send
//   push.script(sub.endpoint, 500, 201);     // first answer 500, then 201
//   ... deliver ...
//   push.received[0].payload                 // the decrypted JSON envelope

import { Buffer } from "node:buffer";
import { createECDH, type ECDH, randomBytes } from "node:crypto";
import ece from "http_ece";

export type ScriptedAnswer = number | "hang";

export interface ReceivedPush {
  /** Subscription number (the endpoint's last path segment). */
  sub: number;
  headers: Record<string, string>;
  /** The decrypted body, parsed as JSON. */
  payload: unknown;
  /** The verified JWT claims (aud, exp, sub). */
  claims: { aud: string; exp: number; sub: string };
  /** The `k=` public key the JWT was verified with. */
  vapidPublicKey: string;
  /** What the stand-in answered. */
  status: number;
}

export interface FakeBrowserSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface PushServiceStandIn {
  origin: string;
  /** Every request that passed the checks, in arrival order (hung ones when they arrive). */
  received: ReceivedPush[];
  /** Requests that failed a check (bad JWT, undecryptable body), with why. */
  rejected: string[];
  /** A new fake browser subscription on this service. */
  subscribe(): FakeBrowserSubscription;
  /** Answers for the endpoint's next requests, in order; afterwards 201. */
  script(endpoint: string, ...answers: ScriptedAnswer[]): void;
  /** Resolves when `n` requests have arrived (checked or not), hung ones included. */
  arrived(n: number): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

function fromB64url(text: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(text, "base64url"));
}

async function verifyVapid(
  authorization: string | null,
  origin: string,
): Promise<{ claims: ReceivedPush["claims"]; key: string }> {
  const m = authorization?.match(/^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/);
  if (!m) throw new Error(`Authorization is not "vapid t=…, k=…": ${authorization}`);
  const [, jwt, k] = m as unknown as [string, string, string];
  const [h, p, s] = jwt.split(".");
  if (!h || !p || !s) throw new Error("the JWT has not three parts");
  const header = JSON.parse(new TextDecoder().decode(fromB64url(h)));
  if (header.alg !== "ES256") throw new Error(`JWT alg ${header.alg}, expected ES256`);
  const key = await crypto.subtle.importKey(
    "raw",
    fromB64url(k),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const ok = await crypto.subtle.verify(
    { name: "ECDSA", hash: "SHA-256" },
    key,
    fromB64url(s),
    new TextEncoder().encode(`${h}.${p}`),
  );
  if (!ok) throw new Error("the JWT signature does not verify against k=");
  const claims = JSON.parse(new TextDecoder().decode(fromB64url(p)));
  if (claims.aud !== origin) throw new Error(`JWT aud ${claims.aud}, expected ${origin}`);
  const now = Date.now() / 1000;
  // RFC 8292: exp no more than 24 hours ahead.
  if (!(claims.exp > now && claims.exp <= now + 24 * 3600 + 60)) {
    throw new Error(`JWT exp ${claims.exp} is not within 24 h of now`);
  }
  if (typeof claims.sub !== "string" || !/^(mailto:|https:)/.test(claims.sub)) {
    throw new Error(`JWT sub ${claims.sub} is not a mailto: or https: URI`);
  }
  return { claims, key: k };
}

export function startPushService(): Promise<PushServiceStandIn> {
  const browsers = new Map<number, { ecdh: ECDH; auth: string }>();
  const scripts = new Map<number, ScriptedAnswer[]>();
  const received: ReceivedPush[] = [];
  const rejected: string[] = [];
  const hung: Array<() => void> = [];
  let arrivals = 0;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const arrive = () => {
    arrivals++;
    for (const w of [...waiters]) {
      if (arrivals >= w.n) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  let origin = "";

  const handler = async (req: Request): Promise<Response> => {
    const n = Number(new URL(req.url).pathname.match(/^\/push\/(\d+)$/)?.[1]);
    const browser = browsers.get(n);
    const body = new Uint8Array(await req.arrayBuffer());
    arrive();
    if (req.method !== "POST" || !browser) {
      return new Response("no such subscription", { status: 404 });
    }
    const answer = scripts.get(n)?.shift() ?? 201;
    if (answer === "hang") {
      await new Promise<void>((resolve) => hung.push(resolve));
      return new Response("late", { status: 201 });
    }
    try {
      if (req.headers.get("content-encoding") !== "aes128gcm") {
        throw new Error(`Content-Encoding ${req.headers.get("content-encoding")}`);
      }
      const { claims, key } = await verifyVapid(req.headers.get("authorization"), origin);
      const plain = ece.decrypt(Buffer.from(body), {
        version: "aes128gcm",
        privateKey: browser.ecdh,
        authSecret: browser.auth,
      });
      received.push({
        sub: n,
        headers: Object.fromEntries(req.headers),
        payload: JSON.parse(new TextDecoder().decode(plain)),
        claims,
        vapidPublicKey: key,
        status: answer,
      });
    } catch (err) {
      rejected.push((err as Error).message);
      return new Response((err as Error).message, { status: 400 });
    }
    return new Response(answer >= 400 ? "scripted failure" : "", { status: answer });
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  origin = `http://127.0.0.1:${server.addr.port}`;
  let next = 1;
  return Promise.resolve({
    origin,
    received,
    rejected,
    subscribe() {
      const ecdh = createECDH("prime256v1");
      ecdh.generateKeys();
      const auth = randomBytes(16).toString("base64url");
      const n = next++;
      browsers.set(n, { ecdh, auth });
      return {
        endpoint: `${origin}/push/${n}`,
        keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth },
      };
    },
    script(endpoint, ...answers) {
      const n = Number(endpoint.split("/").pop());
      scripts.set(n, [...(scripts.get(n) ?? []), ...answers]);
    },
    arrived(n) {
      if (arrivals >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
    async [Symbol.asyncDispose]() {
      for (const release of hung) release();
      await server.shutdown();
    },
  });
}
