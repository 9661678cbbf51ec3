import assert from "node:assert/strict";
import { textWidth } from "./text_width.ts";

Deno.test("text width: ASCII one column, CJK and emoji two, combining marks none", () => {
  assert.equal(textWidth("abc"), 3);
  assert.equal(textWidth("你好"), 4);
  assert.equal(textWidth("한국어"), 6);
  assert.equal(textWidth("ｆｕｌｌ"), 8);
  assert.equal(textWidth("🎉"), 2);
  assert.equal(textWidth("e\u0301"), 1);
});
