package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
)

// The permission check, in reading order: Authorize takes a PermissionRequest, decide splits it into
// targets (targetsOf; a command line's are read by commandTargets, permissions_command.go) and judges
// each (judge); what asks is put to the user by askApproval (permissions_approval.go). Path rules are in
// permissions_paths.go, rules in permissions_rules.go; permissions_config.go builds the check.

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
	Paths        []string                     // paths the call touches, absolute
	Named        []string                     // the same paths as named, links kept; judged instead of Paths, so rules naming a link hold
	Found        []fs.FileInfo                // what is at each of Paths as the tool found it (nil: nothing), the file it will use
	Command      string                       // the shell command, for AccessExecute
	Unsandboxed  string                       // the model's reason for running Command outside the sandbox
	URL          string                       // the address, for AccessNetwork
	Diff         string                       // unified diff of the change, for AccessWrite
	Change       PlannedWrite                 // the two sides of Diff
	Plan         func() (PlannedWrite, error) // reads the file for Change once the call is not denied
	Summary      string                       // one line saying what the call does
	HookDecision string                       // a PreToolUse hook's "allow" or "ask"
	Grants       []Rule                       // allow rules of the running skill or command (ToolEnv.Grants)
	Walks        bool                         // the tool walks the folder of Paths, passing over what WalkFilter names
	ByUser       bool                         // asked for the user's own command (/init), whose answer reaches the user, not the model
}

// Authorizer decides whether a tool call may run (an error denies it), and which paths a walk of a folder passes over.
type Authorizer interface {
	Authorize(ctx context.Context, req PermissionRequest) error
	WalkFilter(tool string) func(abs string) bool // nil: none
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

// verdict is what the permission decision concludes.
type verdict int

// The three verdicts: run it, refuse it, or let the user decide.
const (
	verdictAllow verdict = iota
	verdictDeny
	verdictAsk
)

// decision is the outcome of decide for one request or one part of it.
type decision struct {
	Verdict verdict
	Reason  string   // why it is denied, or why it needs asking
	Warning string   // what the prompt must stress, such as a write outside the workspace
	Hint    string   // what would allow it without asking, for headless denials
	Strict  bool     // grants are not consulted (an ask rule, a destructive command)
	asking  []target // the parts that ask, for the grants an answer makes
}

// target is one part of a request, judged on its own: a pathTarget, commandTarget, hostTarget,
// socketTarget, unsandboxedTarget, or wholeCall when the call names none of these.
type target interface{ isTarget() }

// pathTarget is one path a call touches, or a command names.
type pathTarget struct {
	abs        string      // absolute, links resolved
	lexical    string      // absolute, as written
	inside     bool        // in the workspace (or, for commands, the private temp folder)
	write, dir bool        // the call writes it; it is an existing folder
	walked     bool        // a folder the tool walks, passing over what deny and ask rules cover
	links      int         // hard links of an existing file
	found      fs.FileInfo // what is there now; nil: nothing
}

// commandTarget is one simple command a line runs, or why the line is beyond the check.
type commandTarget struct {
	cmd        simpleCommand
	unreadable error // why the line is beyond the check; cmd is then empty
}

// hostTarget is the host a call fetches from, normalised.
type hostTarget struct{ host string }

// socketTarget is a /dev/tcp or /dev/udp redirection, which opens a connection.
type socketTarget struct{ device string }

// unsandboxedTarget is the model's request to run a command outside the sandbox.
type unsandboxedTarget struct{}

// wholeCall is the call as a whole, for a call that names nothing else.
type wholeCall struct{}

// isTarget marks the kinds of target; no other type is one.
func (pathTarget) isTarget()        {}
func (commandTarget) isTarget()     {}
func (hostTarget) isTarget()        {}
func (socketTarget) isTarget()      {}
func (unsandboxedTarget) isTarget() {}
func (wholeCall) isTarget()         {}

// Permissions is the check every tool call passes, asking one question at a time.
type Permissions struct {
	workspace, home, tempDir string
	readableDirs, addDirs    []string
	runOutside               []string      // files run outside the sandbox (hooks' scripts), which edits ask for
	resultsDir               func() string // the session's stored results
	projectFile, userFile    string
	notice                   func(string)
	asker                    Asker
	askSlot                  chan struct{} // held while a question is open
	mu                       sync.Mutex    // guards the fields below
	mode                     PermissionMode
	autoAllow                bool        // sandbox.autoAllowBashIfSandboxed, while the sandbox holds every guarantee
	hidesDenied              func() bool // whether commands run in the sandbox, which hides from them what Read deny rules cover
	deny, ask, allow         []Rule      // from settings, flags, permissions.json and "always" answers
	turn                     []Rule      // what "allow this turn" answers allowed, until the turn ends
	denials                  []Denial
}

// PlannedWrite is what a write does to one file: its name as shown, its text
// before and after, and the call in words (the diff's size is added to it).
type PlannedWrite struct{ Name, Before, After, Summary string }

// planned fills in the request's Change, Diff and Summary from its Plan.
func (req *PermissionRequest) planned() error {
	c, err := req.Plan()
	req.Change, req.Diff = c, unifiedDiff(c.Name, c.Before, c.After)
	if c.Summary != "" {
		req.Summary = fmt.Sprintf("%s (%s)", c.Summary, diffStat(req.Diff))
	}
	return err
}

// Authorize allows, denies, or asks the user (askApproval, in permissions_approval.go); headless, what would ask is denied, naming a flag.
func (p *Permissions) Authorize(ctx context.Context, req PermissionRequest) error {
	d := hookAdjusted(p.decide(req), req.HookDecision)
	if d.Verdict != verdictDeny && req.Plan != nil {
		if err := req.planned(); err != nil && p.decide(PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: req.Paths, Named: req.Named}).Verdict != verdictAllow {
			return fmt.Errorf("%s cannot be carried out, and why is not shown because reading %s needs permission; read it with read_file first",
				req.Tool, strings.Join(req.Paths, ", "))
		} else if err != nil {
			return err
		}
	}
	if d.Verdict == verdictAsk && p.asker != nil {
		return p.askApproval(ctx, req)
	}
	return p.settle(req, d)
}

