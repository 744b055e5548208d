package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Results given on resume to tool calls the journal never saw finish.
const (
	unknownOutcomeText = "The session ended while this tool call was running, so its outcome is unknown. " +
		"Check its effects (files changed, processes started) before repeating it."
	notRunText = "The session ended before this tool call started; it had no effect."
)

// LoadedSession is what a session's journal holds, read back: the conversation and what the journal says of it.
// --resume continues it (resume, called by App.loadSession in app_session.go).
type LoadedSession struct {
	View        []Message // what the model saw last, compactions applied
	Transcript  []Message // every message ever recorded, for export
	Title       string
	LastID      string            // the newest record, parent of the next
	Torn        bool              // the file does not end with a newline
	Warnings    []string          // lines that were skipped, and why
	Modified    time.Time         // when the file was last written
	Checkpoints []Checkpoint      // with the conversation before each
	Usage       SessionUsage      // what the model calls recorded used
	Marks       []JournalMark     // the compactions, in the order of the transcript
	calls       map[string]*Block // tool calls that began, with their results once they ended
}

// resume makes s, a new Session journalled in the same file, continue j: it takes j's view, title,
// checkpoints and usage, and appends after j's newest record (after a line break, where the file was torn).
func (j *LoadedSession) resume(s *Session) *Session {
	s.view, s.lastID, s.Title, s.checkpoints, s.usage = j.View, j.LastID, j.Title, j.Checkpoints, j.Usage
	if j.Torn {
		s.unsaved.WriteByte('\n')
	}
	return s
}

// JournalMark is a change of the model's view in a journal's transcript: a compaction layer, "clear",
// "rewind" or "fork", after the first At messages, with what a compaction wrote in place of what it removed.
type JournalMark struct {
	At         int
	Kind       string
	ForkedFrom string
	Summary    string
	Prompt     string // the prompt a rewind went back to before
}

// String names the change: "compaction", "the conversation was cleared".
func (mk JournalMark) String() string {
	return cmp.Or(map[string]string{"clear": "the conversation was cleared", "fork": "forked from session " + mk.ForkedFrom,
		"rewind": "/rewind: the conversation went back to before “" + mk.Prompt + "”"}[mk.Kind], layerNames[mk.Kind], mk.Kind)
}

// firstPrompt returns the first thing the user typed in the session.
func (j *LoadedSession) firstPrompt() string {
	for _, m := range j.Transcript {
		if m.Role == RoleUser && m.Text() != "" {
			return m.Text()
		}
	}
	return ""
}

// readJournal reads a session file, skipping a torn last line or a damaged one with a warning; a newer record format is an error.
func readJournal(path string) (*LoadedSession, error) {
	data, err := os.ReadFile(path)
	info, statErr := os.Stat(path)
	if err = cmp.Or(err, statErr); err != nil {
		return nil, fmt.Errorf("reading session: %w", err)
	}
	j := &LoadedSession{Modified: info.ModTime(), calls: map[string]*Block{}}
	n := 0
	for line := range bytes.Lines(data) {
		n++
		j.Torn = line[len(line)-1] != '\n'
		var rec record
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		switch err := json.Unmarshal(line, &rec); {
		case err != nil && j.Torn:
			j.Warnings = append(j.Warnings, fmt.Sprintf("%s: skipped the incomplete last line %d (minicode stopped while writing it)", path, n))
		case err != nil:
			j.Warnings = append(j.Warnings, fmt.Sprintf("%s: line %d is damaged and was skipped: %v", path, n, err))
		case rec.Version > journalVersion:
			return nil, fmt.Errorf("session %s was written by a newer minicode (record format %d; this one reads up to %d)", path, rec.Version, journalVersion)
		default:
			rec.Payload = loadMediaFiles(mediaDir(path), rec.Payload)
			j.add(rec, n)
			if rec.Time.After(j.Modified) { // finer than the file's time, which ties for quick turns
				j.Modified = rec.Time
			}
		}
	}
	j.View = j.finish()
	return j, nil
}

