package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

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
