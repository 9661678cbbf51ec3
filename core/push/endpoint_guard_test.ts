import assert from "node:assert/strict";
import {
  checkEndpointAtSend,
  checkEndpointUrl,
  EndpointRefusedError,
  type HostResolver,
  isPublicAddress,
} from "./endpoint_guard.ts";

Deno.test("isPublicAddress refuses private, loopback, link-local, ULA, CGNAT and reserved ranges", () => {
  const refused = [
    "0.0.0.0",
    "10.1.2.3",
    "100.64.0.1",
    "100.127.255.254",
    "127.0.0.1",
    "127.255.0.9",
    "169.254.169.254",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "192.0.2.7",
    "198.18.0.1",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "fe80::1",
    "fd12:3456::1",
    "fc00::1",
    "ff02::1",
    "2001:db8::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::FFFF:10.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::a00:1", // NAT64 of 10.0.0.1
    "2002:c0a8:101::1", // 6to4 of 192.168.1.1
    "2001:0:4136:e378::1", // Teredo
    "::127.0.0.1", // IPv4-compatible
    "not-an-ip",
    "",
  ];
  for (const ip of refused) assert.equal(isPublicAddress(ip), false, ip);
  const accepted = [
    "8.8.8.8",
    "142.250.74.10",
    "100.63.255.255", // just below CGNAT
    "172.32.0.1", // just above 172.16/12
    "2606:4700::1111",
    "2a00:1450:4001:82a::200a",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808", // NAT64 of 8.8.8.8
  ];
  for (const ip of accepted) assert.equal(isPublicAddress(ip), true, ip);
});

function refusedReason(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof EndpointRefusedError, String(err));
    return err.reason;
  }
  assert.fail("expected a refusal");
}

Deno.test("checkEndpointUrl: https on a public host only; http, local hosts, odd ports and credentials refused", () => {
  assert.equal(
    checkEndpointUrl("https://fcm.googleapis.com/fcm/send/abc", false).host,
    "fcm.googleapis.com",
  );
  assert.equal(checkEndpointUrl("https://8.8.8.8/x", false).hostname, "8.8.8.8");
  const cases: [string, RegExp][] = [
    ["http://push.example.net/x", /https/],
    ["http://127.0.0.1:9/x", /https/],
    ["https://127.0.0.1/x", /private, loopback/],
    ["https://2130706433/x", /127\.0\.0\.1 is a private/], // decimal spelling of 127.0.0.1
    ["https://0x7f.1/x", /127\.0\.0\.1/],
    ["https://[::1]/x", /::1 is a private/],
    ["https://[::ffff:10.0.0.1]/x", /private/],
    ["https://169.254.169.254/latest/meta-data", /private/],
    ["https://localhost/x", /not a public host/],
    ["https://push.localhost/x", /not a public host/],
    ["https://metadata/x", /not a public host/],
    ["https://printer.local/x", /not a public host/],
    ["https://push.example.net:8443/x", /default https port/],
    ["https://u:p@push.example.net/x", /credentials/],
    ["ftp://push.example.net/x", /https/],
    ["not a url", /not a URL/],
    ["https://push.example.net/" + "a".repeat(2100), /longer than/],
  ];
  for (const [url, reason] of cases) {
    assert.match(refusedReason(() => checkEndpointUrl(url, false)), reason, url);
  }
});

Deno.test("AGENT_PUSH_ALLOW_LOOPBACK lets http and loopback or private hosts through, but not other schemes", () => {
  assert.equal(checkEndpointUrl("http://127.0.0.1:4567/push/1", true).port, "4567");
  assert.equal(checkEndpointUrl("https://[::1]:8443/x", true).hostname, "[::1]");
  assert.equal(checkEndpointUrl("http://10.0.0.5/x", true).hostname, "10.0.0.5");
  assert.match(refusedReason(() => checkEndpointUrl("file:///etc/passwd", true)), /https/);
  assert.match(refusedReason(() => checkEndpointUrl("https://u:p@127.0.0.1/", true)), /cred/);
});

function resolverOf(table: Record<string, string[]>, asked: string[] = []): HostResolver {
  return (host) => {
    asked.push(host);
    const found = table[host];
    return found ? Promise.resolve(found) : Promise.reject(new Error(`NXDOMAIN ${host}`));
  };
}

async function refusedAtSend(url: string, resolve: HostResolver): Promise<string> {
  try {
    await checkEndpointAtSend(url, resolve, false);
  } catch (err) {
    assert.ok(err instanceof EndpointRefusedError, String(err));
    return err.reason;
  }
  assert.fail("expected a refusal");
}

Deno.test("checkEndpointAtSend checks every resolved address: one private answer refuses the send", async () => {
  const asked: string[] = [];
  const resolve = resolverOf({
    "push.example.net": ["142.250.74.10", "2a00:1450:4001:82a::200a"],
    "rebind.example.net": ["142.250.74.10", "10.0.0.7"],
    "mapped.example.net": ["::ffff:127.0.0.1"],
    "meta.example.net": ["169.254.169.254"],
    "ula.example.net": ["fd00::5"],
    "cgnat.example.net": ["100.100.1.1"],
    "empty.example.net": [],
  }, asked);
  const ok = await checkEndpointAtSend("https://push.example.net/send/1", resolve, false);
  assert.equal(ok.hostname, "push.example.net");
  assert.match(
    await refusedAtSend("https://rebind.example.net/x", resolve),
    /non-public 10\.0\.0\.7/,
  );
  assert.match(await refusedAtSend("https://mapped.example.net/x", resolve), /::ffff:127/);
  assert.match(await refusedAtSend("https://meta.example.net/x", resolve), /169\.254/);
  assert.match(await refusedAtSend("https://ula.example.net/x", resolve), /fd00::5/);
  assert.match(await refusedAtSend("https://cgnat.example.net/x", resolve), /100\.100/);
  assert.match(await refusedAtSend("https://empty.example.net/x", resolve), /no address/);
  // The URL rules apply again, before any lookup.
  const asks = asked.length;
  assert.match(await refusedAtSend("http://push.example.net/x", resolve), /https/);
  assert.equal(asked.length, asks);
  // A resolver failure is an error of its own, not a refusal and not a pass.
  await assert.rejects(
    () => checkEndpointAtSend("https://gone.example.net/x", resolve, false),
    /NXDOMAIN gone\.example\.net/,
  );
  // A public IP literal needs no lookup.
  const before = asked.length;
  await checkEndpointAtSend("https://8.8.8.8/x", resolve, false);
  assert.equal(asked.length, before);
});

Deno.test("with loopback allowed the send-time check does not resolve", async () => {
  const asked: string[] = [];
  const url = await checkEndpointAtSend("http://127.0.0.1:9/x", resolverOf({}, asked), true);
  assert.equal(url.port, "9");
  assert.deepEqual(asked, []);
});
