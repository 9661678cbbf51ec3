# LiteLLM CustomLLM providers for the peer tests: scripted streams with no upstream, so that
# LiteLLM's own proxy does all the wire framing (Chat Completions chunks, and its Anthropic
# adapter on /v1/messages). LiteLLM drops `mock_tool_calls` when streaming, hence these.
#   scripted_tool: streams a `view` call (name, then the arguments in pieces); once a tool
#                  result is in the history, a text answer quoting it.
#   scripted_tool2: two `view` calls whose argument fragments interleave (index 0, 1, 0, 1),
#                  as parallel calls stream from real backends; then the same answer.
#   scripted_text: a text answer with escapes, emoji and a U+2028 piece, and usage with
#                  cached prompt tokens.
import json
from typing import AsyncIterator, Iterator

import litellm
from litellm import CustomLLM
from litellm.types.utils import GenericStreamingChunk, ModelResponse

USAGE = {"prompt_tokens": 21, "completion_tokens": 9, "total_tokens": 30}
TEXT_PIECES = ["Hello ", "from a ", "scripted ", "LiteLLM ", "stream: ", "\"quoted\" ",
               "back\\slash ", "tab\there ", "é 🎉 ", "line\u2028sep ", "done."]


def _chunk(text="", tool_use=None, finished=False, finish_reason="", usage=None):
    return GenericStreamingChunk(text=text, tool_use=tool_use, is_finished=finished,
                                 finish_reason=finish_reason, usage=usage, index=0)


def _tool_result(messages):
    for m in messages:
        if m.get("role") == "tool":
            content = m.get("content")
            if isinstance(content, list):
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content)
    return None


def _tool_chunks(messages):
    result = _tool_result(messages)
    if result is None:
        args = json.dumps({"path": "hello.txt"})
        yield _chunk(tool_use={"id": "call_peer_1", "type": "function",
                               "function": {"name": "view", "arguments": ""}, "index": 0})
        for piece in (args[:5], args[5:12], args[12:]):
            yield _chunk(tool_use={"id": None, "type": "function",
                                   "function": {"name": None, "arguments": piece}, "index": 0})
        yield _chunk(finished=True, finish_reason="tool_calls", usage=USAGE)
    else:
        text = "The tool said: " + result.strip().replace("\n", " ")[:200]
        for i in range(0, len(text), 7):
            yield _chunk(text=text[i:i + 7])
        yield _chunk(finished=True, finish_reason="stop", usage=USAGE)


def _parallel_chunks(messages):
    if _tool_result(messages) is not None:
        yield from _tool_chunks(messages)
        return
    calls = [json.dumps({"path": "hello.txt"}), json.dumps({"path": "other.txt"})]
    for i in range(2):
        yield _chunk(tool_use={"id": f"call_peer_{i}", "type": "function",
                               "function": {"name": "view", "arguments": ""}, "index": i})
    for piece in range(3):
        for i, args in enumerate(calls):
            part = args[piece * 7:(piece + 1) * 7] if piece < 2 else args[14:]
            yield _chunk(tool_use={"id": None, "type": "function",
                                   "function": {"name": None, "arguments": part}, "index": i})
    yield _chunk(finished=True, finish_reason="tool_calls", usage=USAGE)


def _text_chunks():
    for piece in TEXT_PIECES:
        yield _chunk(text=piece)
    yield _chunk(finished=True, finish_reason="stop",
                 usage={"prompt_tokens": 13, "completion_tokens": 12, "total_tokens": 25,
                        "prompt_tokens_details": {"cached_tokens": 8}})


class ScriptedTool(CustomLLM):
    def _chunks(self, kwargs):
        return _tool_chunks(kwargs.get("messages") or [])

    def completion(self, *args, **kwargs) -> ModelResponse:
        raise litellm.exceptions.BadRequestError("this scripted model only streams",
                                                 model="scripted", llm_provider="scripted")

    async def acompletion(self, *args, **kwargs) -> ModelResponse:
        return self.completion(*args, **kwargs)

    def streaming(self, *args, **kwargs) -> Iterator[GenericStreamingChunk]:
        yield from self._chunks(kwargs)

    async def astreaming(self, *args, **kwargs) -> AsyncIterator[GenericStreamingChunk]:
        for c in self._chunks(kwargs):
            yield c


class ScriptedText(ScriptedTool):
    def _chunks(self, kwargs):
        return _text_chunks()


class ScriptedParallel(ScriptedTool):
    def _chunks(self, kwargs):
        return _parallel_chunks(kwargs.get("messages") or [])


scripted_tool = ScriptedTool()
scripted_parallel = ScriptedParallel()
scripted_text = ScriptedText()
