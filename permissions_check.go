package main

import (
	"cmp"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Verdict is what the permission decision concludes.
type Verdict int

// The three verdicts: run it, refuse it, or let the user decide.
const (
	VerdictAllow Verdict = iota
	VerdictDeny
	VerdictAsk
)

// Decision is the outcome of decide for one request or one part of it.
type Decision struct {
	Verdict Verdict
	Reason  string   // why it is denied, or why it needs asking
	Warning string   // what the prompt must stress, such as a write outside the workspace
	Hint    string   // what would allow it without asking, for headless denials
	Strict  bool     // grants are not consulted (an ask rule, a destructive command)
	asking  []target // the parts that ask, for the grants an answer makes
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
	targetSocket                        // a /dev/tcp or /dev/udp redirection
)

// target is one part of a request.
type target struct {
	kind       targetKind
	abs        string // path: absolute, links resolved
	lexical    string // path: absolute, as written
	inside     bool   // path: in the workspace (or, for commands, the private temp folder)
	write, dir bool   // path: the call writes it; it is an existing folder
	links      int    // path: hard links of an existing file
	cmd        simpleCommand
	parseErr   error  // command: why the line is beyond the check
	host       string // host: normalised; socket: the device path
}

// decide judges a request's parts without asking: one denied denies it all.
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
		if v.Verdict == VerdictDeny {
			return v
		}
		if v.Verdict == VerdictAsk {
			d.Verdict, d.Strict, d.asking = VerdictAsk, d.Strict || v.Strict, append(d.asking, t)
			reasons, hints = appendNew(reasons, v.Reason), appendNew(hints, v.Hint)
			d.Warning = cmp.Or(v.Warning, d.Warning)
		}
	}
	d.Reason, d.Hint = strings.Join(reasons, "; "), strings.Join(hints, " and ")
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

// targetsOf splits a request into the parts it is judged by.
func (p *Permissions) targetsOf(req PermissionRequest) ([]target, error) {
	var targets []target
	paths := req.Paths
	if len(req.Named) > 0 {
		paths = req.Named // the same paths as named: each target keeps the name and where it leads
	}
	for _, given := range paths {
		t, err := p.pathTarget(p.workspace, given, req.Access == AccessWrite)
		if err != nil {
			return nil, fmt.Errorf("cannot check path %q: %w", given, err)
		}
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
		targets = append(targets, target{kind: targetHost, host: normalHost(u.Hostname())})
	}
	if req.Unsandboxed != "" {
		targets = append(targets, target{kind: targetUnsandboxed})
	}
	if len(targets) == 0 {
		targets = append(targets, target{kind: targetTool})
	}
	return targets, nil
}

// pathTarget resolves a path named from folder dir.
func (p *Permissions) pathTarget(dir, given string, write bool) (target, error) {
	lexical := expandHome(p.home, given) // another user's home (~user/x) resolves from / to somewhere outside
	if !filepath.IsAbs(lexical) && !strings.HasPrefix(lexical, "~") {
		lexical = dir + "/" + lexical
	}
	abs, err := resolveExisting(lexical)
	if err != nil {
		return target{}, err
	}
	inside := within(p.workspace, abs) || slices.ContainsFunc(p.addDirs, func(dir string) bool { return within(dir, abs) })
	t := target{kind: targetPath, abs: abs, lexical: filepath.Clean(lexical), inside: inside, write: write, links: 1}
	if info, err := os.Stat(abs); err == nil {
		t.dir, t.links = info.IsDir(), hardLinks(info)
	}
	return t, nil
}

// expandHome replaces a leading ~ (alone or before a slash) with home.
func expandHome(home, path string) string {
	if rest, ok := strings.CutPrefix(path, "~"); ok && (rest == "" || rest[0] == '/') {
		return home + rest
	}
	return path
}

// harmlessDevice matches the files a command may name without reaching anything.
var harmlessDevice = regexp.MustCompile(`^/dev/(null|zero|stdin|stdout|stderr|tty|random|urandom|fd/[0-9]+)$`)

