package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Access is the kind of action a tool call wants to take.
type Access string

// The kinds of access a permission request can ask for.
const (
	AccessRead     Access = "read"     // reading files or listing folders
	AccessWrite    Access = "write"    // creating or changing files
	AccessExecute  Access = "execute"  // running a command
	AccessNetwork  Access = "network"  // fetching from the web
	AccessExternal Access = "external" // calling an MCP server's tool
)

// PermissionRequest describes one tool call for the permission check.
type PermissionRequest struct {
	Tool      string          // filled in by the registry
	ToolUseID string          // filled in by the registry, for the list of denials
	Input     json.RawMessage // filled in by the registry, for the list of denials
	Access    Access
	Paths     []string // paths the call touches, as the model gave them
	Command   string   // the shell command, for AccessExecute
	// Unsandboxed is the model's reason for running Command outside the
	// sandbox; "" for a sandboxed command.
	Unsandboxed string
	URL         string // the address, for AccessNetwork
	Diff        string // unified diff of the change, for AccessWrite
	// Plan, if set, computes Diff (and a Summary with it) by reading the
	// file; it runs only once the call is not denied, and its error is
	// shown only when the file may be read, since it can quote the file.
	Plan    func() (diff, summary string, err error)
	Summary string // one line saying what the call does
	// HookDecision is a PreToolUse hook's answer ("allow", "ask" or ""),
	// and Grants are allow rules of the skill or command running now;
	// both are filled in by the registry and never override a deny rule.
	HookDecision string
	Grants       []Rule
}

// Authorizer decides whether a tool call may run. A nil error allows it;
// an error denies it, and its text goes back to the model as the result.
type Authorizer interface {
	Authorize(ctx context.Context, req PermissionRequest) error
}

// PermissionMode is the user's standing choice of how much to allow.
type PermissionMode string

// The permission modes. Deny rules hold in every mode.
const (
	// ModeDefault allows reads inside the workspace; everything else asks.
	ModeDefault PermissionMode = "default"
	// ModeAcceptEdits also allows edits inside the workspace.
	ModeAcceptEdits PermissionMode = "acceptEdits"
	// ModePlan allows only reading (files and the web); edits, commands and
	// MCP calls are refused with a message saying so.
	ModePlan PermissionMode = "plan"
	// ModeBypass allows everything not denied by a rule, destructive
	// commands included: it is the user's explicit opt-out of asking.
	ModeBypass PermissionMode = "bypassPermissions"
	// ModeDontAsk allows what the rules and the default mode allow and
	// denies whatever would ask.
	ModeDontAsk PermissionMode = "dontAsk"
)

// ParsePermissionMode checks a mode name; "" is the default mode.
func ParsePermissionMode(name string) (PermissionMode, error) {
	switch m := PermissionMode(name); m {
	case "":
		return ModeDefault, nil
	case ModeDefault, ModeAcceptEdits, ModePlan, ModeBypass, ModeDontAsk:
		return m, nil
	}
	return "", fmt.Errorf("unknown permission mode %q (use default, acceptEdits, plan, dontAsk or bypassPermissions)", name)
}

// RuleSet is one source of allow, ask and deny rules, such as a
// settings file; Source names it in messages.
type RuleSet struct {
	Source string
	// Project is the folder that "./" paths in the rules are relative
	// to: the workspace for a project's files and --settings, "" for the
	// user's own files.
	Project          string
	Allow, Ask, Deny []string
}

