package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// target is one part of a request, judged on its own: a pathTarget,
// commandTarget, hostTarget, socketTarget, unsandboxedTarget, or wholeCall
// when the call names none of these. Each kind holds only what it means.
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

// newPathTarget resolves a path named from folder dir.
func (p *Permissions) newPathTarget(dir, given string, write bool) (pathTarget, error) {
	lexical := expandHome(p.home, given) // another user's home (~user/x) resolves from / to somewhere outside
	if !filepath.IsAbs(lexical) && !strings.HasPrefix(lexical, "~") {
		lexical = dir + "/" + lexical
	}
	abs, err := resolveExisting(lexical)
	if err != nil {
		return pathTarget{}, err
	}
	inside := within(p.workspace, abs) || slices.ContainsFunc(p.addDirs, func(dir string) bool { return within(dir, abs) })
	t := pathTarget{abs: abs, lexical: filepath.Clean(lexical), inside: inside, write: write, links: 1}
	if info, err := os.Stat(abs); err == nil {
		t.dir, t.links, t.found = info.IsDir(), hardLinks(info), info
	}
	return t, nil
}

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
		return []target{commandTarget{unreadable: err}}
	}
	dirs := []string{p.workspace} // every folder an earlier cd may have moved to
	var targets []target
	named := func(paths []pathTarget) {
		for _, t := range paths {
			targets = append(targets, t)
		}
	}
	for _, c := range cmds {
		targets = append(targets, commandTarget{cmd: c})
		for _, r := range c.Redirects {
			switch file := r[1:]; {
			case strings.HasPrefix(file, "/dev/tcp/"), strings.HasPrefix(file, "/dev/udp/"):
				targets = append(targets, socketTarget{device: file})
			case !strings.HasPrefix(file, "&"):
				named(p.namedTargets(dirs, file, r[0] == '>'))
			}
		}
		cdTo := []pathTarget{{abs: p.home}} // where a cd goes: the last path it names, or home
		for _, w := range c.Words[1:] {
			if v := pathInWord(w); v != "" {
				cdTo = p.namedTargets(dirs, v, false)
				named(cdTo)
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

// harmlessDevice matches the files a command may name without reaching anything.
var harmlessDevice = regexp.MustCompile(`^/dev/(null|zero|stdin|stdout|stderr|tty|random|urandom|fd/[0-9]+)$`)

// dotPattern matches a path with a pattern that older shells let match "..".
var dotPattern = regexp.MustCompile(`(^|/)\.[?*[]`)

// namedTargets are the targets of a path a command names, from each folder.
func (p *Permissions) namedTargets(dirs []string, name string, write bool) []pathTarget {
	if harmlessDevice.MatchString(name) {
		return nil
	}
	var targets []pathTarget
	for _, dir := range dirs {
		t, err := p.newPathTarget(dir, name, write)
		if err != nil || dotPattern.MatchString(name) {
			t = pathTarget{abs: name, lexical: name, write: write}
		}
		t.inside = t.inside || p.tempDir != "" && within(p.tempDir, t.abs)
		targets = append(targets, t)
	}
	return targets
}