// commandTargets are a line's simple commands and the paths they name.
func (p *Permissions) commandTargets(line string) []target {
	cmds, err := parseCommandLine(line)
	for _, c := range cmds {
		err = cmp.Or(err, checkProgram(c))
	}
	if err == nil && len(cmds) == 0 {
		err = errNotSimple("no command at all")
	}
	if err != nil {
		return []target{{kind: targetCommand, parseErr: err}}
	}
	dirs := []string{p.workspace} // every folder an earlier cd may have moved to
	var targets []target
	for _, c := range cmds {
		targets = append(targets, target{kind: targetCommand, cmd: c})
		for _, r := range c.Redirects {
			switch file := r[1:]; {
			case strings.HasPrefix(file, "/dev/tcp/"), strings.HasPrefix(file, "/dev/udp/"):
				targets = append(targets, target{kind: targetSocket, host: file})
			case !strings.HasPrefix(file, "&"):
				targets = append(targets, p.namedTargets(dirs, file, r[0] == '>')...)
			}
		}
		cdTo := []target{{abs: p.home}} // where a cd goes: the last path it names, or home
		for _, w := range c.Words[1:] {
			if v := pathInWord(w); v != "" {
				cdTo = p.namedTargets(dirs, v, false)
				targets = append(targets, cdTo...)
			}
		}
		for _, t := range cdTo {
			if c.Words[0] == "cd" {
				dirs = append(dirs, t.abs)
			}
		}
	}
	return targets
}

// pathInWord is the path an argument may name (x, file://x, --out=x, -I/x, -t.git).
func pathInWord(w string) string {
	_, value, ok := strings.Cut(w, "=")
	switch {
	case !strings.HasPrefix(w, "-"):
		return strings.TrimPrefix(w, "file://")
	case ok:
		return strings.TrimPrefix(value, "file://")
	case len(w) > 2 && w[1] != '-':
		return w[2:]
	}
	return ""
}

// namedTargets are the targets of a path a command names, from each folder.
func (p *Permissions) namedTargets(dirs []string, name string, write bool) []target {
	if harmlessDevice.MatchString(name) {
		return nil
	}
	var targets []target
	for _, dir := range dirs {
		t, err := p.pathTarget(dir, name, write)
		if err != nil || dotPattern.MatchString(name) {
			t = target{kind: targetPath, abs: name, lexical: name, write: write}
		}
		t.inside = t.inside || p.tempDir != "" && within(p.tempDir, t.abs)
		targets = append(targets, t)
	}
	return targets
}

// dotPattern matches a path with a pattern that older shells let match "..".
var dotPattern = regexp.MustCompile(`(^|/)\.[?*[]`)

// judge runs one target through the stages of the decision, in order.
func (p *Permissions) judge(req PermissionRequest, t target) Decision {
	if r, ok := p.firstMatch(req, t, true, p.deny); ok {
		note := "" // why a rule covers a command the check cannot read
		if t.kind == targetCommand && r.Spec != "" && (t.parseErr != nil || !r.namesProgram(t.cmd)) {
			note = fmt.Sprintf("; %v, so the check cannot tell whether it runs the program it denies; write the command as plain words",
				cmp.Or[error](t.parseErr, errNotSimple("words with patterns")))
		}
		return Decision{Verdict: VerdictDeny, Reason: fmt.Sprintf("denied by the rule %s (%s)%s", r, r.Source, note)}
	}
	verbs := map[Access]string{AccessWrite: "change files", AccessExecute: "run a command", AccessExternal: "call an MCP tool that may change things"}
	if p.mode == ModePlan && verbs[req.Access] != "" {
		return Decision{Verdict: VerdictDeny, Reason: fmt.Sprintf("plan mode allows only reading, and %s would %s; present the plan with exit_plan_mode instead, and the user will leave plan mode to carry it out", req.Tool, verbs[req.Access])}
	}
	if t.kind == targetUnsandboxed {
		if _, ok := p.firstMatch(req, t, false, p.allow); ok {
			return Decision{Verdict: VerdictAllow}
		}
		return Decision{Verdict: VerdictAsk, Strict: true, Reason: "the model asks to run this command outside the sandbox, because: " + req.Unsandboxed,
			Warning: "outside the sandbox the command can write anywhere, use the network and read secrets", Hint: flagHint(req.Tool, unsandboxedRule)}
	}
	if reason := p.protectedReason(req, t); reason != "" {
		return Decision{Verdict: VerdictAsk, Reason: reason, Strict: true, Hint: "nothing allows it without asking: the user must approve it"}
	}
	if p.mode == ModeBypass {
		return Decision{Verdict: VerdictAllow}
	}
	reason := destructiveReason(t.cmd.Words) // what asks whatever the rules say
	if t.kind == targetCommand && t.parseErr != nil {
		reason = t.parseErr.Error() + ", which the check does not analyse, so no rule can vouch for it"
	} else if t.kind == targetPath && t.write && t.links > 1 {
		reason = fmt.Sprintf("%s has %d hard links, so writing it changes a file elsewhere too", t.abs, t.links)
	}
	if reason != "" {
		return Decision{Verdict: VerdictAsk, Reason: reason, Strict: true, Hint: "rerun with --permission-mode bypassPermissions (nothing else allows it without asking)"}
	}
	if r, ok := p.firstMatch(req, t, true, p.ask); ok {
		return Decision{Verdict: VerdictAsk, Reason: fmt.Sprintf("the rule %s (%s) asks", r, r.Source), Strict: true,
			Hint: fmt.Sprintf("remove the ask rule %s from %s", r, r.Source)}
	}
	if _, ok := p.firstMatch(req, t, false, p.allow, req.Grants, p.turn); ok {
		return Decision{Verdict: VerdictAllow}
	}
	return p.modeDefault(req, t)
}

