#!/usr/bin/env bash
# acp-check.sh installs the Agent Client Protocol SDK from npm at a pinned
# version and runs scripts/acp-check.mjs: the SDK's own client driving
# `minicode acp` through a scripted session.
#
# Usage: bash scripts/acp-check.sh
#
# Env: ACP_SDK_DIR  install prefix (default /tmp/minicode-acp-sdk)
#
# The install is idempotent: a stamp file records the pinned version.
set -euo pipefail
cd "$(dirname "$0")/.."

ACP_SDK_VERSION=2.4.0
DIR="${ACP_SDK_DIR:-/tmp/minicode-acp-sdk}"
want="acp-sdk@$ACP_SDK_VERSION"

mkdir -p "$DIR"
if [[ "$(cat "$DIR/.stamp" 2>/dev/null)" != "$want" ]]; then
  npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error "@agentclientprotocol/sdk@$ACP_SDK_VERSION"
  echo "$want" > "$DIR/.stamp"
fi

go build -o "$DIR/minicode" .
cp scripts/acp-check.mjs "$DIR/acp-check.mjs"
node "$DIR/acp-check.mjs" "$DIR/minicode"
