import assert from "node:assert/strict";
import { MARKDOWN_MAX_CHARS, renderMarkdown } from "./markdown.ts";
import { decodeReferences, escapeHtml, escapeProse } from "./escape.ts";
import { safeUrl } from "./safe_url.ts";

// The only tags and attributes the renderer may ever emit.
const TAGS = new Set([
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "p",
  "pre",
  "code",
  "blockquote",
  "hr",
  "ul",
  "ol",
  "li",
  "input",
  "div",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "strong",
  "em",
  "del",
  "br",
  "a",
  "span",
]);
const ATTRS = new Set([
  "href",
  "title",
  "rel",
  "class",
  "start",
  "type",
  "disabled",
  "checked",
  "aria-label",
]);

/** Scans rendered HTML and fails on any tag, attribute or link target outside the allowlist. */
function assertSafe(html: string): void {
  const tagRe = /<\/?([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g;
  // Every "<" must start one of our well-formed tags; anything else would be live markup.
  const stripped = html.replace(tagRe, "");
  assert.ok(!stripped.includes("<"), `stray "<" in output: ${html}`);
  assert.ok(!stripped.includes(">"), `stray ">" in output: ${html}`);
  for (const m of html.matchAll(tagRe)) {
    const tag = m[1]!.toLowerCase();
    assert.ok(TAGS.has(tag), `tag <${tag}> not allowed in ${html}`);
    for (const a of (m[2] ?? "").matchAll(/\s+([^\s=>]+)(?:="([^"]*)")?/g)) {
      const name = a[1]!.toLowerCase();
      assert.ok(ATTRS.has(name), `attribute ${name} not allowed in ${html}`);
      if (name === "href") {
        const value = decodeReferences(a[2] ?? "");
        assert.ok(
          /^(https?:|mailto:|[^a-zA-Z]|[a-zA-Z][a-zA-Z0-9+.-]*(?:[/?#]|$))/.test(value),
          `unsafe href ${value}`,
        );
        assert.ok(!/^\s*(javascript|data|vbscript|file):/i.test(value), `unsafe href ${value}`);
      }
    }
  }
}

const HOSTILE: string[] = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  "hello <img src=x onerror=alert(1)> world",
  '<svg onload="alert(1)"><circle/></svg>',
  "<iframe srcdoc='<script>alert(1)</script>'></iframe>",
  "<style>body{display:none}</style>",
  "<!-- comment --><a href='javascript:alert(1)'>x</a>",
  "[x](javascript:alert(1))",
  "[x](JaVaScRiPt:alert(1))",
  "[x](java&#115;cript:alert(1))",
  "[x](javascript&colon;alert(1))",
  "[x](&#x6A;avascript:alert(1))",
  "[x](&#106&#97&#118&#97&#115&#99&#114&#105&#112&#116&#58alert(1))",
  "[x](<javascript:alert(1)>)",
  "[x]( javascript:alert(1))",
  "[x](\u0001javascript:alert(1))",
  "[x](vbscript:msgbox(1))",
  "[x](file:///etc/passwd)",
  "[x](data:text/html,<script>alert(1)</script>)",
  "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
  '![a" onerror="alert(1)](http://x/y.png)',
  "[r]\n\n[r]: javascript:alert(1)",
  "<javascript:alert(1)>",
  '[x](http://a.example "a\\" onmouseover=\\"alert(1)")',
  '[x](http://a.example/"onmouseover="alert(1))',
  "```\n</code></pre><script>alert(1)</script>\n```",
  '```js" onload="alert(1)\ncode\n```',
  "`<b>inline</b>`",
  "| a | <b>b</b> |\n|---|---|\n| <script>x</script> | [l](javascript:1) |",
  "- [ ] <img src=x onerror=alert(1)>\n- [x] done",
  "> <div onclick=alert(1)>quoted</div>",
  "&lt;script&gt;alert(1)&lt;/script&gt;",
  '<a href="http://ok" onclick="alert(1)">mixed</a>',
  "**<u>bold html</u>**",
  '<p style="background:url(javascript:alert(1))">x</p>',
  "line<br onmouseover=alert(1)>break",
  '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
  "1. <b>a</b>\n2. [b](javascript:alert(2))",
];

Deno.test("renderMarkdown: hostile inputs produce only allowlisted markup", async () => {
  for (const src of HOSTILE) {
    const html = await renderMarkdown(src);
    assertSafe(html);
    assert.ok(!/<script/i.test(html), `script tag survived: ${src} -> ${html}`);
  }
});

Deno.test("renderMarkdown: raw HTML is shown as text, not dropped", async () => {
  const html = await renderMarkdown("before <b onclick=x>bold</b> after");
  assert.equal(html, "<p>before &lt;b onclick=x&gt;bold&lt;/b&gt; after</p>\n");
  const blockHtml = await renderMarkdown("<div>\nblock\n</div>");
  assert.match(blockHtml, /^<pre class="md-raw">&lt;div&gt;\nblock\n&lt;\/div&gt;<\/pre>/);
});

Deno.test("renderMarkdown: unsafe link targets keep their text but lose the link", async () => {
  for (
    const src of ["[click](javascript:alert(1))", "[click](java&#115;cript:x)", "[click](data:x)"]
  ) {
    const html = await renderMarkdown(src);
    assert.equal(html, '<p><span class="md-unsafe-link">click</span></p>\n', src);
  }
});

Deno.test("renderMarkdown: safe markdown renders as expected", async () => {
  const html = await renderMarkdown(
    [
      "# Title &amp; more",
      "",
      "Some **bold**, *em*, ~~gone~~ and `a<b`.",
      "",
      '[site](https://example.com/a?b=1&c=2 "T") and <https://x.example>',
      "",
      "- one",
      "- two",
      "",
      "3. three",
      "4. four",
      "",
      "- [x] done",
      "",
      "| l | r |",
      "|:--|--:|",
      "| 1 | 2 |",
      "",
      "```ts",
      "const a = 1 < 2;",
      "```",
      "",
      "> quote",
      "",
      "---",
      "",
      "![logo](/static/logo.png)",
    ].join("\n"),
  );
  assertSafe(html);
  assert.match(html, /<h1>Title &amp; more<\/h1>/);
  assert.match(
    html,
    /<strong>bold<\/strong>, <em>em<\/em>, <del>gone<\/del> and <code>a&lt;b<\/code>/,
  );
  assert.match(
    html,
    /<a href="https:\/\/example.com\/a\?b=1&amp;c=2" title="T" rel="noopener noreferrer nofollow">site<\/a>/,
  );
  assert.match(
    html,
    /<a href="https:\/\/x.example" rel="noopener noreferrer nofollow">https:\/\/x.example<\/a>/,
  );
  assert.match(html, /<ul>\n<li>one<\/li>\n<li>two<\/li>\n<\/ul>/);
  assert.match(html, /<ol start="3">/);
  assert.match(
    html,
    /<li class="task"><input type="checkbox" disabled checked aria-label="done"> done<\/li>/,
  );
  assert.match(html, /<th class="align-left">l<\/th><th class="align-right">r<\/th>/);
  assert.match(html, /<pre><code class="language-ts">const a = 1 &lt; 2;<\/code><\/pre>/);
  assert.match(html, /<blockquote>\n<p>quote<\/p>\n<\/blockquote>/);
  assert.match(html, /<hr>/);
  assert.match(
    html,
    /<a class="md-image" href="\/static\/logo.png" rel="noopener noreferrer nofollow">\[image: logo\]<\/a>/,
  );
});

Deno.test("renderMarkdown: pathological nesting and size stay bounded and safe", async () => {
  const deep = await renderMarkdown(">".repeat(5000) + " <script>x</script>");
  assertSafe(deep);
  const nestedList = await renderMarkdown(
    Array.from({ length: 200 }, (_, i) => "  ".repeat(i) + "- <img onerror=x>").join("\n"),
  );
  assertSafe(nestedList);
  const brackets = await renderMarkdown("[".repeat(20000) + "x" + "](javascript:1)".repeat(100));
  assertSafe(brackets);
  const huge = await renderMarkdown("a".repeat(MARKDOWN_MAX_CHARS + 10));
  assert.match(huge, /truncated at/);
  assert.ok(huge.length < MARKDOWN_MAX_CHARS + 200);
});

Deno.test("renderMarkdown: empty and whitespace input", async () => {
  assert.equal(await renderMarkdown(""), "");
  assert.equal(await renderMarkdown("   \n\n"), "");
});

Deno.test("safeUrl: allows web, mail and relative targets only", () => {
  assert.equal(safeUrl("https://a.example/x"), "https://a.example/x");
  assert.equal(safeUrl("HTTP://a.example"), "HTTP://a.example");
  assert.equal(safeUrl("mailto:ops@example.com"), "mailto:ops@example.com");
  assert.equal(safeUrl("/runs/1/2"), "/runs/1/2");
  assert.equal(safeUrl("#card-jobs"), "#card-jobs");
  assert.equal(safeUrl("notes/a.md"), "notes/a.md");
  assert.equal(safeUrl("a&amp;b"), "a&b");
  for (
    const bad of [
      "javascript:alert(1)",
      " JAVASCRIPT:alert(1)",
      "java\tscript:alert(1)",
      "java\nscript:alert(1)",
      "\u0000javascript:x",
      "javascript&colon;x",
      "javascript&#58;x",
      "javascript&#x3A;x",
      "&#106;avascript:x",
      "data:text/html,x",
      "vbscript:x",
      "file:///etc/passwd",
      "blob:https://x/y",
      "",
      "   ",
    ]
  ) {
    assert.equal(safeUrl(bad), null, JSON.stringify(bad));
  }
});

Deno.test("escape helpers", () => {
  assert.equal(
    escapeHtml(`<a href="x" title='y'>&amp;</a>`),
    "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;",
  );
  assert.equal(
    escapeProse("&copy; &#169; &#xA9; & &nope <b>"),
    "&copy; &#169; &#xA9; &amp; &amp;nope &lt;b&gt;",
  );
  assert.equal(decodeReferences("&#106;&#x61;&colon;&amp;&unknown;"), "ja:&&unknown;");
  assert.equal(decodeReferences("&#0;&#99999999;"), "\ufffd\ufffd9;");
});
