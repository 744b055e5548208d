package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// authTestManager is a manager, as the command line's, with a fresh
// home and the fake's server configured; its OAuth client logs in with
// the automated browser, telling told.
func authTestManager(t *testing.T, f *oauthFake, oauth *mcpOAuthConfig) (*MCPManager, MCPServerConfig, *mcpAuth, *[]string) {
	t.Helper()
	var told []string
	m := newMCPManager(nil, nil, MCPOptions{Home: t.TempDir(), Login: func(s string) { told = append(told, s) }})
	c := f.config(oauth)
	a := m.oauthFor(c)
	a.browse = followLoopbackRedirects
	return m, c, a, &told
}

// callOnce connects a session to the fake's server and calls whoami.
func callOnce(t *testing.T, m *MCPManager, c MCPServerConfig) (string, error) {
	t.Helper()
	sess := newMCPSession(c.Name, m.transport(c), m.opts)
	if err := sess.connect(t.Context(), 10*time.Second); err != nil {
		return "", err
	}
	defer sess.close()
	out, err := sess.callTool(t.Context(), "whoami", nil, 10*time.Second, nil)
	return out.Text, err
}

// challengeOf is the WWW-Authenticate challenge of an unauthorized POST.
func challengeOf(t *testing.T, url string) map[string]string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	if err != nil {
		t.Fatal(err)
	}
	drain(resp)
	return parseBearerChallenge(resp.Header.Values("WWW-Authenticate"))
}

func TestMCPAuthDiscoveryOrder(t *testing.T) {
	t.Parallel()
	const prm, oauthMeta, oidc = "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"
	for _, tc := range []struct {
		name                        string
		prmPath, issuerPath, metaAt string
		inHeader                    bool
		want                        []string
	}{
		{"resource metadata the challenge names", "/custom/prm.json", "", oauthMeta, true, []string{"RS /custom/prm.json", "AS " + oauthMeta}},
		{"resource metadata at the endpoint's path", prm + "/mcp", "", oauthMeta, false, []string{"RS " + prm + "/mcp", "AS " + oauthMeta}},
		{"resource metadata at the root", prm, "", oauthMeta, false, []string{"RS " + prm + "/mcp", "RS " + prm, "AS " + oauthMeta}},
		{"OpenID Connect discovery", prm + "/mcp", "", oidc, true, []string{"RS " + prm + "/mcp", "AS " + oauthMeta, "AS " + oidc}},
		{"issuer path, RFC 8414 inserted", prm + "/mcp", "/tenant1", oauthMeta + "/tenant1", true,
			[]string{"RS " + prm + "/mcp", "AS " + oauthMeta + "/tenant1"}},
		{"issuer path, OpenID Connect inserted", prm + "/mcp", "/tenant1", oidc + "/tenant1", true,
			[]string{"RS " + prm + "/mcp", "AS " + oauthMeta + "/tenant1", "AS " + oidc + "/tenant1"}},
		{"issuer path, OpenID Connect appended", prm + "/mcp", "/tenant1", "/tenant1" + oidc, true,
			[]string{"RS " + prm + "/mcp", "AS " + oauthMeta + "/tenant1", "AS " + oidc + "/tenant1", "AS /tenant1" + oidc}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newOAuthFake(t)
			f.prmPath, f.issuerPath, f.metaPath, f.prmInHeader, f.prmScopes = tc.prmPath, tc.issuerPath, tc.metaAt, tc.inHeader, []string{"read"}
			as, err := discoverMCPAuth(t.Context(), f.mcpURL(), challengeOf(t, f.mcpURL()))
			if err != nil {
				t.Fatal(err)
			}
			if got := f.seen().gets; !slices.Equal(got, tc.want) {
				t.Errorf("requests %q, want %q", got, tc.want)
			}
			if as.Resource != f.mcpURL() || as.TokenURL != f.as.URL+tc.issuerPath+"/token" || !slices.Equal(as.Scopes, []string{"read"}) {
				t.Errorf("found %+v", as)
			}
		})
	}
}

func TestMCPAuthDiscoveryWithoutMetadataUsesDefaults(t *testing.T) {
	t.Parallel()
	f := newOAuthFake(t)
	f.prmPath = ""
	as, err := discoverMCPAuth(t.Context(), f.mcpURL(), challengeOf(t, f.mcpURL()))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"RS /.well-known/oauth-protected-resource/mcp", "RS /.well-known/oauth-protected-resource",
		"RS /.well-known/oauth-authorization-server", "RS /.well-known/openid-configuration"}
	if got := f.seen().gets; !slices.Equal(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}
	if !as.defaults || as.AuthorizeURL != f.rs.URL+"/authorize" || as.TokenURL != f.rs.URL+"/token" || as.RegisterURL != f.rs.URL+"/register" {
		t.Errorf("found %+v, want the 2025-03-26 default endpoints at the MCP server's origin", as)
	}
}

