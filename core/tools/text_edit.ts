// Pure text operations behind the file tools: numbered views, exact replacement, insertion.
// They throw ToolInputError with a message the model can act on.

export class ToolInputError extends Error {
  override name = "ToolInputError";
}

/** Lines with 1-based numbers; `range` is [start, end] inclusive, end -1 meaning the last line. */
export function numberLines(text: string, range?: readonly number[]): string {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  let start = 1;
  let end = lines.length;
  if (range !== undefined) {
    const [from, to] = range;
    if (
      range.length !== 2 || !Number.isInteger(from) || !Number.isInteger(to) || from! < 1 ||
      (to! !== -1 && to! < from!)
    ) {
      throw new ToolInputError(
        `view_range must be [start, end] with 1 <= start <= end (or end = -1); got ${
          JSON.stringify(range)
        }`,
      );
    }
    if (from! > lines.length) {
      throw new ToolInputError(
        `view_range starts at line ${from} but the file has ${lines.length} lines`,
      );
    }
    start = from!;
    end = to === -1 ? lines.length : Math.min(to!, lines.length);
  }
  const width = String(end).length;
  const out: string[] = [];
  for (let i = start; i <= end; i++) out.push(`${String(i).padStart(width)}\t${lines[i - 1]}`);
  return out.join("\n");
}

/** Replaces the single occurrence of `oldStr`; refuses zero or several occurrences. */
export function replaceOnce(text: string, oldStr: string, newStr: string): string {
  if (oldStr === "") throw new ToolInputError("old_str must not be empty");
  const first = text.indexOf(oldStr);
  if (first === -1) {
    throw new ToolInputError("old_str was not found in the file; view it and copy the exact text");
  }
  const second = text.indexOf(oldStr, first + oldStr.length);
  if (second !== -1) {
    const line = (i: number) => text.slice(0, i).split("\n").length;
    throw new ToolInputError(
      `old_str occurs more than once (lines ${line(first)} and ${
        line(second)
      }); include more context to make it unique`,
    );
  }
  return text.slice(0, first) + newStr + text.slice(first + oldStr.length);
}

/** Inserts `insertText` after line `line` (0 = at the top). */
export function insertAfterLine(text: string, line: number, insertText: string): string {
  const lines = text === "" ? [] : text.split("\n");
  const trailingNewline = lines.length > 0 && lines[lines.length - 1] === "";
  if (trailingNewline) lines.pop();
  if (!Number.isInteger(line) || line < 0 || line > lines.length) {
    throw new ToolInputError(
      `insert_line must be an integer from 0 to ${lines.length}; got ${line}`,
    );
  }
  const inserted = insertText.endsWith("\n") ? insertText.slice(0, -1) : insertText;
  lines.splice(line, 0, ...inserted.split("\n"));
  return lines.join("\n") + (trailingNewline || text === "" ? "\n" : "");
}

/** Caps text to `max` characters, saying how much was cut. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, Math.floor(max * 0.7));
  const tail = text.slice(text.length - Math.floor(max * 0.25));
  return `${head}\n… [${text.length - head.length - tail.length} characters cut] …\n${tail}`;
}
