package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A command can plant a repository in any folder of the workspace, however deep (git init, a .git file
// naming one, a submodule linked through the writable index, a folder that is itself a repository's git
// folder, as a bare one is): the user's git in that folder runs its hooks, core.fsmonitor or core.pager
// outside the sandbox. A CLAUDE.md planted there reaches the model on its next read
// there; a .claude, .minicode or .mcp.json runs its hooks and servers when the user opens the folder,
// trusted as the workspace is. So the protected paths look for these names in every folder. Reading every folder before and
// after each command would cost a readdir each; a folderTree reads again only the folders whose change
// time (ctime) moved since its last look, which a command cannot set back as it can a modification time.

// watchedNames are the names looked for in every folder.
func watchedNames() []string {
	return []string{".git", "CLAUDE.md", ".claude", ".minicode", ".mcp.json"}
}

// folderTree is the workspace's folders as last read.
type folderTree struct {
	root   string
	looked time.Time // when the last look began
	dirs   map[string]treeFolder
}

// treeFolder is one folder: its inode when read, the folders in it and the watched names it holds.
type treeFolder struct {
	ino   uint64
	subs  []string
	found []string
}

// look brings the tree up to date and returns the watched paths in it, the workspace's own but .git,
// CLAUDE.md and .claude (the protected names cover those). A folder changed since a second before the
// last look began is read again: a change time lags the clock by a tick at most.
func (t *folderTree) look() []string {
	since := t.looked.Add(-time.Second)
	t.looked = time.Now()
	next := map[string]treeFolder{}
	var found []string
	for queue := []string{t.root}; len(queue) > 0; {
		dir := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		info, err := os.Lstat(dir)
		if err != nil || !info.IsDir() {
			continue // gone, or a link now: what it leads to is not the workspace's
		}
		ino, changed := fileIdentity(info)
		f, ok := t.dirs[dir]
		if !ok || f.ino != ino || !changed.Before(since) {
			f = readTreeFolder(dir, dir == t.root)
			f.ino = ino
		}
		next[dir] = f
		queue = append(queue, f.subs...)
		found = append(found, f.found...)
	}
	t.dirs = next
	return found
}

// readTreeFolder lists a folder's subfolders to look into and its watched names; the workspace's own
// protected folders are read-only or swept whole, and so is a watched name's folder, a git folder and a
// folder it cannot read (git and agents may still reach into it), each found itself; the workspace, a git
// folder, by its HEAD (without a .git, git in it would use it).
func readTreeFolder(dir string, root bool) treeFolder {
	var f treeFolder
	entries, err := os.ReadDir(dir)
	switch {
	case root && isGitFolder(entries):
		f.found = []string{filepath.Join(dir, "HEAD")}
	case !root && (err != nil || isGitFolder(entries)):
		return treeFolder{found: []string{dir}}
	}
	for _, e := range entries {
		name := e.Name()
		watched := slices.ContainsFunc(watchedNames(), func(w string) bool { return strings.EqualFold(w, name) }) // as a case-folding file system finds them
		switch {
		case root && slices.Contains(protectedNames(), name):
		case watched:
			f.found = append(f.found, filepath.Join(dir, name))
		case e.IsDir():
			f.subs = append(f.subs, filepath.Join(dir, name))
		}
	}
	return f
}

// isGitFolder reports whether a folder holds what git takes for a repository's git folder: a HEAD, and
// objects and refs or a commondir naming where they are. Git run there uses it, with its own config.
func isGitFolder(entries []os.DirEntry) bool {
	has := func(name string) bool {
		return slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == name })
	}
	return has("HEAD") && (has("objects") && has("refs") || has("commondir"))
}

// repoGitDir is the git folder of the repository whose work tree is dir: dir/.git, or where a .git file
// points ("gitdir: ..."), as in a submodule or a linked work tree; "" if there is none.
func repoGitDir(dir string) string {
	git := filepath.Join(dir, ".git")
	if isDir(git) {
		return git
	}
	data, err := os.ReadFile(git)
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if err != nil || !ok {
		return ""
	}
	if target = strings.TrimSpace(target); !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return target
}