// metadataServer serves fixed documents by path, and 404 for the rest.
func metadataServer(t *testing.T, docs func(base string) map[string]string) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs(srv.URL)[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(doc))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestMCPAuthDiscoveryRefusals(t *testing.T) {
	t.Parallel()
	prm := func(resource, as string) string {
		return `{"resource":"` + resource + `","authorization_servers":["` + as + `"]}`
	}
	meta := func(issuer, extra string) string {
		return `{"issuer":"` + issuer + `","authorization_endpoint":"` + issuer + `/a","token_endpoint":"` + issuer + `/t"` + extra + `}`
	}
	for _, tc := range []struct {
		name      string
		docs      func(base string) map[string]string
		challenge string // resource_metadata, relative to the server
		url       string // the MCP server's URL, if not the test server's
		want      []string
	}{
		{"resource metadata that is not JSON", func(string) map[string]string {
			return map[string]string{"/.well-known/oauth-protected-resource/mcp": "<html>"}
		}, "", "", []string{"/.well-known/oauth-protected-resource/mcp", "no JSON document"}},
		{"a resource on another origin", func(b string) map[string]string {
			return map[string]string{"/.well-known/oauth-protected-resource/mcp": prm("https://evil.example.com/mcp", b)}
		}, "", "", []string{"/.well-known/oauth-protected-resource/mcp", "RFC 9728 §3.3"}},
		{"resource metadata the challenge names but that is missing", func(string) map[string]string { return nil },
			"/gone.json", "", []string{"/gone.json", "missing"}},
		{"an issuer that is not the authorization server named", func(b string) map[string]string {
			return map[string]string{"/.well-known/oauth-protected-resource/mcp": prm(b+"/mcp", b+"/as"),
				"/.well-known/oauth-authorization-server/as": meta("https://other.example.com", "")}
		}, "", "", []string{"/.well-known/oauth-authorization-server/as", "RFC 8414 §3.3"}},
		{"no authorization server metadata", func(b string) map[string]string {
			return map[string]string{"/.well-known/oauth-protected-resource/mcp": prm(b+"/mcp", b+"/as")}
		}, "", "", []string{"found no authorization server metadata", "/as/.well-known/openid-configuration"}},
		{"an authorization server over plain HTTP", func(b string) map[string]string {
			return map[string]string{"/.well-known/oauth-protected-resource/mcp": prm(b+"/mcp", "http://auth.example.com")}
		}, "", "", []string{"http://auth.example.com", "only HTTPS"}},
		{"an MCP server over plain HTTP", nil, "", "http://mcp.example.com/mcp", []string{"http://mcp.example.com/mcp", "only HTTPS"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url, challenge := tc.url, map[string]string{}
			if tc.docs != nil {
				srv := metadataServer(t, tc.docs)
				url = srv.URL + "/mcp"
				if tc.challenge != "" {
					challenge["resource_metadata"] = srv.URL + tc.challenge
				}
			}
			_, err := discoverMCPAuth(t.Context(), url, challenge)
			for _, want := range tc.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want it to name %q", err, want)
				}
			}
		})
	}
}

func TestMCPAuthLoginRefusesWithoutPKCE(t *testing.T) {
	t.Parallel()
	srv := metadataServer(t, func(b string) map[string]string {
		return map[string]string{"/.well-known/oauth-protected-resource/mcp": `{"resource":"` + b + `/mcp","authorization_servers":["` + b + `"]}`,
			"/.well-known/oauth-authorization-server": `{"issuer":"` + b + `","authorization_endpoint":"` + b + `/a","token_endpoint":"` + b + `/t"}`}
	})
	a := &mcpAuth{server: "remote", url: srv.URL + "/mcp", browse: followLoopbackRedirects, tell: func(string) {}}
	err := a.authorize(t.Context(), nil, "")
	if err == nil || !strings.Contains(err.Error(), "code_challenge_methods_supported") {
		t.Errorf("login = %v, want a refusal naming code_challenge_methods_supported", err)
	}
}

