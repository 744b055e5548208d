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
# Env: MCP_TOOLS_DIR (default /tmp/minicode-mcp-peers), MCP_SCENARIOS
# (default: every client scenario the pinned suite lists, auth included),
# MCP_SCENARIO_TIMEOUT_MS (default 15000), MCP_RESULTS_DIR.
# Output: one line per scenario with the suite's own count of checks, then
# "N passed, N failed" (scenarios); the exit status is non-zero if any
# scenario failed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export MCP_TOOLS_DIR="${MCP_TOOLS_DIR:-/tmp/minicode-mcp-peers}"
TOOLS="$MCP_TOOLS_DIR"
TIMEOUT_MS="${MCP_SCENARIO_TIMEOUT_MS:-15000}"
RESULTS="${MCP_RESULTS_DIR:-$TOOLS/results}"

bash "$root/scripts/install-mcp-peers.sh" >/dev/null
NODE="$(cat "$TOOLS/node22")"
CONF=("$NODE" "$TOOLS/node_modules/@modelcontextprotocol/conformance/dist/index.js")
SCENARIOS="${MCP_SCENARIOS:-$("${CONF[@]}" list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')}"
[[ -n "$SCENARIOS" ]] || { echo "mcp-conformance: the suite lists no client scenarios" >&2; exit 1; }
export MCP_CONFORMANCE_NODE="$NODE" MCP_CONFORMANCE_HOMES="$RESULTS/homes"

if [[ $# -eq 0 ]]; then
  (cd "$root" && go build -o "$TOOLS/minicode" .)
  set -- "$TOOLS/minicode"
fi
client_cmd="exec $(printf '%q ' "$root/scripts/mcp-conformance-client.sh" "$@")"
echo "conformance $("${CONF[@]}" --version) on node $("$NODE" --version); client: $*"

rm -rf "$RESULTS"
mkdir -p "$RESULTS" "$MCP_CONFORMANCE_HOMES"
passed=0
failed=0
for s in $SCENARIOS; do
  log="$RESULTS/$(echo "$s" | tr '/' '_').log"
  t0=$(date +%s%N)
  rc=0
  timeout $((TIMEOUT_MS / 1000 + 60)) "${CONF[@]}" client --command "$client_cmd" \
    --scenario "$s" --timeout "$TIMEOUT_MS" -o "$RESULTS" >"$log" 2>&1 || rc=$?
  # A scenario passes when the suite exits 0 and its own count of checks
  # ("Passed: N/N, 0 failed") says every check passed.
  counts="$(grep -m1 -E '^Passed:' "$log" || true)"
  verdict=FAIL
  if [[ $rc -eq 0 && "$counts" =~ ^Passed:\ ([0-9]+)/([0-9]+),\ ([0-9]+)\ failed ]] &&
     [[ ${BASH_REMATCH[2]} -gt 0 && ${BASH_REMATCH[1]} -eq ${BASH_REMATCH[2]} && ${BASH_REMATCH[3]} -eq 0 ]]; then
    verdict=PASS
  fi
  if [[ $verdict == PASS ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  ms=$((($(date +%s%N) - t0) / 1000000))
  printf '%-4s %-40s rc=%-3s %3d.%03ds  %s\n' "$verdict" "$s" "$rc" $((ms / 1000)) $((ms % 1000)) "$counts"
  if [[ $verdict != PASS ]]; then sed -n '/Failed Checks:/,$p' "$log" | head -20 | sed 's/^/      /'; fi
done
echo "details: $RESULTS"
echo "$passed passed, $failed failed (of $(wc -w <<<"$SCENARIOS") client scenarios)"
[[ $failed -eq 0 ]]
