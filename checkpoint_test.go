package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// treeState describes every file below dir (but .git) as path, mode and
// contents (a link's target), so two states compare as strings.
func treeState(t testing.TB, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		info, err := os.Lstat(path)
		if err != nil {
			return err
		}
		content := ""
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			content, err = os.Readlink(path)
		case info.Mode().IsRegular():
			var data []byte
			data, err = os.ReadFile(path)
			content = string(data)
		}
		lines = append(lines, fmt.Sprintf("%s %v %q", rel, info.Mode(), content))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// gitState is a digest of everything in a repository's .git folder: refs, index and every object.
func gitState(t testing.TB, dir string) string {
	t.Helper()
	h := sha256.New()
	count := 0
	err := filepath.WalkDir(filepath.Join(dir, ".git"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		fmt.Fprintf(h, "%s %d %x\n", path, len(data), sha256.Sum256(data))
		count++
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d files %x", count, h.Sum(nil))
}

// runGit runs git in dir as the user would, failing the test on an error.
func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// checkpointWorkspace is a git repository with a commit, files of several modes, a link, a
// folder and an ignored file.
func checkpointWorkspace(t testing.TB) string {
	t.Helper()
	ws := t.TempDir()
	for path, body := range map[string]string{"a.txt": "one\ntwo\n", "run.sh": "#!/bin/sh\n", "secret.txt": "s\n", "sub/b.txt": "b\n", ".gitignore": "build/\n", "build/out.bin": "ignored\n"} {
		writeFile(t, filepath.Join(ws, path), body)
	}
	for path, mode := range map[string]fs.FileMode{"run.sh": 0o755, "secret.txt": 0o600} {
		if err := os.Chmod(filepath.Join(ws, path), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a.txt", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	runGit(t, ws, "init", "-q")
	runGit(t, ws, "add", "-A")
	runGit(t, ws, "commit", "-q", "-m", "start")
	return ws
}

func TestCheckpointStoreRestoresTheTree(t *testing.T) {
	ws := checkpointWorkspace(t)
	var warnings []string
	s := newCheckpointStore(t.TempDir(), newSessionID(), ws, CheckpointSettings{}, func(w string) { warnings = append(warnings, w) })
	before, userGit := treeState(t, ws), gitState(t, ws)
	ctx := context.Background()
	tree, modes := s.Snapshot(ctx)
	if tree == "" || modes["secret.txt"] != 0o600 || modes["."] != fs.ModeDir || len(modes) != 2 {
		t.Fatalf("snapshot = %q with modes %v (warnings %q), want a tree, secret.txt's 0600 and the mark of a snapshot of folders alone", tree, modes, warnings)
	}
	// A turn edits, creates (in a new folder), deletes, changes modes and kinds.
	writeFile(t, filepath.Join(ws, "a.txt"), "one\nTWO\nthree\n")
	writeFile(t, filepath.Join(ws, "new/deep/c.txt"), "c\n")
	for _, step := range []func() error{
		func() error { return os.Remove(filepath.Join(ws, "sub/b.txt")) },
		func() error { return os.Chmod(filepath.Join(ws, "run.sh"), 0o644) },
		func() error { return os.Chmod(filepath.Join(ws, "secret.txt"), 0o644) },
		func() error { return os.Remove(filepath.Join(ws, "link")) },
		func() error { return os.WriteFile(filepath.Join(ws, "link"), []byte("now a file\n"), 0o644) },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(ws, "build/out.bin"), "rebuilt\n") // ignored: neither recorded nor restored
	now, nowModes := s.Snapshot(ctx)
	changes, err := s.changes(ctx, now, tree)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, fmt.Sprintf("%c %s +%d -%d", c.Status, c.Path, c.Added, c.Deleted))
	}
	want := []string{"M a.txt +1 -2", "T link +1 -1", "D new/deep/c.txt +0 -1", "M run.sh +0 -0", "A sub/b.txt +1 -0"}
	if !slices.Equal(got, want) {
		t.Errorf("changes = %q, want %q", got, want)
	}
	if err := s.restore(ctx, changes, now, tree, modes, nowModes); err != nil {
		t.Fatal(err)
	}
	after := strings.Replace(treeState(t, ws), `build/out.bin -rw-r--r-- "rebuilt\n"`, `build/out.bin -rw-r--r-- "ignored\n"`, 1)
	if after != before {
		t.Errorf("after the restore the tree is\n%s\nwant\n%s", after, before)
	}
	if got := gitState(t, ws); got != userGit {
		t.Errorf("the user's .git changed: %s, was %s", got, userGit)
	}
	if again, _ := s.Snapshot(ctx); again != tree || len(warnings) > 0 {
		t.Errorf("a snapshot after the restore is %q, want %q (warnings %q)", again, tree, warnings)
	}
}

func TestCheckpointStoreLeavesOutMinicodesHome(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"a.txt": "a\n"})
	home := filepath.Join(ws, "home")
	s := newCheckpointStore(home, newSessionID(), ws, CheckpointSettings{}, func(w string) { t.Error(w) })
	first, _ := s.Snapshot(context.Background())
	writeFile(t, filepath.Join(home, "settings.json"), "{}")
	if second, _ := s.Snapshot(context.Background()); first == "" || second != first {
		t.Errorf("the snapshots are %q and %q, want one tree without the home", first, second)
	}
}