func TestMCPAuthLoginWithDynamicRegistration(t *testing.T) {
	t.Parallel()
	f := newOAuthFake(t)
	f.scope = "read"
	m, c, a, _ := authTestManager(t, f, nil)
	var told []string
	msg, err := m.login(t.Context(), c, func(s string) { told = append(told, s) })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "Logged in to MCP server remote") || len(told) != 1 || !strings.Contains(told[0], f.as.URL+"/authorize?") {
		t.Errorf("login said %q and told %q", msg, told)
	}
	seen := f.seen()
	if seen.registrations != 1 || !slices.Equal(seen.verifierOK, []bool{true}) || len(seen.authorizeReqs) != 1 {
		t.Fatalf("registrations %d, PKCE verifier checks %v, authorizations %d", seen.registrations, seen.verifierOK, len(seen.authorizeReqs))
	}
	q, tok := seen.authorizeReqs[0], seen.tokenReqs[0]
	if q.Get("code_challenge_method") != "S256" || q.Get("resource") != f.mcpURL() || q.Get("scope") != "read" || len(q.Get("state")) < 20 ||
		!strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") || q.Get("client_id") != "dynamic-1" {
		t.Errorf("authorization request %v", q)
	}
	if tok.Get("resource") != f.mcpURL() || tok.Get("code_verifier") == "" || tok.Get("redirect_uri") != q.Get("redirect_uri") {
		t.Errorf("token request %v", tok)
	}
	info, err := os.Stat(a.store.path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("token file %v, mode %v; want 0600", err, info.Mode())
	}
	if text, err := callOnce(t, m, c); err != nil || text != "you are alice" {
		t.Errorf("the call after the login gave %q, %v", text, err)
	}
	// A new login asks again and keeps the registration.
	if _, err := m.login(t.Context(), c, func(string) {}); err != nil {
		t.Fatal(err)
	}
	if seen := f.seen(); seen.registrations != 1 || len(seen.authorizeReqs) != 2 {
		t.Errorf("the second login made %d registrations and %d authorizations in all; want 1 and 2", seen.registrations, len(seen.authorizeReqs))
	}
}

func TestMCPAuthPreRegisteredClient(t *testing.T) {
	f := newOAuthFake(t)
	f.noDCR, f.secret = true, "s3cret"
	t.Setenv("MINICODE_TEST_CLIENT_SECRET", "s3cret")
	m, c, a, _ := authTestManager(t, f, &mcpOAuthConfig{ClientID: "pre", ClientSecret: "${MINICODE_TEST_CLIENT_SECRET}"})
	if text, err := callOnce(t, m, c); err != nil || text != "you are alice" {
		t.Fatalf("call = %q, %v", text, err)
	}
	if seen := f.seen(); seen.registrations != 0 || seen.authorizeReqs[0].Get("client_id") != "pre" {
		t.Errorf("registrations %d, authorization %v; want the configured client", seen.registrations, seen.authorizeReqs)
	}
	if data, _ := os.ReadFile(a.store.path); strings.Contains(string(data), "s3cret") {
		t.Errorf("the configured secret was copied into the token file: %s", data)
	}
}

// TestMCPAuthLoginWithPrivateKey: a configured client with a key logs in through the browser and
// proves itself at the token endpoint with a JWT its key signed (private_key_jwt), as it does without
// a browser; it sends no client_id, which the fake refuses for that client without HTTP Basic.
func TestMCPAuthLoginWithPrivateKey(t *testing.T) {
	f := newOAuthFake(t)
	f.noDCR = true
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	m, c, _, _ := authTestManager(t, f, &mcpOAuthConfig{ClientID: "pre", PrivateKey: pemKey})
	if text, err := callOnce(t, m, c); err != nil || text != "you are alice" {
		t.Fatalf("call = %q, %v", text, err)
	}
	form := f.seen().tokenReqs[0]
	parts := strings.Split(form.Get("client_assertion"), ".")
	if form.Get("grant_type") != "authorization_code" || form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || len(parts) != 3 {
		t.Fatalf("token request %v; want the code grant with a client assertion", form)
	}
	var claims struct{ Iss, Sub, Aud string }
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if json.Unmarshal(payload, &claims); claims.Iss != "pre" || claims.Sub != "pre" || claims.Aud != f.as.URL || len(sig) != 64 ||
		!ecdsa.Verify(&key.PublicKey, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Errorf("assertion claims %+v, signature of %d bytes; want the client's, for the issuer, signed by its key", claims, len(sig))
	}
}

func TestMCPAuthRedirectListenerRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, query, want string }{
		{"wrong state", "code=c&state=forged", "wrong state"},
		{"error parameter", "error=access_denied&error_description=not+today&state=S", "refused the login: access_denied not today"},
		{"no code", "state=S", "no code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			a := &mcpAuth{server: "remote", tell: func(string) {}, browse: func(ctx context.Context, _ string) error {
				resp, err := http.Get("http://" + ln.Addr().String() + "/callback?" + tc.query)
				if err == nil {
					drain(resp)
				}
				return err
			}}
			code, err := a.awaitCode(t.Context(), ln, "S", "https://as.example.com/authorize")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("awaitCode = %q, %v; want an error with %q", code, err, tc.want)
			}
		})
	}
}

func TestMCPAuthRefresh(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		lifetime time.Duration // of the stored access token
		revoke   bool          // the server forgets it: the first request gets a 401
	}{
		{"before expiry", 10 * time.Second, false},
		{"on a 401", time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newOAuthFake(t)
			f.rotate = true
			m, c, a, _ := authTestManager(t, f, nil)
			f.seed(t, a, tc.lifetime)
			if tc.revoke {
				f.revoke()
			}
			if text, err := callOnce(t, m, c); err != nil || text != "you are alice" {
				t.Fatalf("call = %q, %v", text, err)
			}
			seen := f.seen()
			if seen.refreshes != 1 || len(seen.authorizeReqs) != 0 {
				t.Errorf("refreshes %d, authorizations %d; want 1 and none", seen.refreshes, len(seen.authorizeReqs))
			}
			if last := seen.mcpAuthHeader[len(seen.mcpAuthHeader)-1]; last != "Bearer access-1" {
				t.Errorf("the call sent %q, want the refreshed token", last)
			}
			if sentOld := slices.Contains(seen.mcpAuthHeader, "Bearer access-0"); sentOld != tc.revoke {
				t.Errorf("the old token was sent: %v, want %v (%q)", sentOld, tc.revoke, seen.mcpAuthHeader)
			}
		})
	}
}

func TestMCPAuthRefreshByTwoClientsAtOnce(t *testing.T) {
	t.Parallel()
	f := newOAuthFake(t)
	f.rotate = true
	_, _, first, _ := authTestManager(t, f, nil)
	f.seed(t, first, 10*time.Second) // each client refreshes before its first request
	// A second client on the same file, as another process has: both
	// hold the token that is about to expire.
	second := &mcpAuth{server: first.server, url: first.url, key: first.key, store: first.store}
	for _, a := range []*mcpAuth{first, second} {
		a.entry, _ = a.store.load(a.key)
		a.loaded = true
	}
	tokens := make([]string, 2)
	var wg sync.WaitGroup
	for i, a := range []*mcpAuth{first, second} {
		wg.Go(func() { tokens[i] = a.accessToken(t.Context()) })
	}
	wg.Wait()
	if seen := f.seen(); seen.refreshes != 1 || seen.refusedReuse != 0 || tokens[0] != "access-1" || tokens[1] != "access-1" {
		t.Errorf("refreshes %d, refused %d, tokens %q; want one refresh whose token both use", seen.refreshes, seen.refusedReuse, tokens)
	}
}

func TestMCPAuthClientCredentials(t *testing.T) {
	t.Parallel()
	f := newOAuthFake(t)
	f.noDCR, f.secret, f.scope = true, "machine", "read"
	home := t.TempDir()
	c := f.config(&mcpOAuthConfig{Grant: "client_credentials", ClientID: "pre", ClientSecret: "machine"})
	m, reg := startManager(t, []MCPServerConfig{c}, MCPOptions{Home: home})
	if st := m.Status()[0]; st.State != MCPReady {
		t.Fatalf("status %+v, want ready without a login", st)
	}
	if out := execTool(t, reg, "mcp__remote__whoami", "{}"); out.Text != "you are alice" {
		t.Errorf("whoami = %+v", out)
	}
	seen := f.seen()
	if len(seen.authorizeReqs) != 0 || len(seen.tokenReqs) != 1 || seen.tokenReqs[0].Get("grant_type") != "client_credentials" ||
		seen.tokenReqs[0].Get("scope") != "read" || seen.tokenReqs[0].Get("resource") != f.mcpURL() {
		t.Errorf("authorizations %d, token requests %v; want one client_credentials grant", len(seen.authorizeReqs), seen.tokenReqs)
	}
}

func TestMCPAuthStepUp(t *testing.T) {
	t.Parallel()
	f := newOAuthFake(t)
	f.scope, f.writeScope = "read", "write"
	m, c, _, told := authTestManager(t, f, nil)
	if text, err := callOnce(t, m, c); err != nil || text != "you are alice" {
		t.Fatalf("call = %q, %v", text, err)
	}
	seen := f.seen()
	var scopes []string
	for _, q := range seen.authorizeReqs {
		scopes = append(scopes, q.Get("scope"))
	}
	if want := []string{"read", "read write"}; !slices.Equal(scopes, want) || len(*told) != 2 {
		t.Errorf("authorizations asked for %q, want %q, each told: %q", scopes, want, *told)
	}
}

