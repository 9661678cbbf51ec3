// Time formatting every layer shares. Stored and wire timestamps are UTC ISO-8601 with Z.

/** UTC ISO-8601 with Z and whole seconds (`2026-03-09T06:30:00Z`): the one timestamp format. */
export function isoZ(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
