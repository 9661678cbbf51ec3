// The recall index: a dedicated SQLite FTS5 database at <root>/.index/recall.db (dot-leading,
// so the path guard keeps every memory command away from it). It mirrors the memory files:
// a `files` table with each file's stat and frontmatter facts, and an `fts` table with the
// searchable text. Session files get a `files` row (for listing and sweeps) but no `fts`
// row: they are never recalled.
//
// Ranking (lower is better, as FTS5's bm25 is negative for matches):
//   score = bm25(fts; path 0.5, title 2.0, body 1.0) × recency × staleness
//   recency   = 1 + 0.5 / (1 + age_days / 30)   for preference files, else 1
//               (a preference touched today weighs 1.5×, one a month old 1.25×, a year old
//               about 1.04×: newer statements of taste win over older ones)
//   staleness = 0.75 for project-fact files untouched for about 6 months, else 1
// where age is measured from the file's mtime to the injected clock's now.

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { openIndexDatabase } from "./recall_index_open.ts";
import { type Category, memoryTitle, parseMemory } from "./frontmatter.ts";
import type { FileStat, WalkEntry } from "./guarded_fs.ts";
import { DAY, EPISODIC_TTL_MS, SESSION_TTL_MS, STALE_AFTER_MS } from "./limits.ts";

export const INDEX_DIR = ".index";
export const INDEX_FILE = "recall.db";
export const RANKING = {
  weights: { path: 0.5, title: 2.0, body: 1.0 },
  preferenceBoost: 0.5,
  preferenceScaleMs: 30 * DAY,
  stalePenalty: 0.75,
} as const;

export interface IndexedFile extends FileStat {
  /** Root-relative path. */
  path: string;
  category: Category;
  workspace: string | null;
  legacy: boolean;
  title: string;
}

export interface RecallRow {
  path: string;
  category: Category;
  workspace: string | null;
  title: string;
  snippet: string;
  score: number;
}

export interface ReconcileReport {
  added: number;
  updated: number;
  removed: number;
}

/** Rows in or out of a workspace's view: no workspace key, "global", or the workspace. */
const IN_SCOPE = "(f.workspace IS NULL OR f.workspace = 'global' OR f.workspace = ?)";

interface FileRowRaw {
  path: string;
  mtime_ms: number;
  size: number;
  category: string;
  workspace: string | null;
  legacy: number;
  title: string;
}

function toIndexed(r: FileRowRaw): IndexedFile {
  return {
    path: r.path,
    mtimeMs: r.mtime_ms,
    size: r.size,
    category: r.category as Category,
    workspace: r.workspace,
    legacy: r.legacy === 1,
    title: r.title,
  };
}

/**
 * A row id as SQLite INTEGER. node:sqlite binds a JavaScript number as REAL, and FTS5
 * ignores a REAL `rowid = ?` constraint next to a MATCH (the constraint is consumed, not
 * re-checked), so `WHERE fts MATCH ? AND rowid = ?` returned the first matching row for any
 * id: every recall hit carried one file's snippet, a foreign workspace's included. Every id
 * this module binds goes through here.
 */
export function rowid(id: number | bigint): bigint {
  return BigInt(id);
}

export class RecallIndex {
  readonly #db: DatabaseSync;
  readonly #stmts = new Map<string, StatementSync>();
  /** True when the database was created (or recreated) by this open. */
  readonly fresh: boolean;

  private constructor(db: DatabaseSync, fresh: boolean) {
    this.#db = db;
    this.fresh = fresh;
  }

  /**
   * Opens (creating if needed) the index of the root; a damaged one is rebuilt
   * (recall_index_open.ts says exactly when).
   */
  static open(rootReal: string): RecallIndex {
    const { db, fresh } = openIndexDatabase(`${rootReal}/${INDEX_DIR}`, INDEX_FILE);
    return new RecallIndex(db, fresh);
  }

