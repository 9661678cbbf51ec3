// Entry point of `agent-outpost`.
const port = Number(Deno.env.get("AGENT_OUTPOST_PORT") ?? 7317);
Deno.serve({ hostname: "127.0.0.1", port }, () => new Response("ok\n"));
