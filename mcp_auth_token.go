package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// oauthTokens is a token endpoint's answer (RFC 6749 §5.1).
type oauthTokens struct {
	AccessToken  string      `json:"access_token"`
	RefreshToken string      `json:"refresh_token"`
	ExpiresIn    json.Number `json:"expires_in"` // some servers send a string
	Scope        string      `json:"scope"`
}

// apply keeps the tokens in e: no scope named grants the one asked, no refresh token keeps the old one valid.
func (t oauthTokens) apply(e *mcpTokenEntry, asked string) {
	e.AccessToken, e.Scope = t.AccessToken, cmp.Or(t.Scope, asked)
	e.RefreshToken = cmp.Or(t.RefreshToken, e.RefreshToken)
	e.ExpiresAt = time.Time{}
	if seconds, err := t.ExpiresIn.Int64(); err == nil && seconds > 0 {
		e.ExpiresAt = time.Now().Add(time.Duration(seconds) * time.Second)
	}
}

// refresh swaps the refresh token for new tokens, unless another process did since stale was sent; a.mu is held.
func (a *mcpAuth) refresh(ctx context.Context, stale string) error {
	return a.save(false, func(e *mcpTokenEntry) error {
		if e.AccessToken != stale || e.RefreshToken == "" {
			return nil // refreshed, or logged out, meanwhile
		}
		client := e.Client
		if a.cfg.ClientID != "" {
			client.ID, client.Secret = a.cfg.ClientID, a.cfg.ClientSecret
		}
		tokens, err := a.tokenRequest(ctx, e.TokenURL, client,
			url.Values{"grant_type": {"refresh_token"}, "refresh_token": {e.RefreshToken}, "resource": {e.Resource}})
		if err != nil {
			return fmt.Errorf("refreshing the token failed: %w", err)
		}
		tokens.apply(e, e.Scope)
		return nil
	})
}

// exchangeIDToken has the identity provider exchange the user's ID token for an ID-JAG (RFC 8693), an assertion that
// the JWT bearer grant (RFC 7523) turns into tokens: cross-app access.
func (a *mcpAuth) exchangeIDToken(ctx context.Context, as *mcpAuthServer) (url.Values, error) {
	if _, err := secureURL(a.cfg.IDPTokenEndpoint, "the identity provider's token endpoint"); err != nil {
		return nil, err
	}
	jag, err := a.tokenRequest(ctx, a.cfg.IDPTokenEndpoint, mcpOAuthClient{ID: a.cfg.IDPClientID}, url.Values{
		"grant_type":           {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"requested_token_type": {"urn:ietf:params:oauth:token-type:id-jag"},
		"subject_token":        {a.cfg.IDPIDToken},
		"subject_token_type":   {"urn:ietf:params:oauth:token-type:id_token"},
		"audience":             {as.Issuer},
		"resource":             {as.Resource}})
	if err != nil {
		return nil, fmt.Errorf("exchanging the ID token at the identity provider: %w", err)
	}
	return url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {jag.AccessToken}}, nil
}

// tokenRequest asks for tokens as the client: by HTTP Basic, the secret in the form, a JWT for its issuer (RFC 7523), or its id.
func (a *mcpAuth) tokenRequest(ctx context.Context, endpoint string, c mcpOAuthClient, form url.Values) (oauthTokens, error) {
	var tokens oauthTokens
	switch c.Method {
	case "client_secret_basic": // in the header
	case "client_secret_post":
		form.Set("client_id", c.ID)
		form.Set("client_secret", c.Secret)
	case "private_key_jwt":
		assertion, err := signClientAssertion(a.cfg.PrivateKey, c.ID, c.Issuer)
		if err != nil {
			return tokens, err
		}
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	default:
		form.Set("client_id", c.ID)
	}
	_, err := oauthJSON(ctx, endpoint, "application/x-www-form-urlencoded", []byte(form.Encode()), c, &tokens)
	if err == nil && tokens.AccessToken == "" {
		err = fmt.Errorf("the token endpoint %s answered without an access_token", endpoint)
	}
	return tokens, err
}

