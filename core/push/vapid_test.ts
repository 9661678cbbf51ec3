import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { envFrom } from "../ports.ts";
import { VapidKeyFile, vapidKeyPair, vapidSubject } from "./vapid.ts";

// RFC 8291 appendix A: the application server's private and public key.
const RAW = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
const PUBLIC =
  "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8";

Deno.test("a PEM P-256 key and its raw scalar give the same key pair; other keys are refused", () => {
  assert.deepEqual(vapidKeyPair(RAW), { publicKey: PUBLIC, privateKey: RAW });
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const pem = privateKey.export({ format: "pem", type: "pkcs8" }) as string;
  const sec1 = privateKey.export({ format: "pem", type: "sec1" }) as string;
  const fromPem = vapidKeyPair(pem);
  assert.deepEqual(vapidKeyPair(sec1), fromPem);
  assert.deepEqual(vapidKeyPair(fromPem.privateKey), fromPem);
  const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey;
  assert.throws(
    () => vapidKeyPair(rsa.export({ format: "pem", type: "pkcs8" }) as string),
    /not a P-256/,
  );
  assert.throws(() => vapidKeyPair("hello"), /expected a PEM EC key/);
  assert.throws(() => vapidKeyPair("-----BEGIN PRIVATE KEY-----\nxx\n"), /not a readable/);
});

Deno.test("VAPID_SUBJECT: a mailto or https URI; default mailto of the operator at the dashboard host", () => {
  assert.equal(
    vapidSubject(envFrom({}), "https://outpost.example.org"),
    "mailto:operator@outpost.example.org",
  );
  assert.equal(vapidSubject(envFrom({ VAPID_SUBJECT: "mailto:me@x.org" }), "x"), "mailto:me@x.org");
  assert.equal(
    vapidSubject(envFrom({ VAPID_SUBJECT: "https://x.org/contact" }), "x"),
    "https://x.org/contact",
  );
  for (const bad of ["me@x.org", "mailto:nobody", "http://x.org", "javascript:alert(1)"]) {
    assert.throws(() => vapidSubject(envFrom({ VAPID_SUBJECT: bad }), "x"), /VAPID_SUBJECT/, bad);
  }
});

Deno.test("the key file: dormant when unnamed, error with why (never the key), re-read after a change", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/vapid.key`;
    assert.deepEqual(new VapidKeyFile(envFrom({}), "https://o.example").load(), {
      state: "dormant",
      missing: ["VAPID_PRIVATE_KEY_FILE"],
    });
    const file = new VapidKeyFile(envFrom({ VAPID_PRIVATE_KEY_FILE: path }), "https://o.example");
    const missing = file.load();
    assert.equal(missing.state, "error");
    assert.match(missing.state === "error" ? missing.detail : "", /cannot be read/);
    await Deno.writeTextFile(path, RAW + "\n");
    const ok = file.load();
    assert.equal(ok.state === "ok" && ok.keys.publicKey, PUBLIC);
    assert.equal(ok.state === "ok" && ok.keys.subject, "mailto:operator@o.example");
    await Deno.writeTextFile(path, "garbage-that-is-secret");
    const broken = file.load();
    assert.equal(broken.state, "error");
    assert.doesNotMatch(JSON.stringify(broken), /garbage/);
    const badSubject = new VapidKeyFile(
      envFrom({ VAPID_PRIVATE_KEY_FILE: path, VAPID_SUBJECT: "nope" }),
      "https://o.example",
    ).load();
    assert.match(badSubject.state === "error" ? badSubject.detail : "", /VAPID_SUBJECT/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a key pasted into VAPID_PRIVATE_KEY_FILE is never echoed; a path is quoted, cut short", () => {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const pem = privateKey.export({ format: "pem", type: "pkcs8" }) as string;
  const base64 = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  for (const pasted of [RAW, pem, pem.replace(/\n/g, " "), "/" + base64, base64]) {
    const loaded = new VapidKeyFile(
      envFrom({ VAPID_PRIVATE_KEY_FILE: pasted }),
      "https://o.example",
    ).load();
    assert.equal(loaded.state, "error");
    const detail = loaded.state === "error" ? loaded.detail : "";
    assert.match(detail, /its value is not a file path/);
    assert.match(detail, /cannot be read: no such file/);
    // No run of the key (PEM body lines included) shows in the detail.
    for (const part of pasted.split(/[\s-]+/).filter((p) => p.length >= 8)) {
      assert.ok(!detail.includes(part), `detail quotes ${part.slice(0, 6)}…`);
    }
  }
  const missing = new VapidKeyFile(
    envFrom({ VAPID_PRIVATE_KEY_FILE: "/etc/agent/vapid.key" }),
    "https://o.example",
  ).load();
  assert.deepEqual(missing, {
    state: "error",
    detail: "VAPID_PRIVATE_KEY_FILE /etc/agent/vapid.key cannot be read: no such file",
  });
  const long = `/srv/${"d".repeat(200)}/vapid.key`;
  const cut = new VapidKeyFile(envFrom({ VAPID_PRIVATE_KEY_FILE: long }), "https://o.example")
    .load();
  assert.equal(
    cut.state === "error" && cut.detail,
    `VAPID_PRIVATE_KEY_FILE ${long.slice(0, 120)}… cannot be read: no such file`,
  );
});
