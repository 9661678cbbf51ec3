// The SSRF door of browser push (spec 2.8, 7): a subscription endpoint is a URL the outpost
// will POST to, chosen by whoever calls /api/push/subscribe. Only https endpoints on public
// hosts are accepted, checked twice: on the URL when the subscription is stored
// (checkEndpointUrl), and on every address the host resolves to right before each send
// (checkEndpointAtSend). AGENT_PUSH_ALLOW_LOOPBACK=1 (tests, local push stand-ins) lets
// plain http and private or loopback addresses through.

import { BlockList, isIP } from "node:net";

export const ENDPOINT_MAX = 2048;

/** Address ranges no push service lives in: private, loopback, link-local, ULA, CGNAT, … */
const BLOCKED = new BlockList();
for (
  const [net, bits] of [
    ["0.0.0.0", 8], // "this network"
    ["10.0.0.0", 8], // private
    ["100.64.0.0", 10], // carrier-grade NAT
    ["127.0.0.0", 8], // loopback
    ["169.254.0.0", 16], // link-local (cloud metadata lives here)
    ["172.16.0.0", 12], // private
    ["192.0.0.0", 24], // IETF protocol assignments
    ["192.0.2.0", 24], // documentation
    ["192.88.99.0", 24], // 6to4 relay anycast
    ["192.168.0.0", 16], // private
    ["198.18.0.0", 15], // benchmarking
    ["198.51.100.0", 24], // documentation
    ["203.0.113.0", 24], // documentation
    ["224.0.0.0", 4], // multicast
    ["240.0.0.0", 4], // reserved, broadcast
  ] as const
) BLOCKED.addSubnet(net, bits, "ipv4");
for (
  const [net, bits] of [
    ["::", 96], // unspecified, loopback ::1, and the deprecated IPv4-compatible form
    ["100::", 64], // discard
    ["2001::", 32], // Teredo (tunnels to an arbitrary IPv4 address)
    ["2001:db8::", 32], // documentation
    ["fc00::", 7], // unique local (ULA)
    ["fe80::", 10], // link-local
    ["fec0::", 10], // site-local (deprecated)
    ["ff00::", 8], // multicast
  ] as const
) BLOCKED.addSubnet(net, bits, "ipv6");

