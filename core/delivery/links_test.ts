// The link defanger of push and chat text (links.ts): every kind of link a lock screen or a
// chat client would make tappable comes out unclickable but readable; other text is kept.

import assert from "node:assert/strict";
import { neutralizeLinks } from "./links.ts";

Deno.test("links of every kind are defanged; plain text is left alone", () => {
  const cases: [string, string][] = [
    ["go to https://evil.example/login now", "go to hxxps://evil[.]example/login now"],
    ["HTTP://EVIL.COM/a?b=c#d", "hxxp://EVIL[.]COM/a?b=c#d"],
    ["see www.evil.com/x", "see www[.]evil[.]com/x"],
    ["evil.com/login", "evil[.]com/login"],
    ["mail me: a@evil.com", "mail me: a[@]evil[.]com"],
    ["ftp://files.evil.org/x", "ftp[:]//files[.]evil[.]org/x"],
    ["[click](https://evil.example/x)", "[click](hxxps://evil[.]example/x)"],
    ["no links in v1.2.3, 3.14 or main_test.ts", "no links in v1.2.3, 3.14 or main_test.ts"],
    // A file name that is also a domain name (.md is Moldova's) is one a client links: defanged.
    ["see report.md", "see report[.]md"],
  ];
  for (const [input, expected] of cases) assert.equal(neutralizeLinks(input), expected, input);
});

Deno.test("invisible characters cannot hide a scheme from the defanger", () => {
  const out = neutralizeLinks("ht\u200Btps://evil\u200B.example/login");
  assert.equal(out, "hxxps://evil[.]example/login");
});
