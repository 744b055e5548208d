package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// mcpLoginWait is how long a login waits for the browser to come back.
const mcpLoginWait = 5 * time.Minute

// authorize gets new tokens for the scope the server and earlier 403s asked for, by the grant the config names: the
// authorization code flow (a person logs in), client credentials, or cross-app access. The caller holds a.mu.
func (a *mcpAuth) authorize(ctx context.Context, challenge map[string]string, scope string) error {
	as, err := discoverMCPAuth(ctx, a.url, challenge)
	if err != nil {
		return err
	}
	scope = cmp.Or(scopeUnion(scope, a.wanted), strings.Join(as.Scopes, " ")) // else the resource's scopes_supported
	if slices.Contains(as.ScopesOffered, "offline_access") {
		scope = scopeUnion(scope, "offline_access") // for a refresh token (SEP-2207)
	}
	client := a.configuredClient(as)
	grant := url.Values{"grant_type": {"client_credentials"}}
	switch a.cfg.Grant {
	case "":
		client, grant, err = a.authorizationCode(ctx, as, scope)
	case "cross_app_access":
		grant, err = a.exchangeIDToken(ctx, as)
	case "client_credentials":
	default:
		err = fmt.Errorf("MCP server %s: unknown oauth.grant %q (use client_credentials or cross_app_access)", a.server, a.cfg.Grant)
	}
	if err != nil {
		return err
	}
	if grant.Set("resource", as.Resource); scope != "" && a.cfg.Grant != "" {
		grant.Set("scope", scope)
	}
	tokens, err := a.tokenRequest(ctx, as.TokenURL, client, grant)
	if err != nil {
		return err
	}
	return a.save(true, func(e *mcpTokenEntry) error {
		*e = mcpTokenEntry{Resource: as.Resource, TokenURL: as.TokenURL, Client: client}
		tokens.apply(e, scope)
		return nil
	})
}

// authorizationCode runs the OAuth 2.1 authorization code flow (PKCE S256, the resource, a redirect to 127.0.0.1 that
// checks state) for the grant that gets the tokens; the user opens the printed URL or the browser.
func (a *mcpAuth) authorizationCode(ctx context.Context, as *mcpAuthServer, scope string) (mcpOAuthClient, url.Values, error) {
	switch {
	case as.AuthorizeURL == "":
		return mcpOAuthClient{}, nil, fmt.Errorf("the authorization server %s has no authorization_endpoint", as.Issuer)
	case !as.defaults && !slices.Contains(as.PKCEMethods, "S256"):
		return mcpOAuthClient{}, nil, fmt.Errorf("the authorization server %s does not list S256 in code_challenge_methods_supported; minicode logs in only with PKCE S256", as.Issuer)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(a.cfg.CallbackPort)))
	if err != nil {
		return mcpOAuthClient{}, nil, fmt.Errorf("listening for the login's redirect: %w", err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	client, err := a.client(ctx, as, redirect)
	if err != nil {
		return client, nil, err
	}
	verifier, state := rand.Text()+rand.Text(), rand.Text() // 52 and 26 characters of 5 random bits
	pkce := sha256.Sum256([]byte(verifier))
	authURL, _ := url.Parse(as.AuthorizeURL) // checked by discovery
	query := authURL.Query()
	for k, v := range map[string]string{"response_type": "code", "client_id": client.ID, "redirect_uri": redirect, "state": state, "resource": as.Resource,
		"scope": scope, "code_challenge_method": "S256", "code_challenge": base64.RawURLEncoding.EncodeToString(pkce[:])} {
		if v != "" {
			query.Set(k, v)
		}
	}
	authURL.RawQuery = query.Encode()
	code, err := a.awaitCode(ctx, ln, state, authURL.String())
	return client, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "code_verifier": {verifier}}, err
}

// client picks who minicode is to the authorization server: the config's client, a Client ID Metadata Document where
// taken, the registration kept (any loopback port will do, RFC 8252 §7.3), else a new one.
func (a *mcpAuth) client(ctx context.Context, as *mcpAuthServer, redirect string) (mcpOAuthClient, error) {
	stored := a.entry.Client
	switch {
	case a.cfg.ClientID != "":
		return a.configuredClient(as), nil
	case a.cfg.ClientMetadataURL != "" && as.CIMD:
		if u, err := url.Parse(a.cfg.ClientMetadataURL); err != nil || u.Scheme != "https" || strings.Trim(u.Path, "/") == "" {
			return mcpOAuthClient{}, fmt.Errorf("oauth.clientMetadataUrl %q must be an https URL with a path", a.cfg.ClientMetadataURL)
		}
		return mcpOAuthClient{ID: a.cfg.ClientMetadataURL, Method: "none", Issuer: as.Issuer}, nil
	case stored.ID != "" && stored.Issuer == as.Issuer:
		return stored, nil
	case as.RegisterURL == "":
		return mcpOAuthClient{}, fmt.Errorf("the authorization server %s offers no dynamic client registration; register a client there and set its id as oauth.clientId of MCP server %s", as.Issuer, a.server)
	}
	return a.register(ctx, as, redirect)
}