// settle carries out a decision nobody is asked about: allow, deny, or, with nobody to ask, deny naming what would allow it.
func (p *Permissions) settle(req PermissionRequest, d decision) error {
	switch d.Verdict {
	case verdictAllow:
		return nil
	case verdictDeny:
		return p.refuse(req, fmt.Sprintf("permission denied: %s: %s", describeCall(req), d.Reason))
	}
	return p.refuse(req, fmt.Sprintf("permission denied: %s needs approval (%s), and nobody can approve it in headless mode; to allow it, %s",
		describeCall(req), d.Reason, d.Hint))
}

// hookAdjusted applies a PreToolUse hook's answer to d: a deny stays, "allow" settles an unforced question, "ask" asks.
func hookAdjusted(d decision, hookDecision string) decision {
	switch {
	case hookDecision == "allow" && d.Verdict == verdictAsk && !d.Strict:
		return decision{Verdict: verdictAllow}
	case hookDecision == "ask" && d.Verdict == verdictAllow:
		return decision{Verdict: verdictAsk, Strict: true, Reason: "a PreToolUse hook asks for approval",
			Hint: "change the PreToolUse hook that asks"}
	}
	return d
}

// refuse records a denial and returns it as the error for the model.
func (p *Permissions) refuse(req PermissionRequest, reason string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	tool, input := claudeCall(req.Tool, req.Input, p.workspace) // as programs name it
	p.denials = append(p.denials, Denial{Tool: tool, ToolUseID: req.ToolUseID, Input: input, Reason: reason})
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

// decide judges a request's parts without asking: one denied denies it all.
func (p *Permissions) decide(req PermissionRequest) decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	targets, err := p.targetsOf(req)
	if err != nil {
		return decision{Verdict: verdictDeny, Reason: err.Error()}
	}
	d := decision{Verdict: verdictAllow}
	var reasons, hints []string
	for _, t := range targets {
		v := p.judge(req, t)
		if v.Verdict == verdictDeny {
			return v
		}
		if v.Verdict == verdictAsk {
			d.Verdict, d.Strict, d.asking = verdictAsk, d.Strict || v.Strict, append(d.asking, t)
			reasons, hints = appendNew(reasons, v.Reason), appendNew(hints, v.Hint)
			d.Warning = cmp.Or(v.Warning, d.Warning)
		}
	}
	d.Reason, d.Hint = strings.Join(reasons, "; "), strings.Join(hints, " and ")
	if d.Verdict == verdictAsk && p.mode == ModeDontAsk {
		return decision{Verdict: verdictDeny, Reason: d.Reason + " (the dontAsk mode denies what would ask)", Hint: d.Hint}
	}
	return d
}

