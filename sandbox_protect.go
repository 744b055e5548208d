package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// gitProtected are the parts of a repository that run programs or set up
// git; objects, the index and refs stay writable for git add and commit.
// The state of a stopped rebase, git am or cherry-pick sequence is among them: its todo list's exec lines
// run at the user's --continue. One the user left stopped is read-only (a command cannot continue it, the
// user can); one a command leaves stopped is moved out as a planted repository is, as nothing tells a
// command's own from a planted one.
func gitProtected() []string {
	return []string{"hooks", "config", "config.worktree", "info", "modules", "commondir", "rebase-merge", "rebase-apply", "sequencer"}
}

// protectedPaths watches a workspace's protected paths and the folders of Edit and Write deny rules.
// Those that exist are read-only in the sandbox (.git is bound onto itself, so it cannot be renamed away);
// one that appears while a sandboxed command runs is moved out of the workspace when the command ends, a
// new repository too (git init then runs outside the sandbox, with the user's approval).
type protectedPaths struct {
	workspace, quarantine string
	denyWrite             []string
	named                 []string // what the repositories' configs name, read again when a command starts while none runs
	mu                    sync.Mutex
	tree                  *folderTree
	known                 map[string]string                           // what existed (inode, type, time) while no sandboxed command ran
	kept                  map[string]keptFile                         // of what known holds that is a file: to judge a change and put it back
	sealed                func(path string, outside fs.FileInfo) bool // whether commands see it read-only (set as the sandbox starts)
	reprotect             func(paths []string)                        // makes them read-only to the commands running now
	stopAll               func()                                      // kills the commands running now
	removedNew            map[string]bool                             // new paths removed while commands run, since none ran
	running               int                                         // sandboxed commands running now
	untold                []string                                    // what patrols removed that no command's result has said yet
	held                  map[string]string                           // the workspace repository's refs and index as last seen
}

// watchProtected starts watching; in a repository without hooks or info
// folders it makes them (git init would), so that they can be read-only.
func watchProtected(workspace, state string, denyWrite []string) *protectedPaths {
	g := &protectedPaths{workspace: workspace, denyWrite: denyWrite, named: gitConfigPaths(workspace),
		quarantine: filepath.Join(state, "removed"), tree: &folderTree{root: workspace}, removedNew: map[string]bool{}}
	if git := filepath.Join(workspace, ".git"); isDir(git) {
		os.Mkdir(filepath.Join(git, "hooks"), 0o755)
		os.Mkdir(filepath.Join(git, "info"), 0o755)
	}
	g.known, g.kept = map[string]string{}, map[string]keptFile{} // the first command's start fills them
	return g
}

// gitConfigPaths are the workspace's paths the repository's settings name, such as core.hooksPath = .husky,
// a core.fsmonitor script or a config file included: what a command changed there would run at the user's
// next git command.
func gitConfigPaths(workspace string) []string {
	return repoConfigPaths(workspace, filepath.Join(workspace, ".git"), workspace, userGitConfig())
}

// userGitConfig is the text of the system's and the user's global git config, read once for all the
// repositories a pass looks at: of these only core.hooksPath counts, which git takes from each work tree.
func userGitConfig() string {
	home, _ := os.UserHomeDir()
	var text []string
	for _, config := range []string{"/etc/gitconfig", filepath.Join(cmp.Or(os.Getenv("XDG_CONFIG_HOME"), filepath.Join(home, ".config")), "git", "config"),
		filepath.Join(home, ".gitconfig")} {
		if data, err := os.ReadFile(config); err == nil && filepath.IsAbs(config) {
			text = append(text, string(data))
		}
	}
	return strings.Join(text, "\n")
}

// repoConfigPaths are the workspace's paths that the config in gitDir names, and the hooks folder of its
// work tree that a relative core.hooksPath of userConfig (the user's global and the system's) names (git
// takes it from each repository's work tree).
func repoConfigPaths(workspace, gitDir, workTree, userConfig string) []string {
	if gitDir == "" {
		return nil
	}
	config := filepath.Join(gitDir, "config")
	data, err := os.ReadFile(config)
	if err != nil || !filepath.IsAbs(config) {
		data = nil
	}
	return append(configNamed(workspace, string(data), gitDir, workTree, ""), configNamed(workspace, userConfig, "", workTree, "hookspath")...)
}

