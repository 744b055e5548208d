package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// journalVersion is the record format written; newer ones are refused rather than misread.
const journalVersion = 1

// Record types of a session journal.
const (
	recordUser         = "user"          // Message: the user's input, or a batch of tool results
	recordAssistant    = "assistant"     // Message: a reply of the model
	recordToolStarted  = "tool_started"  // Call: a tool call began
	recordToolFinished = "tool_finished" // Result: a tool call ended
	recordCompaction   = "compaction"    // Kind, Splices or Messages: the model's view was changed
	recordRename       = "rename"        // Title: the user named the session
	recordSettings     = "settings"      // Model, PermissionMode: what the session runs with
	recordSidechain    = "sidechain"     // Message, ParentToolUseID: a subagent's message, outside the view
	recordCheckpoint   = "checkpoint"    // Checkpoint: the workspace before a turn, or what the turn changed
	recordUsage        = "usage"         // Usage, Model, APIMillis: what a model call used
)

// record is one line of a session journal, appended and linked to the one before it.
type record struct {
	Version  int           `json:"version"`
	Type     string        `json:"type"`
	ID       string        `json:"id"`
	ParentID string        `json:"parent_id,omitempty"`
	Time     time.Time     `json:"time"`
	Payload  RecordPayload `json:"payload"`
}

// RecordPayload is what a record says; which fields are set depends on its type.
type RecordPayload struct {
	Message *Message `json:"message,omitempty"`
	Call    *Block   `json:"call,omitempty"`
	Result  *Block   `json:"result,omitempty"`
	// Kind says what changed the view (a layer, fork, clear, rewind or sync); Splices say how, or Messages hold the new view.
	Kind            string      `json:"kind,omitempty"`
	Splices         []Splice    `json:"splices,omitempty"`
	Messages        []Message   `json:"messages,omitempty"`
	ForkedFrom      string      `json:"forked_from,omitempty"`
	Title           string      `json:"title,omitempty"` // a rename's, or the prompt a rewind went back to before
	Model           string      `json:"model,omitempty"`
	PermissionMode  string      `json:"permission_mode,omitempty"`    // for the reader: never restored on resume
	ParentToolUseID string      `json:"parent_tool_use_id,omitempty"` // the task call of a sidechain record's subagent
	Checkpoint      *Checkpoint `json:"checkpoint,omitempty"`
	Usage           *Usage      `json:"usage,omitempty"`
	APIMillis       int64       `json:"api_ms,omitempty"` // how long a usage record's model call took
}

// SessionUsage is what a session's model calls used: tokens, their price where known, and the time taken.
type SessionUsage struct {
	Tokens  Usage
	CostUSD float64
	API     time.Duration
}

// add counts the tokens a model reported, and the time of a call.
func (u *SessionUsage) add(model string, tokens Usage, took time.Duration) {
	u.Tokens.Add(tokens)
	u.CostUSD += costUSD(model, tokens)
	u.API += took
}

// Session is one conversation: the messages the model sees and the journal recording them, one record
// per line (Event, write); readJournal (session_load.go) reads a journal back for --resume.
type Session struct {
	ID    string
	Path  string // the journal file
	Title string

	mu      sync.Mutex
	view    []Message     // what the model sees, as far as records tell
	file    *os.File      // opened by the first message, so an empty session leaves no file
	lastID  string        // the newest record, parent of the next
	setting RecordPayload // the model and mode recorded last
	failed  error         // why the journal is not being written; nil while it is
	unsaved bytes.Buffer  // lines not written yet: a newline ending a torn file, settings and renames before the first message
	warn    func(string)
	// checkpoints are the session's, oldest first (checkpoint.go).
	checkpoints []Checkpoint
	usage       SessionUsage // of the whole session, resumed parts included
	call        Usage        // the tokens of the model call under way
}

// newSession returns an empty session journalled to id.jsonl in dir; warn reports write failures.
func newSession(dir, id string, warn func(string)) *Session {
	return &Session{ID: id, Path: filepath.Join(dir, id+".jsonl"), warn: warn}
}

