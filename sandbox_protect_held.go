package main

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A command cannot write a protected file, but it may write git's objects, index and refs (git add and
// git commit must work), and so make git hold a version of one that the file does not have: staged,
// committed, on a branch or in the stash. The user's own checkout, reset, stash or merge would then write
// it where no command may, and a hook framework would run it at the next commit. The sweep cannot undo
// that without rewriting the user's history, so it says which paths and where git holds them. Only the
// workspace's repository is looked at: its index and refs are what the user's git works with.

// heldState is what the workspace repository's refs name (HEAD, as written, among them) and the index's
// identity: a change in it is a command's git add, commit, branch or stash, or the user's.
func heldState(gitDir string) map[string]string {
	state := map[string]string{}
	if data, err := os.ReadFile(filepath.Join(gitDir, "packed-refs")); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if hash, ref, ok := strings.Cut(line, " "); ok && strings.HasPrefix(ref, "refs/") {
				state[ref] = hash
			}
		}
	}
	filepath.WalkDir(filepath.Join(gitDir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if data, readErr := os.ReadFile(p); err == nil && d.Type().IsRegular() && readErr == nil {
			rel, _ := filepath.Rel(gitDir, p)
			state[filepath.ToSlash(rel)] = strings.TrimSpace(string(data)) // a loose ref overrides a packed one
		}
		return nil
	})
	if data, err := os.ReadFile(filepath.Join(gitDir, "HEAD")); err == nil {
		state["HEAD"] = strings.TrimSpace(string(data))
	}
	if info, err := os.Lstat(filepath.Join(gitDir, "index")); err == nil {
		state["index"] = identity(info)
	}
	return state
}

// heldNote says which protected paths git holds, since before, in a version the file does not have: in
// the index, or in a ref that changed (compared with what it named before, where it named something).
func (g *protectedPaths) heldNote(before, after map[string]string) string {
	var held []string
	for _, ref := range slices.Sorted(maps.Keys(after)) {
		if before[ref] == after[ref] {
			continue
		}
		var paths []string
		old, rev := before[ref], after[ref]
		if ref == "HEAD" {
			rev = "HEAD"
		}
		switch {
		case ref == "index": // staged, not as the file is, and not as committed
			paths = intersect(g.gitPaths("--cached"), g.gitPaths())
		case strings.HasPrefix(old, "ref:") || old == "":
			paths = g.gitPaths(rev)
		default:
			paths = intersect(g.gitPaths(rev), g.gitPaths(old, rev))
		}
		for _, p := range paths {
			held = append(held, fmt.Sprintf("%s (%s)", p, strings.TrimPrefix(map[bool]string{true: "the index", false: ref}[ref == "index"], "refs/heads/")))
		}
	}
	if held == nil {
		return ""
	}
	return "Git now holds a version of protected paths that differs from the file, which a command may have put there: " +
		strings.Join(held, ", ") + ". A checkout, reset, stash or merge would write it, outside the sandbox; " +
		"see `git diff <where> -- <path>` first, and `git reset -- <path>` unstages one."
}

// gitPaths are the protected paths that differ between the revisions given (none: the index and the work
// tree; one: it and the work tree), as git diff --name-only lists them, run without the environment's GIT_
// variables, external diff programs or text conversion.
func (g *protectedPaths) gitPaths(revs ...string) []string {
	var specs []string
	for _, name := range slices.DeleteFunc(protectedNames(), func(n string) bool { return n == ".git" }) {
		specs = append(specs, ":(top,glob,icase)"+name, ":(top,glob,icase)"+name+"/**")
	}
	for _, name := range watchedNames()[1:] {
		specs = append(specs, ":(top,glob,icase)**/"+name, ":(top,glob,icase)**/"+name+"/**")
	}
	for _, p := range g.named {
		if rel, err := filepath.Rel(g.workspace, p); err == nil {
			specs = append(specs, ":(top,literal)"+filepath.ToSlash(rel))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	args := slices.Concat([]string{"-c", "core.quotePath=false", "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"}, revs, []string{"--"}, specs)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = g.workspace, append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GIT_") }), "GIT_OPTIONAL_LOCKS=0")
	out, _ := cmd.Output()
	return strings.FieldsFunc(string(out), func(r rune) bool { return r == 0 })
}

// intersect is what a and b both hold.
func intersect(a, b []string) []string {
	return slices.DeleteFunc(a, func(s string) bool { return !slices.Contains(b, s) })
}
