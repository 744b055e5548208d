package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Verdict is what the permission decision concludes.
type Verdict int

// The three verdicts.
const (
	VerdictAllow Verdict = iota // run it
	VerdictDeny                 // refuse it; the reason goes back to the model
	VerdictAsk                  // the user decides (headless: refuse it)
)

// Decision is the outcome of decide for one request.
type Decision struct {
	Verdict Verdict
	Reason  string // why it is denied, or why it needs asking
	Warning string // what the prompt must stress, such as a write outside the workspace
	Hint    string // what would allow it without asking, for headless denials
	// Strict is set when grants are not consulted for this request (a
	// destructive command, an ask rule): only one-call approvals make sense.
	Strict bool
	asking []target // the parts of the request that ask, for the grants an answer makes
}

// targetKind says what one part of a request is.
type targetKind int

// The kinds of part a request is judged by.
const (
	targetTool        targetKind = iota // the call as a whole
	targetPath                          // one path it touches
	targetCommand                       // one simple command it runs
	targetHost                          // the host it fetches from
	targetUnsandboxed                   // running a command outside the sandbox
)

// target is one part of a request. A request is allowed only if every
// part is; any part denied denies it; any part that asks makes it ask.
type target struct {
	kind     targetKind
	abs      string // targetPath: absolute, symlinks resolved
	lexical  string // targetPath: absolute, before symlinks are followed
	inside   bool   // targetPath: abs lies in the workspace
	cmd      shellCommand
	parseErr error // targetCommand: the command line could not be parsed
	// unsettled is set on the commands of a line after which the places
	// their paths name cannot be judged beforehand (see unsettlesPaths).
	unsettled bool
	host      string
}

// verdict is the judgement of one target.
type verdict struct {
	kind                  Verdict
	reason, hint, warning string
	strict                bool
}

