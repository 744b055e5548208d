package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Checkpoints record the workspace's files before each prompt, so /rewind can bring back what a
// turn changed, by file tools or commands alike. Each session has a git directory of its own,
// $MINICODE_HOME/checkpoints/<session>, driven with GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE:
// the user's repository is never opened, .gitignore holds as for the user's git, each version
// of a file is stored once, and the index makes a snapshot cost about a stat per file.

// The bounds of a workspace that checkpoints cover, unless settings change them.
const (
	defaultCheckpointFiles = 20_000
	defaultCheckpointBytes = 200 << 20
)

// CheckpointSettings are the "checkpoints" settings: the bounds of the workspace covered.
type CheckpointSettings struct {
	MaxFiles int   `json:"maxFiles,omitempty"`
	MaxBytes int64 `json:"maxBytes,omitempty"`
}

// CheckpointStore keeps one session's snapshots of the workspace as trees in a git directory of its own.
type CheckpointStore struct {
	dir, workspace string
	limits         CheckpointSettings
	paths          []string     // the pathspec recorded: all, but minicode's home when it is inside
	warn           func(string) // tells the user once why checkpoints stopped

	mu  sync.Mutex
	off string // why checkpoints are off for the session; "" while they are on
}

// fileChange is how one file differs between two snapshots.
type fileChange struct {
	Path           string // relative, with slashes
	Status         byte   // A: only in the second, D: only in the first, M: changed, T: changed kind
	Added, Deleted int    // lines, as git counts them (0 for binary files)
}

// newCheckpointStore returns the store of session id; it is created with the first snapshot.
func newCheckpointStore(home, id, workspace string, limits CheckpointSettings, warn func(string)) *CheckpointStore {
	s := &CheckpointStore{dir: filepath.Join(home, "checkpoints", id), workspace: workspace, limits: limits, warn: warn}
	if rel, err := filepath.Rel(workspace, home); err == nil && within(workspace, home) {
		s.paths = []string{"--", ":/", ":(exclude,top)" + filepath.ToSlash(rel)}
	}
	return s
}

// Snapshot records the workspace and returns its tree and the permissions git does not keep
// (other than 0644 and 0755); tree is "" when checkpoints are off. The first failure turns
// checkpoints off for the session, said once: a turn never waits on a broken store.
func (s *CheckpointStore) Snapshot(ctx context.Context) (tree string, modes map[string]fs.FileMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.off != "" {
		return "", nil
	}
	tree, modes, err := s.snapshot(context.WithoutCancel(ctx)) // the end of an interrupted turn is recorded too
	if err != nil {
		s.off = err.Error()
		s.warn(fmt.Sprintf("checkpoints are off for this session: %v; /rewind can still restore the conversation", err))
		return "", nil
	}
	return tree, modes
}