// PermissionConfig is what NewPermissions needs.
type PermissionConfig struct {
	Mode      PermissionMode // "" is ModeDefault
	Workspace string         // the folder the agent works in, absolute, symlinks resolved
	// ReadableDirs are folders outside the workspace that may be read
	// without asking: where large tool results are stored, and the
	// folders of installed skills.
	ReadableDirs []string
	// AddDirs are more folders treated as part of the workspace
	// (--add-dir and additionalDirectories).
	AddDirs []string
	// Home is the user's home folder, for ~ and the shell start-up files;
	// "" means $HOME.
	Home string
	// TempDir is the sandbox's private temp folder, which commands may
	// name like the workspace.
	TempDir  string
	Settings []RuleSet
	// AllowedTools and DisallowedTools hold the values of --allowedTools
	// and --disallowedTools, each a comma-separated list of rules.
	AllowedTools, DisallowedTools []string
	// Asker puts questions to the user; nil means headless, where whatever
	// would ask is denied with a message naming the flag that allows it.
	Asker Asker
	// ProjectFile and UserFile are the permissions.json files that
	// "always" answers are saved to and read back from; "" disables one.
	ProjectFile, UserFile string
	// Notice, if set, is told about problems that do not stop a call,
	// such as an "always" answer that could not be saved.
	Notice func(string)
}

// Denial records one tool call that was not allowed, for the
// permission_denials list of the JSON result.
type Denial struct {
	Tool      string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	Input     json.RawMessage `json:"tool_input,omitempty"`
	Reason    string          `json:"reason"`
}

// Permissions is the one permission check every tool call passes, built
// and MCP tools alike. It is safe for concurrent use and puts one question
// to the user at a time.
//
// A call is split into parts (each path it touches, each simple command of
// a chained command line, the host it fetches from), and each part is
// judged in this order: deny rules; plan mode's refusal of anything but
// reading; bypass mode; destructive commands and protected files, which
// always ask; ask rules; allow rules; grants of this turn, of this session,
// and saved ones; and last the mode's default. The call runs only if every
// part is allowed; one denied part denies it, one part that asks makes it
// ask. What an answer grants lasts exactly as long as its name says.
type Permissions struct {
	workspace, home       string
	tempDir               string
	readableDirs          []string
	addDirs               []string // treated as part of the workspace
	protectedDirs         []string // folders whose files always ask before a change
	projectFile, userFile string
	notice                func(string)
	askSlot               chan struct{} // held while a question is open
	mu                    sync.Mutex    // guards the fields below
	asker                 Asker
	mode                  PermissionMode
	deny, ask, allow      []Rule // from settings and flags
	sessionAllow          []Rule // "always" answers kept for this session only
	sessionDeny           []Rule
	savedAllow, savedDeny []Rule          // from permissions.json
	turnFiles             map[string]bool // files whose edits are allowed this turn
	turnAllEdits          bool            // every edit inside the workspace allowed this turn
	denials               []Denial
}

// NewPermissions builds the permission check. A malformed rule or an
// unreadable permissions.json is an error that names where the problem is.
func NewPermissions(cfg PermissionConfig) (*Permissions, error) {
	var err error
	p := &Permissions{workspace: cfg.Workspace, asker: cfg.Asker, notice: cfg.Notice, mode: cmp.Or(cfg.Mode, ModeDefault),
		askSlot: make(chan struct{}, 1), turnFiles: map[string]bool{}, home: cfg.Home}
	if p.home == "" {
		p.home, _ = os.UserHomeDir()
	}
	for _, f := range []struct {
		dst *string
		src string
	}{{&p.projectFile, cfg.ProjectFile}, {&p.userFile, cfg.UserFile}, {&p.tempDir, cfg.TempDir}, {&p.home, p.home}} {
		if *f.dst, err = resolveConfigPath(f.src); err != nil {
			return nil, err
		}
	}
	if p.userFile != "" {
		p.protectedDirs = append(p.protectedDirs, filepath.Dir(p.userFile))
	}
	for _, dir := range cfg.ReadableDirs {
		real, err := resolveConfigPath(dir)
		if err != nil {
			return nil, err
		}
		p.readableDirs = append(p.readableDirs, real)
	}
	for _, dir := range cfg.AddDirs {
		real, err := resolveConfigPath(dir)
		if err != nil {
			return nil, err
		}
		p.addDirs = append(p.addDirs, real)
	}
	if err := p.loadRules(cfg); err != nil {
		return nil, err
	}
	return p, nil
}

