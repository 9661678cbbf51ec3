// Reads the query strings of the history pages (/runs, /jobs/<id>, /audit) into store
// filters. A bad value is not dropped in silence: it comes back as a field error with the
// form label the operator sees, and the page answers 400 showing it.

import { AUDIT_CHANNELS } from "../../core/audit/audit.ts";
import type { AuditFilter, JobClass, RunFilter, RunStatus } from "../../core/store/store.ts";

export const RUN_STATUSES: readonly RunStatus[] = [
  "queued",
  "running",
  "ok",
  "error",
  "needs_human",
  "skipped",
  "skipped_drift",
  "killed",
  "lost",
  "cancelled",
];
export const CLASSES: readonly JobClass[] = ["scheduled", "api"];
export type ChartSpan = "24h" | "7d";

export interface FieldError {
  field: string;
  /** The form label ("From", "Status"), never an internal name. */
  label: string;
  message: string;
}

export interface RunsQuery {
  filter: RunFilter;
  /** The filter as typed (to refill the form and build links). */
  raw: Record<string, string>;
  before: number | null;
  span: ChartSpan;
  errors: FieldError[];
}

export interface AuditQuery {
  filter: AuditFilter;
  raw: Record<string, string>;
  before: number | null;
  errors: FieldError[];
}

const ID_RE = /^[1-9][0-9]{0,14}$/;
const DATE_RE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::\d{2})?Z?)?$/;
const TEXT_MAX = 500;

type Query = (name: string) => string | undefined;

/** "2026-03-02" or "2026-03-02T09:30" (UTC) → ISO-Z; a date alone at `to` means that day's end. */
function parseDate(text: string, end: boolean): string | null {
  const m = DATE_RE.exec(text.trim());
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2] ?? "00:00"}:00Z`);
  if (Number.isNaN(ms)) return null;
  const at = m[2] === undefined && end ? ms + 86_400_000 : ms;
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The one rule for a page's From/To pair (/runs, /audit): UTC dates, From before To. */
function dateRange(
  q: Query,
  raw: Record<string, string>,
  filter: { from?: string; to?: string },
  errors: FieldError[],
): void {
  for (const [name, label, end] of [["from", "From", false], ["to", "To", true]] as const) {
    const text = q(name)?.trim() ?? "";
    if (text === "") continue;
    raw[name] = text;
    const iso = parseDate(text, end);
    if (iso === null) {
      errors.push({
        field: name,
        label,
        message: "use a UTC date such as 2026-03-02 or 2026-03-02T09:30",
      });
    } else filter[name] = iso;
  }
  if (filter.from && filter.to && filter.from >= filter.to) {
    errors.push({ field: "to", label: "To", message: "must be after From" });
  }
}

export function parseId(text: string | undefined): number | null {
  return text !== undefined && ID_RE.test(text) ? Number(text) : null;
}

function cursor(q: Query, errors: FieldError[]): number | null {
  const text = q("before");
  if (text === undefined || text === "") return null;
  const id = parseId(text);
  if (id === null) {
    errors.push({ field: "before", label: "Page", message: "must be a run id from a page link" });
  }
  return id;
}

export function parseRunsQuery(q: Query, fixedJob: number | null = null): RunsQuery {
  const errors: FieldError[] = [];
  const raw: Record<string, string> = {};
  const filter: RunFilter = {};
  const take = (name: string) => {
    const v = q(name)?.trim() ?? "";
    if (v !== "") raw[name] = v;
    return v;
  };
  if (fixedJob !== null) filter.job_id = fixedJob;
  else {
    const job = take("job");
    if (job !== "") {
      const id = parseId(job);
      if (id === null) {
        errors.push({ field: "job", label: "Job", message: "pick a job from the list" });
      } else filter.job_id = id;
    }
  }
  const status = take("status");
  if (status !== "") {
    if ((RUN_STATUSES as readonly string[]).includes(status)) filter.status = status as RunStatus;
    else {
      errors.push({
        field: "status",
        label: "Status",
        message: `unknown status; use one of ${RUN_STATUSES.join(", ")}`,
      });
    }
  }
  const cls = take("class");
  if (cls !== "") {
    if ((CLASSES as readonly string[]).includes(cls)) filter.class = cls as JobClass;
    else errors.push({ field: "class", label: "Class", message: "use scheduled or api" });
  }
  dateRange(q, raw, filter, errors);
  const spanText = q("span");
  const span: ChartSpan = spanText === "7d" ? "7d" : "24h";
  if (spanText === "7d") raw.span = "7d";
  return { filter, raw, before: cursor(q, errors), span, errors };
}

export function parseAuditQuery(q: Query): AuditQuery {
  const errors: FieldError[] = [];
  const raw: Record<string, string> = {};
  const filter: AuditFilter = {};
  for (
    const [name, label] of [["action", "Action"], ["actor", "Actor"], ["target", "Target"]] as const
  ) {
    const v = q(name)?.trim() ?? "";
    if (v === "") continue;
    raw[name] = v;
    if (v.length > TEXT_MAX) {
      errors.push({ field: name, label, message: `longer than ${TEXT_MAX} characters` });
    } else filter[name] = v;
  }
  const channel = q("channel")?.trim() ?? "";
  if (channel !== "") {
    raw.channel = channel;
    if ((AUDIT_CHANNELS as readonly string[]).includes(channel)) filter.channel = channel;
    else {
      errors.push({
        field: "channel",
        label: "Channel",
        message: `unknown channel; use one of ${AUDIT_CHANNELS.join(", ")}`,
      });
    }
  }
  dateRange(q, raw, filter, errors);
  return { filter, raw, before: cursor(q, errors), errors };
}

/** A link to the same list with `changes` applied (undefined removes a key). */
export function hrefWith(
  path: string,
  raw: Record<string, string>,
  changes: Record<string, string | undefined>,
): string {
  const params = new URLSearchParams();
  const merged: Record<string, string | undefined> = { ...raw, ...changes };
  for (const [k, v] of Object.entries(merged)) if (v !== undefined && v !== "") params.set(k, v);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}
