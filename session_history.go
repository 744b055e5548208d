package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Limits of the input history.
const (
	historyPerWorkspace = 500  // entries recalled for one workspace
	historyFileCap      = 2000 // entries the file holds before its oldest half is dropped
)

// HistoryEntry is one line of history.jsonl in Claude Code's layout: the input, when, and where.
type HistoryEntry struct {
	Display   string `json:"display"`
	Timestamp int64  `json:"timestamp"` // milliseconds since 1970
	Project   string `json:"project"`
}

// InputHistory is what the user typed, kept in history.jsonl and recalled per workspace by Up and Down.
type InputHistory struct {
	path      string
	workspace string
	lines     int  // entries in the file
	torn      bool // the file's last line has no newline (minicode stopped while writing it)
}

// openHistory returns workspace's history and its earlier inputs, oldest first, each once at its newest.
func openHistory(home, workspace string) (*InputHistory, []string) {
	h := &InputHistory{path: filepath.Join(home, "history.jsonl"), workspace: workspace}
	entries := h.read()
	h.lines = len(entries)
	var mine []string
	seen := map[string]bool{}
	for i := len(entries) - 1; i >= 0 && len(mine) < historyPerWorkspace; i-- {
		if e := entries[i]; e.Project == workspace && !seen[e.Display] {
			seen[e.Display] = true
			mine = append(mine, e.Display)
		}
	}
	slices.Reverse(mine)
	return h, mine
}

// read returns the file's entries, skipping lines that do not parse.
func (h *InputHistory) read() []HistoryEntry {
	data, _ := os.ReadFile(h.path)
	h.torn = len(data) > 0 && data[len(data)-1] != '\n'
	var out []HistoryEntry
	for line := range bytes.Lines(data) {
		var e HistoryEntry
		if json.Unmarshal(line, &e) == nil && e.Display != "" {
			out = append(out, e)
		}
	}
	return out
}

// Add appends an input to the file, which keeps only its newest half past the cap.
func (h *InputHistory) Add(input string) error {
	if strings.TrimSpace(input) == "" {
		return nil
	}
	line, _ := json.Marshal(HistoryEntry{Display: input, Timestamp: time.Now().UnixMilli(), Project: h.workspace})
	if h.torn { // so that the new entry does not join the torn line
		line = append([]byte("\n"), line...)
	}
	var lock, f *os.File
	err := os.MkdirAll(filepath.Dir(h.path), 0o700)
	if err == nil { // held until the trim is written, so that no other minicode appends to what the trim replaces
		lock, err = os.OpenFile(h.path+".lock", os.O_CREATE|os.O_WRONLY, 0o600)
	}
	if err == nil {
		defer lock.Close() // which releases the lock
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX)
	}
	if err == nil {
		f, err = os.OpenFile(h.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	}
	if err == nil {
		_, err = f.Write(append(line, '\n'))
		err = errors.Join(err, f.Close())
		h.torn = h.torn && err != nil
	}
	if err != nil {
		return fmt.Errorf("saving input history: %w", err)
	}
	if h.lines++; h.lines <= historyFileCap {
		return nil
	}
	entries := h.read()
	var b strings.Builder
	for _, e := range entries[len(entries)/2:] {
		json.NewEncoder(&b).Encode(e)
	}
	h.lines = len(entries) - len(entries)/2
	if err := writeFileAtomic(h.path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("trimming input history: %w", err)
	}
	return nil
}
