package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// Settings are the user's choices from Claude Code's and minicode's settings files; flags and environment win.
type Settings struct {
	Provider      string                 `json:"provider,omitempty"`  // anthropic, openai or mock
	Model         string                 `json:"model,omitempty"`     // model name or alias sent to the provider
	BaseURL       string                 `json:"baseUrl,omitempty"`   // the provider's API address
	API           string                 `json:"api,omitempty"`       // the openai provider's protocol: chat or responses
	MaxTurns      int                    `json:"maxTurns,omitempty"`  // model steps per task
	MaxTokens     int                    `json:"maxTokens,omitempty"` // output tokens per model step
	Limits        map[string]ModelLimits `json:"modelLimits,omitempty"`
	ContextWindow *int                   `json:"contextWindow,omitempty"` // replaces the model's (tokens)
	Compaction    CompactThresholds      `json:"compaction,omitempty"`
	WebSearchURL  string                 `json:"webSearchUrl,omitempty"` // replaces web_search's endpoint
	Permissions   PermissionsSettings    `json:"permissions,omitempty"`
	Hooks         HookSettings           `json:"hooks,omitempty"`
	SubagentDepth int                    `json:"subagentDepth,omitempty"` // how deep subagents nest (default 1)
	Sandbox       SandboxSettings        `json:"sandbox,omitempty"`
	Checkpoints   CheckpointSettings     `json:"checkpoints,omitempty"`
	// CleanupPeriodDays is how long a session is kept after its last change (default 30).
	CleanupPeriodDays *int              `json:"cleanupPeriodDays,omitempty"`
	Env               map[string]string `json:"env,omitempty"` // environment variables for the session
	// The project's .mcp.json servers to start, to skip, or all of them.
	EnabledMCPJSONServers      []string `json:"enabledMcpjsonServers,omitempty"`
	DisabledMCPJSONServers     []string `json:"disabledMcpjsonServers,omitempty"`
	EnableAllProjectMCPServers bool     `json:"enableAllProjectMcpServers,omitempty"`
	Schema                     string   `json:"$schema,omitempty"`         // for editors; minicode ignores it
	DisableAllHooks            bool     `json:"disableAllHooks,omitempty"` // no file's hooks run
	APIKeyHelper               string   `json:"apiKeyHelper,omitempty"`    // a shell command printing the API key
	OutputStyle                string   `json:"outputStyle,omitempty"`     // how the model answers (app_prompt.go)

	Unknown         []string  `json:"-"` // keys no field takes, each with its file
	Ignored         []string  `json:"-"` // what an untrusted project asked for and did not get
	ruleSets        []RuleSet // each file's permission rules, for errors naming the file
	source          string    // the file these settings were read from
	project         bool      // the file is the workspace's, not the user's
	contextWindowAt string    // the file and line of ContextWindow, for later errors
}

