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
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// mcpLoginWait is how long a login waits for the browser to come back.
const mcpLoginWait = 5 * time.Minute

// authorize gets new tokens for the scope the server asked for, by the grant the config names: the authorization code
// flow (a person logs in), client credentials, or cross-app access. The caller holds a.mu.
func (a *mcpAuth) authorize(ctx context.Context, challenge map[string]string, scope string) error {
	as, err := discoverMCPAuth(ctx, a.url, challenge)
	if err != nil {
		return err
	}
	scope = a.scopeFor(as, scope)
	client := mcpOAuthClient{ID: a.cfg.ClientID, Secret: a.cfg.ClientSecret, Issuer: as.Issuer,
		Method: authMethod(as.AuthMethods, a.cfg.ClientSecret != "", a.cfg.PrivateKey != "")}
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
	tokens, err := a.tokenRequest(ctx, as.TokenURL, client, as.Issuer, grant)
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

// scopeFor is the scope to ask for: the challenge's and earlier 403s', else the resource's scopes_supported; with
// offline_access (for a refresh token, SEP-2207) where the server lists it.
func (a *mcpAuth) scopeFor(as *mcpAuthServer, challenged string) string {
	scope := cmp.Or(scopeUnion(challenged, a.wanted), strings.Join(as.Scopes, " "))
	if slices.Contains(as.ScopesOffered, "offline_access") {
		scope = scopeUnion(scope, "offline_access")
	}
	return scope
}

// client picks who minicode is to the authorization server: the config's client, a Client ID Metadata Document where
// taken, the registration kept (any loopback port will do, RFC 8252 §7.3), else a new one.
func (a *mcpAuth) client(ctx context.Context, as *mcpAuthServer, redirect string) (mcpOAuthClient, error) {
	stored := a.entry.Client
	switch {
	case a.cfg.ClientID != "":
		return mcpOAuthClient{ID: a.cfg.ClientID, Secret: a.cfg.ClientSecret, Method: authMethod(as.AuthMethods, a.cfg.ClientSecret != "", false),
			Issuer: as.Issuer}, nil
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
