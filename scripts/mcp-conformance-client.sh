#!/bin/sh
# mcp-conformance-client.sh is the client the MCP conformance suite starts
# for each scenario: it runs one `minicode mcp` command chosen by
# $MCP_CONFORMANCE_SCENARIO against the mock server URL.
#
# Usage: mcp-conformance-client.sh MINICODE-COMMAND... URL
# (the suite appends the URL as the last argument)
#
# For an auth/* scenario it writes the server's config, with the client
# the suite's $MCP_CONFORMANCE_CONTEXT describes (pre-registered, machine
# to machine), into a fresh $MINICODE_HOME under $MCP_CONFORMANCE_HOMES,
# and sets MINICODE_OAUTH_TEST_BROWSER=http-get: the suite's authorization
# server approves at once, so the login's browser is an HTTP GET.
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
  auth/*)
    MINICODE_HOME="$(mktemp -d "${MCP_CONFORMANCE_HOMES:-${TMPDIR:-/tmp}}/home.XXXXXX")"
    "${MCP_CONFORMANCE_NODE:-node}" -e '
      const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
      const oauth = {clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
        clientId: c.client_id, clientSecret: c.client_secret, privateKey: c.private_key_pem};
      if (c.name && c.name.startsWith("auth/client-credentials")) oauth.grant = "client_credentials";
      if (c.idp_id_token) Object.assign(oauth, {grant: "cross_app_access", idpTokenEndpoint: c.idp_token_endpoint,
        idpClientId: c.idp_client_id, idpIdToken: c.idp_id_token});
      console.log(JSON.stringify({mcpServers: {conformance: {type: "http", url: process.argv[1], oauth}}}));
    ' "$url" >"$MINICODE_HOME/mcp.json"
    export MINICODE_HOME MINICODE_OAUTH_TEST_BROWSER=http-get
    eval "exec $cmd mcp call conformance test-tool" ;;
  *) echo "mcp-conformance-client: no call for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2; exit 2 ;;
esac