// appendNew appends s unless it is empty or already there.
func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// targetsOf splits a request into the parts it is judged by.
func (p *Permissions) targetsOf(req PermissionRequest) ([]target, error) {
	var targets []target
	paths := req.Paths
	if len(req.Named) > 0 {
		paths = req.Named // the same paths as named: each target keeps the name and where it leads
	}
	for i, given := range paths {
		t, err := p.newPathTarget(p.workspace, given, req.Access == AccessWrite)
		if err == nil && len(req.Found) == len(paths) && (t.abs != req.Paths[i] || (t.found == nil) != (req.Found[i] == nil) ||
			t.found != nil && !os.SameFile(t.found, req.Found[i])) { // the tool uses the file judged, so it must be the one it found
			err = errors.New("it changed while it was being checked (a link or another file took its place); try again")
		}
		if err != nil {
			return nil, fmt.Errorf("cannot check path %q: %w", given, err)
		}
		t.walked = req.Walks
		targets = append(targets, t)
	}
	if req.Access == AccessExecute {
		targets = append(targets, p.commandTargets(req.Command)...)
	}
	if req.Access == AccessNetwork {
		u, err := url.Parse(req.URL)
		if err != nil || u.Hostname() == "" {
			return nil, fmt.Errorf("address %q has no host", req.URL)
		}
		targets = append(targets, hostTarget{host: normalHost(u.Hostname())})
	}
	if req.Unsandboxed != "" {
		targets = append(targets, unsandboxedTarget{})
	}
	if len(targets) == 0 {
		targets = append(targets, wholeCall{})
	}
	return targets, nil
}

// judge runs one target through the decision's stages in order: deny rules, what may reveal what they cover, plan mode, leaving the sandbox,
// protected paths, bypass mode, what always asks, ask rules, sandboxed commands under auto-allow, allow
// rules and grants, and the mode's default.
func (p *Permissions) judge(req PermissionRequest, t target) decision {
	denied := t // a folder a command reads is not denied for what it holds: the sandbox hides that, or revealReason asks
	if path, ok := t.(pathTarget); ok && req.Access == AccessExecute && !path.write {
		path.walked = true
		denied = path
	}
	if r, ok := p.firstRule(req, denied, p.restricts, p.deny); ok {
		return decision{Verdict: verdictDeny, Reason: fmt.Sprintf("denied by the rule %s (%s)%s", r, r.Source, unreadableNote(r, t))}
	}
	if reason := p.revealReason(req, t); reason != "" {
		return decision{Verdict: verdictAsk, Strict: true, Hint: "nothing allows it without asking: the user must approve it", Reason: reason}
	}
	verbs := map[Access]string{AccessWrite: "change files", AccessExecute: "run a command", AccessExternal: "call an MCP tool that may change things"}
	if p.mode == ModePlan && verbs[req.Access] != "" && !readsOnly(req, t) {
		return decision{Verdict: verdictDeny, Reason: fmt.Sprintf("plan mode allows only reading, and %s would %s; present the plan with exit_plan_mode instead, and the user will leave plan mode to carry it out", req.Tool, verbs[req.Access])}
	}
	if _, ok := t.(unsandboxedTarget); ok {
		if _, ok := p.firstRule(req, t, p.allows, p.allow); ok {
			return decision{Verdict: verdictAllow}
		}
		return decision{Verdict: verdictAsk, Strict: true, Reason: "the model asks to run this command outside the sandbox, because: " + req.Unsandboxed,
			Warning: "outside the sandbox the command can write anywhere, use the network and read secrets", Hint: flagHint(req.Tool, unsandboxedRule)}
	}
	if reason := p.protectedReason(req, t); reason != "" {
		return decision{Verdict: verdictAsk, Reason: reason, Strict: true, Hint: "nothing allows it without asking: the user must approve it"}
	}
	if p.mode == ModeBypass {
		return decision{Verdict: verdictAllow}
	}
	if reason := alwaysAsksReason(t); reason != "" {
		return decision{Verdict: verdictAsk, Reason: reason, Strict: true, Hint: "rerun with --permission-mode bypassPermissions (nothing else allows it without asking)"}
	}
	if r, ok := p.firstRule(req, t, p.restricts, p.ask); ok {
		return decision{Verdict: verdictAsk, Reason: fmt.Sprintf("the rule %s (%s) asks", r, r.Source), Strict: true,
			Hint: fmt.Sprintf("remove the ask rule %s from %s", r, r.Source)}
	}
	if p.autoAllow && req.Access == AccessExecute {
		return decision{Verdict: verdictAllow} // the sandbox holds what the command may do
	}
	if _, ok := p.firstRule(req, t, p.allows, p.allow, req.Grants, p.turn); ok {
		return decision{Verdict: verdictAllow}
	}
	return p.modeDefault(req, t)
}

