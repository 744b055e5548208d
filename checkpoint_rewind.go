package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

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
	if err := app.restoreFiles(ctx, n, c, undo, changes); err != nil {
		return "", false, err
	}
	var done []string
	switch {
	case a.Choice == choiceRewindConversation:
	case len(changes) == 0:
		done = append(done, fmt.Sprintf("The files are already as they were at #%d", n))
	default:
		done = append(done, fmt.Sprintf("Restored %d files", len(changes)))
	}
	if a.Choice != choiceRewindCode {
		*history = slices.Clone(c.view)
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
		lines = append(lines, fmt.Sprintf("- `%s` %s", ch.Path, cmp.Or(what, fmt.Sprintf("changed (+%d -%d)", ch.Added, ch.Deleted))))
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

// restoreFiles records undo (taken before a rewind to checkpoint n), then restores n's files, if any changed.
func (app *App) restoreFiles(ctx context.Context, n int, c, undo Checkpoint, changes []fileChange) error {
	app.Session.recordCheckpoint(undo)
	if len(changes) == 0 {
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
			if !slices.Contains(names, ch.Path) {
				names = append(names, ch.Path)
			}
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
		err = app.restoreFiles(ctx, n, cps[n-1], undo, changes)
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
