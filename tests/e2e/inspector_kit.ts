// Which modules a running program has loaded, asked through V8's inspector: the program is
// started with `--inspect=127.0.0.1:0` beside its release flags (it only observes), and
// Debugger.enable reports every script already in the isolate, npm modules included. Used to
// prove a lazy dependency stays unloaded (matrix-js-sdk in a dormant outpost, ajv in an agent
// with MCP servers).

/** Reads a stream until `pattern` matches what was read; the rest is drained and dropped. */
export async function readUntil(
  stream: ReadableStream<Uint8Array>,
  pattern: RegExp,
): Promise<RegExpExecArray> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${pattern}: ${seen}`);
    seen += value;
    const m = pattern.exec(seen);
    if (m) {
      void (async () => {
        while (!(await reader.read()).done) { /* drain so the child never blocks on a pipe */ }
      })().catch(() => {});
      return m;
    }
  }
}

/** The inspector's address, from the `Debugger listening on ws://…` line of stderr. */
export const INSPECTOR_LINE = /Debugger listening on (ws:\/\/\S+)/;

/** Debugger.enable over the inspector socket: scriptParsed for each script, then the reply. */
export function scriptUrls(wsUrl: string): Promise<string[]> {
  const urls: string[] = [];
  const ws = new WebSocket(wsUrl);
  return new Promise((resolve, reject) => {
    ws.onerror = () => reject(new Error(`inspector ${wsUrl} failed`));
    ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: "Debugger.enable" }));
    ws.onmessage = (e) => {
      const msg = JSON.parse(String(e.data));
      if (msg.method === "Debugger.scriptParsed" && msg.params.url) urls.push(msg.params.url);
      if (msg.id === 1) {
        ws.onclose = () => resolve(urls);
        ws.close();
      }
    };
  });
}
