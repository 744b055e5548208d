#!/bin/sh
# mcp-conformance-client.sh is the client the MCP conformance suite starts
# for each scenario: it runs one `minicode mcp` command chosen by
# $MCP_CONFORMANCE_SCENARIO against the mock server URL.
#
# Usage: mcp-conformance-client.sh MINICODE-COMMAND... URL
# (the suite appends the URL as the last argument)
set -eu
[ $# -ge 2 ] || { echo "usage: $0 MINICODE-COMMAND... URL" >&2; exit 2; }
eval "url=\${$#}"
n=$(($# - 1))
cmd=""
i=1
for arg in "$@"; do
  [ "$i" -le "$n" ] || break
  cmd="$cmd '$(printf '%s' "$arg" | sed "s/'/'\\\\''/g")'"
  i=$((i + 1))
done
case "${MCP_CONFORMANCE_SCENARIO:-}" in
  initialize) eval "exec $cmd mcp tools \"\$url\"" ;;
  tools_call) eval "exec $cmd mcp call \"\$url\" add_numbers '{\"a\":2,\"b\":3}'" ;;
  elicitation-sep1034-client-defaults)
    eval "exec $cmd mcp call --mcp-elicitation defaults \"\$url\" test_client_elicitation_defaults" ;;
  sse-retry) eval "exec $cmd mcp call \"\$url\" test_reconnection" ;;
  *) echo "mcp-conformance-client: no call for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2; exit 2 ;;
esac
