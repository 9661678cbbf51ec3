// The one secret scanner of everything the outpost publishes outside the box (GitHub
// comments, chat messages, push text): the gate (gate.ts) runs every publication through
// `scan` before it leaves. Two sources of findings:
// - the install's own secrets, matched literally wherever they appear (known_secrets.ts:
//   model keys from the settings file and environment, trigger secrets, the Matrix and
//   code-host tokens, the VAPID private key, the CSRF secret) plus the shape of the machine
//   door's tokens, which are stored only as hashes (aop_ + 43 base64url characters);
// - the shapes the preset lacks (SHAPES: Google API keys, AIza + 35 characters, Google's
//   documented format);
// - secretlint's recommended preset for the common key formats of other services
//   (secretlint_rules.ts), loaded by a dynamic import on the first scan.
// The redacted text shows each finding as [redacted <rule>], for a human to judge.

import type { Finding } from "./finding.ts";

export type { Finding } from "./finding.ts";

/** The install's secrets as of now; read at every scan, so a rotated key is covered at once. */
export type KnownSecrets = () => Promise<readonly string[]>;

export interface ScanResult {
  findings: Finding[];
  /** The text with every finding replaced by [redacted <rule>]. */
  redacted: string;
}

/** Shorter literals are not matched: they would hit ordinary words. */
export const KNOWN_SECRET_MIN_LENGTH = 8;
/**
 * Key shapes matched here, each for a reason: machine-door bearer tokens
 * (server/http/machine_tokens.ts, revoked ones included) are stored only as hashes, and
 * secretlint's recommended preset (13.0.7) has no rule for Google API keys.
 */
const SHAPES: readonly { rule: string; pattern: RegExp }[] = [
  { rule: "machine-token", pattern: /aop_[A-Za-z0-9_-]{43}/g },
  { rule: "google-api-key", pattern: /AIza[0-9A-Za-z_-]{35}/g },
];

type RuleLoader = () => Promise<(text: string) => Promise<Finding[]>>;

const loadSecretlint: RuleLoader = async () =>
  (await import("./secretlint_rules.ts")).secretlintFindings;

export class SecretScanner {
  readonly #known: KnownSecrets;
  readonly #load: RuleLoader;
  #rules: Promise<(text: string) => Promise<Finding[]>> | null = null;

  constructor(known: KnownSecrets, load: RuleLoader = loadSecretlint) {
    this.#known = known;
    this.#load = load;
  }

  /** Throws when the rules or the known secrets cannot be read: the caller holds the post. */
  async scan(text: string): Promise<ScanResult> {
    this.#rules ??= this.#load().catch((err) => {
      this.#rules = null; // a failed load is retried at the next scan
      throw err;
    });
    const [rules, known] = await Promise.all([this.#rules, this.#known()]);
    const findings = merged([
      ...knownFindings(text, known),
      ...shapeFindings(text),
      ...await rules(text),
    ]);
    return { findings, redacted: redact(text, findings) };
  }
}

function knownFindings(text: string, known: readonly string[]): Finding[] {
  const out: Finding[] = [];
  for (const secret of new Set(known)) {
    if (secret.length < KNOWN_SECRET_MIN_LENGTH) continue;
    for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) {
      out.push({ rule: "stored-secret", start: at, end: at + secret.length });
    }
  }
  return out;
}

function shapeFindings(text: string): Finding[] {
  return SHAPES.flatMap(({ rule, pattern }) =>
    [...text.matchAll(pattern)].map((m) => ({ rule, start: m.index, end: m.index + m[0].length }))
  );
}

/** Sorted by start; overlapping ranges joined (the first rule's name is kept). */
function merged(findings: Finding[]): Finding[] {
  const sorted = [...findings].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  for (const f of sorted) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else out.push({ ...f });
  }
  return out;
}

function redact(text: string, findings: Finding[]): string {
  let out = "";
  let at = 0;
  for (const f of findings) {
    out += `${text.slice(at, f.start)}[redacted ${f.rule}]`;
    at = f.end;
  }
  return out + text.slice(at);
}

/** The distinct rule names of some findings, for audit rows and the inbox item. */
export function ruleNames(findings: readonly Finding[]): string[] {
  return [...new Set(findings.map((f) => f.rule))].sort();
}
