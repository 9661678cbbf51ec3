#!/bin/sh
# The quickest stdio MCP server there is, for scripts/bench_mcp.ts: a POSIX shell loop that
# answers initialize and tools/list (one tool, `ping`, answering "pong") in a millisecond or
# two of being spawned, so the bench can tell the client's own start-up cost apart from a
# server's boot time. It relies on the SDK's message shape: the request id comes last.
version="2025-06-18"
while IFS= read -r line; do
  id=${line##*\"id\":}
  id=${id%%[,\}]*}
  case "$line" in
    *'"method":"initialize"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{"tools":{}},"serverInfo":{"name":"instant","version":"1.0.0"}}}\n' "$id" "$version" ;;
    *'"method":"tools/list"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"ping","description":"Answers pong","inputSchema":{"type":"object","properties":{}},"annotations":{"readOnlyHint":true}}]}}\n' "$id" ;;
    *'"method":"tools/call"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"pong"}]}}\n' "$id" ;;
    *'"method":"ping"'*)
      printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
  esac
done
