package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Project memory is the user's standing instructions (AGENTS.md, CLAUDE.md, MINI.md, .claude/rules, with
// "@path" includes) from / down to the workspace and in the homes, put into the system prompt within limits.

// Limits on project memory.
const (
	maxMemoryFileBytes  = 40 * 1024  // one file
	maxMemoryTotalBytes = 120 * 1024 // all files together
	minMemoryPieceBytes = 1024       // a smaller remainder is left out, not cut
	maxIncludeDepth     = 5          // nested @includes followed
)

// memoryFile is one memory file found, loaded or not.
type memoryFile struct {
	Path         string
	Level        string // "user" or "project"
	IncludedFrom string // the file whose @include brought this one in
	Size         int    // bytes on disk
	Content      string // what goes into the prompt
	Cut          string // what was cut or why nothing was loaded; "" when all is in
	Skipped      bool   // nothing of the file is in the prompt
	rank         int    // 0 for the workspace folder, growing with distance
}

// Memory is the project memory of one workspace, with what waits for the model's reads.
type Memory struct {
	Files    []*memoryFile // from the most general to the nearest
	Notes    []string      // includes not followed, files not readable
	Searched []string      // the folders looked in

	mu        sync.Mutex             // held by ForRead, which parallel tool calls run
	loaded    map[string]*memoryFile // by real path
	userHome  string                 // for @~/ includes
	trusted   bool                   // project files may include absolute and @~/ paths
	workspace string
	seen      map[string]bool       // folders whose CLAUDE.md was looked for
	rules     []pathRule            // rule files waiting for a file their paths match
	hidden    func(abs string) bool // the files the permission rules keep from the model; nil: none
}

// loadMemory reads the memory files for ws (absolute, symlinks resolved); home is $MINICODE_HOME, "" for none.
// It passes over the files hidden reports (those the permission rules deny or ask before reading; nil: none).
func loadMemory(home, userHome, ws string, trusted bool, hidden func(abs string) bool) *Memory {
	m := &Memory{loaded: map[string]*memoryFile{}, userHome: userHome, trusted: trusted, workspace: ws, seen: map[string]bool{ws: true}, hidden: hidden}
	names := []string{"AGENTS.md", "CLAUDE.md", filepath.Join(".claude", "CLAUDE.md"), "CLAUDE.local.md", "MINI.md"}
	dirs := []string{ws} // from / down to the workspace
	for d := ws; d != filepath.Dir(d); d = filepath.Dir(d) {
		dirs = append([]string{filepath.Dir(d)}, dirs...)
	}
	if real, err := filepath.EvalSymlinks(filepath.Join(userHome, ".claude")); userHome != "" && err == nil {
		m.loadFiles(real, []string{"CLAUDE.md"}, "user", real, len(dirs)+1)
		m.loadRules(filepath.Join(real, "rules"), "user", real, len(dirs)+1)
	}
	if real, err := filepath.EvalSymlinks(home); home != "" && err == nil {
		m.loadFiles(real, names, "user", real, len(dirs))
	}
	root, inRepo := findRepoRoot(ws)
	for i, dir := range dirs {
		boundary := dir
		if inRepo && within(root, dir) {
			boundary = root
		}
		m.loadFiles(dir, names, "project", boundary, len(dirs)-1-i)
	}
	m.loadRules(filepath.Join(ws, ".claude", "rules"), "project", ws, 0)
	m.applyCaps()
	return m
}

// loadFiles loads the named files of one folder that exist, in order.
func (m *Memory) loadFiles(dir string, names []string, level, boundary string, rank int) {
	m.Searched = append(m.Searched, dir)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
			m.loadFile(&memoryFile{Path: path, Level: level, rank: rank}, boundary, nil)
		}
	}
}

// loadFile reads one memory file, then those it includes; stack holds the real paths of the files including it.
func (m *Memory) loadFile(f *memoryFile, boundary string, stack []string) {
	real, err := filepath.EvalSymlinks(f.Path)
	if prev, ok := m.loaded[real]; err == nil && ok {
		f.Skipped, f.Cut, f.Size = true, "not loaded: duplicate of "+prev.Path, prev.Size
		m.Files = append(m.Files, f)
		return
	}
	if err == nil && f.Level == "project" && !m.trusted && !within(boundary, real) {
		m.note(f.Path, "not loaded: it links to %s, outside %s; links out are followed only in a trusted workspace (minicode trust)", real, boundary)
		return
	}
	if why := hiddenReason(m.hidden, m.workspace, f.Path, real); err == nil && why != "" {
		m.note(f.Path, "not loaded: %s", why)
		return
	}
	content, size := "", 0
	if err == nil {
		content, size, err = readMemoryFile(real)
	}
	if err != nil {
		m.note(f.Path, "cannot be read: %v", err)
		return
	}
	if strings.IndexByte(content, 0) >= 0 {
		m.note(f.Path, "is not a text file; not loaded")
		return
	}
	f.Size, f.Content = size, content
	if size > maxMemoryFileBytes {
		f.Cut = fmt.Sprintf("cut to %s (the limit for one file)", kb(len(content)))
	}
	m.loaded[real] = f
	m.Files = append(m.Files, f)
	stack = append(stack, real)
	for _, ref := range includeRefs(f.Content) {
		m.include(f, ref, boundary, stack)
	}
}

