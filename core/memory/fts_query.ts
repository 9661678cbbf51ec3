// Turns free user text into a safe FTS5 MATCH expression. User text is never passed through:
// it is cut into letter/digit words, stop words are dropped, and each word is emitted as a
// double-quoted string joined with OR. Quoted strings cannot contain FTS5 syntax (quotes,
// parentheses, column filters, NEAR, AND/NOT, `*`, `^`), so the result never fails to parse.

const STOP_WORDS = new Set(
  (
    "a an and are as at be been but by can could did do does doing done for from had has have " +
    "how i if in into is it its just me my no not of on or our please so than that the their " +
    "them then there these they this to too us was we were what when where which who why will " +
    "with would you your yours about after again all also am any because before being both each " +
    "few further he her here hers him his more most much must nor only other out over own same " +
    "she should some such through under until up very let lets get got use using want need like " +
    "make sure okay ok hi hello thanks thank yes yeah"
  ).split(" "),
);

/** Upper bound on OR terms, so a pasted wall of text stays a cheap query. */
export const MAX_QUERY_TERMS = 24;
const MAX_TERM_CHARS = 64;

/** Printable ASCII plus tab and line breaks. */
const PLAIN_ASCII = /^[\t\n\r -~]*$/;

/** Distinct search words of `text`, in order of first appearance. */
export function queryTerms(text: string, maxTerms = MAX_QUERY_TERMS): string[] {
  if (typeof text !== "string" || text === "") return [];
  // Most prompts are plain ASCII, where NFKC changes nothing and the Unicode classes match
  // exactly [a-z0-9] once lowercased. The Unicode regex costs ~1.3 ms to compile at its first
  // use in a process (measured), on every headless run's way to its first request.
  const words = PLAIN_ASCII.test(text)
    ? text.toLowerCase().match(/[a-z0-9]+/g) ?? []
    : text.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const w of words) {
    if (w.length < 2 || w.length > MAX_TERM_CHARS || STOP_WORDS.has(w) || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
    if (out.length >= maxTerms) break;
  }
  return out;
}

/** An OR of quoted terms (as produced by queryTerms), or null for no terms. */
export function matchExpression(terms: readonly string[]): string | null {
  if (terms.length === 0) return null;
  // Terms hold only letters, digits and marks, so quoting them needs no escaping.
  return terms.map((t) => `"${t}"`).join(" OR ");
}

/** A MATCH expression for `text`, or null when nothing searchable is left. */
export function toFtsQuery(text: string, maxTerms = MAX_QUERY_TERMS): string | null {
  return matchExpression(queryTerms(text, maxTerms));
}

/**
 * Ranking (bm25) costs a few microseconds per matching document, so recall ranks on the
 * most selective terms only: terms are taken rarest first (fewest documents, but at least
 * one) while their summed document counts stay within `matchBudget`, up to `maxTerms`.
 * The rarest term is always kept. Rare terms carry most of bm25's weight, so documents
 * that match only the dropped common terms would have ranked low anyway.
 */
export const RANKING_BUDGET = { maxTerms: 6, matchBudget: 1000 } as const;

export function selectTerms(
  terms: readonly string[],
  docFreq: (term: string) => number,
  budget: { maxTerms: number; matchBudget: number } = RANKING_BUDGET,
): string[] {
  if (terms.length <= 1) return [...terms];
  const ranked = terms
    .map((term, i) => ({ term, i, df: docFreq(term) }))
    .filter((t) => t.df > 0)
    .sort((a, b) => a.df - b.df || a.i - b.i);
  const out: string[] = [];
  let sum = 0;
  for (const t of ranked) {
    if (out.length >= budget.maxTerms) break;
    if (out.length > 0 && sum + t.df > budget.matchBudget) break;
    out.push(t.term);
    sum += t.df;
  }
  return out;
}