  #stmt(sql: string): StatementSync {
    let s = this.#stmts.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#stmts.set(sql, s);
    }
    return s;
  }

  /** Runs `fn` in one write transaction (serialized against other processes). */
  transaction<T>(fn: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.#db.exec("COMMIT");
      return out;
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  /** Records one file's current text. Session files are listed but not searchable. */
  put(rel: string, stat: FileStat, text: string): IndexedFile {
    const parsed = parseMemory(text);
    const name = rel.slice(rel.lastIndexOf("/") + 1);
    const row: IndexedFile = {
      path: rel,
      mtimeMs: stat.mtimeMs,
      size: stat.size,
      category: parsed.category,
      workspace: parsed.workspace,
      legacy: parsed.legacy,
      title: memoryTitle(parsed, name),
    };
    const { id } = this.#stmt(
      `INSERT INTO files(path, mtime_ms, size, category, workspace, legacy, title)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(path) DO UPDATE SET mtime_ms = excluded.mtime_ms, size = excluded.size,
         category = excluded.category, workspace = excluded.workspace,
         legacy = excluded.legacy, title = excluded.title
       RETURNING id`,
    ).get(
      rel,
      row.mtimeMs,
      row.size,
      row.category,
      row.workspace,
      row.legacy ? 1 : 0,
      row.title,
    ) as { id: number };
    this.#stmt("DELETE FROM fts WHERE rowid = ?").run(rowid(id));
    if (row.category !== "session") {
      this.#stmt("INSERT INTO fts(rowid, path, title, body) VALUES (?, ?, ?, ?)")
        .run(rowid(id), rel, row.title, parsed.body);
    }
    return row;
  }

  /** Forgets one file, or a whole directory tree when `tree` is set. Returns rows removed. */
  remove(rel: string, tree = false): number {
    const ids = (tree
      ? this.#stmt("SELECT id FROM files WHERE path = ? OR substr(path, 1, ?) = ?")
        .all(rel, rel.length + 1, `${rel}/`)
      : this.#stmt("SELECT id FROM files WHERE path = ?").all(rel)) as { id: number }[];
    for (const { id } of ids) {
      this.#stmt("DELETE FROM fts WHERE rowid = ?").run(rowid(id));
      this.#stmt("DELETE FROM files WHERE id = ?").run(rowid(id));
    }
    return ids.length;
  }

  /**
   * Brings the index in step with the files on disk, re-reading only files whose mtime or
   * size changed. `read` returns null for a file that cannot be read (it is then dropped).
   */
  reconcile(onDisk: WalkEntry[], read: (e: WalkEntry) => string | null): ReconcileReport {
    const report: ReconcileReport = { added: 0, updated: 0, removed: 0 };
    const known = new Map<string, { mtime_ms: number; size: number }>();
    for (const r of this.#stmt("SELECT path, mtime_ms, size FROM files").all()) {
      const row = r as { path: string; mtime_ms: number; size: number };
      known.set(row.path, row);
    }
    const changed: WalkEntry[] = [];
    const present = new Set<string>();
    for (const e of onDisk) {
      present.add(e.rel);
      const k = known.get(e.rel);
      if (!k || k.mtime_ms !== e.mtimeMs || k.size !== e.size) changed.push(e);
    }
    const gone = [...known.keys()].filter((p) => !present.has(p));
    if (changed.length === 0 && gone.length === 0) return report;
    this.transaction(() => {
      for (const p of gone) report.removed += this.remove(p);
      for (const e of changed) {
        const text = read(e);
        if (text === null) {
          if (known.has(e.rel)) report.removed += this.remove(e.rel);
          continue;
        }
        this.put(e.rel, e, text);
        if (known.has(e.rel)) report.updated++;
        else report.added++;
      }
    });
    return report;
  }

  /** Drops everything and indexes `onDisk` from scratch. Returns the number of files. */
  rebuild(onDisk: WalkEntry[], read: (e: WalkEntry) => string | null): number {
    const n = this.transaction(() => {
      this.#db.exec("DELETE FROM files; DELETE FROM fts;");
      let n = 0;
      for (const e of onDisk) {
        const text = read(e);
        if (text === null) continue;
        this.put(e.rel, e, text);
        n++;
      }
      return n;
    });
    // One merged segment b-tree makes every later query cheaper.
    this.#db.exec("INSERT INTO fts(fts) VALUES ('optimize')");
    return n;
  }

  /** Documents containing `term` (a sanitized word; stemmed the same way as the index). */
  docFreq(term: string): number {
    return (this.#stmt("SELECT count(*) AS n FROM fts WHERE fts MATCH ?").get(`"${term}"`) as {
      n: number;
    }).n;
  }

  /**
   * Ranked full-text hits for an already-sanitized MATCH expression. `workspace` null means
   * unfiltered (operator search); otherwise foreign-workspace files are left out.
   */
  query(
    match: string,
    opts: { workspace: string | null; limit: number; nowMs: number; exclude?: string },
  ): RecallRow[] {
    const { path: wp, title: wt, body: wb } = RANKING.weights;
    const sql = `
      SELECT fts.rowid AS id, f.path, f.category, f.workspace, f.title,
        bm25(fts, ${wp}, ${wt}, ${wb})
          * (CASE WHEN f.category = 'preference'
              THEN 1.0 + ${RANKING.preferenceBoost} /
                (1.0 + max(0, ? - f.mtime_ms) / ${RANKING.preferenceScaleMs}.0)
              ELSE 1.0 END)
          * (CASE WHEN f.category = 'project-fact' AND ? - f.mtime_ms > ${STALE_AFTER_MS}
              THEN ${RANKING.stalePenalty} ELSE 1.0 END) AS score
      FROM fts JOIN files f ON f.id = fts.rowid
      WHERE fts MATCH ? AND f.path != ?
        ${opts.workspace === null ? "" : `AND ${IN_SCOPE}`}
      ORDER BY score LIMIT ?`;
    const params: (string | number)[] = [opts.nowMs, opts.nowMs, match, opts.exclude ?? ""];
    if (opts.workspace !== null) params.push(opts.workspace);
    params.push(opts.limit);
    const ranked = this.#stmt(sql).all(...params) as unknown as (RecallRow & { id: number })[];
    // snippet() re-reads the document, so it runs only for the rows that made the cut.
    const snip = this.#stmt(
      "SELECT snippet(fts, 2, '', '', '…', 20) AS s FROM fts WHERE fts MATCH ? AND rowid = ?",
    );
    return ranked.map(({ id, ...r }) => ({
      ...r,
      snippet: (snip.get(match, rowid(id)) as { s: string } | undefined)?.s ?? "",
    }));
  }

  /**
   * Files visible from `workspace` (no key, global, or the workspace), best first. Session
   * files are never listed: spec 2.1 says they are never indexed.
   */
  scoped(workspace: string, limit: number, exclude: string): IndexedFile[] {
    const rows = this.#stmt(
      `SELECT path, mtime_ms, size, category, workspace, legacy, title FROM files f
       WHERE ${IN_SCOPE} AND path != ? AND category != 'session'
       ORDER BY CASE category WHEN 'preference' THEN 0 WHEN 'project-fact' THEN 1
         WHEN 'episodic' THEN 2 ELSE 3 END, path
       LIMIT ?`,
    ).all(workspace, exclude, limit) as unknown as FileRowRaw[];
    return rows.map(toIndexed);
  }

  /**
   * How many files `workspace` sees, and how many belong to other workspaces; `exclude` (the
   * curated index, shown in every workspace) and session files count in neither.
   */
  counts(workspace: string, exclude: string): {
    scoped: number;
    foreignFiles: number;
    foreignWorkspaces: number;
  } {
    const r = this.#stmt(
      `SELECT
         sum(CASE WHEN ${IN_SCOPE} THEN 1 ELSE 0 END) AS scoped,
         sum(CASE WHEN ${IN_SCOPE} THEN 0 ELSE 1 END) AS foreign_files,
         count(DISTINCT CASE WHEN ${IN_SCOPE} THEN NULL ELSE workspace END) AS foreign_ws
       FROM files f WHERE path != ? AND category != 'session'`,
    ).get(workspace, workspace, workspace, exclude) as {
      scoped: number | null;
      foreign_files: number | null;
      foreign_ws: number;
    };
    return {
      scoped: r.scoped ?? 0,
      foreignFiles: r.foreign_files ?? 0,
      foreignWorkspaces: r.foreign_ws,
    };
  }

  /** Every indexed file (operator listing, sweeps). */
  all(): IndexedFile[] {
    const rows = this.#stmt(
      "SELECT path, mtime_ms, size, category, workspace, legacy, title FROM files ORDER BY path",
    ).all() as unknown as FileRowRaw[];
    return rows.map(toIndexed);
  }

  /**
   * Files a sweep at `nowMs` may act on: session and episodic files past their lifetime and
   * project facts past the stale age (planSweep still decides). Filtering in SQL keeps a
   * start-up sweep of a large root from materializing every row.
   */
  sweepCandidates(nowMs: number): IndexedFile[] {
    const rows = this.#stmt(
      "SELECT path, mtime_ms, size, category, workspace, legacy, title FROM files " +
        "WHERE (category = 'session' AND mtime_ms < ?) OR (category = 'episodic' AND mtime_ms < ?) " +
        "OR (category = 'project-fact' AND mtime_ms < ?) ORDER BY path",
    ).all(
      nowMs - SESSION_TTL_MS,
      nowMs - EPISODIC_TTL_MS,
      nowMs - STALE_AFTER_MS,
    ) as unknown as FileRowRaw[];
    return rows.map(toIndexed);
  }

  get(rel: string): IndexedFile | undefined {
    const row = this.#stmt(
      "SELECT path, mtime_ms, size, category, workspace, legacy, title FROM files WHERE path = ?",
    ).get(rel) as FileRowRaw | undefined;
    return row ? toIndexed(row) : undefined;
  }

  /** Number of searchable (fts) rows; used by tests to check session files stay out. */
  searchableCount(): number {
    return (this.#stmt("SELECT count(*) AS n FROM fts").get() as { n: number }).n;
  }

  close(): void {
    this.#stmts.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}
