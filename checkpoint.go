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
	"time"
)

// Checkpoints record the workspace's files before each prompt, so /rewind can bring back what a
// turn changed, by file tools or commands alike. Each session has a git directory of its own,
// $MINICODE_HOME/checkpoints/<session>, driven with GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE:
// the user's repository is never opened, .gitignore holds as for the user's git, each version
// of a file is stored once, and the index makes a snapshot cost about a stat per file, the first
// of a session's too when an earlier session's store of the workspace seeds it.

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
	paths          []string        // the pathspec recorded: all, but minicode's home when it is inside
	warn           func(string)    // tells the user once why checkpoints stopped
	planted        func() []string // protected paths a running command may have made, not recorded (a rewind would write them)

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
	s := &CheckpointStore{dir: filepath.Join(home, "checkpoints", id), workspace: workspace, limits: limits, warn: warn,
		paths: []string{"--", ":/"}, planted: func() []string { return nil }}
	if rel, err := filepath.Rel(workspace, home); err == nil && within(workspace, home) {
		s.paths = append(s.paths, ":(exclude,top)"+filepath.ToSlash(rel))
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
	if err := s.open(ctx); err != nil {
		return "", nil, err
	}
	paths := s.pathspec()
	listed, err := s.git(ctx, append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard"}, paths...)...)
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
	if _, err := s.git(ctx, append([]string{"add", "-A"}, paths...)...); err != nil {
		return "", nil, err
	}
	if err := s.folders(ctx, paths, modes); err != nil {
		return "", nil, err
	}
	tree, err := s.git(ctx, "write-tree")
	return strings.TrimSpace(tree), modes, err
}

// pathspec is what a snapshot records: s.paths, less the protected paths a running command may have made.
func (s *CheckpointStore) pathspec() []string {
	paths := s.paths
	for _, rel := range s.planted() {
		paths = append(slices.Clip(paths), ":(exclude,top,literal)"+rel)
	}
	return paths
}

// folders adds to modes, as fs.ModeDir, the folders that git does not record, once every file is
// added: those that hold only folders or ignored files. "." marks a snapshot that lists them, as
// older ones did not, so that restore can tell which folders a turn made.
func (s *CheckpointStore) folders(ctx context.Context, paths []string, modes map[string]fs.FileMode) error {
	listed, err := s.git(ctx, append([]string{"ls-files", "-z", "--others", "--directory", "--exclude-standard"}, paths...)...)
	if err != nil {
		return err
	}
	modes["."] = fs.ModeDir
	for top := range strings.SplitSeq(listed, "\x00") {
		if !strings.HasSuffix(top, "/") {
			continue // the end, or a file made since the files were added
		}
		filepath.WalkDir(filepath.Join(s.workspace, filepath.FromSlash(top)), func(path string, d fs.DirEntry, err error) error {
			if rel, _ := filepath.Rel(s.workspace, path); err == nil && d.IsDir() {
				modes[filepath.ToSlash(rel)] = fs.ModeDir
			}
			return nil
		})
	}
	return nil
}

// open creates the git directory if it is missing, seeded when it can be, and removes a lock a killed minicode left.
func (s *CheckpointStore) open(ctx context.Context) error {
	if _, err := exec.LookPath("git"); err != nil {
		return errors.New("checkpoints need the git program, which is not installed or not on the PATH")
	}
	if _, err := os.Lstat(s.dir); errors.Is(err, fs.ErrNotExist) {
		s.seed(ctx) // or a fresh store, whose first snapshot hashes every file
	}
	if _, err := os.Stat(filepath.Join(s.dir, "HEAD")); err != nil {
		if err := create(s.dir, s.workspace); err != nil {
			return fmt.Errorf("creating the checkpoint store: %w", err)
		}
	}
	os.Remove(filepath.Join(s.dir, "index.lock")) // the store is this process's alone, under s.mu
	return nil
}

// create makes a git directory (what git init makes, without its process) that names its workspace.
func create(dir, workspace string) error {
	err := cmp.Or(os.MkdirAll(filepath.Join(dir, "objects"), 0o700), os.MkdirAll(filepath.Join(dir, "refs"), 0o700))
	err = cmp.Or(err, os.WriteFile(filepath.Join(dir, "workspace"), []byte(workspace), 0o600))
	return cmp.Or(err, os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o600))
}

