// Byte buffers joined end to end: a child's captured output (core/scheduler/process_spawner.ts)
// and the plain-http client's reads and request (core/wires/plain_http.ts).

/** One buffer holding `chunks` in order. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
