#!/usr/bin/env bash
# sdk-check.sh installs the Agent SDK from npm at a pinned version and runs
# scripts/sdk-check.mjs: an application's query() driving the minicode
# binary against a local scripted model.
#
# Usage: bash scripts/sdk-check.sh
#
# Env: SDK_DIR  install prefix (default /tmp/minicode-sdk)
#
# The install is idempotent: a stamp file records the pinned version. The
# SDK's optional native packages are not installed: minicode is the engine.
set -euo pipefail
cd "$(dirname "$0")/.."

SDK_VERSION=0.3.328
DIR="${SDK_DIR:-/tmp/minicode-sdk}"
want="claude-agent-sdk@$SDK_VERSION"

mkdir -p "$DIR"
if [[ "$(cat "$DIR/.stamp" 2>/dev/null)" != "$want" ]]; then
  npm install --prefix "$DIR" --omit=optional --no-audit --no-fund --loglevel=error \
    "@anthropic-ai/claude-agent-sdk@$SDK_VERSION" "@anthropic-ai/sdk@0.93.0" "zod@4.1.12" \
    "@modelcontextprotocol/sdk@1.29.0"
  echo "$want" > "$DIR/.stamp"
fi

go build -o "$DIR/minicode" .
cp scripts/sdk-check.mjs "$DIR/sdk-check.mjs"
node "$DIR/sdk-check.mjs" "$DIR/minicode"