// seed makes a new store from the workspace's newest one, so that its first snapshot hashes
// only the files changed since: it copies the index, whose stat data tell git which files are
// unchanged (with its time, which git needs to doubt files changed as the index was written), and
// hard-links the blobs the index names, all that the index and the trees made from it need. With
// links, unlike alternates, removing either store leaves the other whole. A blob that cannot be
// linked (gone, packed, on another filesystem) leaves no store, and open makes a fresh one.
// Seeding is chosen over putting the first snapshot off until a tool changes a file: that would
// record the workspace as it is then, with whatever changed outside minicode since the prompt.
func (s *CheckpointStore) seed(ctx context.Context) error {
	from, written := newestStore(filepath.Dir(s.dir), s.workspace)
	if from == "" {
		return errors.New("no earlier store of the workspace")
	}
	// Read after its time was: an index written in between only makes git check more files.
	data, err := os.ReadFile(filepath.Join(from, "index"))
	seeded := &CheckpointStore{dir: s.dir + ".seeding", workspace: s.workspace} // renamed when whole
	defer os.RemoveAll(seeded.dir)
	index := filepath.Join(seeded.dir, "index")
	if err = cmp.Or(err, create(seeded.dir, s.workspace), os.WriteFile(index, data, 0o600), os.Chtimes(index, written, written)); err != nil {
		return err
	}
	listed, err := seeded.git(ctx, "ls-files", "-s", "-z")
	if err = cmp.Or(err, linkBlobs(from, seeded.dir, listed)); err != nil {
		return err
	}
	return os.Rename(seeded.dir, s.dir)
}

// linkBlobs hard-links into the store to the blobs of the store from that the entries of
// git ls-files -s -z name.
func linkBlobs(from, to, entries string) error {
	for entry := range strings.SplitSeq(entries, "\x00") {
		f := strings.Fields(entry) // mode, blob, stage and path; a submodule's commit (160000) is in no store
		if len(f) < 3 || f[0] == "160000" {
			continue
		}
		object := filepath.Join("objects", f[1][:2], f[1][2:])
		if err := os.MkdirAll(filepath.Dir(filepath.Join(to, object)), 0o700); err != nil {
			return err
		}
		if err := os.Link(filepath.Join(from, object), filepath.Join(to, object)); err != nil && !errors.Is(err, fs.ErrExist) { // ErrExist: the same contents in two files
			return err
		}
	}
	return nil
}

