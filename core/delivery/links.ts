// Links in text written by a model (run answers, inbox questions, alert reasons) are
// neutralized before the text reaches a push notification or a chat message (issue 37): a
// lock screen or a chat client would make them tappable, and a phishing link in a message
// that seems to come from the operator's own outpost is the one most likely to be tapped.
// Spec 6's "no URL rides the wire" thus holds for the push text as well as its fields.
//
// A link is found by linkify-it (schemes, www., bare names with a known top-level domain,
// e-mail addresses) and shown defanged, the convention of security reports:
//   https://evil.example/login  ->  hxxps://evil[.]example/login
//   evil.com/login              ->  evil[.]com/login
//   mail@evil.com               ->  mail[@]evil[.]com
//   ftp://host.org              ->  ftp[:]//host[.]org
// The host's dots become [.] and the scheme loses its clickable form, so no client links it,
// while a person can still read where it pointed. The outpost's own links (the item and run
// links the chat adapter adds) are appended after this step and stay clickable.

import LinkifyIt from "linkify-it";
import { stripUnsafe } from "./sanitize.ts";

const linkify = new LinkifyIt();

/** Text with every link defanged (control and invisible characters removed first). */
export function neutralizeLinks(text: string): string {
  // Invisible characters go first: "ht\u200Btps://" must not become a link once they are
  // stripped later.
  const clean = stripUnsafe(text);
  const matches = linkify.match(clean);
  if (!matches) return clean;
  let out = "";
  let at = 0;
  for (const m of matches) {
    out += clean.slice(at, m.index) + defang(m.raw);
    at = m.lastIndex;
  }
  return out + clean.slice(at);
}

/** One link, defanged: the scheme made unclickable, the host's dots and @ bracketed. */
export function defang(link: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):(\/\/)?/i.exec(link);
  const rest = scheme ? link.slice(scheme[0].length) : link;
  const hostEnd = rest.search(/[/?#]/);
  const host = hostEnd < 0 ? rest : rest.slice(0, hostEnd);
  const tail = hostEnd < 0 ? "" : rest.slice(hostEnd);
  return defangScheme(scheme) + host.replaceAll(".", "[.]").replaceAll("@", "[@]") + tail;
}

function defangScheme(scheme: RegExpExecArray | null): string {
  if (!scheme) return "";
  const name = scheme[1]!.toLowerCase();
  const slashes = scheme[2] ?? "";
  if (name === "http" || name === "https") return `hxxp${name.slice(4)}:${slashes}`;
  if (name === "mailto") return "";
  return `${scheme[1]}[:]${slashes}`;
}