// resolveConfigPath makes a configured path absolute with symlinks
// resolved, whether or not it exists yet; "" stays "".
func resolveConfigPath(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = resolveExisting(abs)
	}
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", path, err)
	}
	return abs, nil
}

// loadRules parses the rules of the settings, the flags and the saved
// permissions.json files.
func (p *Permissions) loadRules(cfg PermissionConfig) error {
	for _, set := range cfg.Settings {
		for _, l := range []struct {
			dst   *[]Rule
			texts []string
		}{{&p.allow, set.Allow}, {&p.ask, set.Ask}, {&p.deny, set.Deny}} {
			rules, err := parseRules(l.texts, set.Source)
			if err != nil {
				return err
			}
			for i := range rules {
				rules[i].Root = set.Project
			}
			*l.dst = append(*l.dst, rules...)
		}
	}
	for _, f := range []struct {
		dst   *[]Rule
		lists []string
		flag  string
	}{{&p.allow, cfg.AllowedTools, "--allowedTools"}, {&p.deny, cfg.DisallowedTools, "--disallowedTools"}} {
		for _, list := range f.lists {
			rules, err := ParseRuleList(list, f.flag)
			if err != nil {
				return fmt.Errorf("%s: %w", f.flag, err)
			}
			*f.dst = append(*f.dst, rules...)
		}
	}
	for _, file := range []string{p.projectFile, p.userFile} {
		if file == "" {
			continue
		}
		allow, deny, err := loadRuleFile(file)
		if err != nil {
			return err
		}
		p.savedAllow = append(p.savedAllow, allow...)
		p.savedDeny = append(p.savedDeny, deny...)
	}
	return nil
}

// Authorize is the permission check: it allows, denies, or asks the user
// and applies the answer. With no Asker (headless), what would ask is
// denied with a message naming the flag that would allow it. Every denial
// is recorded for Denials.
func (p *Permissions) Authorize(ctx context.Context, req PermissionRequest) error {
	p.mu.Lock()
	asker := p.asker
	p.mu.Unlock()
	d := hookAdjusted(p.decide(req), req.HookDecision)
	if d.Verdict != VerdictDeny && req.Plan != nil {
		diff, summary, err := req.Plan()
		if err != nil && p.decide(PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: req.Paths}).Verdict != VerdictAllow {
			return fmt.Errorf("%s cannot be carried out, and why is not shown because reading %s needs permission; read it with read_file first",
				req.Tool, strings.Join(req.Paths, ", "))
		}
		if err != nil {
			return err
		}
		req.Diff, req.Summary = diff, cmp.Or(summary, req.Summary)
	}
	if d.Verdict == VerdictAsk && asker != nil {
		select {
		case p.askSlot <- struct{}{}:
		case <-ctx.Done():
			return p.refuse(req, "permission not granted: "+ctx.Err().Error())
		}
		defer func() { <-p.askSlot }()
		d = hookAdjusted(p.decide(req), req.HookDecision) // an answer given while waiting may have settled it
	}
	switch {
	case d.Verdict == VerdictAllow:
		return nil
	case d.Verdict == VerdictDeny:
		return p.refuse(req, fmt.Sprintf("permission denied: %s: %s", describeCall(req), d.Reason))
	case asker == nil:
		return p.refuse(req, fmt.Sprintf("permission denied: %s needs approval (%s), and nobody can approve it in headless mode; to allow it, %s",
			describeCall(req), d.Reason, d.Hint))
	}
	prompt := p.prompt(req, d)
	answer, err := asker.Ask(ctx, prompt)
	if err != nil {
		return p.refuse(req, fmt.Sprintf("permission not granted: %s: %v", describeCall(req), err))
	}
	if answer.Choice == ChoiceAllowOnce && answer.Input != "" {
		return &InputReplaced{Input: json.RawMessage(answer.Input)}
	}
	return p.apply(req, d, prompt, answer)
}

