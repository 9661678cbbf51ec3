// An instant OpenAI Responses-API endpoint for scripts/bench_processes.ts, so Codex CLI (which
// speaks only that wire) can be timed against the same kind of local server as `agent -p`.
// Every POST …/responses streams one fixed text answer; nothing else is served. Bench only:
// the project's tests use tests/fakes/model_server.ts, which speaks the two wires it supports.

export interface ResponsesServer {
  url: string;
  requests: number;
  close(): Promise<void>;
}

const ANSWER = "done";

function answerEvents(): string {
  const item = {
    type: "message",
    id: "msg_bench",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: ANSWER, annotations: [] }],
  };
  const usage = {
    input_tokens: 20,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 2,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 22,
  };
  const events = [
    { type: "response.created", response: { id: "resp_bench", status: "in_progress", output: [] } },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...item, status: "in_progress", content: [] },
    },
    {
      type: "response.output_text.delta",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: ANSWER,
    },
    { type: "response.output_item.done", output_index: 0, item },
    {
      type: "response.completed",
      response: { id: "resp_bench", status: "completed", output: [item], usage },
    },
  ];
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

export function startResponsesServer(): Promise<ResponsesServer> {
  const body = new TextEncoder().encode(answerEvents());
  return new Promise((resolve) => {
    const state = { requests: 0 };
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: ({ port }) =>
        resolve({
          url: `http://127.0.0.1:${port}/v1`,
          get requests() {
            return state.requests;
          },
          close: () => server.shutdown(),
        }),
    }, async (req) => {
      await req.body?.cancel();
      if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/responses")) {
        return new Response("not found", { status: 404 });
      }
      state.requests++;
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
  });
}
