// The markdown run report written by `agent -p --output FILE` (and read by the outpost).

import type { HeadlessResult } from "./types.ts";
import { COST_DECIMALS } from "../pricing/pricing.ts";

export function renderReport(r: HeadlessResult, prompt: string): string {
  const lines: string[] = [];
  const title = r.job_name ? `Run report: ${r.job_name}` : "Run report";
  lines.push(`# ${title}`, "");
  const facts: Array<[string, string]> = [
    ["Outcome", `${r.outcome} (exit ${r.exit_code})`],
    ["Done reason", r.done_reason],
    ...(r.stop_reason ? [["Stop reason", r.stop_reason] as [string, string]] : []),
    ["Model", r.model || "(not resolved)"],
    ["Tokens", `${r.usage.input_tokens} in / ${r.usage.output_tokens} out`],
  ];
  // input_tokens leaves out what the provider's prompt cache served or stored.
  const read = r.usage.cache_read_tokens ?? 0;
  const written = r.usage.cache_write_tokens ?? 0;
  if (read > 0 || written > 0) {
    const sent = r.usage.input_tokens + read + written;
    facts.push([
      "Prompt cache",
      `${read} read / ${written} written (${
        Math.round((read / sent) * 100)
      }% of ${sent} prompt tokens read from the cache)`,
    ]);
  }
  if (r.reflection_usage) {
    facts.push([
      "Memory reflection",
      `${r.reflection_usage.input_tokens} in / ${r.reflection_usage.output_tokens} out (included above)`,
    ]);
  }
  if (r.cost_usd !== null) facts.push(["Cost", `$${r.cost_usd.toFixed(COST_DECIMALS)}`]);
  if (r.cache_saving_usd !== undefined) {
    facts.push(["Saved by the prompt cache", `$${r.cache_saving_usd.toFixed(COST_DECIMALS)}`]);
  }
  facts.push(["Duration", `${(r.duration_ms / 1000).toFixed(2)} s`]);
  // Said in every report, so a run with the sandbox off is visible on the outpost's run page.
  if (r.sandbox !== undefined) {
    facts.push(["Sandbox", r.sandbox.startsWith("off") ? `**${r.sandbox}**` : r.sandbox]);
  }
  facts.push(["Session", r.session_id ?? "none (the run failed before it began)"]);
  if (r.job_id) facts.push(["Job", r.job_name ? `${r.job_id} (${r.job_name})` : r.job_id]);
  for (const [k, v] of facts) lines.push(`- **${k}:** ${v}`);
  if (r.error) lines.push(`- **Error:** ${r.error}`);
  lines.push("", "## Prompt", "", fence(prompt), "");
  if (r.mcp_servers?.length) {
    lines.push("## MCP servers", "");
    for (const s of r.mcp_servers) {
      const tools = s.tools.length > 0 ? `: ${s.tools.map((t) => `\`${t}\``).join(", ")}` : "";
      lines.push(`- **${s.name}** (${s.state})${tools}${s.error ? ` — ${s.error}` : ""}`);
    }
    lines.push("");
  }
  if (r.questions.length > 0) {
    lines.push("## Questions for the operator", "");
    for (const q of r.questions) {
      lines.push(
        `- **${q.kind}:** ${q.text}${
          q.options?.length ? ` (options: ${q.options.join(", ")})` : ""
        }`,
      );
      if (q.detail) lines.push("", fence(q.detail, "diff"), "");
    }
    lines.push(
      "",
      `Answer from the dashboard inbox, or resume here: \`agent -p --resume ${r.session_id} -- "<answer>"\``,
      "",
    );
  }
  lines.push("## Final answer", "", r.final_text || "_(no final answer)_", "");
  return lines.join("\n");
}

/** A fence longer than any backtick run inside, so the prompt renders verbatim. */
function fence(text: string, lang = "text"): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text}\n${f}`;
}