// refuse records a denial and returns it as the error for the model.
func (p *Permissions) refuse(req PermissionRequest, reason string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.denials = append(p.denials, Denial{Tool: req.Tool, ToolUseID: req.ToolUseID, Input: req.Input, Reason: reason})
	return errors.New(reason)
}

// describeCall names a call in one short phrase: the tool and what it
// acts on.
func describeCall(req PermissionRequest) string {
	switch {
	case req.Access == AccessExecute && req.Command != "":
		return fmt.Sprintf("%s %q", req.Tool, req.Command)
	case req.Access == AccessNetwork && req.URL != "":
		return req.Tool + " " + req.URL
	case len(req.Paths) > 0:
		return req.Tool + " " + strings.Join(req.Paths, ", ")
	}
	return req.Tool
}

// apply carries out the user's answer: it records the grant or the saved
// rule the choice promises and allows or denies this call.
func (p *Permissions) apply(req PermissionRequest, d Decision, prompt Prompt, a Answer) error {
	if !slices.ContainsFunc(prompt.Choices, func(c Choice) bool { return c.ID == a.Choice }) {
		return p.refuse(req, fmt.Sprintf("permission not granted: %s: the answer %q was not one of the choices", describeCall(req), a.Choice))
	}
	what := describeCall(req)
	switch a.Choice {
	case ChoiceAllowFileTurn:
		p.mu.Lock()
		for _, t := range d.asking {
			if t.kind == targetPath {
				p.turnFiles[t.abs] = true
			}
		}
		p.mu.Unlock()
	case ChoiceAllowEditsTurn:
		p.mu.Lock()
		p.turnAllEdits = true
		p.mu.Unlock()
	case ChoiceAllowAlways:
		p.remember(a.SaveTo, p.grantRules(req, d.asking, a.SaveTo), true)
	case ChoiceDenyOnce:
		return p.refuse(req, "the user rejected "+what)
	case ChoiceDenyGuidance:
		return p.refuse(req, fmt.Sprintf("the user rejected %s and said: %s", what, a.Guidance))
	case ChoiceDenyAlways:
		p.remember(a.SaveTo, p.grantRules(req, d.asking, a.SaveTo), false)
		return p.refuse(req, "the user rejected "+what+" and denied it from now on")
	}
	return nil
}

