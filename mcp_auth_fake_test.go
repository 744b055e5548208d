package main

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// oauthFake is an OAuth authorization server and an MCP server that it
// protects, speaking the real wire formats: RFC 9728 resource metadata,
// RFC 8414 metadata, RFC 7591 registration, the authorization code flow
// with PKCE (S256, checked), refresh tokens (single-use when rotate is
// set), client credentials, and a Streamable HTTP MCP server that answers
// 401 with a WWW-Authenticate challenge and 403 insufficient_scope.
type oauthFake struct {
	t      *testing.T
	as, rs *httptest.Server

	// Set before the first request.
	prmPath     string   // where the MCP server serves its resource metadata ("" none)
	prmInHeader bool     // name it in the challenge
	issuerPath  string   // the authorization server's path, e.g. /tenant1
	metaPath    string   // where it serves its metadata
	scope       string   // the scope the challenge names
	writeScope  string   // what tools/call needs besides, else 403
	prmScopes   []string // the resource's scopes_supported
	noDCR       bool     // no registration endpoint
	secret      string   // the secret the pre-registered client "pre" must send with HTTP Basic
	expiresIn   int      // the lifetime of a login's tokens (0: 3600 s); refreshed ones last an hour
	rotate      bool     // a refresh token works once

	mu sync.Mutex
	oauthSeen
	challenge string            // the last PKCE code_challenge
	access    map[string]string // valid access token → its scope
	refresh   map[string]string // valid refresh token → its scope
	issued    int
	onMCP     func(method, authorization string) // told of each MCP request before it is answered
}

// oauthSeen is what the fake's servers were sent.
type oauthSeen struct {
	gets          []string // the GETs of both servers, in order
	verifierOK    []bool   // whether each code's verifier matched its challenge
	authorizeReqs []url.Values
	tokenReqs     []url.Values
	registrations int
	refreshes     int      // granted
	refusedReuse  int      // a rotated refresh token sent again
	mcpAuthHeader []string // the Authorization header of each MCP request
}

// newOAuthFake starts both servers with the MCP specification's default
// locations; the test changes fields before the first request.
func newOAuthFake(t *testing.T) *oauthFake {
	f := &oauthFake{t: t, prmPath: "/.well-known/oauth-protected-resource/mcp", prmInHeader: true,
		metaPath: "/.well-known/oauth-authorization-server", access: map[string]string{}, refresh: map[string]string{}}
	f.as, f.rs = httptest.NewUnstartedServer(http.HandlerFunc(f.serveAS)), httptest.NewUnstartedServer(http.HandlerFunc(f.serveRS))
	f.as.Start()
	f.rs.Start()
	t.Cleanup(f.as.Close)
	t.Cleanup(f.rs.Close)
	return f
}

// mcpURL is the protected MCP endpoint.
func (f *oauthFake) mcpURL() string { return f.rs.URL + "/mcp" }

// config is the MCP server config of the protected server.
func (f *oauthFake) config(oauth *mcpOAuthConfig) MCPServerConfig {
	return MCPServerConfig{Name: "remote", Type: "http", URL: f.mcpURL(), OAuth: oauth}
}