// configNamed are the workspace's paths that a config's text names (only the key only, if given), from
// workTree or, a file included (include.path), from the config's folder; any may be absolute. The work
// tree and the folders above it are not among them. Keys are in any letter case, as git takes them.
func configNamed(workspace, text, configDir, workTree, only string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		key, value, _ := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key[strings.LastIndex(key, "]")+1:])) // a key may follow its section's name
		if only != "" && key != only {
			continue
		}
		from := map[bool]string{true: configDir, false: workTree}[key == "path"]
		for _, word := range strings.Fields(value) {
			p := filepath.Clean(strings.Trim(word, `"'!`))
			if !filepath.IsAbs(p) {
				p = filepath.Join(from, p)
			}
			if _, err := os.Lstat(p); (err == nil || namesCode(key, word)) && !within(p, workTree) && within(workspace, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// namesCode reports whether a config's key names, in word, a path git runs or reads settings from even
// before it exists: a hooks folder, an fsmonitor script, an included file. A command must not make it.
// Other words are paths only if they exist (a name, an editor, a URL are not).
func namesCode(key, word string) bool {
	return key == "hookspath" || key == "path" || key == "fsmonitor" && !slices.Contains([]string{"true", "false", "yes", "no", "on", "off", "1", "0"}, strings.ToLower(word))
}

// runFromWorkspace are the workspace's files that commands minicode runs outside the sandbox name (a hook's
// script, an MCP server's program or script, the API key helper), with the project folder's variables
// expanded: a command must not rewrite what runs next outside the sandbox, so they are read-only to
// commands. A hook that runs the project's own tooling (npm test, make) still runs what commands changed.
func runFromWorkspace(workspace string, commands []string) []string {
	vars := strings.NewReplacer("${CLAUDE_PROJECT_DIR}", workspace, "$CLAUDE_PROJECT_DIR", workspace, "${MINICODE_PROJECT_DIR}", workspace,
		"$MINICODE_PROJECT_DIR", workspace, `"`, "", "'", "") // "$CLAUDE_PROJECT_DIR"/hooks/x.sh is one path
	var out []string
	for _, c := range commands {
		for _, word := range strings.FieldsFunc(vars.Replace(c), func(r rune) bool { return strings.ContainsRune(" \t\n`=;&|()<>", r) }) {
			p := word
			if !filepath.IsAbs(p) {
				p = filepath.Join(workspace, p)
			}
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && within(workspace, p) {
				out = append(out, filepath.Clean(p))
			}
		}
	}
	return out
}

// nestedConfigPaths are the workspace's paths that the config of each repository found in its folders
// names (a .git, or a git folder found itself). They are read only when no command runs: what a planted
// repository's config names is not the sweep's to move out.
func nestedConfigPaths(workspace string, found []string) []string {
	var out []string
	user := userGitConfig()
	for _, p := range found {
		switch base := filepath.Base(p); {
		case base == ".git":
			out = append(out, repoConfigPaths(workspace, repoGitDir(filepath.Dir(p)), filepath.Dir(p), user)...)
		case !slices.ContainsFunc(watchedNames(), func(w string) bool { return strings.EqualFold(w, base) }):
			out = append(out, repoConfigPaths(workspace, p, p, user)...)
		}
	}
	return out
}

// present returns the watched paths that exist (the protected names, the watched names in every folder,
// the repositories' parts and their linked work trees' (whose commondir names the config), the deny rules'
// folders), each with its inode, type and a file's change time (a new file can get a removed one's inode,
// and a command can set a modification time back).
func (g *protectedPaths) present() map[string]string {
	paths := slices.Concat(g.denyWrite, g.named)
	for _, config := range otherRepoConfigs() {
		paths = append(paths, filepath.Join(g.workspace, config))
	}
	top, _ := os.ReadDir(g.workspace)
	for _, e := range top {
		if isProtectedName(e.Name()) {
			paths = append(paths, filepath.Join(g.workspace, e.Name()))
		}
	}
	found := g.tree.look()
	for _, git := range g.gitDirs(found) {
		worktrees, _ := filepath.Glob(filepath.Join(git, "worktrees", "*"))
		for _, dir := range append(worktrees, git) {
			for _, part := range gitProtected() {
				paths = append(paths, filepath.Join(dir, part))
			}
			paths = append(paths, hookLinks(filepath.Join(dir, "hooks"))...)
		}
	}
	result := map[string]string{}
	for _, p := range append(paths, found...) {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err != nil || dir != filepath.Dir(p) {
			continue // a folder on the way is a link now: what it leads to is outside the workspace, not the sweep's
		}
		if info, err := os.Lstat(p); err == nil {
			result[p] = identity(info)
		}
	}
	return result
}

// hookLinks are the hooks that are links to a file that exists (a script of the work tree, say): read-only
// as protected paths are, a link is read-only where it leads, so a command cannot rewrite what git runs.
func hookLinks(hooks string) []string {
	entries, _ := os.ReadDir(hooks)
	var links []string
	for _, e := range entries {
		p := filepath.Join(hooks, e.Name())
		if info, err := os.Stat(p); e.Type()&fs.ModeSymlink != 0 && err == nil && info.Mode().IsRegular() {
			links = append(links, p)
		}
	}
	return links
}

// identity is what present keeps of a path: its inode, type and a file's change time.
func identity(info fs.FileInfo) string {
	ino, changed := fileIdentity(info)
	if info.IsDir() {
		changed = time.Time{} // a folder's moves with what is made in it
	}
	return fmt.Sprint(ino, info.Mode(), changed)
}

// accept takes the file a file tool wrote at path as it is, when it still holds data: the user approved the
// write (a protected path always asks), so a patrol while commands run must not move it out. The identity
// kept is of the file read back, so a change made through any name of it later is still seen.
// With no command running it reads nothing: the next command's start takes what exists.
func (g *protectedPaths) accept(path string, data []byte) {
	g.mu.Lock()
	idle := g.running == 0
	g.mu.Unlock()
	if idle {
		return
	}
	f, err := openNoFollow(path, syscall.O_RDONLY, 0)
	if err != nil {
		return
	}
	defer f.Close()
	info, err := f.Stat()
	got, readErr := io.ReadAll(io.LimitReader(f, int64(len(data))+1))
	if err != nil || readErr != nil || !bytes.Equal(got, data) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.known[path], g.kept[path] = identity(info), keptFile{got, info.Mode().Perm(), links(info) == 1}
}

// maxRepos bounds the repositories whose parts are watched: past it, a workspace's further ones are not.
const maxRepos = 1000

// gitDirs are the git folders in the workspace of its repository and of those found in its folders (a
// .git, or a git folder found itself), but those within the workspace's .git (its modules are watched whole).
func (g *protectedPaths) gitDirs(found []string) []string {
	dirs := []string{repoGitDir(g.workspace)}
	for _, p := range found {
		base := filepath.Base(p)
		switch {
		case len(dirs) >= maxRepos:
		case base == ".git":
			dirs = append(dirs, repoGitDir(filepath.Dir(p)))
		case !slices.ContainsFunc(watchedNames(), func(w string) bool { return strings.EqualFold(w, base) }):
			dirs = append(dirs, p)
		}
	}
	top := filepath.Join(g.workspace, ".git")
	slices.Sort(dirs)
	return slices.DeleteFunc(slices.Compact(dirs), func(d string) bool {
		return d == "" || !within(g.workspace, d) || d != top && within(top, d)
	})
}

// mounts are the watched paths that exist and what nested repositories' config names, to be read-only,
// and the repositories' git folders, to be bound onto themselves (read-only they would stop git add): a
// walk of the workspace, so the first command makes it.
func (g *protectedPaths) mounts() (readOnly, anchors []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	present, found := g.present(), g.tree.look()
	anchors = slices.DeleteFunc(g.gitDirs(found), func(d string) bool { return !isDir(d) })
	readOnly = slices.Sorted(maps.Keys(present))
	return slices.DeleteFunc(slices.Compact(readOnly), func(p string) bool { return slices.Contains(anchors, p) }), anchors
}

// commandStarted notes a sandboxed command's start; if none was running, what exists now is accepted,
// and it reports true.
func (g *protectedPaths) commandStarted() (first bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running++; g.running == 1 {
		clear(g.removedNew)
		g.named = slices.Concat(gitConfigPaths(g.workspace), nestedConfigPaths(g.workspace, g.tree.look())) // the user may have set core.hooksPath since
		present := g.present()
		maps.Copy(g.known, present)
		for p, id := range present {
			g.keep(p, id)
		}
		g.held = heldState(filepath.Join(g.workspace, ".git"))
	}
	return g.running == 1
}

// planted are the watched paths, relative to the workspace, that are not as they were when no command ran,
// while commands run (none when none does: the sweep has moved them out).
func (g *protectedPaths) planted() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for p, id := range g.present() {
		if rel, err := filepath.Rel(g.workspace, p); g.running > 0 && g.known[p] != id && err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// patrolEvery is how often the protected paths are swept while sandboxed commands run.
const patrolEvery = 2 * time.Second

// patrol sweeps every patrolEvery until no sandboxed command runs: a background command may run for hours,
// and meanwhile the user's git in another terminal, a hook or the file tools would use what it planted.
func (g *protectedPaths) patrol(notice func(string)) {
	tick := time.NewTicker(patrolEvery)
	defer tick.Stop()
	for range tick.C {
		g.mu.Lock()
		idle := g.running == 0
		g.mu.Unlock()
		if idle {
			return
		}
		if note := g.sweep(); note != "" {
			g.mu.Lock()
			g.untold = append(g.untold, note)
			g.mu.Unlock()
			if notice != nil {
				notice(note)
			}
		}
	}
}

// told returns what patrols removed since a command's result last said so, then note, and forgets them:
// the model hears of a removal in the next command's result.
func (g *protectedPaths) told(note string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	all := strings.Join(slices.DeleteFunc(append(g.untold, note), func(s string) bool { return s == "" }), "\n")
	g.untold = nil
	return all
}

// commandEnded notes a sandboxed command's end; a sweep follows.
func (g *protectedPaths) commandEnded() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
}

// moveOut moves p to kept, or removes it, through its folder as opened from the workspace's top (from /
// for a deny rule's folder elsewhere): a folder on the way that a running command replaced with a link
// since present looked leads nowhere out of it. It reports whether p was kept.
func (g *protectedPaths) moveOut(p, kept string) bool {
	top := map[bool]string{true: g.workspace, false: "/"}[within(g.workspace, p)]
	root, err := os.OpenRoot(top)
	if err != nil {
		return false
	}
	defer root.Close()
	rel, _ := filepath.Rel(top, p)
	moved := os.MkdirAll(filepath.Dir(kept), 0o700) == nil && renameBeneath(root, rel, kept) == nil
	if !moved {
		removeAll(root, rel)
	}
	g.putBack(root, rel, p)
	return moved
}

// removeAll removes rel beneath root where it cannot be moved (the quarantine is on another file system),
// letting its owner list each folder first: what a folder made unreadable holds would stay.
func removeAll(root *os.Root, rel string) {
	if info, err := root.Lstat(rel); err == nil && info.IsDir() {
		root.Chmod(rel, 0o700)
		entries, _ := fs.ReadDir(root.FS(), rel)
		for _, e := range entries {
			removeAll(root, filepath.Join(rel, e.Name()))
		}
	}
	root.RemoveAll(rel)
}

// sweep moves every watched path that appeared while sandboxed commands ran to quarantine, telling which.
func (g *protectedPaths) sweep() (note string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var removed, again, planting []string // again: files now there that commands may see writable, a mount on the one replaced gone
	lost := false                         // what could not be kept was deleted
	present := g.present()
	for _, p := range slices.Sorted(maps.Keys(present)) {
		id, ok := g.known[p]
		if ok && id == present[p] || slices.ContainsFunc(removed, func(r string) bool { return within(filepath.Join(g.workspace, r), p) }) {
			continue // as it was (not replaced, as a link can be), or inside what was moved
		}
		if again = append(again, p); ok && g.usersOwn(p, present[p]) {
			continue
		}
		lost = !g.moveOut(p, filepath.Join(g.quarantine, time.Now().Format("20060102-150405.000000"), p)) || lost
		rel, _ := filepath.Rel(g.workspace, p)
		removed = append(removed, rel)
		if !ok && g.running > 0 {
			if g.removedNew[rel] {
				planting = append(planting, rel)
			}
			g.removedNew[rel] = true
		}
	}
	if planting != nil && g.stopAll != nil {
		g.stopAll()
		note = "A command running now kept making what the sandbox removes, so every sandboxed command running was stopped: " + strings.Join(planting, ", ") + " came back after it was removed."
	}
	if again != nil && g.reprotect != nil {
		g.reprotect(again)
	}
	held := g.held
	if g.held = heldState(filepath.Join(g.workspace, ".git")); !maps.Equal(held, g.held) && held != nil {
		note = strings.TrimSpace(note + "\n" + g.heldNote(held, g.held))
	}
	if removed == nil {
		return note
	}
	kept := "kept in " + g.quarantine
	if lost {
		kept = "deleted where it could not be moved to " + g.quarantine
	}
	return strings.TrimSpace(fmt.Sprintf("The sandbox removed what a command made among the protected paths, which configure git, agents or editors "+
		"and would take effect outside the sandbox: %s (%s); a file that was there before is back as it was. A new repository (git init) is made outside the sandbox.\n%s",
		strings.Join(removed, ", "), kept, note))
}
