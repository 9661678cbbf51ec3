"""Writes the tiny GGUF models the peer tests serve with llama-server, using llama.cpp's own
gguf-py (PYTHONPATH=<llama.cpp>/gguf-py). Their output is exact, not sampled from noise: one
llama layer whose output projections (attn_output, ffn_down) are zero, so the residual stream
is the current token's one-hot embedding and the output matrix is a bigram table: the next
token is SCRIPT[current token] with a logit margin of 30, whatever the sampler settings.

The vocabulary is byte-level BPE (256 byte tokens and a few merges), ChatML control tokens,
and user-defined multi-character tokens that carry the scripted replies. The chat template
(template.jinja / template-think.jinja beside this file) ends the generation prompt with
"assistant\\n", or with "assistant\\n<|ans|>" when the last message is a tool result, so the
script can tell a first turn from the turn after a tool result.

Usage: make_gguf.py OUT_DIR   (writes peer-text, peer-tool, peer-tool2, peer-think, peer-sep .gguf)
"""
import os
import sys

import numpy as np
import gguf

HERE = os.path.dirname(os.path.abspath(__file__))


def byte_symbols():
    """GPT-2's byte-to-printable-character table (what byte-level BPE vocabularies store)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    chars = keep[:]
    extra = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + extra)
            extra += 1
    return {b: chr(c) for b, c in zip(keep, chars)}


# The scripted replies, as chains of user-defined tokens.
CALL_VIEW_HELLO = ["<tool_call>", "\n{\"name\": \"view\", ", "\"arguments\": {\"path\": ",
                   "\"hello.txt\"}}", "\n</tool_call>"]
CALL_VIEW_OTHER = ["\n<tool_call>", "\n{\"name\":\"view\", ", "\"arguments\":{\"path\":",
                   "\"other.txt\"}}", "\n</tool_call>\n"]
ANSWER = ["The file", " says:", " hello", " peer."]
GREETING = ["Hello", " from", " a", " tiny", " scripted", " llama."]
THOUGHT = ["<think>", "\nThe user wants a greeting.", "\n</think>\n\n"]
# U+2028 (LINE SEPARATOR) on its own token, as llama-server streams it: raw UTF-8 inside the
# JSON string, not escaped. LiteLLM's Messages bridge is tested against it.
SEPARATED = ["Line one", "\u2028", "line two.", " Mid\u2028chunk", " end."]

MODELS = {
    # name: (first reply after "assistant\n", template)
    "peer-text": (GREETING, "template.jinja"),
    "peer-tool": (CALL_VIEW_HELLO, "template.jinja"),
    "peer-tool2": (CALL_VIEW_HELLO + CALL_VIEW_OTHER, "template.jinja"),
    "peer-think": (THOUGHT + GREETING, "template-think.jinja"),
    "peer-sep": (SEPARATED, "template.jinja"),
}


def build(path, first_reply, template):
    sym = byte_symbols()
    tokens = [sym[b] for b in range(256)]
    types = [gguf.TokenType.NORMAL] * 256
    merges = ["Ġ t", "h e", "i n", "e r"]
    tokens += [m.replace(" ", "") for m in merges]
    types += [gguf.TokenType.NORMAL] * len(merges)
    control = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tokens += control
    types += [gguf.TokenType.CONTROL] * len(control)
    user = ["<|ans|>"]
    for chain in (CALL_VIEW_HELLO, CALL_VIEW_OTHER, ANSWER, GREETING, THOUGHT, SEPARATED):
        user += [t for t in chain if t not in user]
    tokens += user
    types += [gguf.TokenType.USER_DEFINED] * len(user)
    assert len(set(tokens)) == len(tokens), "duplicate tokens"
    index = {t: i for i, t in enumerate(tokens)}
    vocab = len(tokens)
    end = index["<|im_end|>"]

    following = {}

    def script(start, chain):
        prev = start
        for t in chain:
            following[prev] = index[t]
            prev = index[t]
        following[prev] = end

    script(index[sym[10]], first_reply)      # after "assistant\n"
    script(index["<|ans|>"], ANSWER)          # after a tool result

    d = 64 * ((vocab + 63) // 64)             # one-hot embeddings need d >= vocab
    heads, ff, n_ctx = 4, 128, 32768
    embed = np.zeros((vocab, d), dtype=np.float32)
    embed[np.arange(vocab), np.arange(vocab)] = 1.0
    out = np.zeros((vocab, d), dtype=np.float32)
    for t in range(vocab):
        # rmsnorm of a one-hot vector is sqrt(d) at the hot index
        out[following.get(t, end), t] = 30.0 / np.sqrt(d)

    w = gguf.GGUFWriter(path, "llama")
    w.add_name(os.path.basename(path)[:-5])
    w.add_context_length(n_ctx)
    w.add_embedding_length(d)
    w.add_block_count(1)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(heads)
    w.add_rope_dimension_count(d // heads)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_freq_base(10000.0)
    w.add_vocab_size(vocab)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(index["<|endoftext|>"])
    w.add_eos_token_id(end)
    w.add_eot_token_id(end)
    w.add_pad_token_id(index["<|endoftext|>"])
    w.add_add_bos_token(False)
    with open(os.path.join(HERE, template)) as f:
        w.add_chat_template(f.read())
    w.add_tensor("token_embd.weight", embed)
    w.add_tensor("output_norm.weight", np.ones(d, dtype=np.float32))
    w.add_tensor("output.weight", out)
    rng = np.random.default_rng(0)
    small = lambda *shape: (rng.standard_normal(shape) * 0.02).astype(np.float32)
    w.add_tensor("blk.0.attn_norm.weight", np.ones(d, dtype=np.float32))
    for name in ("attn_q", "attn_k", "attn_v"):
        w.add_tensor(f"blk.0.{name}.weight", small(d, d))
    w.add_tensor("blk.0.attn_output.weight", np.zeros((d, d), dtype=np.float32))
    w.add_tensor("blk.0.ffn_norm.weight", np.ones(d, dtype=np.float32))
    w.add_tensor("blk.0.ffn_gate.weight", small(ff, d))
    w.add_tensor("blk.0.ffn_up.weight", small(ff, d))
    w.add_tensor("blk.0.ffn_down.weight", np.zeros((d, ff), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for name, (reply, template) in MODELS.items():
        build(os.path.join(out_dir, f"{name}.gguf"), reply, template)
        print(f"{out_dir}/{name}.gguf")
