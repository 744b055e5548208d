package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// openSession opens a new, newest (--continue), saved (--resume) or forked session, then prunes old ones.
func (app *App) openSession() (s *Session, err error) {
	dir, o := app.sessionsDir(), app.Opts
	if o.ResumePick && o.Print {
		return nil, usageErrorf("--resume needs a session id with -p. Saved sessions:\n%s", savedSessions(dir))
	}
	id := o.Resume
	if o.Continue {
		if infos, _ := listSessions(dir); len(infos) > 0 { // newest first
			id = infos[0].ID
		} else {
			fmt.Fprintln(app.stderr, "No earlier session in this workspace; starting a new one.")
		}
	}
	s = app.blankSession(cmp.Or(o.SessionID, newSessionID()))
	if _, err := os.Stat(s.Path); err == nil && id == "" && o.SessionID != "" {
		return nil, usageErrorf("session %s already exists; continue it with --resume %s", o.SessionID, o.SessionID)
	}
	if id != "" {
		if s, err = app.loadSession(id, o.ForkSession, o.SessionID); err != nil {
			return nil, err
		}
	}
	days := cmp.Or(app.Settings.CleanupPeriodDays, new(30)) // days sessions are kept
	pruneSessions(app.Home, time.Now().AddDate(0, 0, -*days), s.ID)
	return s, nil
}

// loadSession reads saved session id (forked into newID with fork); an unreadable file gives an unsaved session.
func (app *App) loadSession(id string, fork bool, newID string) (*Session, error) {
	dir := app.sessionsDir()
	j, err := readJournal(filepath.Join(dir, id+".jsonl"))
	switch {
	case errors.Is(err, fs.ErrNotExist) || !isSessionID(id):
		return nil, usageErrorf("no session %q in this workspace. Saved sessions:\n%s", id, savedSessions(dir))
	case err != nil:
		s := &Session{ID: newSessionID(), warn: app.warnSession}
		s.fail(fmt.Errorf("cannot resume: %w", err))
		return s, nil
	}
	for _, w := range j.Warnings {
		app.warnSession(w)
	}
	if fork {
		return forkSession(app.blankSession(cmp.Or(newID, newSessionID())), id, j.Title, j.View), nil
	}
	return j.resume(app.blankSession(id)), nil
}

// blankSession is a new, empty session of the workspace journalled as id; with --no-session-persistence
// every session the app starts (the first, /new's, a fork) is kept in memory only.
func (app *App) blankSession(id string) *Session {
	s := newSession(app.sessionsDir(), id, app.warnSession)
	if app.Opts.NoSessionPersistence {
		s.failed = errors.New("the session is kept in memory only (--no-session-persistence)")
	}
	return s
}

// forkSession starts the empty session s with the conversation of session from as its first record.
func forkSession(s *Session, from, title string, view []Message) *Session {
	s.Title = title
	s.view = append([]Message(nil), view...)
	s.write(recordCompaction, RecordPayload{Kind: "fork", Messages: s.view, ForkedFrom: from})
	if title != "" {
		s.write(recordRename, RecordPayload{Title: title})
	}
	return s
}

// useSession makes s the app's session, reported by its id and storing results in its own folder.
func (app *App) useSession(s *Session) {
	if app.Session != nil && app.Session != s {
		app.Session.Close()
	}
	app.Session = s
	app.Env.ResultsDir = filepath.Join(app.Home, "tool-results", s.ID)
	app.Checkpoints = newCheckpointStore(app.Home, s.ID, app.Workspace, app.Settings.Checkpoints, app.warnSession)
	app.Checkpoints.planted = func() []string { return app.Sandbox.Planted() } // the sandbox comes after the session
	if app.Opts.NoSessionPersistence {                                         // kept in memory only: what the session stores on disk goes when the run ends
		results, checkpoints := app.Env.ResultsDir, app.Checkpoints.dir
		app.closers = append(app.closers, func() {
			os.RemoveAll(results)
			os.RemoveAll(checkpoints)
		})
	}
	if app.Env.Hooks != nil {
		app.Env.Hooks.SessionID, app.Env.Hooks.Transcript = s.ID, s.Path
	}
}

// savedSessions lists the sessions saved in dir.
func savedSessions(dir string) string {
	infos, _ := listSessions(dir)
	return formatSessionList(infos, time.Now())
}

// sessionsDir is where this workspace's sessions are kept.
func (app *App) sessionsDir() string { return projectDir(app.Home, app.Workspace) }

// warnSession tells the user about a problem with the session's file.
func (app *App) warnSession(msg string) { fmt.Fprintf(app.stderr, "! %s\n", msg) }

// sessionCommands are the slash commands that manage sessions.
func sessionCommands() []SlashCommand {
	return []SlashCommand{
		{name: "resume", help: "list saved sessions and switch to one (/resume N or /resume ID)", run: cmdResume},
		{name: "new", help: "start a new session (the current one stays saved)", run: cmdNew},
		{name: "fork", help: "continue this conversation in a new session", run: cmdFork},
		{name: "rename", help: "name this session: /rename NAME", run: cmdRename},
		{name: "export", help: "write the conversation as Markdown: /export [FILE]", run: cmdExport},
	}
}