func TestMCPAuthNeedsLoginAndCorruptTokenFile(t *testing.T) {
	t.Setenv(mcpTestBrowserEnv, "http-get")
	f := newOAuthFake(t)
	home := t.TempDir()
	tokenFile := filepath.Join(home, mcpTokenFile)
	writeFile(t, tokenFile, "{not json")
	var notices []string
	var mu sync.Mutex
	m, reg := startManager(t, []MCPServerConfig{f.config(nil)}, MCPOptions{Home: home, OnNotice: func(s string) {
		mu.Lock()
		defer mu.Unlock()
		notices = append(notices, s)
	}})
	st := m.Status()[0]
	if st.State != MCPNeedsLogin || !strings.Contains(st.Error, "minicode mcp login remote") || !strings.Contains(st.Error, tokenFile+" is corrupt") {
		t.Fatalf("status %+v, want needs login, naming the command and the corrupt file", st)
	}
	if !strings.Contains(m.SlashCommand(t.Context(), ""), "needs login") || m.StatusLine() != "MCP 1 needs login" {
		t.Errorf("/mcp shows %q, status line %q", m.SlashCommand(t.Context(), ""), m.StatusLine())
	}
	if _, ok := reg.Get("mcp__remote__whoami"); ok {
		t.Error("a server that needs a login has tools")
	}
	if data, _ := os.ReadFile(tokenFile); string(data) != "{not json" {
		t.Errorf("the corrupt file was changed before a login: %q", data)
	}
	out := m.SlashCommand(t.Context(), "login remote")
	if !strings.Contains(out, "Logged in to MCP server remote") || m.Status()[0].State != MCPReady {
		t.Fatalf("/mcp login remote said %q; status %+v", out, m.Status()[0])
	}
	data, _ := os.ReadFile(tokenFile)
	if err := json.Unmarshal(data, new(any)); err != nil {
		t.Errorf("the login left %q", data)
	}
	mu.Lock()
	told := slices.Clone(notices)
	mu.Unlock()
	if !slices.ContainsFunc(told, func(s string) bool { return strings.Contains(s, f.as.URL+"/authorize?") }) {
		t.Errorf("notices %q do not show the authorization URL", told)
	}
}

func TestParseBearerChallenge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header []string
		want   map[string]string
	}{
		{[]string{`Bearer resource_metadata="https://a.example/prm", scope="files:read files:write"`},
			map[string]string{"resource_metadata": "https://a.example/prm", "scope": "files:read files:write"}},
		{[]string{`Bearer error="insufficient_scope",scope="a b",error_description="say \"please\", nicely"`},
			map[string]string{"error": "insufficient_scope", "scope": "a b", "error_description": `say "please", nicely`}},
		{[]string{`Basic realm="x"`, `Bearer Scope=read`}, map[string]string{"realm": "x", "scope": "read"}},
		{[]string{`Bearer`}, map[string]string{}},
	} {
		if got := parseBearerChallenge(tc.header); !maps.Equal(got, tc.want) {
			t.Errorf("parseBearerChallenge(%q) = %q, want %q", tc.header, got, tc.want)
		}
	}
}

func FuzzParseBearerChallenge(f *testing.F) {
	f.Add(`Bearer resource_metadata="https://a.example/prm", scope="x y"`)
	f.Add(`Bearer error="a\"b", x=`)
	f.Fuzz(func(t *testing.T, header string) {
		parseBearerChallenge([]string{header})
	})
}

// TestMCPTokenFileEmptyTakesALogin: an empty token file (earlier versions
// made one for the sandbox to deny) holds no tokens, and the first login saves into it.
func TestMCPTokenFileEmptyTakesALogin(t *testing.T) {
	t.Parallel()
	store := mcpTokenStore{filepath.Join(t.TempDir(), mcpTokenFile)}
	writeFile(t, store.path, "")
	if err := store.update(false, func(entries map[string]mcpTokenEntry) error {
		entries["remote"] = mcpTokenEntry{Server: "remote", AccessToken: "at"}
		return nil
	}); err != nil {
		t.Fatalf("saving into a reserved token file: %v", err)
	}
	if e, err := store.load("remote"); err != nil || e.AccessToken != "at" {
		t.Errorf("load = %+v, %v; want the saved token", e, err)
	}
}
