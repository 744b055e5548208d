package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// Settings are the user's choices read from settings files, Claude
// Code's and minicode's alike. Flags and environment variables override
// them. A key minicode does not know is listed in a notice, never fatal;
// to understand a new key, add its field here (and, if it runs code or
// widens permissions, a line to wideningKeys).
type Settings struct {
	Provider  string                 `json:"provider,omitempty"`  // anthropic, openai or mock
	Model     string                 `json:"model,omitempty"`     // model name or alias sent to the provider
	BaseURL   string                 `json:"baseUrl,omitempty"`   // the provider's API address
	MaxTurns  int                    `json:"maxTurns,omitempty"`  // model steps per task
	MaxTokens int                    `json:"maxTokens,omitempty"` // output tokens per model step
	Limits    map[string]ModelLimits `json:"modelLimits,omitempty"`
	// ContextWindow replaces the model's context window (tokens).
	ContextWindow *int              `json:"contextWindow,omitempty"`
	Compaction    CompactThresholds `json:"compaction,omitempty"`
	// WebSearchURL replaces the default web_search endpoint.
	WebSearchURL string              `json:"webSearchUrl,omitempty"`
	Permissions  PermissionsSettings `json:"permissions,omitempty"`
	// Hooks are commands run at points of a session; every file's add up.
	Hooks HookSettings `json:"hooks,omitempty"`
	// SubagentDepth is how deep subagents may nest (default 1: a subagent
	// cannot start another).
	SubagentDepth int             `json:"subagentDepth,omitempty"`
	Sandbox       SandboxSettings `json:"sandbox,omitempty"`
	// CleanupPeriodDays is how long a session is kept after its last
	// change (default 30).
	CleanupPeriodDays *int `json:"cleanupPeriodDays,omitempty"`
	// Env holds environment variables set for the session.
	Env map[string]string `json:"env,omitempty"`
	// The project's .mcp.json servers to start, to skip, or all of them.
	EnabledMCPJSONServers      []string `json:"enabledMcpjsonServers,omitempty"`
	DisabledMCPJSONServers     []string `json:"disabledMcpjsonServers,omitempty"`
	EnableAllProjectMCPServers bool     `json:"enableAllProjectMcpServers,omitempty"`
	// Schema names the file's JSON schema, for editors; minicode ignores it.
	Schema string `json:"$schema,omitempty"`

	// Unknown lists the keys no field takes, each with its file.
	Unknown []string `json:"-"`
	// Ignored lists what an untrusted project's files asked for and did
	// not get, each with its file.
	Ignored []string `json:"-"`
	// ruleSets keeps each file's permission rules apart, so that a bad
	// rule is reported with the file it came from.
	ruleSets []RuleSet
	source   string // the file these settings were read from
	project  bool   // the file is the workspace's, not the user's
	// contextWindowAt names the file and line of ContextWindow, for
	// errors found once the model is known.
	contextWindowAt string
}

// PermissionsSettings are the permission mode and rules from settings.
type PermissionsSettings struct {
	DefaultMode string   `json:"defaultMode,omitempty"`
	Allow       []string `json:"allow,omitempty"`
	Ask         []string `json:"ask,omitempty"`
	Deny        []string `json:"deny,omitempty"`
	// AdditionalDirectories are folders the tools may use besides the workspace.
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
}

// wideningKey is one setting that runs code or widens what the model may
// do: set says whether a file uses it, drop removes it.
type wideningKey struct {
	name string
	set  bool
	drop func()
}

// wideningKeys lists the settings a project's files may use only in a
// trusted workspace. What tightens (deny and ask rules, a stricter mode)
// is not here: it always applies.
func (s *Settings) wideningKeys() []wideningKey {
	p := &s.Permissions
	return []wideningKey{
		{"permissions.allow", len(p.Allow) > 0, func() { p.Allow = nil }},
		{"permissions.defaultMode", p.DefaultMode != "" && p.DefaultMode != string(ModePlan) && p.DefaultMode != string(ModeDefault), func() { p.DefaultMode = "" }},
		{"permissions.additionalDirectories", len(p.AdditionalDirectories) > 0, func() { p.AdditionalDirectories = nil }},
		{"env", len(s.Env) > 0, func() { s.Env = nil }},
		{"hooks", len(s.Hooks) > 0, func() { s.Hooks = nil }},
		{"sandbox.enabled", s.Sandbox.Enabled != nil && !*s.Sandbox.Enabled, func() { s.Sandbox.Enabled = nil }},
		{"sandbox.network", s.Sandbox.Network, func() { s.Sandbox.Network = false }},
		{"sandbox.allowWrite", len(s.Sandbox.AllowWrite) > 0, func() { s.Sandbox.AllowWrite = nil }},
		{"enabledMcpjsonServers", len(s.EnabledMCPJSONServers) > 0, func() { s.EnabledMCPJSONServers = nil }},
		{"enableAllProjectMcpServers", s.EnableAllProjectMCPServers, func() { s.EnableAllProjectMCPServers = false }},
	}
}