// add applies one record to the view and the journal's summary.
func (j *LoadedSession) add(rec record, line int) {
	j.LastID = rec.ID
	p := rec.Payload
	switch rec.Type {
	case recordUser, recordAssistant:
		if p.Message != nil {
			j.View = append(j.View, *p.Message)
			j.Transcript = append(j.Transcript, *p.Message)
		}
	case recordToolStarted:
		if p.Call != nil {
			j.calls[p.Call.ID] = nil
		}
	case recordToolFinished:
		if p.Result != nil {
			j.calls[p.Result.ToolUseID] = p.Result
		}
	case recordCompaction:
		view, ok := append([]Message(nil), p.Messages...), true
		if p.Splices != nil {
			view, ok = spliceView(j.View, p.Splices)
		}
		if !ok {
			j.Warnings = append(j.Warnings, fmt.Sprintf("line %d: a %s compaction does not fit the conversation before it and was skipped", line, p.Kind))
			return
		}
		j.View = view
		if p.Kind == "fork" { // the conversation this session began with
			j.Transcript = append(j.Transcript, p.Messages...)
		}
		if p.Kind != "sync" {
			j.Marks = append(j.Marks, JournalMark{At: len(j.Transcript), Kind: p.Kind, ForkedFrom: p.ForkedFrom, Summary: Compaction{Splices: p.Splices}.Summary(), Prompt: p.Title})
		}
	case recordRename:
		j.Title = p.Title
	case recordCheckpoint:
		if p.Checkpoint != nil {
			j.Checkpoints = addCheckpoint(j.Checkpoints, *p.Checkpoint, j.View)
		}
	case recordUsage:
		if p.Usage != nil {
			j.Usage.add(p.Model, *p.Usage, time.Duration(p.APIMillis)*time.Millisecond)
		}
	}
}

// finish gives every call of the view one result: its finish record's, or one saying its outcome is unknown or it never ran.
func (j *LoadedSession) finish() []Message {
	answered := answeredCalls(j.View)
	view := closeToolCalls(j.View)
	for _, m := range view {
		for i, blk := range m.Content {
			if blk.Type != BlockToolResult || answered[blk.ToolUseID] {
				continue
			}
			switch result, started := j.calls[blk.ToolUseID]; {
			case result != nil:
				m.Content[i] = *result
			case started:
				m.Content[i].Content = unknownOutcomeText
			default:
				m.Content[i].Content = notRunText
			}
		}
	}
	return view
}

// SessionInfo describes a saved session, for lists and pickers.
type SessionInfo struct {
	ID          string
	Title       string
	Modified    time.Time
	Messages    int
	FirstPrompt string
}

// listSessions returns the readable sessions saved in dir, newest first.
func listSessions(dir string) ([]SessionInfo, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	var infos []SessionInfo
	for _, path := range paths {
		id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		j, err := readJournal(path)
		if err != nil || !isSessionID(id) {
			continue
		}
		infos = append(infos, SessionInfo{ID: id, Title: j.Title, Modified: j.Modified, Messages: len(j.Transcript), FirstPrompt: j.firstPrompt()})
	}
	slices.SortFunc(infos, func(a, b SessionInfo) int { return b.Modified.Compare(a.Modified) })
	return infos, nil
}

// formatSessionList shows sessions numbered from 1: id, age, messages, title and first prompt.
func formatSessionList(infos []SessionInfo, now time.Time) string {
	if len(infos) == 0 {
		return "No saved sessions in this workspace."
	}
	var b strings.Builder
	for i, s := range infos {
		about := oneLine(s.FirstPrompt, 60)
		if s.Title != "" {
			about = fmt.Sprintf("%q: %s", s.Title, about)
		}
		fmt.Fprintf(&b, "%3d. %s  %-8s %4d messages  %s\n", i+1, s.ID, formatAge(now.Sub(s.Modified)), s.Messages, about)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// formatAge says how long ago something happened, roughly.
func formatAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// pruneSessions removes every workspace's sessions (with stored results and checkpoints) written before cutoff, but keep, and counts them.
func pruneSessions(home string, cutoff time.Time, keep string) int {
	paths, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	removed, kept := 0, map[string]bool{keep: true}
	for _, path := range paths {
		id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		info, err := os.Stat(path)
		if err != nil || id == keep || !info.ModTime().Before(cutoff) || os.Remove(path) != nil {
			kept[id] = true
			continue
		}
		removed++
		if isSessionID(id) {
			os.RemoveAll(filepath.Join(home, "tool-results", id))
			os.RemoveAll(filepath.Dir(mediaDir(path)))
		}
	}
	stores, _ := filepath.Glob(filepath.Join(home, "checkpoints", "*"))
	for _, dir := range stores { // those of the sessions removed, and of sessions kept in memory only
		if info, err := os.Stat(dir); err == nil && !kept[filepath.Base(dir)] && info.ModTime().Before(cutoff) {
			os.RemoveAll(dir)
		}
	}
	return removed
}
