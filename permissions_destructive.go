package main

import (
	pathpkg "path"
	"path/filepath"
	"slices"
	"strings"
)

// maxShellDepth bounds how deep `sh -c`, `eval`, `xargs` and `find -exec`
// are followed when looking for destructive commands.
const maxShellDepth = 4

// destructiveReason returns why a simple command destroys work in a way
// that cannot be undone, or "" when it does not. Such a command always asks
// the user, whatever the rules say, and the prompt shows this reason.
// workspace (absolute, resolved) decides what counts as outside.
func destructiveReason(cmd shellCommand, workspace string) string {
	return destructiveCommand(cmd, workspace, 0)
}

// destructiveCommand judges one simple command found depth shells deep:
// its redirections, a shell reading a script nobody can see, and its words.
func destructiveCommand(cmd shellCommand, workspace string, depth int) string {
	for _, r := range cmd.Redirects {
		if r.writes() && inGitDir(r.Target) {
			return "writing into .git can corrupt the repository"
		}
	}
	words := unwrapCommand(cmd.Words)
	if len(words) > 0 && shellPrograms[filepath.Base(words[0])] && readsScriptFromInput(words[1:]) &&
		!slices.ContainsFunc(cmd.Redirects, func(r redirect) bool { return strings.HasPrefix(r.Op, "<<") }) {
		return "a shell reading its commands from its input runs commands that cannot be checked"
	}
	return destructiveWords(cmd.Words, workspace, depth)
}

// readsScriptFromInput reports whether a shell run with these arguments
// reads its commands from its input (as in `curl … | sh`): it is given
// neither -c nor a script file, or it is given -s. A here-document or
// here-string is such input too, but its commands are judged on their own.
func readsScriptFromInput(args []string) bool {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-" || a == "--":
			return i+1 == len(args)
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
			i++
		case strings.HasPrefix(a, "--") || strings.HasPrefix(a, "+"):
		case strings.HasPrefix(a, "-"):
			if strings.Contains(a, "c") {
				return false
			}
			if strings.Contains(a, "s") {
				return true
			}
		default:
			return false
		}
	}
	return true
}

// destructiveWords judges a command given as words, looking through
// wrappers such as sudo, env and xargs, and into shells run with -c.
func destructiveWords(words []string, workspace string, depth int) string {
	words = unwrapCommand(words)
	if len(words) == 0 || depth > maxShellDepth {
		return ""
	}
	program, args := filepath.Base(words[0]), words[1:]
	switch {
	case program == "rm" && hasFlag(args, "r", "R", "--recursive"):
		return "rm -r deletes files and folders irrecoverably"
	case program == "git":
		return gitReason(args)
	case program == "sed" && sedInPlace(args):
		return sedOutsideReason(args, workspace)
	case program == "find":
		return findReason(args, workspace, depth)
	case (program == "chmod" || program == "chown" || program == "chgrp") && hasFlag(args, "R", "--recursive"):
		return program + " -R changes a whole tree of files at once"
	case program == "dd":
		return "dd overwrites files or devices block by block"
	case program == "mkfs" || strings.HasPrefix(program, "mkfs."):
		return "mkfs erases a whole file system"
	case program == "shred" || program == "wipefs":
		return program + " destroys data irrecoverably"
	case shellPrograms[program] || program == "eval":
		if script, ok := innerScript(program, args); ok {
			return scriptReason(script, workspace, depth)
		}
	case writesFiles[program] && anyInGitDir(args):
		return "writing into .git can corrupt the repository"
	}
	return ""
}

// writesFiles are programs whose operands are files they change.
var writesFiles = map[string]bool{
	"cp": true, "mv": true, "tee": true, "ln": true, "install": true,
	"touch": true, "truncate": true, "rm": true, "rmdir": true, "unlink": true,
}

