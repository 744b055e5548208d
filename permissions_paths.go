package main

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// The path rules: where a named path leads, whether a glob covers it, what always asks, and the default.

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

// pathGlob makes a rule's path absolute: `x`, `./x` from the project, `~/x` from home, `/x` too in Claude Code's names.
func (r Rule) pathGlob(workspace, home string) string {
	spec, root := r.Spec, cmp.Or(r.Root, workspace)
	switch {
	case strings.HasPrefix(spec, "//"):
		spec = spec[1:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		spec = home + spec[1:]
	case strings.HasPrefix(spec, "/") && r.Claude:
		spec = root + spec
	case !strings.HasPrefix(spec, "/"):
		rel := strings.TrimPrefix(spec, "./")
		if !strings.Contains(strings.TrimSuffix(rel, "/"), "/") {
			rel = "**/" + rel
		}
		spec = root + "/" + rel
	}
	if strings.HasSuffix(spec, "/") {
		spec += "**"
	}
	return filepath.Clean(spec)
}

// ruleGlobs are a rule's glob as written, through the links its folder names and, for a bare
// name, where that name at the project's top leads: the rule holds for each. They are in lower case, to
// match lower-cased paths: a deny or ask rule holds in any letter case, as case-insensitive file systems
// (macOS's, Windows') open .ENV as .env.
func (p *Permissions) ruleGlobs(r Rule) []string {
	glob := r.pathGlob(p.workspace, p.home)
	folder := globFolder(glob)
	real, _ := resolveExisting(folder)
	globs := []string{glob, cmp.Or(real, folder) + glob[len(folder):]}
	if name, ok := strings.CutPrefix(glob, folder+"/**/"); ok && globFolder(name) == name {
		top, _ := resolveExisting(filepath.Join(folder, name))
		globs = append(globs, globQuoter.Replace(top))
	}
	for i := range globs {
		globs[i] = strings.ToLower(globs[i])
	}
	return globs
}

// WalkFilter reports what a walk by tool passes over: the paths deny and ask rules cover, as reading them
// would be refused or asked about. A walking tool's own folder is judged without what lies inside (Walks).
func (p *Permissions) WalkFilter(tool string) func(abs string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	var globs []string
	for _, r := range slices.Concat(p.deny, p.ask) {
		if r.Spec != "" && r.matchesTool(tool, AccessRead) {
			globs = append(globs, p.ruleGlobs(r)...)
		}
	}
	return func(abs string) bool {
		return slices.ContainsFunc(globs, func(glob string) bool { return globCovers(glob, strings.ToLower(abs)) })
	}
}

// globCovers reports whether the glob matches the path or a folder above it.
func globCovers(glob, path string) bool {
	return matchGlob(glob, path) || matchGlob(glob+"/**", path)
}

// globFolder is the folder a glob starts in, before its first pattern.
func globFolder(glob string) string {
	if i := strings.IndexAny(glob, "*?[\\"); i >= 0 {
		return filepath.Dir(glob[:i+1])
	}
	return glob
}

// globQuoter quotes the glob characters of a literal path.
var globQuoter = strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`, `\`, `\\`)

// relGlob is the glob naming exactly one path, relative when inside.
func (p *Permissions) relGlob(abs string) string {
	if rel, err := filepath.Rel(p.workspace, abs); err == nil && within(p.workspace, abs) && rel != "." {
		return "./" + globQuoter.Replace(filepath.ToSlash(rel))
	}
	return "/" + globQuoter.Replace(abs)
}

// startupFiles are the shell start-up files in HOME.
var startupFiles = []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile", ".zshrc", ".zshenv",
	".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".login", ".kshrc", ".mkshrc", ".inputrc", ".config/fish"}

// protectedNames are the files and folders at a workspace's top that configure git, agents, direnv
// and editors: what a command planted there would run outside the sandbox later (a git hook, .envrc, an
// editor task) or steer a later session (settings, MCP servers, memory, skills). The check asks before
// anything names them; the sandbox keeps those that exist read-only and removes those a command makes.
// The hook frameworks' files are among them: an installed hook runs what they say (husky's .husky, whose
// core.hooksPath is .husky/_, pre-commit's and lefthook's configurations). So are the files editors and
// tools act on when the user opens or enters the workspace: an editor's workspace file (a pattern), a dev
// container's configuration (its initializeCommand runs on the host), mise's (its hooks run on entering),
// asdf's .tool-versions (a path: version makes its shims run a program there), Emacs's and Vim's local settings,
// and other coding agents' project folders and files, whose hooks, MCP servers and plugins start programs.
func protectedNames() []string {
	return []string{".git", ".minicode", ".claude", ".mcp.json", "AGENTS.md", "CLAUDE.md", "CLAUDE.local.md", "MINI.md", ".envrc", ".vscode", ".idea",
		".zed", ".husky", ".pre-commit-config.yaml", ".pre-commit-config.yml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml", ".lefthook",
		"*.code-workspace", ".devcontainer", ".devcontainer.json", "mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".mise", ".rtx.toml",
		".tool-versions", ".dir-locals.el", ".dir-locals-2.el", ".exrc", ".vimrc", ".nvimrc", ".nvim.lua",
		".cursor", ".gemini", ".codex", ".continue", ".windsurf", ".kiro", ".roo", ".amazonq", ".opencode", "opencode.json", "opencode.jsonc", ".aider.conf.yml"}
}

// otherRepoConfigs are the settings files of the workspace's repository of other version control systems
// (Mercurial's, Sapling's, Jujutsu's), whose hooks, extensions and pagers run at the user's next command
// there; the rest of their folders stays writable, as .git's does, for commits.
func otherRepoConfigs() []string {
	return []string{".hg/hgrc", ".sl/config", ".jj/repo/config.toml"}
}

// isProtectedName reports whether a name is one of protectedNames, in any letter case, as case-insensitive
// file systems take them.
func isProtectedName(name string) bool {
	return slices.ContainsFunc(protectedNames(), func(p string) bool {
		ok, _ := filepath.Match(strings.ToLower(p), strings.ToLower(name))
		return ok
	})
}

// protectedReason says why a path that configures agents asks when written or named by a command.
func (p *Permissions) protectedReason(req PermissionRequest, t target) string {
	pt, ok := t.(pathTarget)
	if !ok || !pt.write && req.Access != AccessExecute {
		return ""
	}
	for _, path := range []string{pt.abs, pt.lexical} {
		for _, elem := range strings.Split(path, "/") { // the sandbox's list
			if isProtectedName(elem) {
				return fmt.Sprintf("%s is protected (%s configures git, agents or editors): changes there always ask", path, elem)
			}
		}
		if slices.ContainsFunc(otherRepoConfigs(), func(c string) bool { return strings.HasSuffix(strings.ToLower(path), "/"+c) }) {
			return fmt.Sprintf("%s is protected (it configures a repository): changes there always ask", path)
		}
		if slices.Contains(p.runOutside, path) {
			return fmt.Sprintf("%s is run outside the sandbox by a hook, an MCP server or the API key helper: changes there always ask", path)
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

// pathDefault is the verdict on a path when no rule or grant applies.
func (p *Permissions) pathDefault(req PermissionRequest, t pathTarget) decision {
	ruleTool := req.Tool
	if req.Access == AccessExecute {
		ruleTool = map[bool]string{false: readAlias, true: editAlias}[t.write]
	}
	d := decision{Verdict: verdictAsk, Hint: flagHint(ruleTool, p.relGlob(t.abs))}
	switch {
	case t.write && !t.inside:
		d.Reason, d.Warning = "writes outside the workspace: "+t.abs, "this writes outside the workspace ("+t.abs+")"
	case t.write && (p.mode == ModeAcceptEdits || req.Access == AccessExecute):
		return decision{Verdict: verdictAllow}
	case t.write:
		d.Reason = "edits need approval in " + string(p.mode) + " mode"
		d.Hint = "rerun with --permission-mode acceptEdits or " + strings.TrimPrefix(flagHint(editAlias, p.relGlob(t.abs)), "rerun with ")
	case !t.inside && (t.dir || !slices.ContainsFunc(p.readable(), func(dir string) bool { return within(dir, t.abs) })):
		d.Reason = "reaches outside the workspace: " + t.abs // readable folders' files only, not their lists
	case t.links > 1:
		d.Reason = fmt.Sprintf("%s has %d hard links, so it may be a file outside the workspace", t.abs, t.links)
	default:
		return decision{Verdict: verdictAllow}
	}
	return d
}

// readable are the folders outside the workspace read without asking: the skills' and this session's results.
func (p *Permissions) readable() []string {
	if p.resultsDir == nil || p.resultsDir() == "" {
		return p.readableDirs
	}
	results, _ := resolveExisting(p.resultsDir())
	return append(slices.Clip(p.readableDirs), cmp.Or(results, p.resultsDir()))
}

// matchGlob reports whether the slash-separated path name matches glob: `*`, `?` and `[…]` work within
// one name, and `**` stands for any number of names, at least one at the end ("src/**" is inside src).
func matchGlob(glob, name string) bool {
	return matchSegments(splitPattern(filepath.ToSlash(glob)), splitPattern(filepath.ToSlash(name)))
}

// holdsMatch reports whether a folder may hold a path the glob matches: a head of the glob matches the folder.
func holdsMatch(glob, folder string) bool {
	segments, names := splitPattern(filepath.ToSlash(glob)), splitPattern(filepath.ToSlash(folder))
	for n := range len(segments) {
		if matchSegments(segments[:n], names) {
			return true
		}
	}
	return false
}

// splitPattern splits a slash-separated glob or path into its names.
func splitPattern(pattern string) []string {
	return slices.DeleteFunc(strings.Split(pattern, "/"), func(s string) bool { return s == "" })
}

// matchSegments matches names to glob names, backtracking only to the latest "**" (time: the lengths' product).
func matchSegments(glob, names []string) bool {
	if len(glob) > 0 && glob[len(glob)-1] == "**" {
		glob = append(glob[:len(glob)-1:len(glob)-1], "*", "**")
	}
	g, n := 0, 0
	star, starN := -1, 0 // the latest "**" and the names it has taken so far
	for g < len(glob) || n < len(names) {
		switch {
		case g < len(glob) && glob[g] == "**":
			star, starN = g, n
			g++
		case g < len(glob) && n < len(names) && matchName(glob[g], names[n]):
			g++
			n++
		case star >= 0 && starN < len(names):
			starN++
			g, n = star+1, starN
		default:
			return false
		}
	}
	return true
}

// matchName matches one name against one element of a glob.
func matchName(glob, name string) bool {
	ok, err := path.Match(glob, name)
	return ok && err == nil
}

// hiddenReason says why the model may not see the file at path (real: where its links lead), or "": hidden
// reports it (the permission rules deny or ask before reading it; nil: none), or it is in the workspace with
// more than one hard link, as read_file asks before reading such a file.
func hiddenReason(hidden func(abs string) bool, workspace, path, real string) string {
	if hidden != nil && (hidden(path) || hidden(real)) {
		return "the permission rules deny or ask before reading it"
	}
	if info, err := os.Stat(real); err == nil && within(workspace, real) && hardLinks(info) > 1 {
		return fmt.Sprintf("it has %d hard links, so it may be a file the permission rules deny or one outside the workspace", hardLinks(info))
	}
	return ""
}