// grantRules are the rules an "always" answer saves: one per part of the
// request that asked. Edits are saved with the Edit alias, so the rule
// covers the file whichever tool writes it.
func (p *Permissions) grantRules(req PermissionRequest, asking []target, to SaveTarget) []Rule {
	var rules []Rule
	for _, t := range asking {
		var r Rule
		switch {
		case t.kind == targetPath:
			spec := "/" + escapeGlob(t.abs)
			if to == SaveProject {
				spec = p.relGlob(t.abs)
			}
			r = Rule{Tool: req.Tool, Spec: spec}
			switch {
			case t.write:
				r = Rule{Tool: editAlias, Spec: spec, Claude: true}
			case req.Access == AccessExecute:
				r = Rule{Tool: readAlias, Spec: spec, Claude: true}
			}
		case t.kind == targetCommand && t.parseErr == nil:
			r = Rule{Tool: req.Tool, Spec: quoteWords(t.cmd.Words)}
		case t.kind == targetHost:
			r = Rule{Tool: req.Tool, Spec: "domain:" + t.host}
		case t.kind == targetTool:
			r = Rule{Tool: req.Tool}
		default:
			continue
		}
		if !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	return rules
}

// quoteWords writes words back as a command, quoting those that need it.
func quoteWords(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = w
		if w == "" || strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") != "" {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

// remember keeps rules from an "always" answer: in memory at once, and in
// the chosen permissions.json so they are read back at the next start. If
// saving fails they still hold for this session, and Notice is told.
func (p *Permissions) remember(to SaveTarget, rules []Rule, allow bool) {
	file := map[SaveTarget]string{SaveProject: p.projectFile, SaveUser: p.userFile}[to]
	var session, saved []Rule
	for _, r := range rules {
		if file != "" {
			err := addToRuleFile(file, r, allow)
			if err == nil {
				r.Source = file
				saved = append(saved, r)
				continue
			}
			if p.notice != nil {
				p.notice(fmt.Sprintf("the rule %s holds for this session only: %v", r, err))
			}
		}
		r.Source = "this session"
		session = append(session, r)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if allow {
		p.sessionAllow = append(p.sessionAllow, session...)
		p.savedAllow = append(p.savedAllow, saved...)
	} else {
		p.sessionDeny = append(p.sessionDeny, session...)
		p.savedDeny = append(p.savedDeny, saved...)
	}
}

// WarnUnknownTools tells Notice about every rule whose tool name matches
// none of the known tools: such a rule protects or allows nothing.
func (p *Permissions) WarnUnknownTools(known []string) {
	p.mu.Lock()
	rules := slices.Concat(p.deny, p.ask, p.allow, p.savedAllow, p.savedDeny)
	p.mu.Unlock()
	for _, r := range rules {
		if !r.knownTool(known) && p.notice != nil {
			p.notice(fmt.Sprintf("warning: the rule %s (%s) names no known tool, so it matches nothing; tools: %s",
				r, r.Source, strings.Join(known, ", ")))
		}
	}
}

// EndTurn forgets the grants made "for this turn". The app calls it when a
// turn ends, however it ends.
func (p *Permissions) EndTurn() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.turnFiles = map[string]bool{}
	p.turnAllEdits = false
}

// Mode returns the current permission mode.
func (p *Permissions) Mode() PermissionMode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

// SetMode switches the permission mode, as the UI does when the user asks.
func (p *Permissions) SetMode(mode PermissionMode) error {
	m, err := ParsePermissionMode(string(mode))
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
	ModeAcceptEdits: "reads and edits inside the workspace are free; commands, web fetches, MCP calls and anything outside the workspace ask",
	ModePlan:        "only reading is possible; edits, commands and MCP calls are refused",
	ModeBypass:      "everything runs without asking, destructive commands included; only deny rules still hold",
	ModeDontAsk:     "what the rules allow runs; whatever would ask is denied",
}

// Describe shows the mode, the rules with where each came from, and the
// grants in force: the text of the /permissions command.
func (p *Permissions) Describe() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Permission mode: %s (%s)\n", p.mode, modeMeanings[p.mode])
	fmt.Fprintf(&b, "Workspace: %s\n", p.workspace)
	for _, group := range []struct {
		title string
		rules []Rule
	}{
		{"Deny rules", slices.Concat(p.deny, p.savedDeny, p.sessionDeny)},
		{"Ask rules", p.ask},
		{"Allow rules", slices.Concat(p.allow, p.savedAllow, p.sessionAllow)},
	} {
		fmt.Fprintf(&b, "%s:\n", group.title)
		if len(group.rules) == 0 {
			b.WriteString("  (none)\n")
		}
		for _, r := range group.rules {
			fmt.Fprintf(&b, "  %-40s from %s\n", r, r.Source)
		}
	}
	b.WriteString("Allowed for this turn:\n")
	files := slices.Sorted(maps.Keys(p.turnFiles))
	switch {
	case p.turnAllEdits:
		b.WriteString("  every edit inside the workspace\n")
	case len(files) == 0:
		b.WriteString("  (nothing)\n")
	}
	for _, f := range files {
		fmt.Fprintf(&b, "  edits to %s\n", f)
	}
	for _, f := range []struct{ name, path string }{{"Project", p.projectFile}, {"User", p.userFile}} {
		if f.path != "" {
			fmt.Fprintf(&b, "%s permissions file: %s\n", f.name, f.path)
		}
	}
	return b.String()
}
