package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Building the permission check from its settings, and what the rest of the program reads and changes
// of it: the mode, the turn's grants, the denials, the text of /permissions.

// parsePermissionMode checks a mode name; "" is the default mode.
func parsePermissionMode(name string) (PermissionMode, error) {
	if m := cmp.Or(PermissionMode(name), ModeDefault); modeMeanings[m] != "" {
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q (use default, acceptEdits, plan, dontAsk or bypassPermissions)", name)
}

// RuleSet is one source of rules; their "./" paths start at Project.
type RuleSet struct {
	Source, Project  string
	Allow, Ask, Deny []string
}

// PermissionConfig is what newPermissions needs.
type PermissionConfig struct {
	Mode                          PermissionMode // "" is ModeDefault
	Workspace                     string         // absolute, symlinks resolved
	ReadableDirs                  []string       // outside the workspace, readable without asking
	RunOutside                    []string       // the workspace's files hooks and MCP servers run outside the sandbox: edits ask
	ResultsDir                    func() string  // the session's stored results, readable without asking (not other sessions')
	AddDirs                       []string       // treated as part of the workspace
	Home                          string         // for ~ and the shell start-up files; "" is $HOME
	TempDir                       string         // the sandbox's, which commands may name
	HidesDenied                   func() bool    // whether commands run in the sandbox, which hides from them what Read deny rules cover; nil: no
	Settings                      []RuleSet
	AllowedTools, DisallowedTools []string // values of --allowedTools and --disallowedTools
	Asker                         Asker    // nil: headless, what would ask is denied
	ProjectFile, UserFile         string   // where "always" answers are saved (and read, with the settings); "" for none
	Notice                        func(string)
}

// Denial records one refused tool call for the JSON result.
type Denial struct {
	Tool      string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	Input     json.RawMessage `json:"tool_input,omitempty"`
	Reason    string          `json:"reason"`
}

// newPermissions builds the check; a bad rule is an error naming where it is.
func newPermissions(cfg PermissionConfig) (*Permissions, error) {
	p := &Permissions{workspace: cfg.Workspace, asker: cfg.Asker, notice: cfg.Notice, mode: cmp.Or(cfg.Mode, ModeDefault), askSlot: make(chan struct{}, 1)}
	if p.notice == nil {
		p.notice = func(string) {}
	}
	var errs []error
	resolve := func(path string) string { // absolute, with symlinks resolved whether or not it exists yet
		if path == "" {
			return ""
		}
		abs, err := filepath.Abs(path)
		if err == nil {
			abs, err = resolveExisting(abs)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("resolving %s: %w", path, err))
		}
		return abs
	}
	home, _ := os.UserHomeDir()
	p.projectFile, p.userFile, p.tempDir, p.home = resolve(cfg.ProjectFile), resolve(cfg.UserFile), resolve(cfg.TempDir), resolve(cmp.Or(cfg.Home, home))
	dirs := slices.Concat(cfg.ReadableDirs, cfg.AddDirs)
	for i := range dirs {
		dirs[i] = resolve(dirs[i])
	}
	p.readableDirs, p.addDirs = dirs[:len(cfg.ReadableDirs):len(cfg.ReadableDirs)], dirs[len(cfg.ReadableDirs):]
	p.resultsDir, p.hidesDenied, p.runOutside = cfg.ResultsDir, cfg.HidesDenied, cfg.RunOutside
	for _, set := range withFlagRules(cfg.Settings, cfg.AllowedTools, cfg.DisallowedTools) {
		allow, err := parseRules(set.Allow, set.Source, set.Project)
		ask, askErr := parseRules(set.Ask, set.Source, set.Project)
		deny, denyErr := parseRules(set.Deny, set.Source, set.Project)
		errs = append(errs, err, askErr, denyErr)
		p.allow, p.ask, p.deny = append(p.allow, allow...), append(p.ask, ask...), append(p.deny, deny...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

// withFlagRules adds --allowedTools and --disallowedTools to the sets.
func withFlagRules(sets []RuleSet, allowed, disallowed []string) []RuleSet {
	return append(slices.Clone(sets), RuleSet{Source: "--allowedTools", Allow: allowed}, RuleSet{Source: "--disallowedTools", Deny: disallowed})
}

// RuleFile is the format of permissions.json, which keeps "always" answers.
type RuleFile struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
}

// denyFolders are the folders, not holding the workspace, that Read deny rules name (or, with write, Edit
// and Write deny rules), and the patterns of those over the workspace (Read(./.env) is **/.env): the
// sandbox enforces them on commands, which the check cannot always follow.
func denyFolders(sets []RuleSet, disallowed []string, workspace, home string, write bool) (folders, patterns []string) {
	tool, access := map[bool]string{false: "read_file", true: "write_file"}[write], map[bool]Access{false: AccessRead, true: AccessWrite}[write]
	for _, set := range withFlagRules(sets, nil, disallowed) {
		rules, _ := parseRules(set.Deny, set.Source, set.Project)
		for _, r := range rules {
			switch glob := r.pathGlob(workspace, home); {
			case r.Spec == "" || !r.matchesTool(tool, access):
			case within(globFolder(glob), workspace):
				patterns = append(patterns, glob)
			default:
				folders = append(folders, globFolder(glob))
			}
		}
	}
	return folders, patterns
}

// WarnUnknownTools warns about every rule naming none of the known tools.
func (p *Permissions) WarnUnknownTools(known []string) {
	p.mu.Lock()
	rules := slices.Concat(p.deny, p.ask, p.allow)
	p.mu.Unlock()
	for _, r := range rules {
		matches := func(tool string) bool { return r.matchesTool(tool, AccessWrite) }
		if !strings.HasPrefix(r.Tool, "mcp__") && !slices.ContainsFunc(known, matches) {
			p.notice(fmt.Sprintf("warning: the rule %s (%s) names no known tool, so it matches nothing; tools: %s",
				r, r.Source, strings.Join(known, ", ")))
		}
	}
}

// EndTurn forgets the grants made "for this turn", however the turn ended.
func (p *Permissions) EndTurn() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.turn = nil
}

// Mode returns the current permission mode.
func (p *Permissions) Mode() PermissionMode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// SetAutoAllow lets sandboxed commands run without asking, but those that destroy work, leave the
// sandbox or meet an ask rule (on: the sandbox holds every guarantee), or makes them ask as the rules say.
func (p *Permissions) SetAutoAllow(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.autoAllow = on
}

// SetMode switches the permission mode, as the UI does when the user asks.
func (p *Permissions) SetMode(mode PermissionMode) error {
	m, err := parsePermissionMode(string(mode))
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	return nil
}

// Denials returns the calls denied so far, oldest first.
func (p *Permissions) Denials() []Denial {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.denials)
}