// newestStore returns the store in checkpoints of workspace whose index was written last, and when; "" if none.
func newestStore(checkpoints, workspace string) (string, time.Time) {
	from, newest := "", time.Time{}
	stores, _ := filepath.Glob(filepath.Join(checkpoints, "*"))
	for _, dir := range stores {
		info, err := os.Stat(filepath.Join(dir, "index"))
		if named, _ := os.ReadFile(filepath.Join(dir, "workspace")); err == nil && string(named) == workspace && info.ModTime().After(newest) {
			from, newest = dir, info.ModTime()
		}
	}
	return from, newest
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
// the tree to with the permissions and folders modes: git's two-tree merge writes the changes
// (those between the two trees) into the workspace, removing the files to lacks and the folders
// they leave empty; then go the empty folders that to did not have.
func (s *CheckpointStore) restore(ctx context.Context, changes []fileChange, from, to string, modes, current map[string]fs.FileMode) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(changes) > 0 {
		if _, err := s.git(ctx, "read-tree", "-m", "-u", from, to); err != nil {
			return err
		}
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
	return s.restoreFolders(ctx, modes)
}

// restoreFolders makes the folders git does not record as the snapshot of modes had them (nothing if it
// did not list them): it makes those missing and removes the others, deepest first; os.Remove leaves a
// folder that holds anything.
func (s *CheckpointStore) restoreFolders(ctx context.Context, modes map[string]fs.FileMode) error {
	now := map[string]fs.FileMode{}
	if modes["."] != fs.ModeDir {
		return nil
	} else if err := s.folders(ctx, s.pathspec(), now); err != nil {
		return err
	}
	for _, dir := range slices.Backward(slices.Sorted(maps.Keys(now))) { // a folder sorts before what it holds
		if _, had := modes[dir]; !had {
			os.Remove(filepath.Join(s.workspace, filepath.FromSlash(dir)))
		}
	}
	for dir, mode := range modes {
		if mode == fs.ModeDir && now[dir] != fs.ModeDir {
			if err := os.MkdirAll(filepath.Join(s.workspace, filepath.FromSlash(dir)), 0o755); err != nil {
				return err
			}
		}
	}
	return nil
}

// foldersDiffer reports whether a rewind to the snapshot of modes makes or removes folders git does not
// record, now being the modes of the snapshot just taken (never, for a snapshot that did not list them).
func foldersDiffer(modes, now map[string]fs.FileMode) bool {
	if modes["."] != fs.ModeDir {
		return false
	}
	for _, pair := range [][2]map[string]fs.FileMode{{modes, now}, {now, modes}} {
		for dir, mode := range pair[0] {
			if mode == fs.ModeDir && pair[1][dir] != fs.ModeDir {
				return true
			}
		}
	}
	return false
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

// The choices of /rewind.
const (
	choiceRewindBoth         ChoiceID = "rewind_both"
	choiceRewindConversation ChoiceID = "rewind_conversation"
	choiceRewindCode         ChoiceID = "rewind_code"
)

// checkpoint records the workspace before a turn (a subagent's with task), labelled label, under id ("" for a new one).
func (app *App) checkpoint(ctx context.Context, id string, task bool, label string) Checkpoint {
	c := Checkpoint{ID: cmp.Or(id, newSessionID()), Task: task, Label: oneLine(label, 200), Time: time.Now().UTC()}
	c.Tree, c.Modes = app.Checkpoints.Snapshot(ctx)
	app.Session.recordCheckpoint(c)
	return c
}

// endCheckpoint records which files the turn since c changed, even after an interrupt; a turn
// whose messages (nil: unknown) called read-only tools alone changed none.
func (app *App) endCheckpoint(ctx context.Context, c Checkpoint, messages []Message) {
	ctx, c.After = context.WithoutCancel(ctx), c.Tree
	changing := messages == nil
	for _, m := range messages {
		for _, call := range m.ToolUses() {
			tool, ok := app.Registry.Get(call.Name)
			changing = changing || !ok || !tool.ReadOnly
		}
	}
	if changing {
		c.After, _ = app.Checkpoints.Snapshot(ctx)
	}
	if c.Tree != "" && c.After != "" {
		changes, _ := app.Checkpoints.changes(ctx, c.Tree, c.After)
		for _, ch := range changes {
			c.Files = append(c.Files, ch.Path)
		}
		app.Session.recordCheckpoint(c)
	}
}

// describeCheckpoint shows a checkpoint in one line: when, what changed after it, and its prompt.
func describeCheckpoint(c Checkpoint) string {
	files := fmt.Sprintf("files changed: %d", len(c.Files))
	if c.Tree == "" {
		files = "no files kept"
	} else if c.After == "" {
		files = "turn unfinished"
	}
	return fmt.Sprintf("%s · %s · %s", c.Time.Local().Format("Jan 2 15:04"), files, c.Label)
}

// cmdRewind goes back to a checkpoint, /rewind N: its code, its conversation or both, as the user picks; it is undoable.
func cmdRewind(ctx context.Context, app *App, args string, history *[]Message) (string, bool, error) {
	cps := app.Session.Checkpoints()
	if len(cps) == 0 {
		return "Nothing to rewind to yet: a checkpoint is taken before each prompt.", false, nil
	}
	if args == "" {
		var list []string
		for i, c := range cps {
			list = append(list, fmt.Sprintf("%3d. %s", i+1, describeCheckpoint(c)))
		}
		return strings.Join(list, "\n") + "\n/rewind N goes back to checkpoint N.", false, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(args, "#"))
	if err != nil || n < 1 || n > len(cps) {
		return "", false, fmt.Errorf("no checkpoint %q: pick 1 to %d (/rewind lists them)", args, len(cps))
	}
	if app.asker == nil {
		return "", false, fmt.Errorf("/rewind %d asks what to restore, and -p has nobody to answer: run it in minicode --resume %s", n, app.Session.ID)
	}
	c := cps[n-1]
	a, err := app.Ask(ctx, rewindPrompt(n, c))
	if err != nil || a.Choice == ChoiceDenyOnce {
		return "Nothing was changed.", false, err
	}
	undo, changes, err := app.prepareRewind(ctx, n, c, fmt.Sprintf("before /rewind to #%d: %s", n, c.Label), a.Choice != choiceRewindConversation)
	if err != nil {
		return "", false, err
	}
	if ok, err := app.confirmRestore(ctx, n, c, undo.Tree, changes); !ok || err != nil {
		return "Nothing was changed.", false, err
	}
	if err := app.restoreFiles(ctx, n, c, undo, changes, a.Choice != choiceRewindConversation); err != nil {
		return "", false, err
	}
	var done []string
	switch {
	case a.Choice == choiceRewindConversation:
	case len(changes) == 0 && foldersDiffer(c.Modes, undo.Modes):
		done = append(done, fmt.Sprintf("Restored the empty folders as they were at #%d", n))
	case len(changes) == 0:
		done = append(done, fmt.Sprintf("The files are already as they were at #%d", n))
	default:
		done = append(done, fmt.Sprintf("Restored %d files", len(changes)))
	}
	if a.Choice != choiceRewindCode {
		*history = slices.Clone(c.view)
		app.Session.Rewind(*history, c.Label)
		done = append(done, fmt.Sprintf("the conversation is back to before #%d", n))
	}
	return fmt.Sprintf("%s. /rewind %d undoes this.", strings.Join(done, "; "), len(cps)+1), false, nil
}

// rewindPrompt asks what to restore of checkpoint n: the choices it can offer.
func rewindPrompt(n int, c Checkpoint) Prompt {
	choices := []Choice{
		{choiceRewindBoth, "b", "code and conversation", "restore the files and go back to before this prompt"},
		{choiceRewindConversation, "c", "conversation only", "go back to before this prompt; the files stay as they are"},
		{choiceRewindCode, "f", "code only", "restore the files; the conversation stays"},
		{ChoiceDenyOnce, "n", "cancel", "change nothing"},
	}
	choices = slices.DeleteFunc(choices, func(ch Choice) bool {
		return c.Task && (ch.ID == choiceRewindBoth || ch.ID == choiceRewindConversation) || c.Tree == "" && (ch.ID == choiceRewindBoth || ch.ID == choiceRewindCode)
	})
	return Prompt{Heading: "Rewind", Title: fmt.Sprintf("#%d %s", n, describeCheckpoint(c)), Choices: choices}
}

// prepareRewind snapshots the workspace as the undo checkpoint of a rewind to checkpoint n
// and, for code, lists what restoring n's files changes.
func (app *App) prepareRewind(ctx context.Context, n int, c Checkpoint, label string, code bool) (Checkpoint, []fileChange, error) {
	undo := Checkpoint{ID: newSessionID(), Label: label, Time: time.Now().UTC()}
	undo.Tree, undo.Modes = app.Checkpoints.Snapshot(ctx)
	switch {
	case !code:
		return undo, nil, nil
	case c.Tree == "":
		return undo, nil, fmt.Errorf("checkpoint #%d holds no files: checkpoints were off when it was taken", n)
	case undo.Tree == "":
		return undo, nil, errors.New("the files cannot be restored while checkpoints are off (the warning before says why)")
	}
	changes, err := app.Checkpoints.changes(ctx, undo.Tree, c.Tree)
	if err != nil {
		return undo, nil, fmt.Errorf("the files of checkpoint #%d are gone from the store: %w", n, err)
	}
	for _, ch := range changes {
		undo.After, undo.Files = c.Tree, append(undo.Files, ch.Path)
	}
	return undo, changes, nil
}

// confirmRestore asks before the files of checkpoint n are restored, if any change, showing what
// changes and naming the files changed outside minicode since.
func (app *App) confirmRestore(ctx context.Context, n int, c Checkpoint, now string, changes []fileChange) (bool, error) {
	if len(changes) == 0 {
		return true, nil
	}
	var lines []string
	for _, ch := range changes[:min(len(changes), 30)] {
		what := map[byte]string{'A': "brought back (deleted since)", 'D': "removed (made since)"}[ch.Status]
		counts := map[bool]string{true: fmt.Sprintf(" (+%d -%d)", ch.Added, ch.Deleted)}[ch.Added+ch.Deleted > 0] // none for a binary file or a mode
		lines = append(lines, fmt.Sprintf("- `%s` %s", ch.Path, cmp.Or(what, "changed"+counts)))
	}
	if len(changes) > 30 {
		lines = append(lines, fmt.Sprintf("- and %d more files", len(changes)-30))
	}
	p := Prompt{Heading: "Rewind", Title: fmt.Sprintf("restore %d files to how they were at #%d?", len(changes), n), Body: strings.Join(lines, "\n"),
		Choices: []Choice{{ChoiceAllowOnce, "y", "restore", "write these files back"}, {ChoiceDenyOnce, "n", "cancel", "change nothing"}}}
	if outside := app.changedOutside(ctx, c, now); len(outside) > 0 {
		p.Warning = "changed outside minicode since the checkpoint, and overwritten too: " + strings.Join(outside, ", ")
	}
	a, err := app.Ask(ctx, p)
	return a.Choice == ChoiceAllowOnce, err
}

// restoreFiles records undo (taken before a rewind to checkpoint n), then restores n's files and folders, for code.
func (app *App) restoreFiles(ctx context.Context, n int, c, undo Checkpoint, changes []fileChange, code bool) error {
	app.Session.recordCheckpoint(undo)
	if !code {
		return nil
	} else if err := app.Checkpoints.restore(ctx, changes, undo.Tree, c.Tree, c.Modes, undo.Modes); err != nil {
		return fmt.Errorf("restoring the files of #%d: %w", n, err)
	}
	return nil
}

// changedOutside names the files changed between minicode's turns since c (by an editor, say):
// from the end of each turn to the start of the next, and to now after the last.
func (app *App) changedOutside(ctx context.Context, c Checkpoint, now string) []string {
	turns := app.Session.Checkpoints()
	turns = slices.DeleteFunc(turns[slices.IndexFunc(turns, func(o Checkpoint) bool { return o.ID == c.ID }):], func(o Checkpoint) bool { return o.Task })
	turns = append(turns, Checkpoint{Tree: now}) // the start of the turn after the last
	var names []string
	for i, t := range turns[:len(turns)-1] {
		next := turns[i+1].Tree
		changes, _ := app.Checkpoints.changes(ctx, cmp.Or(t.After, next), next)
		for _, ch := range changes {
			names = appendNew(names, ch.Path)
		}
	}
	return names
}

// rewindFiles answers a program's rewind_files request (the Agent SDK's rewindFiles): the files
// as they were before the user message id, or with dryRun only what that would change.
func (app *App) rewindFiles(ctx context.Context, id string, dryRun bool) map[string]any {
	cps := app.Session.Checkpoints()
	n := slices.IndexFunc(cps, func(c Checkpoint) bool { return c.ID == id }) + 1
	if n == 0 {
		return map[string]any{"canRewind": false, "error": fmt.Sprintf("no checkpoint was taken before a user message %q", id)}
	}
	undo, changes, err := app.prepareRewind(ctx, n, cps[n-1], "before rewind_files to "+id, true)
	if err == nil && !dryRun {
		err = app.restoreFiles(ctx, n, cps[n-1], undo, changes, true)
	}
	if err != nil {
		return map[string]any{"canRewind": false, "error": err.Error()}
	}
	files, added, deleted := []string{}, 0, 0
	for _, c := range changes {
		files, added, deleted = append(files, filepath.Join(app.Workspace, filepath.FromSlash(c.Path))), added+c.Added, deleted+c.Deleted
	}
	return map[string]any{"canRewind": true, "filesChanged": files, "insertions": added, "deletions": deleted}
}