// settingsFiles are the settings files in increasing precedence:
// the user's (Claude Code's, then minicode's), then the project's.
func settingsFiles(home, userHome, workspace string) []Settings {
	return []Settings{
		{source: filepath.Join(userHome, ".claude", "settings.json")},
		{source: filepath.Join(home, "settings.json")},
		{source: filepath.Join(workspace, ".claude", "settings.json"), project: true},
		{source: filepath.Join(workspace, ".minicode", "settings.json"), project: true},
		{source: filepath.Join(workspace, ".claude", "settings.local.json"), project: true},
	}
}

// loadSettings reads every settings file that exists, in increasing
// precedence, and then each --settings value (a file or inline JSON).
// A malformed file is an error that names the file, the line and the
// field. merge combines what it returns.
func loadSettings(home, userHome, workspace string, flagValues []string) ([]Settings, error) {
	var layers []Settings
	seen := map[string]bool{}
	for _, f := range settingsFiles(home, userHome, workspace) {
		if seen[f.source] {
			continue // the workspace is the home folder
		}
		seen[f.source] = true
		data, err := os.ReadFile(f.source)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading settings: %w", err)
		}
		s, err := parseSettings(data, f.source, f.project)
		if err != nil {
			return nil, err
		}
		layers = append(layers, s)
	}
	for _, v := range flagValues {
		data, source := []byte(v), "--settings"
		if !strings.HasPrefix(strings.TrimSpace(v), "{") {
			var err error
			if data, err = os.ReadFile(v); err != nil {
				return nil, usageErrorf("--settings: %v", err)
			}
			source = v
		}
		s, err := parseSettings(data, source, false)
		if err != nil {
			return nil, err
		}
		layers = append(layers, s)
	}
	return layers, nil
}