// cmdResume lists the sessions and switches to the one picked by number or id, asking when none is given.
func cmdResume(ctx context.Context, app *App, args string, history *[]Message) (string, bool, error) {
	infos, err := listSessions(app.sessionsDir())
	if err != nil || len(infos) == 0 {
		return "No saved sessions in this workspace.", false, err
	}
	if args == "" {
		fmt.Fprintf(app.stdout, "%s\nPick a session by number (Enter to stay in this one): ", formatSessionList(infos, time.Now()))
		line, err := app.lines.ReadLine(ctx)
		if args = strings.TrimSpace(line); err != nil || args == "" {
			return "", false, nil
		}
	}
	id := args
	if n, err := strconv.Atoi(args); err == nil {
		if n < 1 || n > len(infos) {
			return "", false, fmt.Errorf("no session number %d (pick 1 to %d)", n, len(infos))
		}
		id = infos[n-1].ID
	}
	if id == app.Session.ID {
		return "Already in session " + id + ".", false, nil
	}
	s, err := app.loadSession(id, false, "")
	if err != nil {
		return "", false, err
	}
	from := app.Session.ID
	app.useSession(s)
	*history = s.View()
	app.Agent.estimate("", *history)
	return fmt.Sprintf("Resumed session %s (%d messages).", s.ID, len(*history)) + app.newerSession(from), false, nil
}

// newerSession is a line saying that a session of this workspace other than skip was changed after the
// one resumed, or "".
func (app *App) newerSession(skip string) string {
	infos, _ := listSessions(app.sessionsDir())
	if i := slices.IndexFunc(infos, func(s SessionInfo) bool { return s.ID != skip }); i >= 0 && infos[i].ID != app.Session.ID {
		return fmt.Sprintf("\nA newer session of this workspace exists: %s (%s, %d messages); /resume %d switches to it.", infos[i].ID, formatAge(time.Since(infos[i].Modified)), infos[i].Messages, i+1)
	}
	return ""
}

// cmdNew starts an empty session; the current one stays saved.
func cmdNew(_ context.Context, app *App, _ string, history *[]Message) (string, bool, error) {
	hint := app.Session.ResumeHint()
	app.useSession(app.blankSession(newSessionID()))
	*history = nil
	return strings.TrimSpace(hint + "\nStarted session " + app.Session.ID + "."), false, nil
}

// cmdFork continues the conversation in a new session.
func cmdFork(_ context.Context, app *App, _ string, history *[]Message) (string, bool, error) {
	from := app.Session
	app.useSession(forkSession(app.blankSession(newSessionID()), from.ID, from.Title, *history))
	return fmt.Sprintf("Forked session %s into %s; you are now in the fork.", from.ID, app.Session.ID), false, nil
}

// cmdRename names the session.
func cmdRename(_ context.Context, app *App, args string, _ *[]Message) (string, bool, error) {
	if args == "" {
		return "", false, fmt.Errorf("usage: /rename NAME")
	}
	app.Session.Rename(args)
	return fmt.Sprintf("Session %s is now %q.", app.Session.ID, args), false, nil
}

// cmdExport writes the whole recorded conversation, compacted parts included, to a Markdown file.
func cmdExport(_ context.Context, app *App, args string, history *[]Message) (string, bool, error) {
	messages, marks := *history, []JournalMark(nil)
	if j, err := readJournal(app.Session.Path); err == nil && app.Session.Started() {
		messages, marks = j.Transcript, j.Marks
	}
	path := cmp.Or(args, "session-"+app.Session.ID[:8]+".md")
	if !filepath.IsAbs(path) {
		path = filepath.Join(app.Workspace, path)
	}
	if err := writeFileAtomic(path, []byte(exportMarkdown(app.Session.Title, app.Session.ID, messages, marks)), 0o644); err != nil {
		return "", false, fmt.Errorf("exporting the session: %w", err)
	}
	return fmt.Sprintf("Wrote %d messages to %s.", len(messages), path), false, nil
}

// exportMarkdown renders a conversation as Markdown: words as sections, tool calls and results as code
// blocks, and each change of the model's view (marks) as a rule with what a compaction wrote.
func exportMarkdown(title, id string, messages []Message, marks []JournalMark) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nminicode session %s\n", cmp.Or(title, "minicode session"), id)
	for i, m := range append(slices.Clip(messages), Message{}) { // an empty last message takes the final marks
		for ; len(marks) > 0 && marks[0].At <= i; marks = marks[1:] {
			fmt.Fprintf(&b, "\n---\n\n*%s: the model's view changed here; every message stays in this transcript*\n", marks[0])
			if marks[0].Summary != "" {
				fmt.Fprintf(&b, "\n%s", codeBlock(marks[0].Summary))
			}
		}
		for _, blk := range m.Content {
			switch blk.Type {
			case BlockText:
				fmt.Fprintf(&b, "\n## %s\n\n%s\n", map[Role]string{RoleUser: "User", RoleAssistant: "Assistant"}[m.Role], blk.Text)
			case BlockToolUse:
				fmt.Fprintf(&b, "\n**Tool call** `%s`\n\n%s", blk.Name, codeBlock(compactJSON(blk.Input, 4000)))
			case BlockToolResult:
				fmt.Fprintf(&b, "\n**%s**\n\n%s", map[bool]string{false: "Result", true: "Error"}[blk.IsError], codeBlock(blk.Content))
			}
		}
	}
	return b.String()
}

// codeBlock fences text, its trailing newlines cut, as lines of their own.
func codeBlock(text string) string {
	return fenced("", strings.TrimRight(text, "\n")) + "\n"
}