// readMemoryFile reads a memory file cut at a line break to maxMemoryFileBytes, and its size on disk.
func readMemoryFile(path string) (content string, size int, err error) {
	file, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer file.Close()
	info, statErr := file.Stat()
	data, err := io.ReadAll(io.LimitReader(file, maxMemoryFileBytes+1))
	if err = cmp.Or(statErr, err); err != nil {
		return "", 0, err
	}
	content = cutAtLine(string(data), maxMemoryFileBytes)
	return strings.ReplaceAll(strings.TrimPrefix(content, "\uFEFF"), "\r\n", "\n"), int(info.Size()), nil
}

// include follows one @ref found in f.
func (m *Memory) include(f *memoryFile, ref, boundary string, stack []string) {
	if rest, ok := strings.CutPrefix(ref, "~/"); ok && m.userHome != "" {
		ref = filepath.Join(m.userHome, rest)
	}
	target, err := resolveInclude(filepath.Dir(f.Path), ref, boundary, f.Level == "user" || m.trusted)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(ref, "/."):
		return // "@name" in prose is a mention, not a path
	case err != nil:
		m.note(f.Path, "@%s not included: %v", ref, err)
		return
	}
	if i := slices.Index(stack, target); i >= 0 {
		m.note(f.Path, "@%s not included: it would make a cycle (%s -> %s)", ref, strings.Join(stack[i:], " -> "), target)
		return
	}
	if len(stack) > maxIncludeDepth {
		m.note(f.Path, "@%s not included: includes nest deeper than %d levels", ref, maxIncludeDepth)
		return
	}
	m.loadFile(&memoryFile{Path: target, Level: f.Level, IncludedFrom: f.Path, rank: f.rank}, boundary, stack)
}

// note records a problem with a memory file.
func (m *Memory) note(path, format string, args ...any) {
	m.Notes = append(m.Notes, path+": "+fmt.Sprintf(format, args...))
}

// codeSpan matches a `code span`, or a backquote left open to the line's end.
var codeSpan = regexp.MustCompile("`[^`]*`?")

// includeRefs finds the "@path" words of a memory file outside code.
func includeRefs(text string) []string {
	var refs []string
	fence := ""
	for line := range strings.Lines(text) {
		switch trimmed := strings.TrimSpace(line); {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
		default:
			for _, word := range strings.Fields(codeSpan.ReplaceAllString(line, " ")) {
				if ref := strings.TrimRight(strings.TrimPrefix(word, "@"), ".,;:!?)\"'"); len(word) > 1 && word[0] == '@' && ref != "" {
					refs = append(refs, ref)
				}
			}
		}
	}
	return refs
}

// resolveInclude turns an include into a real path: a relative one stays inside boundary, an absolute one needs external.
func resolveInclude(dir, ref, boundary string, external bool) (string, error) {
	abs := filepath.IsAbs(ref)
	if abs && !external || strings.HasPrefix(ref, "~") {
		return "", errors.New("absolute and @~/ paths are followed only in a trusted workspace (minicode trust)")
	}
	if !abs {
		ref = filepath.Join(dir, ref)
	}
	real, err := filepath.EvalSymlinks(ref)
	if err != nil {
		return "", fs.ErrNotExist
	}
	if !abs && !within(boundary, real) {
		return "", fmt.Errorf("it is outside %s", boundary)
	}
	if info, err := os.Stat(real); err != nil || !info.Mode().IsRegular() {
		return "", errors.New("it is not a file")
	}
	return real, nil
}

