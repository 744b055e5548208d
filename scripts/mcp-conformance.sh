#!/usr/bin/env bash
# mcp-conformance.sh runs the official MCP client conformance scenarios
# against minicode's MCP client (`minicode mcp tools|call`).
#
# Usage: bash scripts/mcp-conformance.sh [MINICODE-COMMAND...]
#
# Without a command it builds minicode from this repository. The peers
# come from scripts/install-mcp-peers.sh (run first, idempotent). For each
# scenario the suite starts a mock Streamable HTTP server and runs
# `scripts/mcp-conformance-client.sh MINICODE-COMMAND... URL`, which picks
# the call for $MCP_CONFORMANCE_SCENARIO. The command is started with exec
# so that the suite's timeout reaches minicode itself.
#
# Env: MCP_TOOLS_DIR (default /tmp/minicode-mcp-peers), MCP_SCENARIOS,
# MCP_SCENARIO_TIMEOUT_MS (default 15000), MCP_RESULTS_DIR.
# Output: one line per scenario, then "N passed, N failed"; the exit
# status is non-zero if any scenario failed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export MCP_TOOLS_DIR="${MCP_TOOLS_DIR:-/tmp/minicode-mcp-peers}"
TOOLS="$MCP_TOOLS_DIR"
SCENARIOS="${MCP_SCENARIOS:-initialize tools_call elicitation-sep1034-client-defaults sse-retry}"
TIMEOUT_MS="${MCP_SCENARIO_TIMEOUT_MS:-15000}"
RESULTS="${MCP_RESULTS_DIR:-$TOOLS/results}"

bash "$root/scripts/install-mcp-peers.sh" >/dev/null
NODE="$(cat "$TOOLS/node22")"
CONF=("$NODE" "$TOOLS/node_modules/@modelcontextprotocol/conformance/dist/index.js")

if [[ $# -eq 0 ]]; then
  (cd "$root" && go build -o "$TOOLS/minicode" .)
  set -- "$TOOLS/minicode"
fi
client_cmd="exec $(printf '%q ' "$root/scripts/mcp-conformance-client.sh" "$@")"
echo "conformance $("${CONF[@]}" --version) on node $("$NODE" --version); client: $*"

rm -rf "$RESULTS"
mkdir -p "$RESULTS"
passed=0
failed=0
for s in $SCENARIOS; do
  log="$RESULTS/$(echo "$s" | tr '/' '_').log"
  t0=$(date +%s%N)
  if timeout $((TIMEOUT_MS / 1000 + 60)) "${CONF[@]}" client --command "$client_cmd" \
      --scenario "$s" --timeout "$TIMEOUT_MS" -o "$RESULTS" >"$log" 2>&1; then
    rc=0; passed=$((passed + 1)); verdict=PASS
  else
    rc=$?; failed=$((failed + 1)); verdict=FAIL
  fi
  ms=$((($(date +%s%N) - t0) / 1000000))
  printf '%-4s %-40s rc=%-3s %3d.%03ds  %s\n' "$verdict" "$s" "$rc" $((ms / 1000)) $((ms % 1000)) \
    "$(grep -m1 -E '^Passed:' "$log" || true)"
  if [[ $rc -ne 0 ]]; then sed -n '/Failed Checks:/,$p' "$log" | head -20 | sed 's/^/      /'; fi
done
echo "details: $RESULTS"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