// parseSettings decodes one settings file. Keys it does not know are
// listed in Unknown; a known key of the wrong type is an error.
func parseSettings(data []byte, source string, project bool) (Settings, error) {
	s := Settings{source: source, project: project}
	if err := decodeJSON(data, 0, &s, false); err != nil {
		return Settings{}, fmt.Errorf("settings file %s: %w", source, err)
	}
	var top struct {
		Permissions map[string]json.RawMessage `json:"permissions"`
	}
	keys := map[string]json.RawMessage{}
	_ = json.Unmarshal(data, &keys) // decodeJSON has checked the syntax
	_ = json.Unmarshal(data, &top)
	for _, k := range unknownKeys(keys, reflect.TypeOf(s)) {
		s.Unknown = append(s.Unknown, fmt.Sprintf("%s (%s)", k, source))
	}
	for _, k := range unknownKeys(top.Permissions, reflect.TypeOf(s.Permissions)) {
		s.Unknown = append(s.Unknown, fmt.Sprintf("permissions.%s (%s)", k, source))
	}
	ignored, err := s.Hooks.check(data, source)
	if err != nil {
		return Settings{}, fmt.Errorf("settings file %s: %w", source, err)
	}
	for _, k := range append(ignored, unknownHookFields(keys["hooks"])...) {
		s.Unknown = append(s.Unknown, fmt.Sprintf("%s (%s)", k, source))
	}
	if err := checkContextSettings(source, data, &s); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// unknownKeys returns the keys of m that no field of the struct type t
// takes, sorted.
func unknownKeys(m map[string]json.RawMessage, t reflect.Type) []string {
	known := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		known[name] = true
	}
	var out []string
	for k := range m {
		if !known[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// decodeStrict unmarshals a JSON document that must hold exactly one value
// of known fields, and describes any problem with its line number.
func decodeStrict(data []byte, v any) error {
	return decodeJSON(data, 0, v, true)
}

// decodeJSON unmarshals the JSON value that starts at data[start:] and
// describes any problem with its line number in data. A whole document
// (start 0) must hold exactly one value; strict makes unknown fields an
// error.
func decodeJSON(data []byte, start int, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(data[start:]))
	if strict {
		dec.DisallowUnknownFields()
	}
	line := func(offset int64) int { return lineOf(data, int64(start)+offset) }
	err := dec.Decode(v)
	if err == nil && start == 0 && dec.More() {
		return fmt.Errorf("line %d: unexpected data after the JSON object", line(dec.InputOffset()))
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &syntaxErr):
		return fmt.Errorf("line %d: %v", line(syntaxErr.Offset), err)
	case errors.As(err, &typeErr):
		return fmt.Errorf("line %d: field %q must be %s, not %s", line(typeErr.Offset), typeErr.Field, jsonKind(typeErr.Type), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		field := strings.TrimPrefix(err.Error(), "json: unknown field ")
		offset := int64(bytes.Index(data[start:], []byte(field)))
		if offset < 0 {
			offset = dec.InputOffset()
		}
		return fmt.Errorf("line %d: unknown field %s", line(offset), field)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the file is empty or ends too soon")
	default:
		return fmt.Errorf("line %d: %v", line(dec.InputOffset()), err)
	}
}

// lineOf returns the 1-based line of a byte offset in data.
func lineOf(data []byte, offset int64) int {
	return lineAt(string(data), int(min(offset, int64(len(data)))))
}

// projectWidening lists what the project's settings files would enable
// in a trusted workspace, each with its file.
func projectWidening(layers []Settings) []string {
	var out []string
	for _, s := range layers {
		for _, k := range s.wideningKeys() {
			if s.project && k.set {
				out = append(out, fmt.Sprintf("%s (%s)", k.name, s.source))
			}
		}
	}
	return out
}

// mergeSettings lays the layers over one another in order: set values
// win, lists add up, and each file's permission rules are kept as one
// more rule set. Unless trusted, the project's widening keys are dropped
// and listed in Ignored.
func mergeSettings(layers []Settings, workspace string, trusted bool) Settings {
	var base Settings
	for _, over := range layers {
		if over.project && !trusted {
			for _, k := range over.wideningKeys() {
				if k.set {
					base.Ignored = append(base.Ignored, fmt.Sprintf("%s (%s)", k.name, over.source))
					k.drop()
				}
			}
		}
		base = mergeLayer(base, over, workspace)
	}
	return base
}

// mergeLayer lays over on top of base.
func mergeLayer(base, over Settings, workspace string) Settings {
	base.Provider = cmp.Or(over.Provider, base.Provider)
	base.Model = cmp.Or(over.Model, base.Model)
	base.BaseURL = cmp.Or(over.BaseURL, base.BaseURL)
	base.WebSearchURL = cmp.Or(over.WebSearchURL, base.WebSearchURL)
	base.MaxTurns = cmp.Or(over.MaxTurns, base.MaxTurns)
	base.MaxTokens = cmp.Or(over.MaxTokens, base.MaxTokens)
	base.SubagentDepth = cmp.Or(over.SubagentDepth, base.SubagentDepth)
	if over.CleanupPeriodDays != nil {
		base.CleanupPeriodDays = over.CleanupPeriodDays
	}
	if over.ContextWindow != nil {
		base.ContextWindow, base.contextWindowAt = over.ContextWindow, over.contextWindowAt
	}
	base.Compaction = mergeThresholds(base.Compaction, over.Compaction)
	base.Limits = mergeMaps(base.Limits, over.Limits)
	base.Env = mergeMaps(base.Env, over.Env)
	base.EnabledMCPJSONServers = append(base.EnabledMCPJSONServers, over.EnabledMCPJSONServers...)
	base.DisabledMCPJSONServers = append(base.DisabledMCPJSONServers, over.DisabledMCPJSONServers...)
	base.EnableAllProjectMCPServers = base.EnableAllProjectMCPServers || over.EnableAllProjectMCPServers
	base.Unknown = append(base.Unknown, over.Unknown...)
	base.Hooks = base.Hooks.merge(over.Hooks)
	if over.Sandbox.Enabled != nil {
		base.Sandbox.Enabled = over.Sandbox.Enabled
	}
	base.Sandbox.Network = base.Sandbox.Network || over.Sandbox.Network
	base.Sandbox.AllowWrite = append(base.Sandbox.AllowWrite, over.Sandbox.AllowWrite...)
	base.Sandbox.DenyRead = append(base.Sandbox.DenyRead, over.Sandbox.DenyRead...)
	p := over.Permissions
	base.Permissions.DefaultMode = cmp.Or(p.DefaultMode, base.Permissions.DefaultMode)
	for _, dir := range p.AdditionalDirectories {
		if !filepath.IsAbs(dir) && !strings.HasPrefix(dir, "~") {
			dir = filepath.Join(workspace, dir)
		}
		base.Permissions.AdditionalDirectories = append(base.Permissions.AdditionalDirectories, dir)
	}
	if len(p.Allow)+len(p.Ask)+len(p.Deny) > 0 {
		set := RuleSet{Source: over.source, Allow: p.Allow, Ask: p.Ask, Deny: p.Deny}
		if over.project || over.source == "--settings" {
			set.Project = workspace
		}
		base.ruleSets = append(base.ruleSets, set)
	}
	return base
}

// mergeMaps returns base with over's entries laid on top.
func mergeMaps[V any](base, over map[string]V) map[string]V {
	if len(over) == 0 {
		return base
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]V{}
	}
	maps.Copy(out, over)
	return out
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
