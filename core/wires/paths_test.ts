import { equal } from "node:assert/strict";
import {
  baseWithoutV1,
  chatCompletionsUrl,
  countTokensUrl,
  messagesUrl,
  modelsUrl,
  selectProvider,
  tokenizeUrl,
} from "./paths.ts";

Deno.test("paths: Chat Completions uses the base as-is", () => {
  equal(chatCompletionsUrl("http://h:8000/v1"), "http://h:8000/v1/chat/completions");
  equal(chatCompletionsUrl("http://h:8000/v1/"), "http://h:8000/v1/chat/completions");
  equal(
    chatCompletionsUrl("https://openrouter.ai/api/v1"),
    "https://openrouter.ai/api/v1/chat/completions",
  );
  equal(chatCompletionsUrl("http://h:8000"), "http://h:8000/chat/completions");
});

Deno.test("paths: Messages trims one trailing /v1 (and slashes)", () => {
  equal(messagesUrl("http://h:8000/v1"), "http://h:8000/v1/messages");
  equal(messagesUrl("http://h:8000/v1/"), "http://h:8000/v1/messages");
  equal(messagesUrl("http://h:8000/v1//"), "http://h:8000/v1/messages");
  equal(messagesUrl("https://api.anthropic.com"), "https://api.anthropic.com/v1/messages");
  equal(messagesUrl("https://api.anthropic.com/"), "https://api.anthropic.com/v1/messages");
  equal(messagesUrl("http://proxy/anthropic/v1"), "http://proxy/anthropic/v1/messages");
  // Only a final /v1 segment is trimmed, never a /v1 inside a name.
  equal(messagesUrl("http://h/xv1"), "http://h/xv1/v1/messages");
  equal(baseWithoutV1(" http://h/v1 "), "http://h");
});

Deno.test("paths: the models probe is GET /v1/models on the same server, for either wire", () => {
  equal(modelsUrl("http://h:8000/v1"), "http://h:8000/v1/models");
  equal(modelsUrl("https://api.anthropic.com"), "https://api.anthropic.com/v1/models");
});

Deno.test("paths: token counting sits next to each wire's endpoint", () => {
  equal(countTokensUrl("http://h:8000/v1"), "http://h:8000/v1/messages/count_tokens");
  equal(countTokensUrl("http://h:8000/v1/"), "http://h:8000/v1/messages/count_tokens");
  equal(
    countTokensUrl("https://api.anthropic.com"),
    "https://api.anthropic.com/v1/messages/count_tokens",
  );
  equal(
    countTokensUrl("http://proxy/anthropic/v1"),
    "http://proxy/anthropic/v1/messages/count_tokens",
  );
  // vLLM serves /tokenize at the server root, beside /v1, not under it.
  equal(tokenizeUrl("http://h:8000/v1"), "http://h:8000/tokenize");
  equal(tokenizeUrl("http://h:8000/v1//"), "http://h:8000/tokenize");
  equal(tokenizeUrl("http://h:8000"), "http://h:8000/tokenize");
  equal(tokenizeUrl("https://openrouter.ai/api/v1"), "https://openrouter.ai/api/tokenize");
  equal(tokenizeUrl("http://h/xv1"), "http://h/xv1/tokenize");
});

Deno.test("wire selection (4.3 rule 1): provider wins, then base_url → messages, else chat", () => {
  equal(selectProvider({}), "chat_completions");
  equal(selectProvider({ base_url: "http://h/v1" }), "messages");
  equal(selectProvider({ base_url: "  " }), "chat_completions");
  equal(
    selectProvider({ provider: "chat_completions", base_url: "http://h/v1" }),
    "chat_completions",
  );
  equal(selectProvider({ provider: "messages" }), "messages");
  equal(selectProvider({ provider: "chat_completions" }), "chat_completions");
});
