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

/** A function call as the first answer of each turn (the turn's second request gets the text). */
export interface ScriptedCall {
  name: string;
  /** Codex offers an MCP server's tools as a namespace (mcp__<server>) of plain names. */
  namespace?: string;
  arguments: Record<string, unknown>;
}

function callEvents(call: ScriptedCall): string {
  const item = {
    type: "function_call",
    id: "fc_bench",
    call_id: "call_bench",
    name: call.name,
    ...(call.namespace ? { namespace: call.namespace } : {}),
    arguments: JSON.stringify(call.arguments),
    status: "completed",
  };
  const usage = {
    input_tokens: 20,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 25,
  };
  const events = [
    { type: "response.created", response: { id: "resp_call", status: "in_progress", output: [] } },
    { type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "" } },
    {
      type: "response.function_call_arguments.delta",
      item_id: item.id,
      output_index: 0,
      delta: item.arguments,
    },
    {
      type: "response.function_call_arguments.done",
      item_id: item.id,
      output_index: 0,
      arguments: item.arguments,
    },
    { type: "response.output_item.done", output_index: 0, item },
    {
      type: "response.completed",
      response: { id: "resp_call", status: "completed", output: [item], usage },
    },
  ];
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

/** `call`: each turn first asks for this function call, then answers with text. */
export function startResponsesServer(call?: ScriptedCall): Promise<ResponsesServer> {
  const body = new TextEncoder().encode(answerEvents());
  const calling = call ? new TextEncoder().encode(callEvents(call)) : undefined;
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
      const text = await req.text();
      if (req.method !== "POST" || !new URL(req.url).pathname.endsWith("/responses")) {
        return new Response("not found", { status: 404 });
      }
      state.requests++;
      // The call's result is in the request once the call was made: then the text answer.
      const answered = !calling || text.includes("function_call_output");
      return new Response(answered ? body : calling, {
        headers: { "content-type": "text/event-stream" },
      });
    });
  });
}