// newSessionID returns a random version 4 UUID, as Claude Code's session ids are.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// isSessionID reports whether s has the shape of a UUID.
func isSessionID(s string) bool {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$`).MatchString(s)
}

// projectDir is where a workspace's sessions are kept: its path with every non-alphanumeric replaced by "-", as Claude Code does.
func projectDir(home, workspace string) string {
	return filepath.Join(home, "projects", regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(workspace, "-"))
}

// View returns a copy of the messages the model sees.
func (s *Session) View() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.view...)
}

// Usage returns what the session's model calls used so far.
func (s *Session) Usage() SessionUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// Started reports whether the journal file exists, so there is something to resume.
func (s *Session) Started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file != nil
}

// ResumeHint is what minicode says when it ends: how to come back, or that the session was not saved.
func (s *Session) ResumeHint() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.failed != nil:
		return "This session was not saved."
	case s.file != nil:
		return fmt.Sprintf("To resume: %s --resume %s", selfCommand(), s.ID)
	}
	return ""
}

// selfCommand is how to start this minicode again: "go run ." when go run built it (in its build
// folder), else "minicode", as the README installs it.
func selfCommand() string {
	if exe, _ := os.Executable(); strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ."
	}
	return "minicode"
}

// Saving reports the journal's path, or why the session is not saved (a nil session is not).
func (s *Session) Saving() (path string, notSaved error) {
	if s == nil {
		return "", errors.New("there is no session")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Path, s.failed
}

// AddUser records the user's input and adds it to the view.
func (s *Session) AddUser(m Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.add(m)
}

// add appends m to the view and records it as a user or assistant message.
func (s *Session) add(m Message) {
	s.view = append(s.view, m)
	s.write(string(m.Role), RecordPayload{Message: &m}) // recordUser or recordAssistant
}

// Event records what the loop reports: replies, its own prompts, tool calls starting and finishing, and results.
func (s *Session) Event(e Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case e.Kind == EventUsage && e.Usage != nil: // a subagent's too
		s.usage.add(e.Text, *e.Usage, e.Took)
		if s.call.Add(*e.Usage); e.Took > 0 {
			s.write(recordUsage, RecordPayload{Usage: &s.call, Model: e.Text, APIMillis: e.Took.Milliseconds()})
			s.call = Usage{}
		}
	case e.ParentToolUseID != "":
		if e.Message != nil {
			s.write(recordSidechain, RecordPayload{Message: e.Message, ParentToolUseID: e.ParentToolUseID})
		}
	case (e.Kind == EventAssistant || e.Kind == EventToolResults || e.Kind == EventUser) && e.Message != nil:
		s.add(*e.Message)
	case e.Kind == EventToolStart && e.Call != nil:
		s.write(recordToolStarted, RecordPayload{Call: e.Call})
	case e.Kind == EventToolEnd && e.Result != nil && len(s.view) > 0 && len(s.view[len(s.view)-1].ToolUses()) > 1:
		// The reply whose calls run is the newest message; a lone call's result is recorded once, in the message that follows at once.
		s.write(recordToolFinished, RecordPayload{Result: e.Result})
	case e.Kind == EventCompact && e.Compaction != nil:
		c := e.Compaction
		// The whole view is written only when the splices do not give it.
		p := RecordPayload{Kind: c.Layer, Splices: c.Splices}
		if spliced, ok := spliceView(s.view, c.Splices); !ok || !slices.EqualFunc(spliced, c.View, sameMessage) {
			p = RecordPayload{Kind: c.Layer, Messages: c.View}
		}
		s.view = append([]Message(nil), c.View...)
		s.write(recordCompaction, p)
	}
}

// spliceView applies splices to view, if they fit it: in order, not overlapping, within its length.
func spliceView(view []Message, splices []Splice) ([]Message, bool) {
	at := 0
	for _, sp := range splices {
		if sp.From < at || sp.To < sp.From || sp.To > len(view) {
			return nil, false
		}
		at = sp.To
	}
	return applySplices(view, splices), true
}

// Sync makes the journal agree with messages: an extension of the recorded view is appended, anything else recorded as a new view.
func (s *Session) Sync(messages []Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.view); n <= len(messages) && slices.EqualFunc(s.view, messages[:n], sameMessage) {
		for _, m := range messages[n:] {
			s.add(m)
		}
		return
	}
	s.view = append([]Message(nil), messages...)
	s.write(recordCompaction, RecordPayload{Kind: map[bool]string{false: "sync", true: "clear"}[len(messages) == 0], Messages: s.view})
}

// Rewind records that the conversation went back to view, as it was before the prompt label.
func (s *Session) Rewind(view []Message, label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.view = slices.Clone(view)
	s.write(recordCompaction, RecordPayload{Kind: "rewind", Messages: s.view, Title: label})
}

// sameMessage reports whether two messages say the same thing.
func sameMessage(a, b Message) bool {
	return a.Role == b.Role && reflect.DeepEqual(a.Content, b.Content)
}

// Rename gives the session a title.
func (s *Session) Rename(title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Title = title
	s.write(recordRename, RecordPayload{Title: title})
}

// RecordSettings records the model and permission mode in use when they changed.
func (s *Session) RecordSettings(model string, mode PermissionMode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := RecordPayload{Model: model, PermissionMode: string(mode)}
	if p.Model != s.setting.Model || p.PermissionMode != s.setting.PermissionMode {
		s.setting = p
		s.write(recordSettings, p)
	}
}

// Flush asks the system to put what was written on the disk.
func (s *Session) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil && s.failed == nil {
		if err := s.file.Sync(); err != nil {
			s.fail(fmt.Errorf("saving session %s: %w", s.ID, err))
		}
	}
}

// Close flushes and closes the journal.
func (s *Session) Close() {
	s.Flush()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil {
		s.file.Close()
	}
}

// write appends a record; settings and renames wait for the first message. A failure stops the journal for good, told once.
func (s *Session) write(typ string, p RecordPayload) {
	if s.failed != nil {
		return
	}
	r := record{Version: journalVersion, Type: typ, ID: newSessionID(), ParentID: s.lastID, Time: time.Now().UTC(), Payload: withMediaFiles(mediaDir(s.Path), p)}
	s.lastID = r.ID
	if err := json.NewEncoder(&s.unsaved).Encode(r); err != nil {
		s.fail(fmt.Errorf("encoding a %s record: %w", typ, err))
		return
	}
	if s.file == nil && (typ == recordSettings || typ == recordRename) {
		if _, err := os.Lstat(s.Path); typ == recordSettings || err != nil {
			return // they wait for the first message, but a resumed session's name is saved at once
		}
	}
	if err := s.open(); err != nil {
		s.fail(err)
		return
	}
	if _, err := s.file.Write(s.unsaved.Bytes()); err != nil {
		s.fail(fmt.Errorf("writing session %s: %w", s.Path, err))
		return
	}
	s.unsaved.Reset()
}

// open creates the journal's folder and opens the file for appending, once.
func (s *Session) open() error {
	if s.file != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("creating the sessions folder: %w", err)
	}
	f, err := os.OpenFile(s.Path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("opening session file: %w", err)
	}
	s.file = f
	return nil
}

// fail stops the journal and tells the user the session is not saved.
func (s *Session) fail(err error) {
	if s.failed != nil {
		return
	}
	s.failed = err
	if s.warn != nil {
		s.warn(fmt.Sprintf("%v; this session is not being saved (the conversation goes on in memory)", err))
	}
}

// Checkpoint is the workspace and the conversation as they were before a prompt, a subagent's
// turn or a rewind. The journal records it when it is taken and again with what the turn changed.
type Checkpoint struct {
	ID    string                 `json:"id"`             // a program's user message uuid, or a new one
	Task  bool                   `json:"task,omitempty"` // taken before a subagent's turn, within a prompt's
	Label string                 `json:"label"`
	Time  time.Time              `json:"time"`
	Tree  string                 `json:"tree,omitempty"`  // the workspace's files; "" while checkpoints were off
	Modes map[string]fs.FileMode `json:"modes,omitempty"` // their permissions git does not keep
	After string                 `json:"after,omitempty"` // the files when the turn ended
	Files []string               `json:"files,omitempty"` // the files the turn changed
	view  []Message              // the conversation before it (not of a subagent's turn)
}

// addCheckpoint adds c to list, or updates the one of its id; a new one keeps view (clipped, so
// appends to the conversation leave it as it is) unless it is a subagent's.
func addCheckpoint(list []Checkpoint, c Checkpoint, view []Message) []Checkpoint {
	if i := slices.IndexFunc(list, func(o Checkpoint) bool { return o.ID == c.ID }); i >= 0 {
		c.view = list[i].view
		list[i] = c
		return list
	}
	if !c.Task {
		c.view = slices.Clip(view)
	}
	return append(list, c)
}

// recordCheckpoint journals a checkpoint, new or finished.
func (s *Session) recordCheckpoint(c Checkpoint) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checkpoints = addCheckpoint(s.checkpoints, c, s.view)
	s.write(recordCheckpoint, RecordPayload{Checkpoint: &c})
}

// Checkpoints returns the session's checkpoints, oldest first.
func (s *Session) Checkpoints() []Checkpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.checkpoints)
}