// configuredClient is the client the config names, authenticating by its key, its secret or its id alone.
func (a *mcpAuth) configuredClient(as *mcpAuthServer) mcpOAuthClient {
	return mcpOAuthClient{ID: a.cfg.ClientID, Secret: a.cfg.ClientSecret, Issuer: as.Issuer,
		Method: authMethod(as.AuthMethods, a.cfg.ClientSecret != "", a.cfg.PrivateKey != "")}
}

// authMethod picks how a client authenticates at the token endpoint (RFC 8414: client_secret_basic when none is listed).
func authMethod(listed []string, secret, key bool) string {
	switch {
	case key:
		return "private_key_jwt"
	case !secret:
		return "none"
	case slices.Contains(listed, "client_secret_post") && !slices.Contains(listed, "client_secret_basic"):
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// awaitCode serves the loopback redirect, while the user visits authURL, until it brings the code or an error.
func (a *mcpAuth) awaitCode(ctx context.Context, ln net.Listener, state, authURL string) (string, error) {
	type outcome struct {
		code string
		err  error
	}
	done := make(chan outcome, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, o := r.URL.Query(), outcome{code: r.URL.Query().Get("code")}
		switch {
		case r.URL.Path != "/callback":
			http.NotFound(w, r)
			return
		case q.Get("state") != state:
			o.err = errors.New("the redirect to minicode carried a wrong state, so the login was abandoned (it may not have been yours); log in again")
		case q.Get("error") != "":
			o.err = fmt.Errorf("the authorization server refused the login: %s %s", q.Get("error"), q.Get("error_description"))
		case o.code == "":
			o.err = errors.New("the redirect to minicode carried no code")
		}
		select {
		case done <- o:
		default: // only the first redirect counts
		}
		if o.err != nil {
			http.Error(w, "minicode: "+o.err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintln(w, "minicode is logged in. You can close this window.")
	})}
	go srv.Serve(ln)
	defer srv.Close()
	a.tell(fmt.Sprintf("To log in to MCP server %s, open this URL in a browser:\n  %s", a.server, authURL))
	if err := a.browse(ctx, authURL); err != nil {
		a.tell(fmt.Sprintf("(no browser opened: %v)", err))
	}
	select {
	case o := <-done:
		return o.code, o.err
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(mcpLoginWait):
		return "", fmt.Errorf("the login was not completed within %s", mcpLoginWait)
	}
}

// openBrowser opens the URL with the platform's opener, without waiting for it.
func openBrowser(_ context.Context, authURL string) error {
	cmd := exec.Command(browserOpener, authURL)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait() // reaps it; what it did is the user's to see
	return nil
}

// followLoopbackRedirects is the browser of automated tests (mcpTestBrowserEnv).
func followLoopbackRedirects(ctx context.Context, authURL string) error {
	refused := fmt.Errorf("%s=http-get follows a few redirects between loopback addresses only", mcpTestBrowserEnv)
	client := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if !isLoopbackHost(r.URL.Hostname()) || len(via) > 5 {
			return refused
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil || !isLoopbackHost(req.URL.Hostname()) {
		return refused
	}
	resp, err := client.Do(req)
	if err == nil {
		drain(resp)
	}
	return err
}

// mcpAuthServer is what discovery found: the resource (and its scopes) and its authorization server.
type mcpAuthServer struct {
	Resource      string
	Scopes        []string
	Issuer        string   `json:"issuer"`
	AuthorizeURL  string   `json:"authorization_endpoint"`
	TokenURL      string   `json:"token_endpoint"`
	RegisterURL   string   `json:"registration_endpoint"`
	ScopesOffered []string `json:"scopes_supported"`
	PKCEMethods   []string `json:"code_challenge_methods_supported"`
	AuthMethods   []string `json:"token_endpoint_auth_methods_supported"`
	CIMD          bool     `json:"client_id_metadata_document_supported"` // takes Client ID Metadata Documents
	defaults      bool     // no metadata anywhere: the 2025-03-26 default endpoints, PKCE unverifiable
}

// discoverMCPAuth finds where the MCP server at serverURL sends clients to log in: resource metadata (RFC 9728) from
// the challenge's URL, else the well-known URIs, naming this server; then the authorization server's metadata (RFC
// 8414, OpenID Connect) in the MCP specification's order, from the issuer it names (2025-03-26: the server's origin).
func discoverMCPAuth(ctx context.Context, serverURL string, challenge map[string]string) (*mcpAuthServer, error) {
	server, err := secureURL(serverURL, "the MCP server")
	if err != nil {
		return nil, err
	}
	origin := server.Scheme + "://" + server.Host
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	prmURLs := slices.Compact([]string{origin + "/.well-known/oauth-protected-resource" + strings.TrimSuffix(server.EscapedPath(), "/"), origin + "/.well-known/oauth-protected-resource"})
	if named := challenge["resource_metadata"]; named != "" {
		prmURLs = []string{named}
	}
	prmURL, err := fetchFirst(ctx, prmURLs, &prm)
	switch {
	case err != nil:
		return nil, err
	case prmURL == "" && challenge["resource_metadata"] != "":
		return nil, fmt.Errorf("refusing to log in: the protected resource metadata %s that the server names is missing", prmURLs[0])
	case prmURL == "": // 2025-03-26: the authorization server is at the MCP server's origin
		resource := *server // its URL without a fragment (RFC 8707)
		resource.Fragment, resource.RawFragment = "", ""
		prm.Resource, prm.AuthorizationServers = resource.String(), []string{origin}
	case len(prm.AuthorizationServers) == 0 || !resourceCovers(prm.Resource, server):
		return nil, fmt.Errorf("refusing the protected resource metadata at %s: it must name the MCP server %s (or a parent of it) as resource, and authorization_servers (RFC 9728 §3.3)", prmURL, serverURL)
	}
	issuer, err := secureURL(prm.AuthorizationServers[0], "the authorization server")
	if err != nil {
		return nil, err
	}
	path, base := strings.TrimSuffix(issuer.EscapedPath(), "/"), issuer.Scheme+"://"+issuer.Host
	tried := []string{base + "/.well-known/oauth-authorization-server" + path, base + "/.well-known/openid-configuration" + path}
	if path != "" {
		tried = append(tried, base+path+"/.well-known/openid-configuration")
	}
	found := &mcpAuthServer{Resource: prm.Resource, Scopes: prm.ScopesSupported}
	metaURL, err := fetchFirst(ctx, tried, found)
	switch {
	case err != nil:
		return nil, err
	case metaURL == "" && prmURL == "": // nor at the origin: its default endpoints, as 2025-03-26 says
		found.Issuer, found.AuthorizeURL, found.TokenURL, found.RegisterURL, found.defaults = origin, origin+"/authorize", origin+"/token", origin+"/register", true
		return found, nil
	case metaURL == "":
		return nil, fmt.Errorf("found no authorization server metadata for %s (tried %s)", issuer, strings.Join(tried, ", "))
	case prmURL == "" && found.Issuer != origin && !strings.HasPrefix(found.Issuer, origin+"/"):
		return nil, fmt.Errorf("refusing the authorization server metadata at %s: its issuer %q is not on the MCP server's origin %s", metaURL, found.Issuer, origin)
	case prmURL != "" && strings.TrimSuffix(found.Issuer, "/") != base+path:
		return nil, fmt.Errorf("refusing the authorization server metadata at %s: its issuer %q is not %s, which the MCP server names (RFC 8414 §3.3)", metaURL, found.Issuer, issuer)
	}
	return found, checkEndpoints(found, metaURL)
}

// checkEndpoints refuses metadata without a token endpoint or with an endpoint OAuth may not use.
func checkEndpoints(found *mcpAuthServer, metaURL string) error {
	if found.TokenURL == "" {
		return fmt.Errorf("refusing the authorization server metadata at %s: it has no token_endpoint (RFC 8414 §2)", metaURL)
	}
	for _, endpoint := range []string{found.AuthorizeURL, found.TokenURL, found.RegisterURL} {
		if _, err := secureURL(endpoint, "an endpoint in "+metaURL); err != nil && endpoint != "" {
			return err
		}
	}
	return nil
}

// fetchFirst decodes into v the first of urls that answers 200 and returns it ("": none did); not JSON is an error.
func fetchFirst(ctx context.Context, urls []string, v any) (string, error) {
	for _, u := range urls {
		if _, err := secureURL(u, "metadata"); err != nil {
			return "", err
		}
		switch status, err := oauthJSON(ctx, u, "", nil, mcpOAuthClient{}, v); {
		case status == 0:
			return "", fmt.Errorf("fetching OAuth metadata: %w", err)
		case status != http.StatusOK:
			continue
		case err != nil:
			return "", fmt.Errorf("refusing the OAuth metadata: %w", err)
		}
		return u, nil
	}
	return "", nil
}

// secureURL parses an absolute URL that OAuth may use: HTTPS, or plain HTTP to a loopback address only.
func secureURL(raw, what string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("refusing %s URL %q: it is not an absolute http(s) URL", what, raw)
	case u.Scheme == "http" && !isLoopbackHost(u.Hostname()):
		return nil, fmt.Errorf("refusing %s at %s: OAuth speaks only HTTPS, but to a loopback address", what, raw)
	}
	return u, nil
}

// isLoopbackHost reports whether host is localhost or a loopback address.
func isLoopbackHost(host string) bool {
	addr, err := netip.ParseAddr(host)
	return host == "localhost" || err == nil && addr.IsLoopback()
}

// resourceCovers reports whether resource names server: the same origin, and the server's path or a parent of it.
func resourceCovers(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || !strings.EqualFold(r.Scheme, server.Scheme) || !strings.EqualFold(r.Host, server.Host) {
		return false
	}
	prefix, path := strings.TrimSuffix(r.EscapedPath(), "/"), server.EscapedPath()
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}
