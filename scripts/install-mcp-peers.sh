#!/usr/bin/env bash
# install-mcp-peers.sh installs the MCP peers that minicode's tests and the
# conformance run talk to: the official client conformance suite and the two
# reference servers, at pinned versions, from the npm registry.
#
# Usage: bash scripts/install-mcp-peers.sh
#
# Env: MCP_TOOLS_DIR  install prefix (default /tmp/minicode-mcp-peers)
#
# The install is idempotent: a stamp file records what is installed and a
# second run with the same pins does nothing. When the system node is older
# than 22 (the conformance suite needs fs.globSync), a plain Node 22 binary is
# installed from the npm package node-linux-<arch>; its path is written to
# $MCP_TOOLS_DIR/node22 so the other scripts can find it.
set -euo pipefail

CONFORMANCE_VERSION=0.1.16
SERVER_EVERYTHING_VERSION=2026.8.31
SERVER_FILESYSTEM_VERSION=2026.8.31
NODE22_VERSION=22.23.3

TOOLS="${MCP_TOOLS_DIR:-/tmp/minicode-mcp-peers}"
want="conformance@$CONFORMANCE_VERSION everything@$SERVER_EVERYTHING_VERSION filesystem@$SERVER_FILESYSTEM_VERSION"

command -v node >/dev/null && command -v npm >/dev/null || { echo "install-mcp-peers: node and npm are needed" >&2; exit 1; }
npm_i() { npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error "$@"; }

mkdir -p "$TOOLS"
if [[ "$(cat "$TOOLS/.stamp" 2>/dev/null)" != "$want" ||
      ! -f "$TOOLS/node_modules/@modelcontextprotocol/conformance/dist/index.js" ||
      ! -f "$TOOLS/node_modules/@modelcontextprotocol/server-everything/package.json" ||
      ! -f "$TOOLS/node_modules/@modelcontextprotocol/server-filesystem/package.json" ]]; then
  npm_i "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" \
        "@modelcontextprotocol/server-everything@$SERVER_EVERYTHING_VERSION" \
        "@modelcontextprotocol/server-filesystem@$SERVER_FILESYSTEM_VERSION"
  echo "$want" > "$TOOLS/.stamp"
fi

node22="$(command -v node)"
if (( $(node -p 'process.versions.node.split(".")[0]') < 22 )); then
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) echo "install-mcp-peers: no Node 22 package for $(uname -m)" >&2; exit 1 ;;
  esac
  node22="$TOOLS/node_modules/node-linux-$arch/bin/node"
  [[ -x "$node22" && "$("$node22" --version)" == "v$NODE22_VERSION" ]] || npm_i "node-linux-$arch@$NODE22_VERSION"
fi
echo "$node22" > "$TOOLS/node22"
echo "MCP peers ready in $TOOLS (conformance on $("$node22" --version))"
