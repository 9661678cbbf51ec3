// A grouped keyboard picker built on @inquirer/core's createPrompt, because the stock select
// prompt has no way to act on a row without picking it (the /model picker's `f` toggles a
// favorite in place) and no esc. Keys: ↑/↓ (or ctrl+p/ctrl+n) move, pgup/pgdn jump,
// enter picks, f toggles (when the caller offers it), esc cancels (see inquirer_prompts.ts).

// @inquirer/core (the core under @inquirer/prompts) gives custom keys such as `f`.
import * as core from "@inquirer/core";
import { type PickItem, type PickOptions, pickRows } from "./prompts.ts";

const { createPrompt, isDownKey, isEnterKey, isUpKey, useEffect, useKeypress, useState } = core;

export interface Picked {
  value: unknown;
}

type Row = Extract<PickItem<unknown>, { type: "row" }>;

/** The picker's options plus whether to color (NO_COLOR is decided by the caller). */
export type ListConfig = PickOptions<unknown> & { colors: boolean };

const CURSOR_HIDE = "\x1b[?25l";

function startIndex(items: readonly PickItem<unknown>[], key: string | undefined): number {
  const byKey = key === undefined ? -1 : items.findIndex((i) => i.type === "row" && i.key === key);
  return byKey >= 0 ? byKey : items.findIndex((i) => i.type === "row");
}

function screenSize(): { columns: number; rows: number } {
  try {
    return Deno.consoleSize();
  } catch {
    return { columns: 80, rows: 24 };
  }
}

function pageSize(): number {
  return Math.max(5, screenSize().rows - 6);
}

/** Cuts plain text to `width` columns with an ellipsis. */
function fit(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

/** The title line within the width: the help after the message goes first. */
function fitStyled(line: string, width: number, message: string): string {
  // deno-lint-ignore no-control-regex
  const plain = line.replace(/\x1b\[[0-9;]*m/g, "");
  if ([...plain].length <= width) return line;
  return fit(message, width);
}

export const listPrompt = createPrompt<Picked, ListConfig>((config, done) => {
  const sgr = (open: number, close: number) => (t: string) =>
    config.colors ? `\x1b[${open}m${t}\x1b[${close}m` : t;
  const [dim, bold, cyan] = [sgr(2, 22), sgr(1, 22), sgr(36, 39)];
  const [items, setItems] = useState<readonly PickItem<unknown>[]>(config.items);
  const [active, setActive] = useState(startIndex(config.items, config.initialKey));
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState("");
  const [status, setStatus] = useState<"idle" | "done">("idle");
  const [, setColumns] = useState(screenSize().columns);

  // A resize reflows what the terminal shows, so inquirer's count of the rows it drew to erase
  // no longer holds: clear the visible screen and draw the picker again from its top row.
  useEffect(() => {
    const onResize = () => {
      Deno.stdout.writeSync(new TextEncoder().encode("\x1b[H\x1b[2J"));
      setColumns(screenSize().columns);
    };
    Deno.addSignalListener("SIGWINCH", onResize);
    return () => Deno.removeSignalListener("SIGWINCH", onResize);
  }, []);

  if (pickRows(items).length === 0) {
    throw new Error(`${config.message}: there is nothing to pick`);
  }

  const move = (step: number, count = 1) => {
    const rows = items.flatMap((item, i) => (item.type === "row" ? [i] : []));
    const at = Math.max(0, rows.indexOf(active));
    const to = Math.min(rows.length - 1, Math.max(0, at + step * count));
    setActive(rows[to] ?? active);
  };

  useKeypress(async (key) => {
    if (busy || status === "done") return;
    setNote("");
    const row = items[active] as Row | undefined;
    if (isEnterKey(key) && row) {
      setStatus("done");
      done({ value: row.value });
    } else if (isUpKey(key) || (key.ctrl && key.name === "p")) move(-1);
    else if (isDownKey(key) || (key.ctrl && key.name === "n")) move(1);
    else if (key.name === "pageup") move(-1, pageSize());
    else if (key.name === "pagedown") move(1, pageSize());
    else if (key.name === "f" && !key.ctrl && config.onToggle && row) {
      setBusy(true);
      try {
        const next = await config.onToggle(row.value);
        setItems(next);
        setActive(startIndex(next, row.key));
      } catch (err) {
        setNote(err instanceof Error ? err.message : String(err));
      } finally {
        setBusy(false);
      }
    }
  });

  const row = items[active] as Row | undefined;
  if (status === "done") return `${bold(config.message)} ${row?.label ?? ""}`;

  // Every row fits on one screen row, so the list never wraps.
  const width = screenSize().columns - 1;
  const lines = items.map((item, i) => {
    if (item.type === "header") return ` ${bold(fit(item.text, width - 1))}`;
    const pointer = i === active ? "❯" : " ";
    const label = fit(item.label, width - 3);
    const room = width - 3 - [...label].length - 2;
    const hint = item.hint && room > 8 ? `  ${dim(fit(item.hint, room))}` : "";
    return ` ${pointer} ${i === active ? cyan(label) : label}${hint}`;
  });
  const size = pageSize();
  let from = 0;
  if (lines.length > size) {
    from = Math.min(Math.max(0, active - Math.floor(size / 2)), lines.length - size);
  }
  const visible = lines.slice(from, from + size);
  const keys = ["↑↓ move", "enter pick"];
  if (config.onToggle) keys.push("f favorite");
  keys.push("esc cancel");
  const help = dim([...keys, ...(config.help ? [config.help] : [])].join(" · "));
  const more = lines.length > size
    ? dim(`  (${from + 1}-${from + visible.length} of ${lines.length})`)
    : "";
  return [
    fitStyled(`${bold(config.message)}  ${help}`, width, config.message),
    ...visible,
    ...(more ? [more] : []),
    ...(busy ? [dim("  saving…")] : []),
    ...(note ? [`  ${note}`] : []),
  ].join("\n") + CURSOR_HIDE;
});
