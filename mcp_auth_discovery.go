package main

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

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
	tried := []string{base + "/.well-known/oauth-authorization-server", base + "/.well-known/openid-configuration"}
	if path != "" {
		tried = []string{base + "/.well-known/oauth-authorization-server" + path, base + "/.well-known/openid-configuration" + path, base + path + "/.well-known/openid-configuration"}
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
