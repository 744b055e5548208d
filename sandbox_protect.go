package main

import (
	"fmt"
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
func gitProtected() []string {
	return []string{"hooks", "config", "config.worktree", "info", "modules", "commondir"}
}

// protectedPaths watches a workspace's protected paths and the folders of Edit and Write deny rules.
// Those that exist are read-only in the sandbox (.git is bound onto itself, so it cannot be renamed away);
// one that appears while a sandboxed command runs is moved out of the workspace when the command ends, a
// new repository too (git init then runs outside the sandbox, with the user's approval).
type protectedPaths struct {
	workspace, quarantine string
	denyWrite             []string
	mu                    sync.Mutex
	known                 map[string]string // what existed (inode, type, time) while no sandboxed command ran
	running               int               // sandboxed commands running now
}

// watchProtected starts watching; in a repository without hooks or info
// folders it makes them (git init would), so that they can be read-only.
func watchProtected(workspace, state string, denyWrite []string) *protectedPaths {
	g := &protectedPaths{workspace: workspace, denyWrite: append(slices.Clip(denyWrite), gitConfigPaths(workspace)...),
		quarantine: filepath.Join(state, "removed")}
	if git := filepath.Join(workspace, ".git"); isDir(git) {
		os.Mkdir(filepath.Join(git, "hooks"), 0o755)
		os.Mkdir(filepath.Join(git, "info"), 0o755)
	}
	g.known = g.present()
	return g
}

// gitConfigPaths are the workspace's paths the repository's settings name, such as core.hooksPath = .husky
// or a core.fsmonitor script: what a command changed there would run at the user's next git command.
func gitConfigPaths(workspace string) []string {
	config, _ := os.ReadFile(filepath.Join(workspace, ".git", "config"))
	var out []string
	for _, line := range strings.Split(string(config), "\n") {
		_, value, _ := strings.Cut(line, "=")
		for _, word := range strings.Fields(value) {
			p := filepath.Join(workspace, strings.Trim(word, `"'!`))
			if _, err := os.Lstat(p); err == nil && p != workspace && within(workspace, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// present returns the watched paths that exist (the protected names, the repository's parts, the deny
// rules' folders), each with its inode, type and a file's time (a new file can get a removed one's inode).
func (g *protectedPaths) present() map[string]string {
	paths := slices.Clone(g.denyWrite)
	for _, name := range protectedNames() {
		paths = append(paths, filepath.Join(g.workspace, name))
	}
	for i, dir := range g.folders() {
		if i > 0 { // one planted there is swept
			paths = append(paths, filepath.Join(dir, ".git"), filepath.Join(dir, "CLAUDE.md"), filepath.Join(dir, ".claude"))
		}
		for _, part := range gitProtected() {
			paths = append(paths, filepath.Join(dir, ".git", part))
		}
	}
	found := map[string]string{}
	for _, p := range paths {
		if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err != nil || dir != filepath.Dir(p) {
			continue // a folder on the way is a link now: what it leads to is outside the workspace, not the sweep's
		}
		if info, err := os.Lstat(p); err == nil {
			found[p] = fmt.Sprint(info.Sys().(*syscall.Stat_t).Ino, info.Mode())
			if !info.IsDir() { // a folder's time changes with what is made in it
				found[p] += info.ModTime().String()
			}
		}
	}
	return found
}

// folders are the workspace, its folders one level down but the protected ones (where a repository may
// be: a vendored clone; editors look for repositories there and run git, and a CLAUDE.md there is read
// with a file beside it) and every folder a repository's index links as a submodule (sandbox_gitlinks.go).
func (g *protectedPaths) folders() []string {
	dirs := []string{g.workspace}
	entries, _ := os.ReadDir(g.workspace)
	for _, e := range entries {
		if e.IsDir() && !slices.Contains(protectedNames(), e.Name()) {
			dirs = append(dirs, filepath.Join(g.workspace, e.Name()))
		}
	}
	seen := map[string]bool{}
	for _, dir := range dirs {
		seen[dir] = true
	}
	for i := 0; i < len(dirs) && len(dirs) < maxRepoFolders; i++ {
		if git := repoGitDir(dirs[i]); git != "" {
			for _, link := range gitlinks(git) {
				if p := filepath.Join(dirs[i], link); within(g.workspace, p) && !seen[p] {
					seen[p] = true
					dirs = append(dirs, p)
				}
			}
		}
	}
	return dirs
}

// anchors are the folders bound onto themselves: the repositories.
func (g *protectedPaths) anchors() []string {
	var repos []string
	for _, dir := range g.folders() {
		if git := filepath.Join(dir, ".git"); isDir(git) {
			repos = append(repos, git)
		}
	}
	return repos
}

// readOnly lists the existing watched paths but the anchors.
func (g *protectedPaths) readOnly() []string {
	anchors := g.anchors()
	return slices.DeleteFunc(slices.Sorted(maps.Keys(g.present())), func(p string) bool { return slices.Contains(anchors, p) })
}

// commandStarted notes a sandboxed command's start; if none was running, what exists now is accepted.
func (g *protectedPaths) commandStarted() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.running++; g.running == 1 {
		maps.Copy(g.known, g.present())
	}
}

// commandEnded notes a sandboxed command's end; a sweep follows.
func (g *protectedPaths) commandEnded() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
}

// sweep moves every watched path that appeared while sandboxed commands ran to quarantine, telling which.
func (g *protectedPaths) sweep() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var removed []string
	present := g.present()
	for _, p := range slices.Sorted(maps.Keys(present)) {
		if id, ok := g.known[p]; ok && id == present[p] || slices.ContainsFunc(removed, func(r string) bool { return within(filepath.Join(g.workspace, r), p) }) {
			continue // as it was (not replaced, as a link can be), or inside what was moved
		}
		kept := filepath.Join(g.quarantine, time.Now().Format("20060102-150405.000000"), p)
		if os.MkdirAll(filepath.Dir(kept), 0o700) != nil || os.Rename(p, kept) != nil {
			os.RemoveAll(p)
		}
		rel, _ := filepath.Rel(g.workspace, p)
		removed = append(removed, rel)
	}
	if removed == nil {
		return ""
	}
	return fmt.Sprintf("The sandbox removed what a command made among the protected paths, which configure git, agents or editors "+
		"and would take effect outside the sandbox: %s (kept in %s). A new repository (git init) is made outside the sandbox.",
		strings.Join(removed, ", "), g.quarantine)
}
