// An MCP tools/call result as the loop's ToolOutcome: text blocks joined, images attached
// (the Messages wire shows them; every wire sees a placeholder line), resources and audio
// described, structured content shown when there is no text for it, isError kept, and the
// whole cut to a size cap with a note saying so.

import type { ImageAttachment } from "../wires/types.ts";
import type { ToolOutcome } from "../tools/types.ts";

/** The same cap as the shell tool's output. */
export const MAX_RESULT_CHARS = 30_000;
/** Base64 characters of images one result may attach (about 3.7 MB decoded). */
export const MAX_IMAGE_CHARS = 5_000_000;

/** The parts of a CallToolResult this module reads (the SDK's type, structurally). */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  /** Pre-2025 servers answer with `toolResult` instead of content. */
  toolResult?: unknown;
}

type Block = Record<string, unknown>;

function isBlock(v: unknown): v is Block {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function sizeOfBase64(data: string): number {
  return Math.floor((data.length * 3) / 4);
}

export function toOutcome(result: McpCallResult, caps = {
  chars: MAX_RESULT_CHARS,
  imageChars: MAX_IMAGE_CHARS,
}): ToolOutcome {
  const lines: string[] = [];
  const images: ImageAttachment[] = [];
  let imageChars = 0;
  const content = Array.isArray(result.content) ? result.content : [];
  for (const block of content) {
    if (!isBlock(block)) continue;
    switch (block.type) {
      case "text":
        lines.push(String(block.text ?? ""));
        break;
      case "image": {
        const data = typeof block.data === "string" ? block.data : "";
        const type = typeof block.mimeType === "string" ? block.mimeType : "image";
        if (imageChars + data.length > caps.imageChars) {
          lines.push(
            `[image ${type}, ${sizeOfBase64(data)} bytes: not attached, over the size cap]`,
          );
        } else {
          imageChars += data.length;
          images.push({ media_type: type, data });
          lines.push(`[image ${images.length}: ${type}, ${sizeOfBase64(data)} bytes]`);
        }
        break;
      }
      case "audio":
        lines.push(`[audio ${String(block.mimeType ?? "")}: not shown]`);
        break;
      case "resource_link":
        lines.push(
          `[resource link: ${String(block.uri ?? "")}${block.name ? ` (${block.name})` : ""}]`,
        );
        break;
      case "resource": {
        const r = isBlock(block.resource) ? block.resource : {};
        if (typeof r.text === "string") {
          lines.push(`[resource ${String(r.uri ?? "")}]`, r.text);
        } else {
          const blob = typeof r.blob === "string" ? r.blob : "";
          lines.push(
            `[resource ${String(r.uri ?? "")}: ${String(r.mimeType ?? "binary")}, ` +
              `${sizeOfBase64(blob)} bytes, not shown]`,
          );
        }
        break;
      }
      default:
        lines.push(`[${String(block.type)} content: not shown]`);
    }
  }
  if (result.structuredContent !== undefined && lines.every((l) => l.trim() === "")) {
    lines.push(JSON.stringify(result.structuredContent));
  }
  if (content.length === 0 && result.toolResult !== undefined) {
    lines.push(JSON.stringify(result.toolResult));
  }
  let text = lines.join("\n");
  if (text.length > caps.chars) {
    const cut = text.length - caps.chars;
    text = `${text.slice(0, caps.chars)}\n[… cut: ${cut} more characters; the result was over ` +
      `the ${caps.chars}-character cap]`;
  }
  return {
    type: "result",
    content: text === "" ? "(the tool returned no content)" : text,
    ...(result.isError ? { is_error: true } : {}),
    ...(images.length > 0 ? { images } : {}),
  };
}
