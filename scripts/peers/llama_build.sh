#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the source vendored in the llama-cpp-python sdist
# (PyPI only, no git clone) into a cache directory outside the worktree, and a small venv
# with llama.cpp's gguf-py dependencies, then the tiny scripted models (scripts/peers/make_gguf.py)
# in CACHE/llama-<version>/models. Reuses a cached build; the models are rewritten each run
# (about a second), so a change to make_gguf.py or the templates always takes effect.
# Usage: scripts/peers/llama_build.sh [CACHE_DIR]   (default: $AGENT_PEER_CACHE or
# ~/.cache/agent-peers). Prints step timings; exits non-zero when the build fails.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${1:-${AGENT_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-peers}}
# llama-cpp-python 0.3.36 vendors ggml-org/llama.cpp@0c1e57098.
SDIST_VERSION=0.3.36
DIR="$CACHE/llama-$SDIST_VERSION"
mkdir -p "$DIR"
cd "$DIR"
t0=$(date +%s)
if [ ! -x llama.cpp/build/bin/llama-server ]; then
  rm -rf llama.cpp dl "llama_cpp_python-$SDIST_VERSION"
  python3 -m pip download -q --no-cache-dir --no-deps --no-binary :all: \
    "llama-cpp-python==$SDIST_VERSION" -d dl
  tar xzf "dl/llama_cpp_python-$SDIST_VERSION.tar.gz" "llama_cpp_python-$SDIST_VERSION/vendor/llama.cpp"
  mv "llama_cpp_python-$SDIST_VERSION/vendor/llama.cpp" llama.cpp
  rm -rf "llama_cpp_python-$SDIST_VERSION" dl
  echo "llama source: $(($(date +%s) - t0))s"
  # -O1 halves the build time on 2 cores; the tiny models need no speed. The UI flags keep
  # the build from downloading its web UI; CURL/OPENSSL off keeps it offline.
  cmake -S llama.cpp -B llama.cpp/build -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=ON -DGGML_LLAMAFILE=OFF \
    -DGGML_CPU_REPACK=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF >cmake.log 2>&1
  cmake --build llama.cpp/build --target llama-server -j"$(nproc)" >build.log 2>&1
  echo "llama-server build: $(($(date +%s) - t0))s"
else
  echo "llama-server build: cached ($DIR)"
fi
if [ ! -x gv/bin/python ]; then
  python3 -m venv gv && gv/bin/pip install -q --no-cache-dir numpy pyyaml
  echo "gguf venv: $(($(date +%s) - t0))s"
fi
PYTHONPATH=llama.cpp/gguf-py gv/bin/python "$HERE/make_gguf.py" models >/dev/null
echo "models: $(($(date +%s) - t0))s ($DIR/models)"