// commandWrappers are programs that run the command given after them;
// the value lists their options that take an argument.
var commandWrappers = map[string][]string{
	"sudo":    {"-u", "-g", "-C", "-D", "-h", "-p", "-U", "--user", "--group", "--chdir", "--host", "--prompt", "--close-from", "--other-user"},
	"doas":    {"-u", "-C"},
	"env":     {"-u", "-C", "--unset", "--chdir"},
	"command": nil, "builtin": nil, "exec": {"-a"}, "nohup": nil, "time": nil,
	"nice":    {"-n", "--adjustment"},
	"stdbuf":  {"-i", "-o", "-e", "--input", "--output", "--error"},
	"ionice":  {"-c", "-n", "-p", "--class", "--classdata", "--pid"},
	"timeout": {"-s", "-k", "--signal", "--kill-after"},
	"xargs": {"-a", "-d", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "-P", "-s",
		"--arg-file", "--delimiter", "--eof", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"},
}

// unwrapCommand drops variable assignments and wrappers (with their
// options) from the front of a command, leaving the program that really runs.
func unwrapCommand(words []string) []string {
	for len(words) > 0 {
		switch w := words[0]; {
		case isAssignment(w):
			words = words[1:]
		case filepath.Base(w) == "env":
			words = skipOptions(envSplit(words[1:]), commandWrappers["env"])
		case hasKey(commandWrappers, filepath.Base(w)):
			words = skipOptions(words[1:], commandWrappers[filepath.Base(w)])
			if filepath.Base(w) == "timeout" && len(words) > 0 {
				words = words[1:] // the duration
			}
		default:
			return words
		}
	}
	return words
}

// envSplit replaces env's -S STRING (--split-string) by the words of
// STRING, which env runs as the command.
func envSplit(args []string) []string {
	for i, a := range args {
		switch {
		case (a == "-S" || a == "--split-string") && i+1 < len(args):
			return slices.Concat(args[:i], strings.Fields(args[i+1]), args[i+2:])
		case strings.HasPrefix(a, "--split-string="):
			return slices.Concat(args[:i], strings.Fields(strings.TrimPrefix(a, "--split-string=")), args[i+1:])
		case strings.HasPrefix(a, "-S"):
			return slices.Concat(args[:i], strings.Fields(a[2:]), args[i+1:])
		case !strings.HasPrefix(a, "-"):
			return args
		}
	}
	return args
}

// hasKey reports whether m holds key.
func hasKey(m map[string][]string, key string) bool {
	_, ok := m[key]
	return ok
}

// skipOptions drops leading options (and the arguments of those listed in
// withArg) and assignments such as env's NAME=value.
func skipOptions(words, withArg []string) []string {
	for len(words) > 0 {
		w := words[0]
		switch {
		case w == "--":
			return words[1:]
		case isAssignment(w):
			words = words[1:]
		case strings.HasPrefix(w, "-") && len(w) > 1:
			words = words[1:]
			for _, opt := range withArg {
				if w == opt && len(words) > 0 {
					words = words[1:]
				}
			}
		default:
			return words
		}
	}
	return words
}

// isAssignment reports whether w is a NAME=value variable assignment.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// hasFlag reports whether args, before any "--", hold one of the given
// flags: single letters match inside short clusters (-rf), and names
// starting with "--" match a long option with or without "=value".
func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		for _, f := range flags {
			switch {
			case strings.HasPrefix(f, "--") && (a == f || strings.HasPrefix(a, f+"=")):
				return true
			case len(f) == 1 && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], f):
				return true
			}
		}
	}
	return false
}

// gitReason judges a git command by its subcommand, after git's own
// global options.
func gitReason(args []string) string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		takesArg := args[0] == "-C" || args[0] == "-c" || args[0] == "--git-dir" || args[0] == "--work-tree" || args[0] == "--namespace"
		args = args[1:]
		if takesArg && len(args) > 0 {
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return ""
	}
	sub, rest := args[0], args[1:]
	switch {
	case sub == "reset" && hasFlag(rest, "--hard"):
		return "git reset --hard throws away uncommitted changes"
	case sub == "clean" && !hasFlag(rest, "n", "--dry-run"):
		return "git clean deletes untracked files irrecoverably"
	case sub == "push" && (hasFlag(rest, "f", "--force", "--force-with-lease", "--mirror") || anyPrefixed(rest, "+")):
		return "git push --force overwrites history on the remote"
	case sub == "checkout" && (slices.Contains(rest, "--") || slices.Contains(rest, ".") || hasFlag(rest, "f", "--force")):
		return "git checkout of paths discards uncommitted changes"
	case sub == "restore" && (!hasFlag(rest, "--staged", "S") || hasFlag(rest, "--worktree", "W")):
		return "git restore discards uncommitted changes"
	case sub == "branch" && (hasFlag(rest, "D") || hasFlag(rest, "d", "--delete") && hasFlag(rest, "f", "--force")):
		return "git branch -D deletes a branch even if it is not merged"
	case sub == "stash" && len(rest) > 0 && (rest[0] == "drop" || rest[0] == "clear"):
		return "git stash " + rest[0] + " throws away stashed changes"
	}
	return ""
}

// sedInPlace reports whether sed's options ask it to edit files in place.
func sedInPlace(args []string) bool {
	for _, a := range args {
		if a == "--in-place" || strings.HasPrefix(a, "--in-place=") {
			return true
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i") {
			return true
		}
	}
	return false
}

// sedOutsideReason returns a reason when sed -i would edit a file outside
// the workspace (or one whose place cannot be known, such as "$HOME/x").
func sedOutsideReason(args []string, workspace string) string {
	var operands []string
	script := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-e" || a == "-f" || a == "--expression" || a == "--file" || a == "-l":
			script = false
			i++
		case strings.HasPrefix(a, "--expression=") || strings.HasPrefix(a, "--file="):
			script = false
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			operands = append(operands, a)
		}
	}
	if script && len(operands) > 0 {
		operands = operands[1:]
	}
	for _, file := range operands {
		if !insideWorkspace(workspace, file) {
			return "sed -i edits a file outside the workspace in place: " + file
		}
	}
	return ""
}

