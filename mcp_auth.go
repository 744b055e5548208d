package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// mcpOAuthConfig is an HTTP server's "oauth" config, which sets up minicode's OAuth client; any field may be unset or use ${VAR}.
type mcpOAuthConfig struct {
	ClientID          string `json:"clientId,omitempty"`          // a client registered by hand at the authorization server
	ClientSecret      string `json:"clientSecret,omitempty"`      // its secret, if it has one
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"` // an HTTPS Client ID Metadata Document that names minicode
	CallbackPort      int    `json:"callbackPort,omitempty"`      // the port of the loopback redirect (default: a free one)
	Grant             string `json:"grant,omitempty"`             // machine-to-machine: "client_credentials" or "cross_app_access"
	PrivateKey        string `json:"privateKey,omitempty"`        // a PEM PKCS #8 key: private_key_jwt in place of the secret
	IDPTokenEndpoint  string `json:"idpTokenEndpoint,omitempty"`  // cross_app_access: the identity provider's token endpoint,
	IDPClientID       string `json:"idpClientId,omitempty"`       // minicode's client id there,
	IDPIDToken        string `json:"idpIdToken,omitempty"`        // and the ID token it issued for the user
}

// mcpTestBrowserEnv=http-get (automated tests only: the MCP conformance suite) makes a login's browser a GET that follows loopback redirects.
const mcpTestBrowserEnv = "MINICODE_OAUTH_TEST_BROWSER"

// mcpAuth is an HTTP MCP server's OAuth client (MCP authorization, 2025-11-25): it sends the access token and answers
// 401 and 403, logging in only where a person waits (tell is set), else failing with an *mcpLoginNeeded. Tokens go
// only to requests and the token file.
type mcpAuth struct {
	server, url string
	key         string // the entry in the token file: the server's name and URL
	cfg         mcpOAuthConfig
	store       mcpTokenStore
	browse      func(ctx context.Context, authURL string) error // shows the authorization URL to a browser
	tell        func(string)                                    // where a login says what to do; nil: no login here

	mu     sync.Mutex // one token change at a time
	entry  mcpTokenEntry
	loaded bool
	wanted string // the scopes 403s asked for, for the next login
}

// mcpLoginNeeded is the error of a server that waits for a person to log in.
type mcpLoginNeeded struct {
	server, reason string // why the stored login does not do, if known
}

// Error says how to log in.
func (e *mcpLoginNeeded) Error() string {
	return strings.TrimSuffix(fmt.Sprintf("MCP server %s needs a login: run `minicode mcp login %[1]s` (in a session: /mcp login %[1]s); %s", e.server, e.reason), "; ")
}

// oauthFor returns the OAuth client of an HTTP server, shared by its sessions and logins; nil for other servers,
// for one whose config sets an Authorization header, and when no home keeps tokens.
func (m *MCPManager) oauthFor(c MCPServerConfig) *mcpAuth {
	authorization := func(header string) bool { return strings.EqualFold(header, "Authorization") }
	if !c.isHTTP() || c.Type == "sdk" || m.opts.Home == "" || slices.ContainsFunc(slices.Collect(maps.Keys(c.Headers)), authorization) {
		return nil
	}
	cfg := *cmp.Or(c.OAuth, &mcpOAuthConfig{})
	for _, field := range []*string{&cfg.ClientID, &cfg.ClientSecret, &cfg.ClientMetadataURL, &cfg.PrivateKey, &cfg.IDPTokenEndpoint, &cfg.IDPClientID, &cfg.IDPIDToken} {
		*field = expandVars(*field, os.Getenv)
	}
	u := expandVars(c.URL, os.Getenv)
	a := &mcpAuth{server: c.Name, url: u, key: c.Name + " " + u, cfg: cfg, store: m.tokenStore(), browse: openBrowser, tell: m.opts.Login}
	if os.Getenv(mcpTestBrowserEnv) == "http-get" {
		a.browse = followLoopbackRedirects
	}
	shared, _ := m.auths.LoadOrStore(a.key, a)
	return shared.(*mcpAuth)
}