// issue makes a new access token (and refresh token) for scope, valid for lifetime seconds.
func (f *oauthFake) issue(w http.ResponseWriter, scope string, lifetime int) {
	f.issued++
	at, rt := fmt.Sprintf("access-%d", f.issued), fmt.Sprintf("refresh-%d", f.issued)
	f.access[at], f.refresh[rt] = scope, scope
	json.NewEncoder(w).Encode(map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer", "expires_in": lifetime, "scope": scope})
}

// seed stores a login in a's token file, as an earlier login would have
// left it: an access token valid for lifetime and a refresh token.
func (f *oauthFake) seed(t *testing.T, a *mcpAuth, lifetime time.Duration) {
	t.Helper()
	f.mu.Lock()
	f.access["access-0"], f.refresh["refresh-0"] = "read", "read"
	f.mu.Unlock()
	err := a.store.update(true, func(entries map[string]mcpTokenEntry) error {
		entries[a.key] = mcpTokenEntry{Server: a.server, URL: a.url, Resource: f.mcpURL(), TokenURL: f.as.URL + "/token", Scope: "read",
			Client: mcpOAuthClient{ID: "dynamic-0", Method: "none", Issuer: f.as.URL}, AccessToken: "access-0", RefreshToken: "refresh-0",
			ExpiresAt: time.Now().Add(lifetime)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// revoke makes every access token invalid, as when they expire at the server.
func (f *oauthFake) revoke() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.access)
}

// serveAS is the authorization server.
func (f *oauthFake) serveAS(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	issuer := f.as.URL + f.issuerPath
	switch {
	case r.Method == http.MethodGet && r.URL.Path == f.metaPath:
		f.gets = append(f.gets, "AS "+r.URL.Path)
		meta := map[string]any{"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic"}}
		if !f.noDCR {
			meta["registration_endpoint"] = issuer + "/register"
		}
		json.NewEncoder(w).Encode(meta)
	case r.Method == http.MethodGet && r.URL.Path == f.issuerPath+"/authorize":
		q := r.URL.Query()
		f.authorizeReqs = append(f.authorizeReqs, q)
		f.challenge = q.Get("code_challenge")
		back, _ := url.Parse(q.Get("redirect_uri"))
		back.RawQuery = url.Values{"code": {"code-" + q.Get("scope")}, "state": {q.Get("state")}}.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	case r.Method == http.MethodPost && r.URL.Path == f.issuerPath+"/register":
		f.registrations++
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": fmt.Sprintf("dynamic-%d", f.registrations), "token_endpoint_auth_method": "none"})
	case r.Method == http.MethodPost && r.URL.Path == f.issuerPath+"/token":
		f.token(w, r)
	case r.Method == http.MethodGet:
		f.gets = append(f.gets, "AS "+r.URL.Path)
		http.NotFound(w, r)
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
	}
}

// token is the token endpoint; the caller holds f.mu.
func (f *oauthFake) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	form := r.PostForm
	f.tokenReqs = append(f.tokenReqs, form)
	if id, secret, basic := r.BasicAuth(); basic && (id != "pre" || secret != f.secret) || !basic && form.Get("client_id") == "pre" {
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	}
	switch form.Get("grant_type") {
	case "authorization_code":
		sum := sha256.Sum256([]byte(form.Get("code_verifier")))
		f.verifierOK = append(f.verifierOK, base64.RawURLEncoding.EncodeToString(sum[:]) == f.challenge)
		f.issue(w, strings.TrimPrefix(form.Get("code"), "code-"), cmp.Or(f.expiresIn, 3600))
	case "refresh_token":
		scope, ok := f.refresh[form.Get("refresh_token")]
		if !ok {
			f.refusedReuse++
			http.Error(w, `{"error":"invalid_grant","error_description":"refresh token already used"}`, http.StatusBadRequest)
			return
		}
		if f.rotate {
			delete(f.refresh, form.Get("refresh_token"))
		}
		f.refreshes++
		f.issue(w, scope, 3600)
	case "client_credentials":
		f.issue(w, form.Get("scope"), 3600)
	default:
		http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
	}
}

// serveRS is the protected MCP server.
func (f *oauthFake) serveRS(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if r.Method == http.MethodGet {
		f.gets = append(f.gets, "RS "+r.URL.Path)
	}
	if r.Method == http.MethodGet && f.prmPath != "" && r.URL.Path == f.prmPath {
		json.NewEncoder(w).Encode(map[string]any{"resource": f.mcpURL(), "authorization_servers": []string{f.as.URL + f.issuerPath}, "scopes_supported": f.prmScopes})
		f.mu.Unlock()
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/mcp" {
		f.mu.Unlock()
		http.Error(w, "not here", http.StatusNotFound)
		return
	}
	var m RPCMessage
	json.NewDecoder(r.Body).Decode(&m)
	header := r.Header.Get("Authorization")
	f.mcpAuthHeader = append(f.mcpAuthHeader, header)
	scope, valid := f.access[strings.TrimPrefix(header, "Bearer ")]
	challenge := fmt.Sprintf(`Bearer error="invalid_token", scope="%s"`, f.scope)
	if f.prmInHeader && f.prmPath != "" {
		challenge += fmt.Sprintf(`, resource_metadata="%s%s"`, f.rs.URL, f.prmPath)
	}
	onMCP, asked, needed := f.onMCP, f.scope, f.writeScope
	f.mu.Unlock()
	if onMCP != nil {
		onMCP(m.Method, header)
	}
	switch {
	case !valid:
		w.Header().Set("WWW-Authenticate", challenge)
		http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
	case m.Method == "tools/call" && needed != "" && !slices.Contains(strings.Fields(scope), needed):
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s %s"`, asked, needed))
		http.Error(w, `{"error":"insufficient_scope"}`, http.StatusForbidden)
	case m.ID == nil:
		w.WriteHeader(http.StatusAccepted)
	default:
		results := map[string]string{
			"initialize": `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"protected","version":"1"}}`,
			"tools/list": `{"tools":[{"name":"whoami","inputSchema":{"type":"object"}}]}`,
			"tools/call": `{"content":[{"type":"text","text":"you are alice"}]}`}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, results[m.Method])
	}
}

// seen copies what the servers were sent so far.
func (f *oauthFake) seen() oauthSeen {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.oauthSeen
	s.gets, s.verifierOK, s.mcpAuthHeader = slices.Clone(s.gets), slices.Clone(s.verifierOK), slices.Clone(s.mcpAuthHeader)
	s.authorizeReqs, s.tokenReqs = slices.Clone(s.authorizeReqs), slices.Clone(s.tokenReqs)
	return s
}
