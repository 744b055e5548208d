package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Memory for part of a project (a folder's CLAUDE.md, a rule with "paths:")
// joins what read_file returns the first time the model reads there.

// pathRule is a rule file that applies to the files its globs match.
type pathRule struct {
	file  *MemoryFile
	globs []string // relative to the workspace
}

// loadRules loads the rule files of a .claude/rules folder; one with paths
// waits for a file it matches.
func (m *Memory) loadRules(dir, level, boundary string, rank int) {
	entries, _ := os.ReadDir(dir) // no folder, no rules
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".md") || !e.Type().IsRegular() {
			continue
		}
		f := &MemoryFile{Path: path, Level: level, rank: rank}
		data, err := os.ReadFile(path)
		if err != nil {
			m.note(path, "cannot be read: %v", err)
			continue
		}
		if globs := rulePaths(data); len(globs) > 0 {
			m.rules = append(m.rules, pathRule{file: f, globs: globs})
		} else {
			m.loadFile(f, boundary, nil)
		}
	}
}

// rulePaths reads the paths: globs of a rule's front matter.
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

// ForRead returns the memory not loaded yet that applies to the file at abs.
func (m *Memory) ForRead(abs string) string {
	if !within(m.workspace, abs) {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	before := len(m.Files)
	var dirs []string // the folders between the workspace and the file
	for d := filepath.Dir(abs); !m.seen[d] && within(m.workspace, d); d = filepath.Dir(d) {
		dirs = append([]string{d}, dirs...)
	}
	for _, d := range dirs {
		m.seen[d] = true
		m.loadFiles(d, []string{"CLAUDE.md", filepath.Join(".claude", "CLAUDE.md")}, "project", m.workspace, 0)
	}
	rel, _ := filepath.Rel(m.workspace, abs)
	m.rules = slices.DeleteFunc(m.rules, func(r pathRule) bool {
		match := slices.ContainsFunc(r.globs, func(g string) bool { return matchGlob(g, rel) })
		if match {
			m.loadFile(r.file, m.workspace, nil)
		}
		return match
	})
	if text := memoryText(m.Files[before:]); text != "" {
		return "\n\n<system-reminder>\nInstructions from memory files that apply to this file (follow them for work here):\n" + text + "</system-reminder>"
	}
	return ""
}
