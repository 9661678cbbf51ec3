// POSIX path helpers. The agent's start-up path avoids node: built-ins (loading Deno's Node
// compatibility layer costs several milliseconds per module), so these few live here.

export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

/** Collapses `.`, `..` and repeated slashes; keeps a leading slash. */
export function normalize(path: string): string {
  const absolute = isAbsolute(path);
  const out: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
    } else out.push(seg);
  }
  const joined = out.join("/");
  if (absolute) return `/${joined}`;
  return joined === "" ? "." : joined;
}

export function join(...parts: string[]): string {
  const nonEmpty = parts.filter((p) => p !== "");
  return nonEmpty.length === 0 ? "." : normalize(nonEmpty.join("/"));
}

/** Like Node's path.resolve: right-most absolute part wins, relative to Deno.cwd() otherwise. */
export function resolve(...parts: string[]): string {
  let acc = "";
  for (let i = parts.length - 1; i >= 0 && !isAbsolute(acc); i--) {
    const p = parts[i]!;
    if (p === "") continue;
    acc = acc === "" ? p : `${p}/${acc}`;
  }
  if (!isAbsolute(acc)) acc = `${Deno.cwd()}/${acc}`;
  const n = normalize(acc);
  return n.length > 1 && n.endsWith("/") ? n.slice(0, -1) : n;
}

export function dirname(path: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  const i = trimmed.lastIndexOf("/");
  if (i === -1) return ".";
  if (i === 0) return "/";
  return trimmed.slice(0, i);
}

export function basename(path: string, ext?: string): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  const base = trimmed.slice(trimmed.lastIndexOf("/") + 1);
  return ext && base.endsWith(ext) && base !== ext ? base.slice(0, -ext.length) : base;
}

export function extname(path: string): string {
  const base = basename(path);
  const i = base.lastIndexOf(".");
  return i <= 0 || base === ".." ? "" : base.slice(i);
}

/** The relative path from `from` to `to` (both resolved first). */
export function relative(from: string, to: string): string {
  const a = resolve(from).split("/").filter(Boolean);
  const b = resolve(to).split("/").filter(Boolean);
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return [...Array(a.length - i).fill(".."), ...b.slice(i)].join("/");
}

export const sep = "/";