/** Splits a canonical IPv6 text into its eight 16-bit groups (IPv4 tail folded in). */
function ipv6Groups(ip: string): number[] {
  let text = ip.toLowerCase();
  const v4 = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, v4.index) +
      `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") as [string, string] : [text, null];
  const left = head === "" ? [] : head.split(":");
  const right = tail === null || tail === "" ? [] : tail.split(":");
  const fill = tail === null ? [] : Array(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16));
}

function v4FromGroups(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/**
 * True when `ip` (an IPv4 or IPv6 address, without brackets) is a public unicast address.
 * IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) addresses are
 * judged by the IPv4 address they carry. Anything that is not an IP address is false.
 */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return !BLOCKED.check(ip, "ipv4");
  if (family !== 6) return false;
  const g = ipv6Groups(ip);
  if (g.length !== 8 || g.some((n) => !Number.isInteger(n) || n < 0 || n > 0xffff)) return false;
  // Embedded IPv4: mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16.
  if (g.slice(0, 5).every((n) => n === 0) && g[5] === 0xffff) {
    return isPublicAddress(v4FromGroups(g[6]!, g[7]!));
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((n) => n === 0)) {
    return isPublicAddress(v4FromGroups(g[6]!, g[7]!));
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return false; // local-use NAT64
  if (g[0] === 0x2002) return isPublicAddress(v4FromGroups(g[1]!, g[2]!));
  if ((g[0]! & 0xe000) !== 0x2000) return false; // only global unicast 2000::/3 is routed
  return !BLOCKED.check(ip, "ipv6");
}

/** Names that never reach a public push service. */
function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return !h.includes(".") || h === "localhost" ||
    [".localhost", ".local", ".internal", ".home.arpa", ".lan"].some((s) => h.endsWith(s));
}

/** An endpoint refused by the guard; `reason` says why, for a 400 or a log line. */
export class EndpointRefusedError extends Error {
  override readonly name = "EndpointRefusedError";
  readonly reason: string;
  constructor(reason: string) {
    super(`push endpoint refused: ${reason}`);
    this.reason = reason;
  }
}

/** The URL's host without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/**
 * Checks the endpoint URL itself (at subscribe): https, no credentials, default port, and a
 * public host (an IP literal must be a public address; local names are refused). The WHATWG
 * parser has already folded odd IPv4 spellings (0x7f.1, 2130706433) into dotted form.
 * With `allowLoopback`, http and private or loopback hosts on any port are accepted.
 * Returns the parsed URL; throws EndpointRefusedError.
 */
export function checkEndpointUrl(value: string, allowLoopback: boolean): URL {
  if (value.length > ENDPOINT_MAX) {
    throw new EndpointRefusedError(`longer than ${ENDPOINT_MAX} characters`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new EndpointRefusedError("not a URL");
  }
  if (url.username || url.password) throw new EndpointRefusedError("must not carry credentials");
  if (allowLoopback) {
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new EndpointRefusedError("must be an https (or, with loopback allowed, http) URL");
    }
    return url;
  }
  if (url.protocol !== "https:") {
    throw new EndpointRefusedError(
      "must be an https URL (plain http only with AGENT_PUSH_ALLOW_LOOPBACK=1)",
    );
  }
  if (url.port !== "") {
    throw new EndpointRefusedError("must use the default https port (push services do)");
  }
  const host = bareHost(url);
  if (isIP(host) !== 0) {
    if (!isPublicAddress(host)) {
      throw new EndpointRefusedError(
        `${host} is a private, loopback or reserved address (allowed only with ` +
          `AGENT_PUSH_ALLOW_LOOPBACK=1)`,
      );
    }
  } else if (isLocalName(host)) {
    throw new EndpointRefusedError(`${host} is not a public host name`);
  }
  return url;
}

/** Resolves a host name to its addresses (Deno.resolveDns for A and AAAA in production). */
export type HostResolver = (host: string) => Promise<string[]>;

/** Every A and AAAA address of `host`; a name with neither is an error, not an empty list. */
export const dnsResolver: HostResolver = async (host) => {
  const settled = await Promise.allSettled([
    Deno.resolveDns(host, "A"),
    Deno.resolveDns(host, "AAAA"),
  ]);
  const addresses = settled.flatMap((s) => s.status === "fulfilled" ? s.value : []);
  if (addresses.length > 0) return addresses;
  const failure = settled.find((s) => s.status === "rejected");
  // A refused permission or a resolver failure is reported as such, never as "no address".
  if (failure) throw (failure as PromiseRejectedResult).reason;
  throw new Error(`${host} has no A or AAAA record`);
};

/**
 * The send-time check: the URL rules again, then every address the host resolves to must
 * be public (one private answer among public ones refuses the send: DNS rebinding). Throws
 * EndpointRefusedError; resolver failures propagate as they are.
 */
export async function checkEndpointAtSend(
  value: string,
  resolve: HostResolver,
  allowLoopback: boolean,
): Promise<URL> {
  const url = checkEndpointUrl(value, allowLoopback);
  if (allowLoopback) return url;
  const host = bareHost(url);
  const addresses = isIP(host) !== 0 ? [host] : await resolve(host);
  if (addresses.length === 0) throw new EndpointRefusedError(`${host} resolved to no address`);
  const bad = addresses.filter((a) => !isPublicAddress(a));
  if (bad.length > 0) {
    throw new EndpointRefusedError(`${host} resolves to non-public ${bad.join(", ")}`);
  }
  return url;
}

export const ALLOW_LOOPBACK_VAR = "AGENT_PUSH_ALLOW_LOOPBACK";

/** AGENT_PUSH_ALLOW_LOOPBACK=1 (exactly "1"; tests and local stand-ins only). */
export function pushLoopbackAllowed(env: { get(name: string): string | undefined }): boolean {
  return (env.get(ALLOW_LOOPBACK_VAR) ?? "").trim() === "1";
}
