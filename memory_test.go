package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeFiles creates files under root from a map of relative path to
// content; a directory ".git" is made for a key ending in ".git/".
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(root, rel)
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loadedPaths lists the memory files whose content reached the prompt,
// relative to base.
func loadedPaths(t *testing.T, m *Memory, base string) []string {
	t.Helper()
	var out []string
	for _, f := range m.Files {
		if !f.Skipped {
			rel, err := filepath.Rel(base, f.Path)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// realTempDir is t.TempDir with its symlinks resolved, as loadMemory
// reports paths.
func realTempDir(t *testing.T) string {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLoadMemoryWalk checks which files are read and in what order: the
// user's, then each folder from the repository root down to the
// workspace, with nothing from above the repository.
func TestLoadMemoryWalk(t *testing.T) {
	t.Parallel()
	base := realTempDir(t)
	writeFiles(t, base, map[string]string{
		"AGENTS.md":                 "above the repository",
		"home/MINI.md":              "user level",
		"repo/.git/":                "",
		"repo/AGENTS.md":            "root agents",
		"repo/CLAUDE.md":            "root claude",
		"repo/a/MINI.md":            "a mini",
		"repo/a/b/CLAUDE.local.md":  "local notes",
		"repo/a/b/AGENTS.md":        "workspace agents",
		"repo/a/sibling/AGENTS.md":  "not on the path",
		"repo/a/b/below/AGENTS.md":  "below the workspace",
		"repo/a/b/docs/AGENTS.md/":  "",
		"repo/a/b/MINI.md/ignored/": "",
	})
	m := loadMemory(filepath.Join(base, "home"), "", filepath.Join(base, "repo", "a", "b"), false, nil)
	want := []string{"home/MINI.md", "AGENTS.md", "repo/AGENTS.md", "repo/CLAUDE.md", "repo/a/MINI.md", "repo/a/b/AGENTS.md", "repo/a/b/CLAUDE.local.md"}
	if got := loadedPaths(t, m, base); !reflect.DeepEqual(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	prompt := m.PromptSection()
	last := -1
	for _, text := range []string{"user level", "above the repository", "root agents", "root claude", "a mini", "workspace agents", "local notes"} {
		i := strings.Index(prompt, text)
		if i <= last {
			t.Fatalf("PromptSection has %q out of order: %q", text, prompt)
		}
		last = i
	}
	if desc := m.Describe(); !strings.Contains(desc, "Memory files (7 loaded") || !strings.Contains(desc, "user     "+filepath.Join(base, "home", "MINI.md")) {
		t.Errorf("Describe() = %q", desc)
	}
}

// TestLoadMemoryIncludes checks @includes: relative paths followed, code
// fences ignored, absolute paths and escapes (by .. or by a symlinked file
// or folder) refused, cycles and deep nesting stopped, and mentions that
// are not paths passed over quietly.
func TestLoadMemoryIncludes(t *testing.T) {
	t.Parallel()
	base := realTempDir(t)
	writeFiles(t, base, map[string]string{
		"outside.md": "SECRET OUTSIDE",
		"repo/.git/": "",
		"repo/AGENTS.md": "Root rules. See @docs/style.md, ask @alice.\n" +
			"```\n@docs/fenced.md\n```\n" +
			"@/etc/hostname @~/notes.md @../outside.md @docs/missing.md\n@d1.md\n" +
			"@docs/link.md @shared/outside.md\n",
		"repo/docs/style.md":  "STYLE GUIDE\n@../AGENTS.md\n",
		"repo/docs/fenced.md": "FENCED CONTENT",
		"repo/d1.md":          "D1 @d2.md", "repo/d2.md": "D2 @d3.md", "repo/d3.md": "D3 @d4.md",
		"repo/d4.md": "D4 @d5.md", "repo/d5.md": "D5 @d6.md", "repo/d6.md": "D6",
	})
	root := filepath.Join(base, "repo")
	for link, target := range map[string]string{"docs/link.md": "../../outside.md", "shared": base} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	m := loadMemory("", "", root, false, nil)
	want := []string{"repo/AGENTS.md", "repo/docs/style.md", "repo/d1.md", "repo/d2.md", "repo/d3.md", "repo/d4.md", "repo/d5.md"}
	if got := loadedPaths(t, m, base); !reflect.DeepEqual(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	agents := filepath.Join(root, "AGENTS.md")
	wantNotes := []string{
		filepath.Join(root, "docs", "style.md") + ": @../AGENTS.md not included: it would make a cycle (" + agents + " -> " + filepath.Join(root, "docs", "style.md") + " -> " + agents + ")",
		agents + ": @/etc/hostname not included: absolute and @~/ paths are followed only in a trusted workspace",
		agents + ": @~/notes.md not included: absolute and @~/ paths are followed only in a trusted workspace",
		agents + ": @../outside.md not included: it is outside " + root,
		agents + ": @docs/missing.md not included: file does not exist",
		agents + ": @docs/link.md not included: it is outside " + root,
		agents + ": @shared/outside.md not included: it is outside " + root,
		filepath.Join(root, "d5.md") + ": @d6.md not included: includes nest deeper than 5 levels",
	}
	notes := strings.Join(m.Notes, "\n")
	for _, w := range wantNotes {
		if !strings.Contains(notes, w) {
			t.Errorf("notes %q\nlack %q", notes, w)
		}
	}
	if len(m.Notes) != len(wantNotes) {
		t.Errorf("got %d notes, want %d: %q", len(m.Notes), len(wantNotes), m.Notes)
	}
	prompt := m.PromptSection()
	for _, bad := range []string{"FENCED CONTENT", "SECRET OUTSIDE", "D6"} {
		if strings.Contains(prompt, bad) {
			t.Errorf("PromptSection contains %q", bad)
		}
	}
	if !strings.Contains(prompt, filepath.Join(root, "docs", "style.md")+" (included from "+agents+")\n\nSTYLE GUIDE") {
		t.Errorf("PromptSection = %q, want the style guide marked as included", prompt)
	}
}

// TestLoadMemoryIncludesOutsideRepository checks that outside a repository
// a file may include only from its own folder and below.
func TestLoadMemoryIncludesOutsideRepository(t *testing.T) {
	t.Parallel()
	base := realTempDir(t)
	writeFiles(t, base, map[string]string{
		"secret.md":      "SECRET BESIDE",
		"ws/AGENTS.md":   "@../secret.md @docs/own.md",
		"ws/docs/own.md": "OWN DOCS",
	})
	ws := filepath.Join(base, "ws")
	m := loadMemory("", "", ws, false, nil)
	prompt := m.PromptSection()
	if strings.Contains(prompt, "SECRET BESIDE") || !strings.Contains(prompt, "OWN DOCS") {
		t.Errorf("PromptSection = %q, want docs/own.md in and ../secret.md out", prompt)
	}
	want := filepath.Join(ws, "AGENTS.md") + ": @../secret.md not included: it is outside " + ws
	if notes := strings.Join(m.Notes, "\n"); !strings.Contains(notes, want) {
		t.Errorf("notes %q\nlack %q", notes, want)
	}
}

// TestLoadMemoryLinksOut checks that a project memory file which is a
// link to a file outside its project (at the root, in a subfolder read
// later, or a rule file) is not loaded unless the workspace is trusted.
func TestLoadMemoryLinksOut(t *testing.T) {
	t.Parallel()
	base := realTempDir(t)
	writeFiles(t, base, map[string]string{
		"secret.txt":          "SECRET OUTSIDE",
		"ws/.git/HEAD":        "ref: refs/heads/main\n",
		"ws/sub/x.go":         "package sub\n",
		"ws/.claude/rules/.k": "",
		"ws/docs/own.md":      "OWN DOCS",
	})
	ws := filepath.Join(base, "ws")
	for _, link := range []string{"CLAUDE.md", "sub/CLAUDE.md", ".claude/rules/r.md"} {
		if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("docs/own.md", filepath.Join(ws, "AGENTS.md")); err != nil { // a link inside stays fine
		t.Fatal(err)
	}
	for _, trusted := range []bool{false, true} {
		m := loadMemory("", "", ws, trusted, nil)
		text := m.PromptSection() + m.ForRead(filepath.Join(ws, "sub", "x.go"))
		if got := strings.Contains(text, "SECRET OUTSIDE"); got != trusted || !strings.Contains(text, "OWN DOCS") {
			t.Errorf("trusted %v: the memory holds the outside file: %v, want %v; its own docs: %v", trusted, got, trusted, strings.Contains(text, "OWN DOCS"))
		}
		if notes := strings.Join(m.Notes, "\n"); !trusted && strings.Count(notes, "links out are followed only in a trusted workspace") < 2 {
			t.Errorf("notes %q should name the links not followed", notes)
		}
	}
}

// TestLoadMemoryNamedPipes checks that a named pipe, as a memory file or
// an include, is passed over rather than opened, which would wait for a
// writer that never comes.
func TestLoadMemoryNamedPipes(t *testing.T) {
	t.Parallel()
	base := realTempDir(t)
	writeFiles(t, base, map[string]string{".git/": "", "AGENTS.md": "@pipe.md"})
	for _, name := range []string{"pipe.md", "MINI.md"} {
		if err := syscall.Mkfifo(filepath.Join(base, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan *Memory, 1)
	go func() {
		m := loadMemory("", "", base, false, nil)
		done <- m
	}()
	var m *Memory
	select {
	case m = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("LoadMemory did not return: it opened a named pipe")
	}
	if got, want := loadedPaths(t, m, base), []string{"AGENTS.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("loaded %q, want %q", got, want)
	}
	want := filepath.Join(base, "AGENTS.md") + ": @pipe.md not included: it is not a file"
	if notes := strings.Join(m.Notes, "\n"); notes != want {
		t.Errorf("notes %q, want %q", notes, want)
	}
}

// TestLoadMemoryDuplicates loads a file and its symlink once, and of two
// copies in different folders keeps the one nearer the workspace.
func TestLoadMemoryDuplicates(t *testing.T) {
	t.Parallel()
	base := realTempDir(t)
	writeFiles(t, base, map[string]string{
		"repo/.git/":        "",
		"repo/AGENTS.md":    "same rules",
		"repo/ws/MINI.md":   "same rules",
		"repo/ws/AGENTS.md": "own rules",
	})
	if err := os.Symlink("AGENTS.md", filepath.Join(base, "repo", "ws", "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	m := loadMemory("", "", filepath.Join(base, "repo", "ws"), false, nil)
	if got, want := loadedPaths(t, m, base), []string{"repo/ws/AGENTS.md", "repo/ws/MINI.md"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("loaded %q, want %q", got, want)
	}
	desc := m.Describe()
	for _, want := range []string{
		filepath.Join(base, "repo", "AGENTS.md") + "  10 B, not loaded: duplicate of " + filepath.Join(base, "repo", "ws", "MINI.md"),
		filepath.Join(base, "repo", "ws", "CLAUDE.md") + "  9 B, not loaded: duplicate of " + filepath.Join(base, "repo", "ws", "AGENTS.md"),
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("Describe() = %q\nwant it to contain %q", desc, want)
		}
	}
	if strings.Count(m.PromptSection(), "same rules") != 1 {
		t.Errorf("PromptSection = %q, want the shared text once", m.PromptSection())
	}
}

// TestLoadMemoryCaps checks the per-file and total limits: the nearest
// files are kept (the largest cut to the per-file limit), a farther one is
// cut to the room left, and the farthest, the user's, is left out; /memory
// says so.
func TestLoadMemoryCaps(t *testing.T) {
	t.Parallel()
	base := realTempDir(t)
	line := strings.Repeat("x", 99) + "\n"
	kbOf := func(n int) string { return strings.Repeat(line, n*1024/100) }
	writeFiles(t, base, map[string]string{
		"home/AGENTS.md":     "USER " + kbOf(10),
		"repo/.git/":         "",
		"repo/AGENTS.md":     "ROOT " + kbOf(39),
		"repo/a/AGENTS.md":   "A " + kbOf(39),
		"repo/a/b/AGENTS.md": "B " + kbOf(39),
		"repo/a/b/c/MINI.md": "C " + kbOf(60) + "@late.md\n",
		"repo/a/b/c/late.md": "LATE, included from past the cut",
	})
	m := loadMemory(filepath.Join(base, "home"), "", filepath.Join(base, "repo", "a", "b", "c"), false, nil)
	byName := map[string]*memoryFile{}
	total := 0
	for _, f := range m.Files {
		rel, _ := filepath.Rel(base, f.Path)
		byName[filepath.ToSlash(rel)] = f
		total += len(f.Content)
	}
	if total > maxMemoryTotalBytes {
		t.Errorf("total loaded %d bytes, over the limit %d", total, maxMemoryTotalBytes)
	}
	checks := []struct {
		file    string
		skipped bool
		cut     string
		size    int // expected content length, -1 for "whole file"
	}{
		{file: "repo/a/b/c/MINI.md", cut: "(the limit for one file)", size: maxMemoryFileBytes},
		{file: "repo/a/b/AGENTS.md", size: -1},
		{file: "repo/a/AGENTS.md", size: -1},
		{file: "repo/AGENTS.md", cut: "(the total limit of 120.0 KB was reached)"},
		{file: "home/AGENTS.md", skipped: true, cut: "not loaded: the total limit"},
	}
	for _, c := range checks {
		f := byName[c.file]
		if f == nil {
			t.Fatalf("%s not found among %v", c.file, m.Files)
		}
		if f.Skipped != c.skipped || !strings.Contains(f.Cut, c.cut) || (c.cut == "") != (f.Cut == "") {
			t.Errorf("%s: Skipped %v Cut %q; want %v and %q", c.file, f.Skipped, f.Cut, c.skipped, c.cut)
		}
		if c.size == -1 && len(f.Content) != f.Size || c.size > 0 && (len(f.Content) > c.size || len(f.Content) < c.size*9/10) {
			t.Errorf("%s: %d bytes loaded of %d, want %d", c.file, len(f.Content), f.Size, c.size)
		}
		if !f.Skipped && f.Cut != "" && !strings.HasSuffix(f.Content, "\n") {
			t.Errorf("%s was not cut at a line break", c.file)
		}
	}
	if f := byName["repo/a/b/c/late.md"]; f != nil {
		t.Errorf("%s was loaded, though only the part of MINI.md past the limit includes it", f.Path)
	}
	desc := m.Describe()
	if !strings.Contains(desc, "(the limit for one file)") || !strings.Contains(desc, "not loaded: the total limit") {
		t.Errorf("Describe() = %q, want it to say what was cut", desc)
	}
	if !strings.Contains(m.PromptSection(), "[The rest of this file was left out: cut to") {
		t.Errorf("PromptSection does not mark the cut files")
	}
}

// TestReadMemoryFile checks the per-file limit as a file is read: a long
// file is cut at a line break, also with Windows line endings that make
// the text shorter than the bytes read, and its size is the size on disk.
func TestReadMemoryFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := strings.Repeat("y", 98)
	tests := []struct {
		name, content string
		wantLen       int // -1 for the whole content
	}{
		{name: "short", content: "\uFEFFone\r\ntwo\r\n", wantLen: -1},
		{name: "long", content: strings.Repeat(line+"\n", 1000), wantLen: maxMemoryFileBytes / 99 * 99},
		{name: "long with crlf", content: strings.Repeat(line+"\r\n", 1000), wantLen: maxMemoryFileBytes / 100 * 99},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".md")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			content, size, err := readMemoryFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(strings.TrimPrefix(tt.content, "\uFEFF"), "\r\n", "\n")
			if tt.wantLen >= 0 {
				want = want[:tt.wantLen]
			}
			if content != want || size != len(tt.content) {
				t.Errorf("readMemoryFile = %d bytes ending %q, size %d; want %d bytes ending %q, size %d",
					len(content), content[max(0, len(content)-8):], size, len(want), want[max(0, len(want)-8):], len(tt.content))
			}
		})
	}
}

// TestLoadMemoryNone describes an empty result and gives no prompt text.
func TestLoadMemoryNone(t *testing.T) {
	t.Parallel()
	base := realTempDir(t)
	writeFiles(t, base, map[string]string{".git/": ""})
	m := loadMemory("", "", base, false, nil)
	if m.PromptSection() != "" || !strings.HasPrefix(m.Describe(), "No memory files found") {
		t.Errorf("PromptSection() = %q, Describe() = %q", m.PromptSection(), m.Describe())
	}
}

// TestIncludeRefs checks which words count as includes.
func TestIncludeRefs(t *testing.T) {
	t.Parallel()
	in := "See @a.md, and @b/c.md.\nmail me@example.com\n~~~\n@fenced.md\n~~~\n  @d.md\n`@code.md` (@e.md)\n@\n"
	want := []string{"a.md", "b/c.md", "d.md"}
	if got := includeRefs(in); !reflect.DeepEqual(got, want) {
		t.Errorf("includeRefs = %q, want %q", got, want)
	}
}

// A memory file the permission rules deny (or ask) before reading is not put into the prompt, whether
// a CLAUDE.md includes it or it is a memory file itself: an "@.env" in a cloned project's CLAUDE.md
// never sends the user's secrets to the model.
func TestMemoryPassesOverWhatRulesDeny(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"CLAUDE.md": "Notes\nSee @.env and @docs/style.md\n", ".env": "API_KEY=sk-live-secret\n",
		"docs/style.md": "Use tabs.\n", "CLAUDE.local.md": "private plans\n",
		".claude/settings.json": `{"permissions": {"deny": ["Read(./.env)"], "ask": ["Read(./CLAUDE.local.md)"]}}`})
	r := runMinicode(t, []string{"MINICODE_HOME=" + t.TempDir()}, "", "-p", "/memory", "--workspace", ws)
	if strings.Contains(r.stdout, "  project  "+filepath.Join(ws, ".env")) || strings.Contains(r.stdout, "  project  "+filepath.Join(ws, "CLAUDE.local.md")) ||
		!strings.Contains(r.stdout, filepath.Join(ws, "docs", "style.md")) || strings.Count(r.stdout, "not loaded: the permission rules deny or ask before reading it") != 2 {
		t.Errorf("/memory: %s; want .env and CLAUDE.local.md passed over, each with a note, and docs/style.md loaded", r.stdout)
	}
}

// TestMemoryPassesOverHardLinks loads a project whose memory imports a hard link to the denied .env, and
// whose CLAUDE.md is one: read_file asks before reading a file with other names, and memory loads neither.
func TestMemoryPassesOverHardLinks(t *testing.T) {
	t.Parallel()
	for name, memory := range map[string]string{"import": "notes.md", "memory file": "CLAUDE.md"} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceWith(t, map[string]string{"AGENTS.md": "See @notes.md\n", ".env": "API_KEY=sk-live-secret\n",
				".claude/settings.json": `{"permissions": {"deny": ["Read(./.env)"]}}`})
			if err := os.Link(filepath.Join(ws, ".env"), filepath.Join(ws, memory)); err != nil {
				t.Fatal(err)
			}
			r := runMinicode(t, []string{"MINICODE_HOME=" + t.TempDir()}, "", "-p", "/memory", "--workspace", ws)
			if strings.Contains(r.stdout, "  project  "+filepath.Join(ws, memory)) || !strings.Contains(r.stdout, "not loaded: it has 2 hard links") {
				t.Errorf("/memory: %s; want %s passed over with a note", r.stdout, memory)
			}
		})
	}
}