// register gets a client id by dynamic registration (RFC 7591): a native client that refreshes, a secret only if needed.
func (a *mcpAuth) register(ctx context.Context, as *mcpAuthServer, redirect string) (mcpOAuthClient, error) {
	method := "none"
	if len(as.AuthMethods) > 0 && !slices.Contains(as.AuthMethods, "none") {
		method = authMethod(as.AuthMethods, true, false)
	}
	body, _ := json.Marshal(map[string]any{"client_name": "minicode", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": method,
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}}) // plain values
	var got struct {
		ID     string `json:"client_id"`
		Secret string `json:"client_secret"`
		Method string `json:"token_endpoint_auth_method"`
	}
	_, err := oauthJSON(ctx, as.RegisterURL, "application/json", body, mcpOAuthClient{}, &got)
	if err == nil && got.ID == "" {
		err = errors.New("the answer has no client_id")
	}
	if err != nil {
		return mcpOAuthClient{}, fmt.Errorf("registering minicode as a client: %w", err)
	}
	return mcpOAuthClient{ID: got.ID, Secret: got.Secret, Method: cmp.Or(got.Method, method), Issuer: as.Issuer}, nil
}

// oauthJSON sends an OAuth request, a POST when there is a body, and decodes a successful answer into v; it returns
// the status (0: none) and a refusal's error and description. HTTP Basic form-encodes each part (RFC 6749 §2.3.1).
func oauthJSON(ctx context.Context, endpoint, contentType string, body []byte, c mcpOAuthClient, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("bad OAuth endpoint %q: %w", endpoint, err)
	}
	if req.Header.Set("Accept", "application/json"); body != nil {
		req.Method = http.MethodPost
		req.Header.Set("Content-Type", contentType)
	}
	if c.Method == "client_secret_basic" {
		req.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(c.Secret))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var refusal struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	switch {
	case err != nil:
		return resp.StatusCode, fmt.Errorf("reading the answer of %s: %w", req.URL.Redacted(), err)
	case resp.StatusCode/100 != 2:
		_ = json.Unmarshal(data, &refusal)
		return resp.StatusCode, fmt.Errorf("%s answered %s: %s", req.URL.Redacted(), resp.Status, strings.TrimSpace(refusal.Error+" "+refusal.Description))
	case json.Unmarshal(data, v) != nil:
		return resp.StatusCode, fmt.Errorf("%s answered with no JSON document of the kind expected", req.URL.Redacted())
	}
	return resp.StatusCode, nil
}

// signClientAssertion makes the JWT that proves a client's key (RFC 7523 §2.2) for five minutes: ES256 (P-256) or RS256.
func signClientAssertion(pemKey, clientID, audience string) (string, error) {
	block, _ := pem.Decode([]byte(pemKey))
	if block == nil {
		return "", errors.New("oauth.privateKey is not a PEM key")
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return "", fmt.Errorf("oauth.privateKey: %w", err)
	}
	var alg string
	var sign func(digest []byte) ([]byte, error)
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve != elliptic.P256() {
			return "", errors.New("oauth.privateKey: an EC key must be on P-256 (ES256)")
		}
		alg, sign = "ES256", func(digest []byte) ([]byte, error) {
			r, s, err := ecdsa.Sign(rand.Reader, k, digest)
			if err != nil {
				return nil, err
			}
			return append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...), nil // JWS: r and s side by side
		}
	case *rsa.PrivateKey:
		alg, sign = "RS256", func(digest []byte) ([]byte, error) { return rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest) }
	default:
		return "", fmt.Errorf("oauth.privateKey: a %T key cannot sign ES256 or RS256", key)
	}
	now := time.Now().Unix()
	claims, _ := json.Marshal(map[string]any{"iss": clientID, "sub": clientID, "aud": audience, "iat": now, "exp": now + 300, "jti": rand.Text()})
	input := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"`+alg+`","typ":"JWT"}`)) + "." + base64.RawURLEncoding.EncodeToString(claims)
	digest := sha256.Sum256([]byte(input))
	sig, err := sign(digest[:])
	if err != nil {
		return "", fmt.Errorf("signing the client assertion: %w", err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}