// findReason flags find -delete and find -exec running rm or another
// destructive command on everything found.
func findReason(args []string, workspace string, depth int) string {
	if slices.Contains(args, "-delete") {
		return "find -delete deletes every file it finds"
	}
	for _, inner := range findPayloads(args) {
		if len(inner) > 0 && filepath.Base(inner[0]) == "rm" {
			return "find -exec rm deletes every file it finds"
		}
		if reason := destructiveWords(inner, workspace, depth+1); reason != "" {
			return reason
		}
	}
	return ""
}

// findPayloads returns the commands find runs with -exec, -execdir, -ok
// and -okdir, each up to its closing ";" or "+".
func findPayloads(args []string) [][]string {
	var payloads [][]string
	for i, a := range args {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			inner := args[i+1:]
			if end := slices.IndexFunc(inner, func(w string) bool { return w == ";" || w == "+" }); end >= 0 {
				inner = inner[:end]
			}
			payloads = append(payloads, inner)
		}
	}
	return payloads
}

// innerScript returns the script a shell runs with -c, or eval runs.
func innerScript(program string, args []string) (string, bool) {
	if program == "eval" {
		return strings.Join(args, " "), true
	}
	for i, a := range args {
		if strings.HasPrefix(a, "-") && strings.Contains(a, "c") && !strings.HasPrefix(a, "--") && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// scriptReason splits a script given as text and judges each command in it.
// A script that cannot be parsed is treated as destructive, since nobody can
// tell what it does.
func scriptReason(script, workspace string, depth int) string {
	cmds, err := splitCommands(script)
	if err != nil {
		return "runs a script that cannot be parsed: " + err.Error()
	}
	for _, c := range cmds {
		if reason := destructiveCommand(c, workspace, depth+1); reason != "" {
			return reason
		}
	}
	return ""
}

// insideWorkspace reports whether a path named in a command lies inside
// the workspace, whatever the shell's brace expansion and globbing make of
// it. A glob in its last element matches files of a folder that must be
// inside; a path the shell rewrites otherwise (expansions, globs in its
// folders, a ~ naming another user's home) cannot be known, and counts as
// outside. An empty workspace (the folder a command runs in is not known)
// holds nothing.
func insideWorkspace(workspace, path string) bool {
	if workspace == "" || strings.ContainsAny(path, "$`") {
		return false
	}
	for _, word := range braceWords(path) {
		if strings.ContainsAny(filepath.Dir(word), "*?[") || strings.HasPrefix(word, "~") && !strings.HasPrefix(word, "~/") {
			return false
		}
		if _, inside, err := resolvePath(workspace, word); err != nil || !inside {
			return false
		}
	}
	return true
}

// inGitDir reports whether a path as written can lead into a .git
// folder, such as ".git/config" or "sub/.git/hooks/pre-commit".
func inGitDir(path string) bool {
	return mayName(path, ".git")
}

// mayName reports whether one element of a path as written can be the
// hidden name (".git"): it is the name, or becomes it by brace expansion
// (".{git,x}") or globbing (".gi?", which the shell matches against
// existing files).
func mayName(path, name string) bool {
	for _, word := range braceWords(path) {
		for _, part := range strings.Split(filepath.ToSlash(word), "/") {
			if ok, _ := pathpkg.Match(part, name); part == name || ok && strings.HasPrefix(part, ".") {
				return true
			}
		}
	}
	return false
}

// maxBraceWords bounds how many words braceWords makes of one word.
const maxBraceWords = 64

// braceWords returns the patterns the shell's brace expansion makes of a
// word: a{b,c}d gives abd and acd, and a sequence such as {a..z} becomes
// the glob *, which matches whatever it may give. At most maxBraceWords
// patterns are returned.
func braceWords(word string) []string {
	open := strings.IndexByte(word, '{')
	if open < 0 {
		return []string{word}
	}
	depth, start := 0, open+1
	var alts []string
	for i := open; i < len(word); i++ {
		switch word[i] {
		case '{':
			depth++
		case ',':
			if depth == 1 {
				alts, start = append(alts, word[start:i]), i+1
			}
		case '}':
			if depth--; depth > 0 {
				continue
			}
			switch {
			case alts != nil:
				alts = append(alts, word[start:i])
			case strings.Contains(word[open:i], ".."):
				alts = []string{"*"}
			default:
				return prefixAll(word[:i+1], braceWords(word[i+1:]))
			}
			var out []string
			for _, a := range alts {
				if len(out) >= maxBraceWords {
					break
				}
				out = append(out, braceWords(word[:open]+a+word[i+1:])...)
			}
			return out[:min(len(out), maxBraceWords)]
		}
	}
	return []string{word}
}

// prefixAll puts prefix before each word.
func prefixAll(prefix string, words []string) []string {
	for i, w := range words {
		words[i] = prefix + w
	}
	return words
}

// anyInGitDir reports whether any argument is a path inside a .git folder.
func anyInGitDir(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && inGitDir(a) {
			return true
		}
	}
	return false
}

// anyPrefixed reports whether any argument starts with prefix.
func anyPrefixed(args []string, prefix string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}
