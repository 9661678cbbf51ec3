#!/usr/bin/env bash
# Installs the LiteLLM proxy (pinned) into a venv in a cache directory outside the worktree;
# reuses an existing install. Usage: scripts/peers/litellm_install.sh [CACHE_DIR]
# (default: $AGENT_PEER_CACHE or ${XDG_CACHE_HOME:-~/.cache}/agent-peers). Prints the install time.
set -euo pipefail
CACHE=${1:-${AGENT_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-peers}}
LITELLM_VERSION=1.106.2
DIR="$CACHE/litellm-$LITELLM_VERSION"
mkdir -p "$DIR"
t0=$(date +%s)
if [ ! -x "$DIR/v/bin/litellm" ]; then
  rm -rf "$DIR/v"
  python3 -m venv "$DIR/v"
  "$DIR/v/bin/pip" install -q --no-cache-dir "litellm[proxy]==$LITELLM_VERSION"
  echo "litellm install: $(($(date +%s) - t0))s"
else
  echo "litellm install: cached ($DIR)"
fi
