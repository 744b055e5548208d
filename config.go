package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Settings are the user's choices read from settings.json files. Flags and
// environment variables override them.
type Settings struct {
	Provider  string                 `json:"provider,omitempty"`  // anthropic, openai or mock
	Model     string                 `json:"model,omitempty"`     // model name sent to the provider
	BaseURL   string                 `json:"baseUrl,omitempty"`   // the provider's API address
	MaxTurns  int                    `json:"maxTurns,omitempty"`  // model steps per task
	MaxTokens int                    `json:"maxTokens,omitempty"` // output tokens per model step
	Limits    map[string]ModelLimits `json:"modelLimits,omitempty"`
	// WebSearchURL replaces the default web_search endpoint.
	WebSearchURL string              `json:"webSearchUrl,omitempty"`
	Permissions  PermissionsSettings `json:"permissions,omitempty"`
	// Hooks are commands run at points of a session; every file's add up.
	Hooks   HookSettings    `json:"hooks,omitempty"`
	Sandbox SandboxSettings `json:"sandbox,omitempty"`
	// CleanupPeriodDays is how long a session is kept after its last
	// change (default 30).
	CleanupPeriodDays *int `json:"cleanupPeriodDays,omitempty"`

	// ruleSets keeps each file's permission rules apart, so that a bad
	// rule is reported with the file it came from.
	ruleSets []RuleSet
	source   string // the file these settings were read from
}

// PermissionsSettings are the permission mode and rules from settings.
type PermissionsSettings struct {
	DefaultMode string   `json:"defaultMode,omitempty"`
	Allow       []string `json:"allow,omitempty"`
	Ask         []string `json:"ask,omitempty"`
	Deny        []string `json:"deny,omitempty"`
}

// loadSettings reads the user's settings and then the project's, the
// project's values overriding the user's and the rule lists adding up.
// A file that does not exist is skipped; a malformed one is an error that
// names the file, the line and the field.
func loadSettings(home, workspace string) (Settings, error) {
	var merged Settings
	for _, path := range []string{
		filepath.Join(home, "settings.json"),
		filepath.Join(workspace, ".minicode", "settings.json"),
	} {
		s, err := readSettingsFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Settings{}, err
		}
		merged = mergeSettings(merged, s)
	}
	return merged, nil
}

// readSettingsFile decodes one settings file strictly: unknown fields and
// wrong types are errors.
func readSettingsFile(path string) (Settings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Settings{}, err
	}
	var s Settings
	if err := decodeStrict(data, &s); err != nil {
		return Settings{}, fmt.Errorf("settings file %s: %w", path, err)
	}
	if err := s.Hooks.check(data, path); err != nil {
		return Settings{}, fmt.Errorf("settings file %s: %w", path, err)
	}
	s.source = path
	return s, nil
}

// decodeStrict unmarshals a JSON document that must hold exactly one value
// of known fields, and describes any problem with its line number.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		return fmt.Errorf("line %d: unexpected data after the JSON object", lineOf(data, dec.InputOffset()))
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("line %d: %v", lineOf(data, syntaxErr.Offset), err)
	case errors.As(err, &typeErr):
		return fmt.Errorf("line %d: field %q must be %s, not %s", lineOf(data, typeErr.Offset), typeErr.Field, jsonKind(typeErr.Type), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		field := strings.TrimPrefix(err.Error(), "json: unknown field ")
		offset := int64(bytes.Index(data, []byte(field)))
		if offset < 0 {
			offset = dec.InputOffset()
		}
		return fmt.Errorf("line %d: unknown field %s", lineOf(data, offset), field)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the file is empty or ends too soon")
	default:
		return fmt.Errorf("line %d: %v", lineOf(data, dec.InputOffset()), err)
	}
}

// lineOf returns the 1-based line of a byte offset in data.
func lineOf(data []byte, offset int64) int {
	return lineAt(string(data), int(min(offset, int64(len(data)))))
}

// mergeSettings lays over on top of base: set values win, and over's
// permission rules are kept as one more rule set.
func mergeSettings(base, over Settings) Settings {
	pick := func(a, b string) string {
		if b != "" {
			return b
		}
		return a
	}
	base.Provider = pick(base.Provider, over.Provider)
	base.Model = pick(base.Model, over.Model)
	base.BaseURL = pick(base.BaseURL, over.BaseURL)
	base.WebSearchURL = pick(base.WebSearchURL, over.WebSearchURL)
	if over.MaxTurns != 0 {
		base.MaxTurns = over.MaxTurns
	}
	if over.MaxTokens != 0 {
		base.MaxTokens = over.MaxTokens
	}
	if over.CleanupPeriodDays != nil {
		base.CleanupPeriodDays = over.CleanupPeriodDays
	}
	for k, v := range over.Limits {
		if base.Limits == nil {
			base.Limits = map[string]ModelLimits{}
		}
		base.Limits[k] = v
	}
	base.Hooks = base.Hooks.merge(over.Hooks)
	if over.Sandbox.Enabled != nil {
		base.Sandbox.Enabled = over.Sandbox.Enabled
	}
	base.Sandbox.Network = base.Sandbox.Network || over.Sandbox.Network
	base.Sandbox.AllowWrite = append(base.Sandbox.AllowWrite, over.Sandbox.AllowWrite...)
	base.Sandbox.DenyRead = append(base.Sandbox.DenyRead, over.Sandbox.DenyRead...)
	base.Permissions.DefaultMode = pick(base.Permissions.DefaultMode, over.Permissions.DefaultMode)
	if p := over.Permissions; len(p.Allow)+len(p.Ask)+len(p.Deny) > 0 {
		base.ruleSets = append(base.ruleSets, RuleSet{Source: over.source, Allow: p.Allow, Ask: p.Ask, Deny: p.Deny})
	}
	return base
}

// minicodeHome returns $MINICODE_HOME, or .minicode in the user's home.
func minicodeHome(env func(string) string) (string, error) {
	if h := env("MINICODE_HOME"); h != "" {
		return filepath.Abs(h)
	}
	home := userHome(env)
	if home == "" {
		return "", fmt.Errorf("finding the home folder: set HOME or MINICODE_HOME")
	}
	return filepath.Join(home, ".minicode"), nil
}

// userHome returns the user's home folder: $HOME as env gives it, or what
// the system says; "" when neither knows.
func userHome(env func(string) string) string {
	if h := env("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}