// applyCaps decides what of each file goes into the prompt, nearest first, within maxMemoryTotalBytes and without repeats.
func (m *Memory) applyCaps() {
	order := slices.Clone(m.Files)
	slices.SortStableFunc(order, func(a, b *memoryFile) int { return a.rank - b.rank })
	seen := map[string]*memoryFile{} // by content
	total := 0
	for _, f := range order {
		if f.Skipped || strings.TrimSpace(f.Content) == "" {
			continue
		}
		if prev, ok := seen[f.Content]; ok {
			f.Skipped, f.Content, f.Cut = true, "", "not loaded: duplicate of "+prev.Path
			continue
		}
		seen[f.Content] = f
		room := maxMemoryTotalBytes - total
		switch {
		case len(f.Content) > room && room < minMemoryPieceBytes:
			f.Skipped, f.Content, f.Cut = true, "", fmt.Sprintf("not loaded: the total limit of %s was reached", kb(maxMemoryTotalBytes))
		case len(f.Content) > room:
			f.Content = cutAtLine(f.Content, room)
			f.Cut = fmt.Sprintf("cut to %s (the total limit of %s was reached)", kb(len(f.Content)), kb(maxMemoryTotalBytes))
		}
		total += len(f.Content)
	}
}

// kb formats a byte count for people.
func kb(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}

// Describe is the text of /memory.
func (m *Memory) Describe() string {
	var b strings.Builder
	loaded, total := 0, 0
	for _, f := range m.Files {
		if !f.Skipped {
			loaded++
			total += len(f.Content)
		}
	}
	if len(m.Files) == 0 {
		fmt.Fprintf(&b, "No memory files found (AGENTS.md, CLAUDE.md, CLAUDE.local.md, MINI.md).\nLooked in: %s\n/init writes a starter AGENTS.md.\n", strings.Join(m.Searched, ", "))
	} else {
		fmt.Fprintf(&b, "Memory files (%d loaded, %s in the prompt):\n", loaded, kb(total))
	}
	for _, f := range m.Files {
		fmt.Fprintf(&b, "  %-7s  %s  %s", f.Level, f.Path, kb(f.Size))
		if f.IncludedFrom != "" {
			fmt.Fprintf(&b, ", included from %s", f.IncludedFrom)
		}
		if f.Cut != "" {
			fmt.Fprintf(&b, ", %s", f.Cut)
		}
		b.WriteString("\n")
	}
	if len(m.Notes) > 0 {
		fmt.Fprintf(&b, "Notes:\n  %s\n", strings.Join(m.Notes, "\n  "))
	}
	return b.String()
}

// PromptSection is the memory part of the system prompt, the nearest file last.
func (m *Memory) PromptSection() string {
	if text := memoryText(m.Files); text != "" {
		return "# Project memory\n\nThe user's standing instructions, from memory files. They run from the most general to the nearest to the workspace; where they disagree, the nearer one wins.\n" + text
	}
	return ""
}

// memoryText is the loaded files' paths and contents, for the model.
func memoryText(files []*memoryFile) string {
	var b strings.Builder
	for _, f := range files {
		if f.Skipped || strings.TrimSpace(f.Content) == "" {
			continue
		}
		fmt.Fprintf(&b, "\n## %s", f.Path)
		if f.IncludedFrom != "" {
			fmt.Fprintf(&b, " (included from %s)", f.IncludedFrom)
		}
		fmt.Fprintf(&b, "\n\n%s\n", strings.TrimRight(f.Content, "\n"))
		if f.Cut != "" {
			fmt.Fprintf(&b, "\n[The rest of this file was left out: %s.]\n", f.Cut)
		}
	}
	return b.String()
}

// Memory for part of a project (a folder's CLAUDE.md, a rule with "paths:") joins read_file's result on the first read there.

// pathRule is a rule file that applies to the files its globs match.
type pathRule struct {
	file  *memoryFile
	globs []string // relative to the workspace
}

// loadRules loads the rule files of a .claude/rules folder; one with paths waits for a file it matches.
func (m *Memory) loadRules(dir, level, boundary string, rank int) {
	entries, _ := os.ReadDir(dir) // no folder, no rules
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(e.Name(), ".md") || !e.Type().IsRegular() {
			continue
		}
		f := &memoryFile{Path: path, Level: level, rank: rank}
		data, err := os.ReadFile(path)
		switch globs := rulePaths(data); {
		case err != nil:
			m.note(path, "cannot be read: %v", err)
		case len(globs) > 0:
			m.rules = append(m.rules, pathRule{file: f, globs: globs})
		default:
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

// cutAtLine cuts s to n bytes, at a line break in the last fifth if any, not to end mid-instruction.
func cutAtLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = cutBytes(s, n, "")
	if nl := strings.LastIndexByte(s, '\n'); nl >= len(s)*4/5 {
		s = s[:nl+1]
	}
	return s
}
