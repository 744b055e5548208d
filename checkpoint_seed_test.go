package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// storeObjects lists the object files of a store.
func storeObjects(t *testing.T, s *CheckpointStore) []string {
	t.Helper()
	var objects []string
	err := filepath.WalkDir(filepath.Join(s.dir, "objects"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			objects = append(objects, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return objects
}

// sharedObjects counts the object files of a that are the same files (hard links) as some of b's.
func sharedObjects(t *testing.T, a, b *CheckpointStore) int {
	t.Helper()
	shared := 0
	for _, x := range storeObjects(t, a) {
		for _, y := range storeObjects(t, b) {
			xi, _ := os.Stat(x)
			yi, _ := os.Stat(y)
			if os.SameFile(xi, yi) {
				shared++
			}
		}
	}
	return shared
}

func TestCheckpointStoreSeededFromTheWorkspacesNewest(t *testing.T) {
	ws, home, ctx := checkpointWorkspace(t), t.TempDir(), context.Background()
	writeFile(t, filepath.Join(ws, "vendor/lib/x.go"), "package lib\n") // a repository inside: the store keeps its commit, not a blob
	runGit(t, filepath.Join(ws, "vendor/lib"), "init", "-q")
	runGit(t, filepath.Join(ws, "vendor/lib"), "add", "-A")
	runGit(t, filepath.Join(ws, "vendor/lib"), "commit", "-q", "-m", "lib")
	var warnings []string
	store := func(ws string) *CheckpointStore {
		return newCheckpointStore(home, newSessionID(), ws, CheckpointSettings{}, func(w string) { warnings = append(warnings, w) })
	}
	first := store(ws)
	tree, _ := first.Snapshot(ctx)
	other := store(workspaceWith(t, map[string]string{"a.txt": "one\ntwo\n", "other.txt": "x\n"})) // written last, of another workspace
	other.Snapshot(ctx)

	unchanged := store(ws)
	if got, _ := unchanged.Snapshot(ctx); got != tree {
		t.Errorf("a store seeded for an unchanged workspace has tree %q, want %q", got, tree)
	}
	if n := sharedObjects(t, unchanged, first); n != 6 { // a.txt, run.sh, secret.txt, sub/b.txt, .gitignore, link
		t.Errorf("the seeded store shares %d objects with the earlier one, want its 6 blobs", n)
	}
	if n := sharedObjects(t, unchanged, other); n != 0 {
		t.Errorf("the seeded store shares %d objects with a store of another workspace", n)
	}

	// Changes made since are recorded, as a store that hashes every file records them.
	writeFile(t, filepath.Join(ws, "a.txt"), "ONE\nTWO\n") // the same size
	writeFile(t, filepath.Join(ws, "new.txt"), "new\n")
	os.Remove(filepath.Join(ws, "sub/b.txt"))
	changed := store(ws)
	seeded, modes := changed.Snapshot(ctx)
	if hashed, _ := first.Snapshot(ctx); seeded != hashed || seeded == tree {
		t.Errorf("the seeded store's tree after changes is %q, want %q (and not %q)", seeded, hashed, tree)
	}

	// With every earlier store removed, the seeded one still rewinds.
	before := treeState(t, ws)
	for _, s := range []*CheckpointStore{first, unchanged, other} {
		if err := os.RemoveAll(s.dir); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(ws, "a.txt"), "later\n")
	os.Remove(filepath.Join(ws, "run.sh"))
	now, nowModes := changed.Snapshot(ctx)
	changes, err := changed.changes(ctx, now, seeded)
	if err == nil {
		err = changed.restore(ctx, changes, now, seeded, modes, nowModes)
	}
	if after := treeState(t, ws); err != nil || after != before {
		t.Errorf("the rewind in the seeded store: %v; the workspace is\n%s\nwant\n%s", err, after, before)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings %q", warnings)
	}
}

func TestCheckpointStoreSeedFallsBackToAFreshStore(t *testing.T) {
	ws, home, ctx := checkpointWorkspace(t), t.TempDir(), context.Background()
	first := newCheckpointStore(home, newSessionID(), ws, CheckpointSettings{}, func(w string) { t.Error(w) })
	tree, _ := first.Snapshot(ctx)
	if err := os.RemoveAll(filepath.Join(first.dir, "objects")); err != nil { // an index whose blobs cannot be linked
		t.Fatal(err)
	}
	second := newCheckpointStore(home, newSessionID(), ws, CheckpointSettings{}, func(w string) { t.Error(w) })
	if got, _ := second.Snapshot(ctx); got != tree {
		t.Errorf("the fresh store's tree is %q, want %q", got, tree)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(home, "checkpoints", "*.seeding")); len(leftovers) > 0 {
		t.Errorf("a failed seed left %q", leftovers)
	}
}
