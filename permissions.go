package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	Tool         string
	ToolUseID    string
	Input        json.RawMessage
	Access       Access
	Paths        []string                                 // paths the call touches, absolute
	Named        []string                                 // the same paths as named, links kept; judged instead of Paths, so rules naming a link hold
	Command      string                                   // the shell command, for AccessExecute
	Unsandboxed  string                                   // the model's reason for running Command outside the sandbox
	URL          string                                   // the address, for AccessNetwork
	Diff         string                                   // unified diff of the change, for AccessWrite
	Plan         func() (diff, summary string, err error) // reads the file for Diff and Summary once the call is not denied
	Summary      string                                   // one line saying what the call does
	HookDecision string                                   // a PreToolUse hook's "allow" or "ask"
	Grants       []Rule                                   // allow rules of the running skill or command
}

// Authorizer decides whether a tool call may run; an error denies it.
type Authorizer interface {
	Authorize(ctx context.Context, req PermissionRequest) error
}

// PermissionMode is the user's standing choice of how much to allow.
type PermissionMode string

// The permission modes, each described in modeMeanings.
const (
	ModeDefault     PermissionMode = "default"
	ModeAcceptEdits PermissionMode = "acceptEdits"
	ModePlan        PermissionMode = "plan"
	ModeBypass      PermissionMode = "bypassPermissions"
	ModeDontAsk     PermissionMode = "dontAsk"
)

