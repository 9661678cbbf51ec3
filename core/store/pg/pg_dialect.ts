// The store's statements are written once, in SQLite's dialect (sql_store.ts and its helpers);
// this turns one into PostgreSQL's. Only the few forms the store uses are rewritten:
// positional `?` → `$n`, `INSERT OR IGNORE` → `ON CONFLICT DO NOTHING`, and SQLite's index
// hints (`INDEXED BY x`, `NOT INDEXED`), which PostgreSQL's planner does without.

/** Statement text in PostgreSQL's dialect (cached by the caller with its statement). */
export function toPostgres(sql: string): string {
  let text = numberParameters(sql)
    .replace(/\s+INDEXED BY\s+\w+/g, "")
    .replace(/\s+NOT INDEXED\b/g, "");
  if (/^\s*INSERT OR IGNORE INTO\b/i.test(text)) {
    text = text.replace(/INSERT OR IGNORE INTO/i, "INSERT INTO");
    const returning = text.search(/\sRETURNING\s/i);
    text = returning < 0
      ? `${text} ON CONFLICT DO NOTHING`
      : `${text.slice(0, returning)} ON CONFLICT DO NOTHING${text.slice(returning)}`;
  }
  return text;
}

/** `?` outside quoted text becomes `$1`, `$2`, … in order. */
function numberParameters(sql: string): string {
  let out = "";
  let n = 0;
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === "?") {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}