// decide judges a request without asking anyone. The order is: deny rules
// (settings, flags, saved "deny always", session denials), plan mode's
// refusal of anything but reading, bypass mode, destructive commands and
// protected files (always ask), ask rules, allow rules, grants of this
// turn, of this session, saved grants, and last the mode's default.
func (p *Permissions) decide(req PermissionRequest) Decision {
	p.mu.Lock()
	defer p.mu.Unlock()
	targets, err := p.targetsOf(req)
	if err != nil {
		return Decision{Verdict: VerdictDeny, Reason: err.Error()}
	}
	d := Decision{Verdict: VerdictAllow}
	var reasons, hints []string
	for _, t := range targets {
		v := p.judge(req, t)
		switch v.kind {
		case VerdictDeny:
			return Decision{Verdict: VerdictDeny, Reason: v.reason}
		case VerdictAsk:
			d.Verdict = VerdictAsk
			d.Strict = d.Strict || v.strict
			d.asking = append(d.asking, t)
			reasons = appendNew(reasons, v.reason)
			hints = appendNew(hints, v.hint)
			if v.warning != "" {
				d.Warning = v.warning
			}
		}
	}
	d.Reason = strings.Join(reasons, "; ")
	d.Hint = strings.Join(hints, " and ")
	if d.Verdict == VerdictAsk && p.mode == ModeDontAsk {
		return Decision{Verdict: VerdictDeny, Reason: d.Reason + " (the dontAsk mode denies what would ask)", Hint: d.Hint}
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

// targetsOf splits a request into the parts it is judged by: each path,
// each simple command, the host fetched, or else the call as a whole. A
// path that cannot be resolved or an address without a host is an error.
func (p *Permissions) targetsOf(req PermissionRequest) ([]target, error) {
	var targets []target
	for _, given := range req.Paths {
		abs, inside, err := resolvePath(p.workspace, given)
		if err != nil {
			return nil, fmt.Errorf("cannot check path %q: %w", given, err)
		}
		inside = inside || slices.ContainsFunc(p.addDirs, func(dir string) bool { return within(dir, abs) })
		lexical := given
		if !filepath.IsAbs(lexical) {
			lexical = filepath.Join(p.workspace, lexical)
		}
		targets = append(targets, target{kind: targetPath, abs: abs, lexical: filepath.Clean(lexical), inside: inside})
	}
	switch req.Access {
	case AccessExecute:
		cmds, err := splitCommands(req.Command)
		if err != nil {
			return append(targets, target{kind: targetCommand, parseErr: err}), nil
		}
		for _, c := range cmds {
			cmds = append(cmds, innerCommands(c, 0)...)
		}
		unsettled := p.unsettlesPaths(cmds)
		for _, c := range cmds {
			targets = append(targets, target{kind: targetCommand, cmd: c, unsettled: unsettled})
		}
	case AccessNetwork:
		host, err := urlHost(req.URL)
		if err != nil {
			return nil, err
		}
		targets = append(targets, target{kind: targetHost, host: host})
	case AccessExternal:
		targets = append(targets, target{kind: targetTool})
	}
	if req.Unsandboxed != "" {
		targets = append(targets, target{kind: targetUnsandboxed})
	}
	if len(targets) == 0 {
		targets = append(targets, target{kind: targetTool})
	}
	return targets, nil
}

// judge runs one target through the stages of decide.
func (p *Permissions) judge(req PermissionRequest, t target) verdict {
	if r, ok := p.firstMatch(req, t, true, p.deny, p.sessionDeny, p.savedDeny); ok {
		return verdict{kind: VerdictDeny, reason: fmt.Sprintf("denied by the rule %s (%s)", r, r.Source)}
	}
	if p.mode == ModePlan && (req.Access == AccessWrite || req.Access == AccessExecute || req.Access == AccessExternal) {
		return verdict{kind: VerdictDeny, reason: fmt.Sprintf("plan mode allows only reading, and %s would %s; present the plan instead, and the user will leave plan mode to carry it out", req.Tool, accessVerb(req.Access))}
	}
	if t.kind == targetUnsandboxed {
		return p.judgeUnsandboxed(req, t)
	}
	if p.mode == ModeBypass {
		return verdict{kind: VerdictAllow}
	}
	if reason := p.strictReason(req, t); reason != "" {
		return verdict{kind: VerdictAsk, reason: reason, strict: true,
			hint: "rerun with --permission-mode bypassPermissions (nothing else allows it without asking)"}
	}
	if r, ok := p.firstMatch(req, t, true, p.ask); ok {
		return verdict{kind: VerdictAsk, reason: fmt.Sprintf("the rule %s (%s) asks", r, r.Source), strict: true,
			hint: fmt.Sprintf("remove the ask rule %s from %s", r, r.Source)}
	}
	if _, ok := p.firstMatch(req, t, false, p.allow, req.Grants); ok {
		return verdict{kind: VerdictAllow}
	}
	if p.granted(req, t) {
		return verdict{kind: VerdictAllow}
	}
	return p.modeDefault(req, t)
}

// unsandboxedRule is the rule that lets commands leave the sandbox
// without asking.
const unsandboxedRule = "sandbox:false"

// judgeUnsandboxed judges leaving the sandbox: in every mode it asks,
// showing the model's reason, unless an explicit rule allows it.
func (p *Permissions) judgeUnsandboxed(req PermissionRequest, t target) verdict {
	if _, ok := p.firstMatch(req, t, false, p.allow, p.savedAllow); ok {
		return verdict{kind: VerdictAllow}
	}
	return verdict{kind: VerdictAsk, strict: true, reason: "the model asks to run this command outside the sandbox, because: " + req.Unsandboxed,
		warning: "outside the sandbox the command can write anywhere, use the network and read secrets",
		hint:    flagHint(req.Tool, unsandboxedRule)}
}

// accessVerb says what a kind of access does, to finish a sentence.
func accessVerb(a Access) string {
	switch a {
	case AccessWrite:
		return "change files"
	case AccessExecute:
		return "run a command"
	case AccessExternal:
		return "call an MCP tool that may change things"
	}
	return "reach outside"
}

// firstMatch returns the first rule of the lists that covers the target.
// Broad matching (deny and ask rules) also matches a path as written
// before symlinks are followed, and lets a rule without a specifier cover
// paths outside the workspace; allow rules get neither.
func (p *Permissions) firstMatch(req PermissionRequest, t target, broad bool, lists ...[]Rule) (Rule, bool) {
	for _, list := range lists {
		for _, r := range list {
			if p.ruleCovers(r, req, t, broad) {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// ruleCovers reports whether one rule covers one target.
func (p *Permissions) ruleCovers(r Rule, req PermissionRequest, t target, broad bool) bool {
	if !r.matchesTool(req.Tool, req.Access) {
		return false
	}
	switch t.kind {
	case targetPath:
		if broad && r.Spec == "" {
			return true
		}
		return r.matchesPath(t.abs, p.workspace, t.inside) || broad && r.matchesPath(t.lexical, p.workspace, t.inside)
	case targetCommand:
		if t.parseErr != nil {
			return r.Spec == ""
		}
		if broad {
			return slices.ContainsFunc(commandViews(t.cmd), r.matchesCommand)
		}
		return r.matchesCommand(t.cmd)
	case targetHost:
		return r.matchesHost(t.host)
	case targetUnsandboxed:
		return r.Spec == unsandboxedRule || broad && r.Spec == ""
	}
	return r.Spec == ""
}

// strictReason returns why a target must be asked about whatever the
// rules and grants say, or "".
func (p *Permissions) strictReason(req PermissionRequest, t target) string {
	switch {
	case t.kind == targetPath && req.Access == AccessWrite:
		return p.protectedReason(t.abs)
	case t.kind == targetCommand && t.parseErr != nil:
		return fmt.Sprintf("the command cannot be parsed (%v), so no rule can vouch for it", t.parseErr)
	case t.kind == targetCommand:
		ws := p.workspace
		if t.unsettled {
			ws = ""
		}
		if reason := destructiveReason(t.cmd, ws); reason != "" {
			return reason
		}
		return p.commandWriteReason(t.cmd, t.unsettled)
	}
	return ""
}

// unsettlesPaths reports whether a command line changes what its paths
// name before they are used, so that they cannot be judged beforehand: it
// makes a symbolic link and runs more (`ln -s ~/.bashrc x; echo >> x`),
// or it changes to a folder outside the workspace, inside .git or a
// .minicode folder, or one that cannot be known (cd alone, cd -, cd $DIR,
// popd, or any cd once the line sets CDPATH). Moving to another folder
// inside the workspace only makes relative paths land deeper.
func (p *Permissions) unsettlesPaths(cmds []shellCommand) bool {
	for _, c := range cmds {
		if slices.ContainsFunc(c.Words, func(w string) bool { return strings.Contains(w, "CDPATH") }) {
			return true
		}
		words := unwrapCommand(c.Words)
		if len(words) == 0 {
			continue
		}
		switch filepath.Base(words[0]) {
		case "cd", "pushd":
			args := skipOptions(words[1:], nil)
			if len(args) != 1 || args[0] == "-" || !p.plainFolder(args[0]) {
				return true
			}
		case "popd":
			return true
		case "ln":
			if hasFlag(words[1:], "s", "--symbolic") && len(cmds) > 1 {
				return true
			}
		}
	}
	return false
}

// plainFolder reports whether a folder named in a command lies inside the
// workspace and neither in .git nor in a .minicode folder, as written and
// as resolved.
func (p *Permissions) plainFolder(dir string) bool {
	if !insideWorkspace(p.workspace, dir) || mayName(dir, ".git") || mayName(dir, ".minicode") {
		return false
	}
	abs, _, err := resolvePath(p.workspace, dir)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(p.workspace, abs)
	return err == nil && !mayName(rel, ".git") && !mayName(rel, ".minicode")
}

// commandWriteReason returns why the files a command writes make it ask
// whatever the rules say: a redirection out of the workspace, a
// redirection or file operand that is a protected file, or any of them on
// a line that unsettles its paths.
func (p *Permissions) commandWriteReason(cmd shellCommand, unsettled bool) string {
	var written []string
	for _, r := range cmd.Redirects {
		if r.writes() && !harmlessTarget(r.Target) {
			if !insideWorkspace(p.workspace, r.Target) {
				return "the command writes to a file outside the workspace: " + r.Target
			}
			if strings.ContainsAny(r.Target, "*?[") {
				return "the command writes to whichever file a pattern matches, which may be a link leading anywhere: " + r.Target
			}
			written = append(written, r.Target)
		}
	}
	words := unwrapCommand(cmd.Words)
	if len(words) > 0 && writesFiles[filepath.Base(words[0])] {
		for _, w := range changedOperands(words) {
			if !unsettled && !insideWorkspace(p.workspace, w) {
				return "the command changes a file outside the workspace: " + w
			}
		}
	}
	if len(words) > 0 && (writesFiles[filepath.Base(words[0])] || filepath.Base(words[0]) == "sed") {
		written = append(written, words[1:]...)
	}
	for _, w := range written {
		if unsettled && !strings.HasPrefix(w, "-") {
			return "the command line changes folder or makes symbolic links first, so where it writes cannot be checked: " + w
		}
		if abs, _, err := resolvePath(p.workspace, w); err == nil && !strings.HasPrefix(w, "-") {
			if reason := p.protectedReason(abs); reason != "" {
				return reason + ": " + w
			}
		}
	}
	return ""
}

// changedOperands returns the files a file-changing command (one of
// writesFiles) changes: the destination of cp, ln and install (the -t
// folder, or the last of two or more operands), and every operand of the
// others, mv's sources included since it moves them away.
func changedOperands(words []string) []string {
	var operands []string
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "-t" || w == "--target-directory":
			if i+1 < len(words) {
				return []string{words[i+1]}
			}
		case strings.HasPrefix(w, "--target-directory="):
			return []string{strings.TrimPrefix(w, "--target-directory=")}
		case !strings.HasPrefix(w, "-"):
			operands = append(operands, w)
		}
	}
	switch filepath.Base(words[0]) {
	case "cp", "ln", "install":
		if len(operands) < 2 {
			return nil
		}
		return operands[len(operands)-1:]
	}
	return operands
}

// harmlessTarget reports whether a file a redirection writes is a device
// that keeps nothing.
func harmlessTarget(target string) bool {
	switch target {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	fd, ok := strings.CutPrefix(target, "/dev/fd/")
	return ok && fd != "" && strings.Trim(fd, "0123456789") == ""
}

// protectedReason returns why writing a path always asks: files that a
// mistaken write would wreck silently, and the configuration files through
// which the agent could grant itself permissions or start programs.
func (p *Permissions) protectedReason(abs string) string {
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	switch {
	case abs == p.projectFile || abs == p.userFile,
		(filepath.Base(dir) == ".minicode" || p.userFile != "" && dir == filepath.Dir(p.userFile)) && configFiles[base],
		abs == filepath.Join(p.workspace, ".mcp.json"):
		return "this file configures permissions or MCP servers"
	case within(p.workspace, abs) && inGitDir(strings.TrimPrefix(abs, p.workspace)):
		return "writing into .git can corrupt the repository"
	}
	return ""
}

// configFiles are the names of configuration files that can widen what
// the agent may do.
var configFiles = map[string]bool{"settings.json": true, "permissions.json": true, "mcp.json": true}

// granted reports whether an earlier answer covers the target: grants of
// this turn, of this session, then saved ones.
func (p *Permissions) granted(req PermissionRequest, t target) bool {
	if t.kind == targetPath && req.Access == AccessWrite && (p.turnFiles[t.abs] || p.turnAllEdits && t.inside) {
		return true
	}
	_, ok := p.firstMatch(req, t, false, p.sessionAllow, p.savedAllow)
	return ok
}

// modeDefault is the verdict when no rule or grant applies.
func (p *Permissions) modeDefault(req PermissionRequest, t target) verdict {
	switch {
	case t.kind == targetCommand:
		return verdict{kind: VerdictAsk, reason: "running a command needs approval",
			hint: flagHint(req.Tool, suggestPrefix(t.cmd.Words))}
	case t.kind == targetHost:
		return verdict{kind: VerdictAsk, reason: "fetching from " + t.host + " needs approval",
			hint: flagHint(req.Tool, "domain:"+t.host)}
	case req.Access == AccessWrite && t.kind == targetPath && !t.inside:
		return verdict{kind: VerdictAsk, reason: "writes outside the workspace: " + t.abs,
			warning: "this writes outside the workspace (" + t.abs + ")", hint: flagHint(req.Tool, escapeGlob(t.abs))}
	case req.Access == AccessWrite && p.mode == ModeAcceptEdits:
		return verdict{kind: VerdictAllow}
	case req.Access == AccessWrite:
		return verdict{kind: VerdictAsk, reason: "edits need approval in " + string(p.mode) + " mode",
			hint: "rerun with --permission-mode acceptEdits or " + strings.TrimPrefix(flagHint(editAlias, p.relGlob(t.abs)), "rerun with ")}
	case t.kind == targetPath && !t.inside && !p.readableWithoutAsking(t.abs):
		return verdict{kind: VerdictAsk, reason: "reaches outside the workspace: " + t.abs,
			hint: flagHint(req.Tool, escapeGlob(t.abs))}
	case t.kind == targetTool && req.Access != AccessRead:
		return verdict{kind: VerdictAsk, reason: "calling " + req.Tool + " needs approval", hint: flagHint(req.Tool, "")}
	}
	return verdict{kind: VerdictAllow}
}

// readableWithoutAsking reports whether abs lies in one of the folders
// outside the workspace that may be read freely.
func (p *Permissions) readableWithoutAsking(abs string) bool {
	for _, dir := range p.readableDirs {
		if within(dir, abs) {
			return true
		}
	}
	return false
}

// flagHint says which --allowedTools flag allows a tool call.
func flagHint(tool, spec string) string {
	return fmt.Sprintf("rerun with --allowedTools %q", Rule{Tool: tool, Spec: spec}.String())
}

// relGlob is the glob naming exactly one path: relative to the workspace
// when inside it, absolute otherwise; "" for no path.
func (p *Permissions) relGlob(abs string) string {
	if abs == "" {
		return ""
	}
	if rel, err := filepath.Rel(p.workspace, abs); err == nil && within(p.workspace, abs) && rel != "." {
		return escapeGlob(filepath.ToSlash(rel))
	}
	return escapeGlob(abs)
}

// subcommand matches words that read as a subcommand, such as "test" in
// "go test".
var subcommand = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// suggestPrefix proposes a prefix rule for a command: its program, and
// its subcommand if it has one.
func suggestPrefix(words []string) string {
	switch {
	case len(words) == 0:
		return ""
	case len(words) >= 2 && subcommand.MatchString(words[1]):
		return words[0] + " " + words[1] + ":*"
	}
	return words[0] + ":*"
}