// ParsePermissionMode checks a mode name; "" is the default mode.
func ParsePermissionMode(name string) (PermissionMode, error) {
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

// PermissionConfig is what NewPermissions needs.
type PermissionConfig struct {
	Mode                          PermissionMode // "" is ModeDefault
	Workspace                     string         // absolute, symlinks resolved
	ReadableDirs                  []string       // outside the workspace, readable without asking
	AddDirs                       []string       // treated as part of the workspace
	Home                          string         // for ~ and the shell start-up files; "" is $HOME
	TempDir                       string         // the sandbox's, which commands may name
	Settings                      []RuleSet
	AllowedTools, DisallowedTools []string // values of --allowedTools and --disallowedTools
	Asker                         Asker    // nil: headless, what would ask is denied
	ProjectFile, UserFile         string   // where "always" answers are saved; "" for none
	Notice                        func(string)
}

// Denial records one refused tool call for the JSON result.
type Denial struct {
	Tool      string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	Input     json.RawMessage `json:"tool_input,omitempty"`
	Reason    string          `json:"reason"`
}

// Permissions is the check every tool call passes, asking one question at a time.
type Permissions struct {
	workspace, home, tempDir string
	readableDirs, addDirs    []string
	projectFile, userFile    string
	notice                   func(string)
	asker                    Asker
	askSlot                  chan struct{} // held while a question is open
	mu                       sync.Mutex    // guards the fields below
	mode                     PermissionMode
	deny, ask, allow         []Rule // from settings, flags, permissions.json and "always" answers
	turn                     []Rule // edits allowed until the turn ends
	denials                  []Denial
}

// NewPermissions builds the check; a bad rule is an error naming where it is.
func NewPermissions(cfg PermissionConfig) (*Permissions, error) {
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
	sets := withFlagRules(cfg.Settings, cfg.AllowedTools, cfg.DisallowedTools)
	for _, file := range slices.DeleteFunc([]string{p.projectFile, p.userFile}, func(f string) bool { return f == "" }) {
		rf, err := readRuleFile(file)
		errs, sets = append(errs, err), append(sets, RuleSet{Source: file, Allow: rf.Allow, Deny: rf.Deny})
	}
	for _, set := range sets {
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

// Authorize allows, denies, or asks the user (headless: denies, naming a flag).
func (p *Permissions) Authorize(ctx context.Context, req PermissionRequest) error {
	d := hookAdjusted(p.decide(req), req.HookDecision)
	if d.Verdict != VerdictDeny && req.Plan != nil {
		diff, summary, err := req.Plan()
		if err != nil && p.decide(PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: req.Paths, Named: req.Named}).Verdict != VerdictAllow {
			return fmt.Errorf("%s cannot be carried out, and why is not shown because reading %s needs permission; read it with read_file first",
				req.Tool, strings.Join(req.Paths, ", "))
		} else if err != nil {
			return err
		}
		req.Diff, req.Summary = diff, cmp.Or(summary, req.Summary)
	}
	if d.Verdict == VerdictAsk && p.asker != nil {
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
	case p.asker == nil:
		return p.refuse(req, fmt.Sprintf("permission denied: %s needs approval (%s), and nobody can approve it in headless mode; to allow it, %s",
			describeCall(req), d.Reason, d.Hint))
	}
	prompt := p.prompt(req, d)
	answer, err := p.asker.Ask(ctx, prompt)
	if err != nil {
		return p.refuse(req, fmt.Sprintf("permission not granted: %s: %v", describeCall(req), err))
	}
	if answer.Choice == ChoiceAllowOnce && answer.Input != "" {
		return &InputReplaced{Input: json.RawMessage(answer.Input)}
	}
	return p.apply(req, d, prompt, answer)
}

// hookAdjusted applies a PreToolUse hook's answer to d: a deny stays, "allow" settles an unforced question, "ask" asks.
func hookAdjusted(d Decision, hookDecision string) Decision {
	switch {
	case hookDecision == "allow" && d.Verdict == VerdictAsk && !d.Strict:
		return Decision{Verdict: VerdictAllow}
	case hookDecision == "ask" && d.Verdict == VerdictAllow:
		return Decision{Verdict: VerdictAsk, Strict: true, Reason: "a PreToolUse hook asks for approval",
			Hint: "change the PreToolUse hook that asks"}
	}
	return d
}

// refuse records a denial and returns it as the error for the model.
func (p *Permissions) refuse(req PermissionRequest, reason string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.denials = append(p.denials, Denial{Tool: req.Tool, ToolUseID: req.ToolUseID, Input: req.Input, Reason: reason})
	return errors.New(reason)
}

// describeCall names a call in one short phrase.
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

// apply carries out the user's answer for this call and what it promises.
func (p *Permissions) apply(req PermissionRequest, d Decision, prompt Prompt, a Answer) error {
	what := describeCall(req)
	if !slices.ContainsFunc(prompt.Choices, func(c Choice) bool { return c.ID == a.Choice }) {
		return p.refuse(req, fmt.Sprintf("permission not granted: %s: the answer %q was not one of the choices", what, a.Choice))
	}
	rules := p.grantRules(req, d.asking, a.SaveTo)
	switch a.Choice {
	case ChoiceAllowFileTurn:
		rules = slices.DeleteFunc(rules, func(r Rule) bool { return r.Tool != editAlias }) // the files written, nothing else
	case ChoiceAllowEditsTurn:
		rules = []Rule{{Tool: editAlias}}
	case ChoiceAllowAlways, ChoiceDenyAlways:
		p.save(a.SaveTo, rules, a.Choice == ChoiceAllowAlways)
	}
	p.mu.Lock()
	if list := map[ChoiceID]*[]Rule{ChoiceAllowFileTurn: &p.turn, ChoiceAllowEditsTurn: &p.turn, ChoiceAllowAlways: &p.allow, ChoiceDenyAlways: &p.deny}[a.Choice]; list != nil {
		*list = append(*list, rules...)
	}
	p.mu.Unlock()
	switch a.Choice {
	case ChoiceDenyOnce:
		return p.refuse(req, "the user rejected "+what)
	case ChoiceDenyGuidance:
		return p.refuse(req, fmt.Sprintf("the user rejected %s and said: %s", what, a.Guidance))
	case ChoiceDenyAlways:
		return p.refuse(req, "the user rejected "+what+" and denied it from now on")
	}
	return nil
}

// grantRules are the rules an "always" answer saves, one per part that asked.
func (p *Permissions) grantRules(req PermissionRequest, asking []target, to SaveTarget) []Rule {
	var rules []Rule
	for _, t := range asking {
		r := Rule{Tool: req.Tool}
		switch {
		case t.kind == targetPath:
			r.Spec = "/" + globQuoter.Replace(t.abs)
			if to == SaveProject {
				r.Spec = p.relGlob(t.abs)
			}
			if t.write {
				r.Tool, r.Claude = editAlias, true
			} else if req.Access == AccessExecute {
				r.Tool, r.Claude = readAlias, true
			}
		case t.kind == targetCommand && t.parseErr == nil:
			r.Spec = quoteWords(t.cmd.Words)
		case t.kind == targetHost:
			r.Spec = "domain:" + t.host
		case t.kind != targetTool:
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
	quoted := slices.Clone(words)
	for i, w := range words {
		if w == "" || strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") != "" {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

// save writes an "always" answer's rules to the chosen file, if it can, noting where each is kept.
func (p *Permissions) save(to SaveTarget, rules []Rule, allow bool) {
	file := map[SaveTarget]string{SaveProject: p.projectFile, SaveUser: p.userFile}[to]
	for i, r := range rules {
		rules[i].Source = "this session"
		if file == "" {
			continue
		}
		if err := addToRuleFile(file, r, allow); err != nil {
			p.notice(fmt.Sprintf("the rule %s holds for this session only: %v", r, err))
		} else {
			rules[i].Source = file
		}
	}
}

// WarnUnknownTools warns about every rule naming none of the known tools.
func (p *Permissions) WarnUnknownTools(known []string) {
	p.mu.Lock()
	rules := slices.Concat(p.deny, p.ask, p.allow)
	p.mu.Unlock()
	for _, r := range rules {
		if !r.knownTool(known) {
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
		fmt.Fprintf(&b, "  edits to %s\n", cmp.Or(strings.TrimPrefix(r.Spec, "/"), "every file inside the workspace"))
	}
	for _, f := range []struct{ name, path string }{{"Project", p.projectFile}, {"User", p.userFile}} {
		if f.path != "" {
			fmt.Fprintf(&b, "%s permissions file: %s\n", f.name, f.path)
		}
	}
	return b.String()
}