func TestCheckpointStoreFaults(t *testing.T) {
	ws := checkpointWorkspace(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		setup  func(home string) CheckpointSettings
		path   string // PATH while the snapshot runs; "" keeps it
		reason string
	}{
		{"unwritable store", func(home string) CheckpointSettings {
			writeFile(t, filepath.Join(home, "checkpoints"), "a file where the folder should be")
			return CheckpointSettings{}
		}, "", "creating the checkpoint store"},
		{"over the file bound", func(string) CheckpointSettings { return CheckpointSettings{MaxFiles: 3} }, "", "more than the 3 files"},
		{"over the byte bound", func(string) CheckpointSettings { return CheckpointSettings{MaxBytes: 10} }, "", "checkpoints.maxBytes"},
		{"no git", func(string) CheckpointSettings { return CheckpointSettings{} }, t.TempDir(), "checkpoints need the git program"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			var warnings []string
			s := newCheckpointStore(home, newSessionID(), ws, tc.setup(home), func(w string) { warnings = append(warnings, w) })
			if tc.path != "" {
				t.Setenv("PATH", tc.path)
			}
			for range 2 {
				if tree, _ := s.Snapshot(ctx); tree != "" {
					t.Fatalf("snapshot = %q, want none", tree)
				}
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], tc.reason) || strings.Count(warnings[0], "not a directory") > 1 {
				t.Errorf("warnings %q; want one saying %q once", warnings, tc.reason)
			}
		})
	}
}

func TestCheckpointStoreDamaged(t *testing.T) {
	ws := checkpointWorkspace(t)
	ctx := context.Background()
	s := newCheckpointStore(t.TempDir(), newSessionID(), ws, CheckpointSettings{}, func(string) {})
	tree, _ := s.Snapshot(ctx)
	writeFile(t, filepath.Join(ws, "a.txt"), "changed\n")
	now, _ := s.Snapshot(ctx)
	if err := os.RemoveAll(filepath.Join(s.dir, "objects")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.changes(ctx, now, tree); err == nil || !strings.Contains(err.Error(), s.dir) {
		t.Errorf("changes from a store without objects: %v, want an error naming the store", err)
	}
}

// BenchmarkCheckpoint times a snapshot after the first, with one file changed, of a copy of
// minicode's own tree and of a tree of 10,000 files.
func BenchmarkCheckpoint(b *testing.B) {
	own := b.TempDir()
	if out, err := exec.Command("cp", "-r", ".", own).CombinedOutput(); err != nil {
		b.Fatalf("copying the source: %v %s", err, out)
	}
	large := b.TempDir()
	for i := range 10_000 {
		writeFile(b, filepath.Join(large, fmt.Sprintf("dir%03d/file%05d.txt", i/100, i)), strings.Repeat(fmt.Sprintf("line %d\n", i), 20))
	}
	for _, tc := range []struct{ name, ws, changed string }{{"minicode", own, "README.md"}, {"10000_files", large, "dir042/file04200.txt"}} {
		b.Run(tc.name, func(b *testing.B) {
			s := newCheckpointStore(b.TempDir(), newSessionID(), tc.ws, CheckpointSettings{}, func(w string) { b.Fatal(w) })
			s.Snapshot(context.Background())
			n := 0
			for b.Loop() {
				n++
				writeFile(b, filepath.Join(tc.ws, tc.changed), fmt.Sprintf("version %d\n", n))
				if tree, _ := s.Snapshot(context.Background()); tree == "" {
					b.Fatal("no snapshot")
				}
			}
		})
	}
}
