// Showing an API key without revealing it: a short type prefix and the last four characters,
// enough to tell two keys apart.

const PREFIX = /^[A-Za-z]{2,4}-/;

/** "sk-…abcd"; keys too short to keep four characters private are fully hidden. */
export function maskKey(key: string): string {
  const k = key.trim();
  if (k.length < 12) return "****";
  const prefix = PREFIX.exec(k)?.[0] ?? "";
  return `${prefix}…${k.slice(-4)}`;
}