// unsandboxedRule is the rule that lets commands leave the sandbox.
const unsandboxedRule = "sandbox:false"

// firstMatch returns the first rule of the lists covering the target; broad (deny, ask) also what may be it.
func (p *Permissions) firstMatch(req PermissionRequest, t target, broad bool, lists ...[]Rule) (Rule, bool) {
	tool, access := req.Tool, req.Access
	if t.kind == targetPath && req.Access == AccessExecute { // a path a command names is judged as the file tools judge it
		tool, access = map[bool]string{false: "read_file", true: "write_file"}[t.write], map[bool]Access{false: AccessRead, true: AccessWrite}[t.write]
	}
	for _, r := range slices.Concat(lists...) {
		if r.matchesTool(tool, access) && p.ruleCovers(r, t, broad) {
			return r, true
		}
	}
	return Rule{}, false
}

// ruleCovers reports whether a rule covers a target: a path or folder above, command, host or domain above.
func (p *Permissions) ruleCovers(r Rule, t target, broad bool) bool {
	switch {
	case t.kind == targetPath && r.Spec == "":
		return broad || t.inside
	case t.kind == targetPath:
		globs := []string{r.pathGlob(p.workspace, p.home)}
		if folder := globFolder(globs[0]); broad { // deny and ask rules also hold where the links they name lead
			real, _ := resolveExisting(folder)
			globs = append(globs, cmp.Or(real, folder)+globs[0][len(folder):])
		}
		return slices.ContainsFunc(globs, func(glob string) bool {
			covers := func(path string) bool { return matchGlob(glob, path) || matchGlob(glob+"/**", path) }
			return covers(t.abs) || broad && (covers(t.lexical) || t.dir && holdsMatch(glob, t.abs))
		})
	case t.kind == targetCommand && broad:
		return r.Spec == "" || t.parseErr != nil || t.cmd.Globbed || r.namesProgram(t.cmd)
	case t.kind == targetCommand:
		return r.matchesCommand(t.cmd)
	case t.kind == targetHost && r.Spec == "":
		return broad || !privateHost(t.host)
	case t.kind == targetHost:
		domain, ok := strings.CutPrefix(r.Spec, "domain:")
		domain = normalHost(strings.TrimPrefix(domain, "*."))
		return ok && (t.host == domain || strings.HasSuffix(t.host, "."+domain))
	case t.kind == targetUnsandboxed:
		return r.Spec == unsandboxedRule || broad && r.Spec == ""
	}
	return r.Spec == ""
}

// globFolder is the folder a glob starts in, before its first pattern.
func globFolder(glob string) string {
	if i := strings.IndexAny(glob, "*?[\\"); i >= 0 {
		return filepath.Dir(glob[:i+1])
	}
	return glob
}

// startupFiles are the shell start-up files in HOME.
var startupFiles = []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".login", ".kshrc", ".mkshrc", ".inputrc", ".config/fish"}