// revealReason says why a command may print what a Read deny or ask rule covers though none covers what it names,
// or "": a git command printing what the repository holds of paths in the workspace (the sandbox hides files,
// not their history), or one reading a folder that holds files a deny rule covers, outside the sandbox that
// hides them.
func (p *Permissions) revealReason(req PermissionRequest, t target) string {
	rules, at, why := slices.Concat(p.deny, p.ask), p.workspace, "git may print what the repository's history holds of files the rule %[1]s (%[2]s) covers; the sandbox hides the files, not their history"
	switch t := t.(type) {
	case commandTarget:
		if t.unreadable != nil || !showsHistory(t.cmd.Words) {
			return ""
		}
	case pathTarget:
		if req.Access != AccessExecute || t.write || !t.dir || req.Unsandboxed == "" && p.hidesDenied != nil && p.hidesDenied() {
			return ""
		}
		rules, at, why = p.deny, t.abs, "%[3]s may hold files the rule %[1]s (%[2]s) denies, which the command may read: no sandbox hides them from it"
	default:
		return ""
	}
	for _, r := range rules {
		if r.Spec != "" && r.matchesTool("read_file", AccessRead) && slices.ContainsFunc(p.ruleGlobs(r), func(glob string) bool { return holdsMatch(glob, strings.ToLower(at)) }) {
			return fmt.Sprintf(why, r, r.Source, at)
		}
	}
	return ""
}

// unsandboxedRule is the rule that lets commands leave the sandbox.
const unsandboxedRule = "sandbox:false"

// unreadableNote says why a deny rule covers a command the check cannot read, or "".
func unreadableNote(r Rule, t target) string {
	c, ok := t.(commandTarget)
	if !ok || r.Spec == "" || c.unreadable == nil && r.namesProgram(c.cmd) {
		return ""
	}
	return fmt.Sprintf("; %v, so the check cannot tell whether it runs the program it denies; write the command as plain words",
		cmp.Or[error](c.unreadable, errNotSimple("words with patterns")))
}

// alwaysAsksReason says why a target asks whatever the rules say, short of bypass mode: a
// destructive command, a command the check cannot read, a write to a file with other names.
func alwaysAsksReason(t target) string {
	switch t := t.(type) {
	case commandTarget:
		if t.unreadable != nil {
			return t.unreadable.Error() + ", which the check does not analyse, so no rule can vouch for it"
		}
		return destructiveReason(t.cmd.Words)
	case pathTarget:
		if t.write && t.links > 1 {
			return fmt.Sprintf("%s has %d hard links, so writing it changes a file elsewhere too", t.abs, t.links)
		}
	}
	return ""
}

