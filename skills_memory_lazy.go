package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Memory for part of a project (the CLAUDE.md of a folder inside the
// workspace, a .claude/rules file with "paths:" globs) joins what read_file
// returns the first time the model reads a file it applies to.

// lazyMemory is the memory that waits for the model to read a file.
type lazyMemory struct {
	mu        sync.Mutex
	loader    *memoryLoader
	workspace string
	seen      map[string]bool // folders whose CLAUDE.md was looked for
	rules     []pathRule
}

// pathRule is a rule file that applies to the files its globs match.
type pathRule struct {
	file    *MemoryFile
	globs   []string // relative to the workspace
	applied bool
}

// loadRules reads the rule files of a .claude/rules folder: one without
// paths is loaded now, one with paths waits for a file it matches.
func (l *memoryLoader) loadRules(dir, level, boundary string, rank int) {
	entries, _ := os.ReadDir(dir) // no folder, no rules
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".md") || !e.Type().IsRegular() {
			continue
		}
		f := &MemoryFile{Path: path, Level: level, rank: rank}
		data, err := os.ReadFile(path)
		if err != nil {
			l.note(path, "cannot be read: %v", err)
			continue
		}
		if globs := rulePaths(data); len(globs) > 0 {
			l.mem.lazy.rules = append(l.mem.lazy.rules, pathRule{file: f, globs: globs})
		} else {
			l.loadFile(f, boundary, nil)
		}
	}
}

// rulePaths reads the paths: globs of a rule's front matter (a list or a
// comma-separated string).
func rulePaths(data []byte) []string {
	header, _, err := splitFrontMatter(data)
	if err != nil {
		return nil
	}
	meta, _ := parseFrontMatter(header)
	var globs []string
	switch v := meta["paths"].(type) {
	case string:
		globs = strings.Split(v, ",")
	case []any:
		for _, g := range v {
			globs = append(globs, fmt.Sprint(g))
		}
	}
	for i := range globs {
		globs[i] = strings.TrimPrefix(strings.TrimSpace(globs[i]), "./")
	}
	return slices.DeleteFunc(globs, func(g string) bool { return g == "" })
}

// ForRead loads the memory that applies to the file at abs and was not
// loaded yet, as text to add to what the model read ("" for none).
func (m *Memory) ForRead(abs string) string {
	z := &m.lazy
	if z.loader == nil || !within(z.workspace, abs) {
		return ""
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	before := len(m.Files)
	var dirs []string // the folders between the workspace and the file
	for d := filepath.Dir(abs); !z.seen[d] && within(z.workspace, d); d = filepath.Dir(d) {
		dirs = append([]string{d}, dirs...)
	}
	for _, d := range dirs {
		z.seen[d] = true
		z.loader.loadFiles(d, []string{"CLAUDE.md", filepath.Join(".claude", "CLAUDE.md")}, "project", z.workspace, 0)
	}
	rel, _ := filepath.Rel(z.workspace, abs)
	for i := range z.rules {
		r := &z.rules[i]
		if !r.applied && slices.ContainsFunc(r.globs, func(g string) bool { return matchGlob(g, rel) }) {
			r.applied = true
			z.loader.loadFile(r.file, z.workspace, nil)
		}
	}
	if text := memoryText(m.Files[before:]); text != "" {
		return "\n\n<system-reminder>\nInstructions from memory files that apply to this file (follow them for work here):\n" + text + "</system-reminder>"
	}
	return ""
}

// watchReads makes read_file add the memory that applies to the file it
// read, the first time.
func (m *Memory) watchReads(reg *Registry) {
	t, ok := reg.Get("read_file")
	if !ok || t.Permission == nil {
		return
	}
	run := t.Run
	t.Run = func(ctx context.Context, env *ToolEnv, in any) (ToolOutput, error) {
		out, err := run(ctx, env, in)
		req, perr := t.Permission(env, in)
		if err != nil || out.IsError || perr != nil || len(req.Paths) != 1 {
			return out, err
		}
		out.Text += m.ForRead(req.Paths[0]) // absolute, links resolved
		return out, nil
	}
}