// protectedReason says why a path that configures agents asks when written or named by a command.
func (p *Permissions) protectedReason(req PermissionRequest, t target) string {
	if t.kind != targetPath || !t.write && req.Access != AccessExecute {
		return ""
	}
	for _, path := range []string{t.abs, t.lexical} {
		for _, elem := range strings.Split(path, "/") {
			switch strings.ToLower(elem) { // one name on case-insensitive file systems
			case ".git", ".minicode", ".claude":
				return fmt.Sprintf("%s is inside %s, which is protected: changes there always ask", path, elem)
			case ".mcp.json", "agents.md", "claude.md", "claude.local.md", "mini.md":
				return fmt.Sprintf("%s configures or instructs agents, so changing it always asks", path)
			}
		}
		if dir := filepath.Dir(p.userFile); p.userFile != "" && within(dir, path) {
			return fmt.Sprintf("%s is in %s, which is protected: changes there always ask", path, dir)
		}
		if slices.ContainsFunc(startupFiles, func(f string) bool { return within(filepath.Join(p.home, f), path) }) {
			return fmt.Sprintf("%s runs in every new shell, so changing it always asks", path)
		}
	}
	return ""
}

// modeDefault is the verdict when no rule or grant applies.
func (p *Permissions) modeDefault(req PermissionRequest, t target) Decision {
	ruleTool := req.Tool
	if t.kind == targetPath && req.Access == AccessExecute {
		ruleTool = map[bool]string{false: readAlias, true: editAlias}[t.write]
	}
	d := Decision{Verdict: VerdictAsk, Hint: flagHint(ruleTool, p.relGlob(t.abs))} // a path's hint
	switch {
	case t.kind == targetCommand:
		d.Reason, d.Hint = "running a command needs approval", flagHint(req.Tool, suggestPrefix(t.cmd.Words))
	case t.kind == targetSocket:
		d.Reason, d.Hint = "the command opens a network connection through "+t.host, "rerun with --permission-mode bypassPermissions"
	case t.kind == targetHost && privateHost(t.host):
		d.Reason, d.Hint = t.host+" is a loopback, private or link-local address, which needs a rule naming it", flagHint(req.Tool, "domain:"+t.host)
		d.Warning = "this reaches a machine on your own network or computer"
	case t.kind == targetHost:
		d.Reason, d.Hint = "fetching from "+t.host+" needs approval", flagHint(req.Tool, "domain:"+t.host)
	case t.kind == targetPath && t.write && !t.inside:
		d.Reason, d.Warning = "writes outside the workspace: "+t.abs, "this writes outside the workspace ("+t.abs+")"
	case t.kind == targetPath && t.write && (p.mode == ModeAcceptEdits || req.Access == AccessExecute):
		return Decision{Verdict: VerdictAllow}
	case t.kind == targetPath && t.write:
		d.Reason = "edits need approval in " + string(p.mode) + " mode"
		d.Hint = "rerun with --permission-mode acceptEdits or " + strings.TrimPrefix(flagHint(editAlias, p.relGlob(t.abs)), "rerun with ")
	case t.kind == targetPath && !t.inside && (t.dir || !slices.ContainsFunc(p.readableDirs, func(dir string) bool { return within(dir, t.abs) })):
		d.Reason = "reaches outside the workspace: " + t.abs // readable folders' files only: the results folder holds every session's
	case t.kind == targetPath && t.links > 1:
		d.Reason = fmt.Sprintf("%s has %d hard links, so it may be a file outside the workspace", t.abs, t.links)
	case t.kind == targetTool && req.Access != AccessRead:
		d.Reason, d.Hint = "calling "+req.Tool+" needs approval", flagHint(req.Tool, "")
	default:
		return Decision{Verdict: VerdictAllow}
	}
	return d
}

// flagHint says which --allowedTools flag allows a tool call.
func flagHint(tool, spec string) string {
	return fmt.Sprintf("rerun with --allowedTools %q", Rule{Tool: tool, Spec: spec}.String())
}

// relGlob is the glob naming exactly one path, relative when inside.
func (p *Permissions) relGlob(abs string) string {
	if rel, err := filepath.Rel(p.workspace, abs); err == nil && within(p.workspace, abs) && rel != "." {
		return "./" + globQuoter.Replace(filepath.ToSlash(rel))
	}
	return "/" + globQuoter.Replace(abs)
}

// subcommand matches words that read as a subcommand, such as "test".
var subcommand = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// suggestPrefix proposes a prefix rule: the program and its subcommand.
func suggestPrefix(words []string) string {
	if len(words) >= 2 && subcommand.MatchString(words[1]) {
		return words[0] + " " + words[1] + ":*"
	}
	return words[0] + ":*"
}