// firstRule returns the first rule of the lists that names the call's tool and
// covers the target as covers means it: p.restricts for deny and ask rules, p.allows for the rest.
func (p *Permissions) firstRule(req PermissionRequest, t target, covers func(Rule, target) bool, lists ...[]Rule) (Rule, bool) {
	tool, access := req.Tool, req.Access
	if t, ok := t.(pathTarget); ok && req.Access == AccessExecute { // a path a command names is judged as the file tools judge it
		tool, access = map[bool]string{false: "read_file", true: "write_file"}[t.write], map[bool]Access{false: AccessRead, true: AccessWrite}[t.write]
	}
	for _, r := range slices.Concat(lists...) {
		if r.matchesTool(tool, access) && covers(r, t) {
			return r, true
		}
	}
	return Rule{}, false
}

// restricts reports whether a deny or ask rule covers the target or may: where
// the check cannot tell (a link, a pattern, a word it cannot read), the rule holds.
func (p *Permissions) restricts(r Rule, t target) bool {
	switch t := t.(type) {
	case pathTarget: // as written, where it leads, through links, or inside a folder the tool does not walk
		abs, lexical := strings.ToLower(t.abs), strings.ToLower(t.lexical)
		return r.Spec == "" || slices.ContainsFunc(p.ruleGlobs(r), func(glob string) bool {
			return globCovers(glob, abs) || globCovers(glob, lexical) || t.dir && !t.walked && holdsMatch(glob, abs)
		})
	case commandTarget:
		return r.Spec == "" || t.unreadable != nil || t.cmd.Globbed || r.namesProgram(t.cmd)
	case hostTarget:
		return r.Spec == "" || r.coversHost(t.host)
	case unsandboxedTarget:
		return r.Spec == "" || r.Spec == unsandboxedRule
	}
	return r.Spec == ""
}

// allows reports whether an allow rule or grant surely covers the target: a bare
// rule covers paths inside the workspace and public hosts, nothing beyond.
func (p *Permissions) allows(r Rule, t target) bool {
	switch t := t.(type) {
	case pathTarget:
		return r.Spec == "" && t.inside || r.Spec != "" && globCovers(r.pathGlob(p.workspace, p.home), t.abs)
	case commandTarget:
		return r.matchesCommand(t.cmd)
	case hostTarget:
		return r.Spec == "" && !privateHost(t.host) || r.Spec != "" && r.coversHost(t.host)
	case unsandboxedTarget:
		return r.Spec == unsandboxedRule
	}
	return r.Spec == ""
}

// modeDefault is the verdict when no rule or grant applies.
func (p *Permissions) modeDefault(req PermissionRequest, t target) decision {
	d := decision{Verdict: verdictAsk}
	switch t := t.(type) {
	case pathTarget:
		return p.pathDefault(req, t)
	case commandTarget:
		if readOnly(t.cmd) || p.mode == ModeAcceptEdits && slices.Contains([]string{"touch", "mkdir"}, t.cmd.Words[0]) && len(t.cmd.Redirects) == 0 {
			return decision{Verdict: verdictAllow} // acceptEdits' touch and mkdir make files, as an edit does; their paths are judged on their own
		}
		d.Reason, d.Hint = "running a command needs approval", flagHint(req.Tool, suggestPrefix(t.cmd.Words))
	case socketTarget:
		d.Reason, d.Hint = "the command opens a network connection through "+t.device, "rerun with --permission-mode bypassPermissions"
	case hostTarget:
		d.Reason, d.Hint = "fetching from "+t.host+" needs approval", flagHint(req.Tool, "domain:"+t.host)
		if privateHost(t.host) {
			d.Reason = t.host + " is a loopback, private or link-local address, which needs a rule naming it"
			d.Warning = "this reaches a machine on your own network or computer"
		}
	case wholeCall:
		if req.Access == AccessRead {
			return decision{Verdict: verdictAllow}
		}
		d.Reason, d.Hint = "calling "+req.Tool+" needs approval", flagHint(req.Tool, "")
	}
	return d
}

// readsOnly reports whether a part of a command line only reads: a read-only command, or a path it reads.
func readsOnly(req PermissionRequest, t target) bool {
	c, isCommand := t.(commandTarget)
	path, isPath := t.(pathTarget)
	return isCommand && readOnly(c.cmd) || isPath && !path.write && req.Access == AccessExecute
}

// flagHint says which --allowedTools flag allows a tool call.
func flagHint(tool, spec string) string {
	return fmt.Sprintf("rerun with --allowedTools %q", Rule{Tool: tool, Spec: spec}.String())
}
