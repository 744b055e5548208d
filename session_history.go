package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Limits of the input history.
const (
	historyPerWorkspace = 500  // entries recalled for one workspace
	historyFileCap      = 2000 // entries the file keeps before it is compacted
)

// historyEntry is one line of history.jsonl, in Claude Code's layout: the
// text entered, when, and in which workspace.
type historyEntry struct {
	Display   string `json:"display"`
	Timestamp int64  `json:"timestamp"` // milliseconds since 1970
	Project   string `json:"project"`
}

// InputHistory is the record of what the user typed, kept in
// $MINICODE_HOME/history.jsonl for all workspaces and recalled per
// workspace by Up and Down. Writing is best effort: a history that cannot
// be saved never stops a task.
type InputHistory struct {
	mu        sync.Mutex
	path      string
	workspace string
	lines     int // entries in the file, counted at load
}

// openHistory returns the history of workspace kept under home, and the
// entries entered there before, oldest first, without repeats.
func openHistory(home, workspace string) (*InputHistory, []string) {
	h := &InputHistory{path: filepath.Join(home, "history.jsonl"), workspace: workspace}
	entries := h.read()
	h.lines = len(entries)
	var mine []string
	seen := map[string]bool{}
	for i := len(entries) - 1; i >= 0 && len(mine) < historyPerWorkspace; i-- {
		e := entries[i]
		if e.Project == workspace && !seen[e.Display] {
			seen[e.Display] = true
			mine = append(mine, e.Display)
		}
	}
	for i, j := 0, len(mine)-1; i < j; i, j = i+1, j-1 {
		mine[i], mine[j] = mine[j], mine[i]
	}
	return h, mine
}

// read returns the file's entries, skipping lines that do not parse.
func (h *InputHistory) read() []historyEntry {
	f, err := os.Open(h.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []historyEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		var e historyEntry
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Display != "" {
			out = append(out, e)
		}
	}
	return out
}

// Add appends an input to the file, and compacts the file when it has
// grown past its cap: repeats are dropped and only the newest entries kept.
func (h *InputHistory) Add(input string) error {
	if h == nil || strings.TrimSpace(input) == "" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	e := historyEntry{Display: input, Timestamp: time.Now().UnixMilli(), Project: h.workspace}
	line, _ := json.Marshal(e)
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("saving input history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("saving input history: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("saving input history: %w", err)
	}
	if h.lines++; h.lines > historyFileCap {
		return h.compact()
	}
	return nil
}

// compact rewrites the file with the newest historyFileCap/2 entries,
// each input kept once per workspace (its newest use).
func (h *InputHistory) compact() error {
	entries := h.read()
	seen := map[[2]string]bool{}
	var kept []historyEntry
	for i := len(entries) - 1; i >= 0 && len(kept) < historyFileCap/2; i-- {
		id := [2]string{entries[i].Project, entries[i].Display}
		if !seen[id] {
			seen[id] = true
			kept = append(kept, entries[i])
		}
	}
	var b strings.Builder
	for i := len(kept) - 1; i >= 0; i-- {
		line, _ := json.Marshal(kept[i])
		b.Write(append(line, '\n'))
	}
	if err := writeAtomic(h.path, b.String()); err != nil {
		return fmt.Errorf("compacting input history: %w", err)
	}
	h.lines = len(kept)
	return nil
}
