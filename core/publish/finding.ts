// One secret found in a text about to be published: which rule matched and where.

export interface Finding {
  /** "github", "aws", "anthropic", … (secretlint rule without its prefix), or "stored-secret". */
  rule: string;
  /** Character range [start, end) in the scanned text. */
  start: number;
  end: number;
}