// SandboxSettings are the "sandbox" settings; Enabled false turns it off.
type SandboxSettings struct {
	Enabled    *bool    `json:"enabled,omitempty"`
	Network    bool     `json:"network,omitempty"`    // allow the network
	AllowWrite []string `json:"allowWrite,omitempty"` // more folders commands may write
	DenyRead   []string `json:"denyRead,omitempty"`   // more paths commands may not read
	PassEnv    []string `json:"passEnv,omitempty"`    // credential variables commands still get
	// AutoAllowBashIfSandboxed runs sandboxed commands without asking, as in Claude Code.
	AutoAllowBashIfSandboxed bool `json:"autoAllowBashIfSandboxed,omitempty"`
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

// loadSettings reads the settings files that exist, the user's then the project's, of the kinds asked for
// (user, project, local; nil: all), then each --settings value (a file or inline JSON). A broken file or rule is
// passed to skip and left out (a file's other rules hold); only a broken --settings value is an error.
func loadSettings(home, userHome, workspace string, flagValues, kinds []string, skip func(error)) ([]Settings, error) {
	var layers []Settings
	seen := map[string]bool{}
	for _, f := range []struct {
		kind, path string
		parse      func(data []byte, source string, project bool) (Settings, error)
	}{
		{"user", filepath.Join(userHome, ".claude", "settings.json"), parseSettings},
		{"user", filepath.Join(home, "settings.json"), parseSettings},
		{"user", filepath.Join(home, "permissions.json"), parseRuleFile},
		{"project", filepath.Join(workspace, ".claude", "settings.json"), parseSettings},
		{"project", filepath.Join(workspace, ".minicode", "settings.json"), parseSettings},
		{"project", filepath.Join(workspace, ".minicode", "permissions.json"), parseRuleFile},
		{"local", filepath.Join(workspace, ".claude", "settings.local.json"), parseSettings},
	} {
		data, err := readConfigFile(f.path)
		if seen[f.path] || errors.Is(err, fs.ErrNotExist) || kinds != nil && !slices.Contains(kinds, f.kind) {
			continue // the workspace may be the home folder
		}
		seen[f.path] = true
		var s Settings
		if err == nil {
			s, err = f.parse(data, f.path, f.kind != "user")
		}
		if err != nil {
			skip(err) // its bad rules are left out, or all of it but what restricts
		}
		if s.source != "" {
			layers = append(layers, s)
		}
	}
	for _, v := range flagValues {
		data, source, err := []byte(v), "--settings", error(nil)
		if !strings.HasPrefix(strings.TrimSpace(v), "{") {
			if data, err = os.ReadFile(v); err != nil {
				return nil, usageErrorf("--settings: %v", err)
			}
			source = v
		}
		s, err := parseSettings(data, source, false)
		if err != nil {
			return nil, UsageError{err}
		}
		layers = append(layers, s)
	}
	return layers, nil
}

// parseRuleFile decodes a permissions.json, which keeps "always" answers,
// as settings holding only its rules; a blank one holds none.
func parseRuleFile(data []byte, source string, project bool) (Settings, error) {
	var rf RuleFile
	if err := decodeJSON(data, &rf, true); err != nil && strings.TrimSpace(string(data)) != "" {
		return keepRestrictions(data, source, project, fmt.Errorf("permissions file %s: %w", source, err))
	}
	s := Settings{Permissions: PermissionsSettings{Allow: rf.Allow, Deny: rf.Deny}, source: source, project: project}
	return s, s.dropBadRules(data)
}

// parseSettings decodes one settings file, listing the keys it does not know in Unknown.
func parseSettings(data []byte, source string, project bool) (Settings, error) {
	s := Settings{source: source, project: project}
	if err := decodeJSON(data, &s, false); err != nil {
		return keepRestrictions(data, source, project, fmt.Errorf("settings file %s: %w", source, err))
	}
	ignored, err := s.Hooks.check(data, source)
	if err != nil {
		return keepRestrictions(data, source, project, fmt.Errorf("settings file %s: %w", source, err))
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(data, &keys) // decodeJSON has checked the syntax and types
	unknown := unknownKeys(keys, reflect.TypeOf(s), "")
	for _, k := range append(unknown, ignored...) {
		s.Unknown = append(s.Unknown, fmt.Sprintf("%s (%s)", k, source))
	}
	if err := checkContextSettings(source, data, &s); err != nil {
		return keepRestrictions(data, source, project, err)
	}
	return s, s.dropBadRules(data)
}

// errKeptRestrictions ends the report of a broken file of which minicode keeps the rules that restrict.
var errKeptRestrictions = errors.New("running without it but for its deny and ask rules")

// keepRestrictions is what a file that is broken as a whole (err) still holds back: its deny and ask
// rules, when they decode. Leaving a broken file out must never let more run without asking.
func keepRestrictions(data []byte, source string, project bool, err error) (Settings, error) {
	var f struct {
		Permissions struct{ Ask, Deny []string }
		Deny        []string // a permissions.json's
	}
	if json.Unmarshal(data, &f) != nil || len(f.Permissions.Ask)+len(f.Permissions.Deny)+len(f.Deny) == 0 {
		return Settings{}, err
	}
	s := Settings{Permissions: PermissionsSettings{Ask: f.Permissions.Ask, Deny: slices.Concat(f.Permissions.Deny, f.Deny)}, source: source, project: project}
	return s, errors.Join(fmt.Errorf("%v; %w", err, errKeptRestrictions), s.dropBadRules(data)) // one wrapped error, which reportBroken does not split
}

// dropBadRules removes the permission rules that do not parse, returning each one's error with its line:
// the file's other rules hold, so one typo in an allow rule does not take the file's deny rules with it.
func (s *Settings) dropBadRules(data []byte) error {
	var errs []error
	for _, list := range []*[]string{&s.Permissions.Allow, &s.Permissions.Ask, &s.Permissions.Deny} {
		*list = slices.DeleteFunc(*list, func(rule string) bool {
			at := fmt.Sprintf("%s: line %d", s.source, lineOf(data, int64(max(0, bytes.Index(data, []byte(rule))))))
			_, err := parseRules([]string{rule}, at, "")
			errs = append(errs, err)
			return err != nil
		})
	}
	return errors.Join(errs...)
}

// mergeSettings lays the layers over one another, keeping each file's rules
// as one rule set; unless trusted, the project's widening keys are Ignored.
func mergeSettings(layers []Settings, workspace string, trusted bool) Settings {
	var base Settings
	for _, over := range layers {
		if over.project && !trusted {
			base.Ignored = append(base.Ignored, over.dropGated()...)
		}
		p := &over.Permissions
		if len(p.Allow)+len(p.Ask)+len(p.Deny) > 0 {
			set := RuleSet{Source: over.source, Allow: p.Allow, Ask: p.Ask, Deny: p.Deny}
			if over.project || over.source == "--settings" {
				set.Project = workspace
			}
			base.ruleSets = append(base.ruleSets, set)
			p.Allow, p.Ask, p.Deny = nil, nil, nil
		}
		p.AdditionalDirectories = slices.Clone(p.AdditionalDirectories)
		for i, dir := range p.AdditionalDirectories {
			if !filepath.IsAbs(dir) && !strings.HasPrefix(dir, "~") {
				p.AdditionalDirectories[i] = filepath.Join(workspace, dir)
			}
		}
		if over.ContextWindow != nil {
			base.contextWindowAt = over.contextWindowAt
		}
		mergeValue(reflect.ValueOf(&base).Elem(), reflect.ValueOf(over))
	}
	return base
}

// mergeValue lays over on top of base: a set value wins, lists add up, structs and maps merge.
func mergeValue(base, over reflect.Value) {
	switch over.Kind() {
	case reflect.Struct:
		for i := range over.NumField() {
			if over.Type().Field(i).IsExported() {
				mergeValue(base.Field(i), over.Field(i))
			}
		}
	case reflect.Slice:
		base.Set(reflect.AppendSlice(base, over))
	case reflect.Map:
		if over.Len() == 0 {
			return
		}
		merged := reflect.MakeMap(base.Type())
		for _, m := range []reflect.Value{base, over} {
			for it := m.MapRange(); it.Next(); {
				v := it.Value()
				if old := merged.MapIndex(it.Key()); old.IsValid() && v.Kind() == reflect.Slice {
					v = reflect.AppendSlice(old, v)
				}
				merged.SetMapIndex(it.Key(), v)
			}
		}
		base.Set(merged)
	default:
		if !over.IsZero() {
			base.Set(over)
		}
	}
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

// userHome returns $HOME as env gives it, or what the system says.
func userHome(env func(string) string) string {
	if h := env("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// checkContextSettings validates one settings file's window and thresholds, recording where the window was set.
func checkContextSettings(path string, data []byte, s *Settings) error {
	lineOfKey := func(key string) int { return lineOf(data, int64(max(0, bytes.Index(data, []byte(`"`+key+`"`))))) }
	if s.ContextWindow != nil {
		s.contextWindowAt = fmt.Sprintf("settings file %s: line %d", path, lineOfKey("contextWindow"))
		if *s.ContextWindow <= 0 {
			return fmt.Errorf("%s: contextWindow is %d; it must be a positive number of tokens", s.contextWindowAt, *s.ContextWindow)
		}
	}
	th := s.Compaction
	for i, v := range []int{th.Micro, th.Snip, th.Collapse, th.Auto} {
		if v < 0 || v > 100 {
			return fmt.Errorf("settings file %s: line %d: compaction.%s is %d; it must be a percentage from 1 to 100", path, lineOfKey("compaction"), []string{"micro", "snip", "collapse", "auto"}[i], v)
		}
	}
	return nil
}

// contextLimits are the model's limits with the contextWindow setting, which must exceed the output reserve.
func contextLimits(model string, s Settings) (ModelLimits, error) {
	limits := limitsFor(model, s.Limits)
	if s.ContextWindow == nil {
		return limits, nil
	}
	limits.ContextWindow = *s.ContextWindow
	if reserve := min(limits.MaxOutput, maxOutputReserve); limits.ContextWindow <= reserve {
		return limits, fmt.Errorf("%s: contextWindow %d must be larger than the %d tokens kept for the reply of %s", s.contextWindowAt, limits.ContextWindow, reserve, model)
	}
	return limits, nil
}
