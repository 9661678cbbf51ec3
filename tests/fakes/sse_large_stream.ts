// A large Chat Completions stream in vLLM's format (reasoning, text and tool-call fragments,
// a finish chunk, a usage chunk, [DONE]) for the SSE benchmark, cut into network-sized reads.

const encoder = new TextEncoder();

/** The envelope fields every chunk of one Chat Completions stream repeats. */
export interface ChatChunkHead {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
}

/** One SSE frame of a single-choice Chat Completions chunk, in vLLM's field order. */
export function chatChunkFrame(
  head: ChatChunkHead,
  delta: unknown,
  finish: string | null = null,
): string {
  return `data: ${
    JSON.stringify({
      ...head,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })
  }\n\n`;
}

/** `chunks` SSE frames of a realistic agent turn; deterministic. */
export function largeChatStreamText(chunks = 50_000): string {
  const head: ChatChunkHead = {
    id: "chatcmpl-bench",
    object: "chat.completion.chunk",
    created: 1767225600,
    model: "qwen3-8b",
  };
  const frame = (delta: unknown, finish: string | null = null) =>
    chatChunkFrame(head, delta, finish);
  const words = [
    "the ",
    "file ",
    "über ",
    "reads ",
    "config ",
    "🎉 ",
    "line ",
    "and ",
    "then ",
    "writes ",
  ];
  const out: string[] = [frame({ role: "assistant", content: "" })];
  let tool = 0;
  let i = 1;
  while (i < chunks - 3) {
    const phase = i % 100;
    if (phase < 20) out.push(frame({ reasoning_content: words[i % words.length] }));
    else if (phase < 70) out.push(frame({ content: words[(i * 7) % words.length] }));
    else if (phase === 70) {
      out.push(
        frame({
          tool_calls: [{
            index: tool,
            id: `call_${tool}`,
            type: "function",
            function: { name: "edit", arguments: "" },
          }],
        }),
      );
    } else {
      const frag = phase === 71
        ? '{"path": "src/a.ts", "text": "'
        : phase === 99
        ? '"}'
        : "x = 1;\\n";
      out.push(frame({ tool_calls: [{ index: tool, function: { arguments: frag } }] }));
      if (phase === 99) tool++;
    }
    i++;
  }
  out.push(frame({}, "tool_calls"));
  out.push(
    `data: ${
      JSON.stringify({
        ...head,
        choices: [],
        usage: { prompt_tokens: 1200, completion_tokens: 48000, total_tokens: 49200 },
      })
    }\n\n`,
  );
  out.push("data: [DONE]\n\n");
  return out.join("");
}

/** The stream's bytes cut into reads of 512..8191 bytes (a seeded generator, so stable). */
export function largeChatStreamReads(chunks = 50_000): Uint8Array[] {
  const bytes = encoder.encode(largeChatStreamText(chunks));
  const reads: Uint8Array[] = [];
  let seed = 42;
  for (let pos = 0; pos < bytes.length;) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const size = 512 + (seed % 7680);
    reads.push(bytes.subarray(pos, pos + size));
    pos += size;
  }
  return reads;
}