// modeMeanings say in a sentence what each mode allows, for /permissions.
var modeMeanings = map[PermissionMode]string{
	ModeDefault:     "reads inside the workspace are free; edits, commands, web fetches, MCP calls and anything outside the workspace ask",
	ModeAcceptEdits: "reads and edits inside the workspace are free (touch and mkdir too); other commands, web fetches, MCP calls and anything outside the workspace ask",
	ModePlan:        "reads inside the workspace and read-only commands (ls, git status) run; edits, other commands and MCP calls are refused; web fetches and anything outside the workspace ask",
	ModeBypass:      "everything runs without asking, destructive commands included; only deny rules still hold",
	ModeDontAsk:     "what the rules allow runs; whatever would ask is denied",
}

// Describe shows the mode, the rules and the grants: the text of /permissions.
func (p *Permissions) Describe() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Permission mode: %s (%s)\nWorkspace: %s\n", p.mode, modeMeanings[p.mode], p.workspace)
	for i, rules := range [][]Rule{p.deny, p.ask, p.allow} {
		fmt.Fprintf(&b, "%s rules:\n", []string{"Deny", "Ask", "Allow"}[i])
		if len(rules) == 0 {
			b.WriteString("  (none)\n")
		}
		for _, r := range rules {
			fmt.Fprintf(&b, "  %-40s from %s\n", r, r.Source)
		}
	}
	b.WriteString("Allowed for this turn:\n")
	if len(p.turn) == 0 {
		b.WriteString("  (nothing)\n")
	}
	for _, r := range p.turn {
		if r.Tool == editAlias {
			fmt.Fprintf(&b, "  edits to %s\n", cmp.Or(strings.TrimPrefix(r.Spec, "/"), "every file inside the workspace"))
		} else {
			fmt.Fprintf(&b, "  %s\n", r) // a command, a host, a tool
		}
	}
	for _, f := range []struct{ name, path string }{{"Project", p.projectFile}, {"User", p.userFile}} {
		if f.path != "" {
			fmt.Fprintf(&b, "%s permissions file: %s\n", f.name, f.path)
		}
	}
	return b.String()
}
