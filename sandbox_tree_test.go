package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestFolderTreeLooksEverywhere finds the watched names in any folder, and
// after a change the folder is read again even when its modification time
// is set back, as touch -d does; a folder made and removed between looks
// leaves nothing behind.
func TestFolderTreeLooksEverywhere(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"CLAUDE.md": "top\n", "a/b/keep.go": "package b\n", "v/CLAUDE.md": "v\n", ".claude/x/.git/config": "", "src/.git/HEAD": ""})
	tree := &folderTree{root: root}
	want := []string{filepath.Join(root, "src/.git"), filepath.Join(root, "v/CLAUDE.md")}
	if got := tree.look(); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Fatalf("first look = %q, want %q", got, want)
	}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	writeTree(t, root, map[string]string{"a/b/c/.GIT/config": "", "a/b/CLAUDE.md": "planted\n", "gone/x/.git/HEAD": ""})
	for _, dir := range []string{"a/b/c", "a/b", "a"} {
		os.Chtimes(filepath.Join(root, dir), old, old)
	}
	want = []string{filepath.Join(root, "a/b/CLAUDE.md"), filepath.Join(root, "a/b/c/.GIT"), filepath.Join(root, "gone/x/.git"), want[0], want[1]}
	if got := tree.look(); !slices.Equal(slices.Sorted(slices.Values(got)), want) {
		t.Fatalf("look after planting = %q, want %q", got, want)
	}
	os.RemoveAll(filepath.Join(root, "gone"))
	if got := tree.look(); len(got) != 4 || slices.Contains(got, filepath.Join(root, "gone/x/.git")) {
		t.Fatalf("look after removing = %q", got)
	}
	if _, ok := tree.dirs[filepath.Join(root, "gone/x")]; ok {
		t.Error("the tree keeps a removed folder")
	}
}

// BenchmarkFolderTreeLook compares looking again over 3,000 unchanged
// folders (a stat each) with the first look (a read of each folder).
func BenchmarkFolderTreeLook(b *testing.B) {
	root := b.TempDir()
	for i := range 3000 {
		os.MkdirAll(filepath.Join(root, fmt.Sprint(i%30), fmt.Sprint(i/30%10), fmt.Sprint(i)), 0o755)
	}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			(&folderTree{root: root}).look()
		}
	})
	b.Run("again", func(b *testing.B) {
		tree := &folderTree{root: root}
		tree.look()
		time.Sleep(1100 * time.Millisecond) // past the second of slack after the folders were made
		tree.look()
		for b.Loop() {
			tree.look()
		}
	})
}