// tokenStore is the token file in the manager's home.
func (m *MCPManager) tokenStore() mcpTokenStore {
	return mcpTokenStore{filepath.Join(m.opts.Home, mcpTokenFile)}
}

// do sends req with the access token, again (twice at most) after a 401 or 403 that a newer token answers; nil just sends.
func (a *mcpAuth) do(ctx context.Context, req *http.Request) (*http.Response, error) {
	for retries := 0; ; retries++ {
		token := a.accessToken(ctx)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil || a == nil || retries == 2 || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			return resp, err
		}
		retry, err := a.rejected(ctx, resp, token)
		if !retry && err == nil {
			return resp, nil
		}
		drain(resp)
		if err != nil {
			return nil, err
		}
		req = req.Clone(ctx)
		if req.GetBody != nil { // a request made from bytes can be read again
			req.Body, _ = req.GetBody()
		}
	}
}

// accessToken returns the token to send ("": none), refreshed first when it expires within half a minute. A token
// file that cannot be read counts as no token: it matters only if the server asks for one.
func (a *mcpAuth) accessToken(ctx context.Context) string {
	if a == nil {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.loaded {
		a.entry, _ = a.store.load(a.key)
		a.loaded = true
	}
	if e := a.entry; e.RefreshToken != "" && !e.ExpiresAt.IsZero() && time.Until(e.ExpiresAt) < 30*time.Second {
		_ = a.refresh(ctx, e.AccessToken) // on failure the old token goes, and the server's answer decides
	}
	return a.entry.AccessToken
}

// rejected decides what a 401 or a 403 needs: sending the request again with a newer token, or an error (an
// *mcpLoginNeeded for a login). A 403 other than insufficient_scope is the server's answer to show.
func (a *mcpAuth) rejected(ctx context.Context, resp *http.Response, sent string) (retry bool, err error) {
	challenge := parseBearerChallenge(resp.Header.Values("WWW-Authenticate"))
	a.mu.Lock()
	defer a.mu.Unlock()
	scope, reason := challenge["scope"], ""
	switch {
	case resp.StatusCode == http.StatusForbidden && challenge["error"] != "insufficient_scope":
		return false, nil
	case resp.StatusCode == http.StatusForbidden && scopeCovers(a.entry.Scope, scope):
		return false, fmt.Errorf("MCP server %s refuses its access token although it has the scope asked for (%q)", a.server, scope)
	case resp.StatusCode == http.StatusForbidden: // step up: the scopes the token has and those the server wants
		scope = scopeUnion(a.entry.Scope, scope)
		a.wanted = scopeUnion(a.wanted, scope)
	default:
		if stored, err := a.store.load(a.key); err != nil {
			reason = err.Error()
		} else if stored.AccessToken != "" && stored.AccessToken != sent {
			a.entry = stored // another process, or a login, got a newer one
			return true, nil
		}
		if sent != "" && a.entry.RefreshToken != "" {
			if err := a.refresh(ctx, sent); err != nil {
				reason = err.Error()
			} else if a.entry.AccessToken != sent {
				return true, nil
			}
		}
	}
	if a.cfg.Grant != "" || a.tell != nil { // a machine-to-machine grant, or a person waits to log in
		return true, a.authorize(ctx, challenge, scope)
	}
	return false, &mcpLoginNeeded{server: a.server, reason: reason}
}

// save changes this server's entry in the token file under its lock and uses the result; fresh (a new login)
// replaces a corrupt file. Secrets that come from the config stay there.
func (a *mcpAuth) save(fresh bool, change func(*mcpTokenEntry) error) error {
	return a.store.update(fresh, func(entries map[string]mcpTokenEntry) error {
		e := entries[a.key]
		err := change(&e)
		e.Server, e.URL = a.server, a.url
		if a.cfg.ClientID != "" {
			e.Client.Secret = ""
		}
		entries[a.key], a.entry = e, e
		return err
	})
}

// login logs in to a server anew: it forgets the stored tokens (not the registration), then connects and lists the
// tools, which logs in when the server asks, with time for a person to do it; and says what happened.
func (m *MCPManager) login(ctx context.Context, c MCPServerConfig, tell func(string)) (string, error) {
	auth := m.oauthFor(c)
	if auth == nil {
		return "", fmt.Errorf("MCP server %s has no OAuth login: it is not reached over HTTP, or its config sets an Authorization header", c.Name)
	}
	auth.mu.Lock()
	auth.entry, auth.loaded, auth.tell = mcpTokenEntry{}, true, tell
	_ = auth.save(false, func(e *mcpTokenEntry) error { // a corrupt file stays until the login replaces it
		e.AccessToken, e.RefreshToken = "", ""
		return nil
	})
	auth.mu.Unlock()
	wait := max(c.startupTimeout(), c.callTimeout(), mcpLoginWait)
	sess := newMCPSession(c.Name, m.transport(c), m.opts)
	err := sess.connect(ctx, wait)
	if err == nil {
		_, err = sess.listTools(ctx, wait)
		sess.close()
	}
	auth.mu.Lock()
	defer auth.mu.Unlock()
	auth.tell = m.opts.Login
	switch {
	case err != nil:
		return "", err
	case auth.entry.AccessToken == "":
		return fmt.Sprintf("MCP server %s answered without a login.", c.Name), nil
	}
	return fmt.Sprintf("Logged in to MCP server %s; its tokens are kept in %s.", c.Name, auth.store.path), nil
}

// logout forgets every login of the named server.
func (m *MCPManager) logout(name string) (string, error) {
	found := false
	err := m.tokenStore().update(false, func(entries map[string]mcpTokenEntry) error {
		before := len(entries)
		maps.DeleteFunc(entries, func(_ string, e mcpTokenEntry) bool { return e.Server == name })
		found = len(entries) < before
		return nil
	})
	if !found {
		return fmt.Sprintf("MCP server %s had no stored login.", name), err
	}
	return fmt.Sprintf("Logged out of MCP server %s: its tokens are removed from %s.", name, m.tokenStore().path), err
}

// loginCommand runs "/mcp login NAME", then starts the server again.
func (m *MCPManager) loginCommand(ctx context.Context, name string) string {
	srv, err := m.server(name)
	if err != nil {
		return err.Error()
	}
	msg, err := m.login(ctx, srv.cfg, func(s string) { m.notice("%s", s) })
	if err == nil {
		err = m.restart(ctx, name)
	}
	if err != nil {
		return fmt.Sprintf("MCP server %s: %v", name, err)
	}
	return msg
}

// authParam matches one auth-param of a WWW-Authenticate challenge (RFC 9110 §11.2), quotedPair one escaped character.
var authParam, quotedPair = regexp.MustCompile(`([\w.-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,"]+)`), regexp.MustCompile(`\\(.)`)

// parseBearerChallenge returns the auth-params of WWW-Authenticate values, names in lower case. The scheme is not told
// apart: MCP servers send Bearer challenges, whose params are the only ones minicode reads.
func parseBearerChallenge(values []string) map[string]string {
	params := map[string]string{}
	for _, m := range authParam.FindAllStringSubmatch(strings.Join(values, ", "), -1) {
		value := m[2]
		if strings.HasPrefix(value, `"`) {
			value = quotedPair.ReplaceAllString(value[1:len(value)-1], "$1")
		}
		params[strings.ToLower(m[1])] = value
	}
	return params
}

// scopeUnion is the scopes of a and those of b it lacks, space-separated.
func scopeUnion(a, b string) string {
	scopes := strings.Fields(a)
	for _, s := range strings.Fields(b) {
		scopes = appendNew(scopes, s)
	}
	return strings.Join(scopes, " ")
}

// scopeCovers reports whether the scopes granted include every one wanted.
func scopeCovers(granted, wanted string) bool {
	return scopeUnion(granted, wanted) == strings.Join(strings.Fields(granted), " ")
}

// mcpTokenFile is the file in $MINICODE_HOME, readable by its owner only, that keeps the MCP servers' tokens and clients.
const mcpTokenFile = "mcp-tokens.json"

// mcpTokenEntry is one server's login at one URL: the client it used and the tokens it got.
type mcpTokenEntry struct {
	Server       string         `json:"server"`
	URL          string         `json:"url"`
	Resource     string         `json:"resource,omitempty"` // the RFC 8707 resource the tokens are for
	TokenURL     string         `json:"tokenEndpoint,omitempty"`
	Client       mcpOAuthClient `json:"client"`
	AccessToken  string         `json:"accessToken,omitempty"`
	RefreshToken string         `json:"refreshToken,omitempty"`
	Scope        string         `json:"scope,omitempty"` // granted
	ExpiresAt    time.Time      `json:"expiresAt,omitzero"`
}

// mcpOAuthClient is who minicode is to an authorization server.
type mcpOAuthClient struct {
	ID     string `json:"clientId,omitempty"`
	Secret string `json:"clientSecret,omitempty"` // a registered one; a configured one stays in the config
	Method string `json:"authMethod,omitempty"`   // at the token endpoint: none, client_secret_basic, client_secret_post or private_key_jwt
	Issuer string `json:"issuer,omitempty"`       // the authorization server that knows the client
}

// mcpTokenStore is the token file. A change re-reads it under a lock on the file beside it, so two processes refreshing
// one token agree, and replaces it whole, so a reader never sees half of it.
type mcpTokenStore struct{ path string }

// errCorruptTokens marks a token file that is not one; only a new login replaces it.
var errCorruptTokens = errors.New("is corrupt")

// load returns the entry under key (empty if there is none).
func (s mcpTokenStore) load(key string) (mcpTokenEntry, error) {
	entries, err := s.read()
	return entries[key], err
}

// read returns every entry by key; a missing or empty file has none.
func (s mcpTokenStore) read() (map[string]mcpTokenEntry, error) {
	var file struct {
		Tokens map[string]mcpTokenEntry `json:"tokens"`
	}
	data, err := os.ReadFile(s.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the MCP token file: %w", err)
	}
	if err := json.Unmarshal(data, &file); err != nil && len(data) > 0 {
		return nil, fmt.Errorf("the MCP token file %s %w (%s); a new login replaces it", s.path, errCorruptTokens, jsonError(err, data, 0))
	}
	if file.Tokens == nil {
		file.Tokens = map[string]mcpTokenEntry{}
	}
	return file.Tokens, nil
}

// update changes the entries under the lock and writes them back, mode 0600; a corrupt file is an error unless fresh (a login).
func (s mcpTokenStore) update(fresh bool, change func(map[string]mcpTokenEntry) error) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("creating the MCP token folder: %w", err)
	}
	lock, err := os.OpenFile(s.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err == nil {
		defer lock.Close() // which releases the lock
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX)
	}
	if err != nil {
		return fmt.Errorf("locking the MCP token file: %w", err)
	}
	entries, err := s.read()
	if errors.Is(err, errCorruptTokens) && fresh {
		entries, err = map[string]mcpTokenEntry{}, nil
	}
	if err == nil {
		err = change(entries)
	}
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(map[string]any{"tokens": entries}, "", "  ") // plain values
	_ = os.Chmod(s.path, 0o600)                                                // a file made wider by hand is narrowed
	if err := writeFileAtomic(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("saving the MCP token file: %w", err)
	}
	return nil
}