// snapshot checks the workspace against the bounds, then adds it to the store's index and writes its tree.
func (s *CheckpointStore) snapshot(ctx context.Context) (string, map[string]fs.FileMode, error) {
	if err := s.open(); err != nil {
		return "", nil, err
	}
	listed, err := s.git(ctx, append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard"}, s.paths...)...)
	if err != nil {
		return "", nil, err
	}
	files, size, modes := 0, int64(0), map[string]fs.FileMode{}
	for rel := range strings.SplitSeq(strings.TrimSuffix(listed, "\x00"), "\x00") {
		info, err := os.Lstat(filepath.Join(s.workspace, filepath.FromSlash(rel)))
		if err != nil || rel == "" {
			continue // in the index, deleted since
		}
		files, size = files+1, size+info.Size()
		if perm := info.Mode().Perm(); info.Mode().IsRegular() && perm != 0o644 && perm != 0o755 {
			modes[rel] = perm
		}
	}
	maxFiles, maxBytes := cmp.Or(s.limits.MaxFiles, defaultCheckpointFiles), cmp.Or(s.limits.MaxBytes, defaultCheckpointBytes)
	if files > maxFiles || size > maxBytes {
		return "", nil, fmt.Errorf("the workspace holds %d files and %d MB outside .gitignore, more than the %d files or %d MB checkpoints cover (settings: checkpoints.maxFiles, checkpoints.maxBytes)",
			files, size>>20, maxFiles, maxBytes>>20)
	}
	if _, err := s.git(ctx, append([]string{"add", "-A"}, s.paths...)...); err != nil {
		return "", nil, err
	}
	tree, err := s.git(ctx, "write-tree")
	return strings.TrimSpace(tree), modes, err
}

// open creates the git directory if it is missing and removes a lock a killed minicode left.
func (s *CheckpointStore) open() error {
	if _, err := exec.LookPath("git"); err != nil {
		return errors.New("checkpoints need the git program, which is not installed or not on the PATH")
	}
	if _, err := os.Stat(filepath.Join(s.dir, "HEAD")); err != nil { // what git init makes, without its process
		err = errors.Join(os.MkdirAll(filepath.Join(s.dir, "objects"), 0o700), os.MkdirAll(filepath.Join(s.dir, "refs"), 0o700))
		if err = cmp.Or(err, os.WriteFile(filepath.Join(s.dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o600)); err != nil {
			return fmt.Errorf("creating the checkpoint store: %w", err)
		}
	}
	os.Remove(filepath.Join(s.dir, "index.lock")) // the store is this process's alone, under s.mu
	return nil
}

// changes lists how the tree to differs from the tree from, line counts included.
func (s *CheckpointStore) changes(ctx context.Context, from, to string) ([]fileChange, error) {
	if from == to {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out, err := s.git(ctx, "diff-tree", "-r", "-z", "--raw", "--numstat", "--no-renames", from, to)
	if err != nil {
		return nil, err
	}
	var changes []fileChange
	counted := 0 // the --numstat entries follow the --raw ones in the same order
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		if meta := strings.Fields(fields[i]); len(meta) == 5 && strings.HasPrefix(meta[0], ":") && i+1 < len(fields) {
			i++
			changes = append(changes, fileChange{Path: fields[i], Status: meta[4][0]})
		} else if n := strings.SplitN(fields[i], "\t", 3); len(n) == 3 && counted < len(changes) {
			changes[counted].Added, _ = strconv.Atoi(n[0])
			changes[counted].Deleted, _ = strconv.Atoi(n[1])
			counted++
		}
	}
	return changes, nil
}

// restore makes the workspace, whose snapshot from was just taken with the permissions current,
// the tree to with the permissions modes: git's two-tree merge writes the changes (those between
// the two trees) into the workspace, removing the files to lacks and the folders left empty.
func (s *CheckpointStore) restore(ctx context.Context, changes []fileChange, from, to string, modes, current map[string]fs.FileMode) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.git(ctx, "read-tree", "-m", "-u", from, to); err != nil {
		return err
	}
	var restore []string
	for _, c := range changes {
		restore = append(restore, c.Path)
	}
	// git keeps the executable bit alone: set every other permission the snapshots saw.
	for _, path := range slices.Concat(restore, slices.Collect(maps.Keys(current)), slices.Collect(maps.Keys(modes))) {
		full := filepath.Join(s.workspace, filepath.FromSlash(path))
		info, err := os.Lstat(full)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		perm := map[bool]fs.FileMode{false: 0o644, true: 0o755}[info.Mode()&0o100 != 0]
		if err := os.Chmod(full, cmp.Or(modes[path], perm)); err != nil {
			return fmt.Errorf("restoring the mode of %s: %w", path, err)
		}
	}
	return nil
}

// git runs a git command on the store, with the workspace as its work tree and none of the
// user's git configuration or GIT_ variables; its errors carry git's message.
func (s *CheckpointStore) git(ctx context.Context, args ...string) (string, error) {
	options := []string{"-c", "core.autocrlf=false", "-c", "core.untrackedCache=true", "-c", "gc.auto=0", "-c", "safe.directory=*", "-c", "core.quotePath=false"}
	cmd := exec.CommandContext(ctx, "git", append(options, args...)...)
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GIT_") }),
		"GIT_DIR="+s.dir, "GIT_WORK_TREE="+s.workspace, "GIT_INDEX_FILE="+filepath.Join(s.dir, "index"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	cmd.Dir, cmd.SysProcAttr = s.workspace, commandProcAttr() // ends with minicode
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s in %s: %v: %s", args[0], s.dir, err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
