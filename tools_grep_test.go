package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func TestGrepFiles(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, listingTree)
	writeTree(t, env.Workspace, map[string]string{
		"bin/blob.dat":   "func main() {}\x00\x01",
		"src/latin1.txt": "func caf\xe9\n",
		"src/crlf.txt":   "func Win() {}\r\n",
		"src/long.txt":   "func " + strings.Repeat("y", 1000) + "\n",
	})
	tests := []struct {
		name    string
		input   string
		wantErr bool
		want    string
	}{
		{"sorted across files", `{"pattern":"^func "}`, false,
			"main.go:3:func main() {}\nsrc/app.go:3:func App() {}\nsrc/crlf.txt:1:func Win() {}\nsrc/latin1.txt:1:func caf\uFFFD\nsrc/long.txt:1:func " + strings.Repeat("y", 195) + "...\nsrc/sub/deep.go:3:func Deep() {}\n(6 matching lines in 6 files)\n"},
		{"glob by name", `{"pattern":"func","glob":"*.go"}`, false,
			"main.go:3:func main() {}\nsrc/app.go:3:func App() {}\nsrc/sub/deep.go:3:func Deep() {}\n(3 matching lines in 3 files)\n"},
		{"glob by path", `{"pattern":"func","glob":"sub/**"}`, false, "No matches for \"func\" in .\n"},
		{"glob by path below src", `{"pattern":"func","path":"src","glob":"sub/**"}`, false,
			"src/sub/deep.go:3:func Deep() {}\n(1 matching line in 1 file)\n"},
		{"glob from ./", `{"pattern":"func","path":"src","glob":"./sub/*.go"}`, false,
			"src/sub/deep.go:3:func Deep() {}\n(1 matching line in 1 file)\n"},
		{"glob from ./ is not at any depth", `{"pattern":"func","glob":"./*.go"}`, false, "main.go:3:func main() {}\n(1 matching line in 1 file)\n"},
		{"ignore case", `{"pattern":"FUNC APP","ignore_case":true}`, false, "src/app.go:3:func App() {}\n(1 matching line in 1 file)\n"},
		{"case matters by default", `{"pattern":"FUNC APP"}`, false, "No matches for \"FUNC APP\" in .\n"},
		{"single file", `{"pattern":"package","path":"src/app.go"}`, false, "src/app.go:1:package src\n(1 matching line in 1 file)\n"},
		{"limit", `{"pattern":"package","limit":2}`, false,
			"main.go:1:package main\nsrc/app.go:1:package src\n[... 1 more matching lines not shown; narrow the pattern, path or glob, or raise limit ...]\n(3 matching lines in 3 files)\n"},
		{"ignored and skipped files", `{"pattern":"noise|built|module.exports|refs/heads|package gen"}`, false, "No matches for \"noise|built|module.exports|refs/heads|package gen\" in .\n"},
		{"matches never span lines", `{"pattern":"main\\s+func"}`, false, "No matches for \"main\\\\s+func\" in .\n"},
		{"invalid regexp", `{"pattern":"a(b"}`, true, "invalid regular expression \"a(b\": missing closing )"},
		{"bad escape", `{"pattern":"a\\qb"}`, true, "invalid regular expression \"a\\\\qb\": invalid escape sequence: \\q"},
		{"invalid glob", `{"pattern":"a","glob":"[x"}`, true, "invalid glob \"[x\": syntax error in pattern"},
		{"missing path", `{"pattern":"a","path":"nope"}`, true, "grep_files nope: no such file"},
		{"missing pattern", `{}`, true, `invalid input: field "pattern" is required`},
		{"negative limit", `{"pattern":"a","limit":-1}`, true, `invalid input: field "limit" must be at least 1`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := callTool(t, env, grepFilesTool(), tc.input)
			if out.IsError != tc.wantErr || out.Text != tc.want {
				t.Errorf("grep_files %s = %q (error %v), want %q (error %v)", tc.input, out.Text, out.IsError, tc.want, tc.wantErr)
			}
		})
	}
}

// TestGrepFilesChunkBoundaries searches a file several chunks long, so
// that lines straddle the reads, and checks every line number.
func TestGrepFilesChunkBoundaries(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	var b strings.Builder
	var want []string
	for i := 1; b.Len() < 3*grepChunkBytes; i++ {
		if i%997 == 0 {
			fmt.Fprintf(&b, "needle %d\n", i)
			want = append(want, fmt.Sprintf("big.txt:%d:needle %d", i, i))
		} else {
			fmt.Fprintf(&b, "hay hay hay hay %d\n", i)
		}
	}
	b.WriteString(strings.Repeat("z", 2*grepChunkBytes) + " needle at the end")
	if err := os.WriteFile(filepath.Join(env.Workspace, "big.txt"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := callTool(t, env, grepFilesTool(), `{"pattern":"needle","limit":5000}`)
	lines := strings.Split(strings.TrimSpace(out.Text), "\n")
	if len(lines) != len(want)+2 {
		t.Fatalf("got %d lines, want %d", len(lines), len(want)+2)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d = %q, want %q", i, lines[i], w)
		}
	}
	if !strings.HasPrefix(lines[len(want)], fmt.Sprintf("big.txt:%d:zzz", strings.Count(b.String(), "\n")+1)) {
		t.Errorf("last match = %q", cutBytes(lines[len(want)], 40, "..."))
	}
}

// TestRequiredLiteral checks the text a search looks for before it runs the expression: of the
// pieces every match holds, the one whose rarest byte is rarest, then the longest, and where that
// byte is (-1 for letters only under ignore case, which a lower-cased copy finds).
func TestRequiredLiteral(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr, want string
		fold       bool
		rare       int
	}{
		{"(?m)func main", "func main", false, 0},
		{"(?m)errors.New", "New", false, 0},
		{"(?m)func \\w+\\(", "func ", false, 0},
		{"(?m)a|b", "", false, -1},
		{"(?m)^x+ yz", " yz", false, 1},
		{"(?m)ab.cd", "ab", false, 1},
		{"(?m)ab.Cd", "Cd", false, 0},
		{"(?i)(?m)FUNC main", "func main", true, 4},
		{"(?i)(?m)errors\\.new", "errors.new", true, 6},
		{"(?i)(?m)ÉtÉ", "t", true, -1},
		{"(?i)(?m)sk", "sk", true, -1},
	}
	for _, tc := range tests {
		if got, fold, rare := requiredLiteral(tc.expr); string(got) != tc.want || fold != tc.fold || rare != tc.rare {
			t.Errorf("requiredLiteral(%q) = %q, %v, %d; want %q, %v, %d", tc.expr, got, fold, rare, tc.want, tc.fold, tc.rare)
		}
	}
}

// TestGrepFilesIgnoreCaseBeyondASCII checks that the lower-cased literal
// filter never hides a line that only Unicode case folding matches.
func TestGrepFilesIgnoreCaseBeyondASCII(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"a.txt": "ERRORS.NEW\nerror\u017f.new\n\u212aelvin\nÉTÉ\nnothing\n"})
	tests := []struct{ pattern, want string }{
		{"errors.new", "a.txt:1:ERRORS.NEW\na.txt:2:error\u017f.new\n(2 matching lines in 1 file)\n"},
		{"kelvin", "a.txt:3:\u212aelvin\n(1 matching line in 1 file)\n"},
		{"été", "a.txt:4:ÉTÉ\n(1 matching line in 1 file)\n"},
	}
	for _, tc := range tests {
		out := callTool(t, env, grepFilesTool(), fmt.Sprintf(`{"pattern":%q,"ignore_case":true}`, tc.pattern))
		if out.Text != tc.want {
			t.Errorf("grep_files %q = %q, want %q", tc.pattern, out.Text, tc.want)
		}
	}
}

func TestGlobFiles(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, listingTree)
	touch := func(name string, age int) {
		t.Helper()
		when := timeAgo(age)
		if err := os.Chtimes(filepath.Join(env.Workspace, name), when, when); err != nil {
			t.Fatal(err)
		}
	}
	touch("main.go", 30)
	touch("src/app.go", 10)
	touch("src/sub/deep.go", 20)
	tests := []struct {
		name    string
		input   string
		wantErr bool
		want    string
	}{
		{"any depth newest first", `{"pattern":"**/*.go"}`, false, "src/app.go\nsrc/sub/deep.go\nmain.go\n"},
		{"top folder only", `{"pattern":"*.go"}`, false, "main.go\n"},
		{"below a folder", `{"pattern":"sub/*.go","path":"src"}`, false, "src/sub/deep.go\n"},
		{"limit", `{"pattern":"**/*.go","limit":1}`, false, "src/app.go\n[... 2 more not shown; narrow the pattern or raise limit ...]\n"},
		{"ignored files", `{"pattern":"**/*.log"}`, false, "keep.log\n"},
		{"nothing", `{"pattern":"**/*.rs"}`, false, "No files match \"**/*.rs\" in .\n"},
		{"bad glob", `{"pattern":"[a"}`, true, "invalid glob \"[a\": syntax error in pattern"},
		{"not a folder", `{"pattern":"*","path":"main.go"}`, true, "glob_files main.go: is a file, not a folder; use read_file to read it"},
	}
	for _, tc := range tests {
		out := callTool(t, env, globFilesTool(), tc.input)
		if out.IsError != tc.wantErr || out.Text != tc.want {
			t.Errorf("%s: glob_files %s = %q (error %v), want %q (error %v)", tc.name, tc.input, out.Text, out.IsError, tc.want, tc.wantErr)
		}
	}
}

// TestGrepFilesManyFiles matches in more files than the limit shows, so
// that lines of files past the limit are dropped while workers still run.
func TestGrepFilesManyFiles(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 50 {
		files[fmt.Sprintf("f%02d.txt", i)] = "hit one\nmiss\nhit two\n"
	}
	env := newTestEnv(t, files)
	out := callTool(t, env, grepFilesTool(), `{"pattern":"hit","limit":3}`)
	want := "f00.txt:1:hit one\nf00.txt:3:hit two\nf01.txt:1:hit one\n" +
		"[... 97 more matching lines not shown; narrow the pattern, path or glob, or raise limit ...]\n(100 matching lines in 50 files)\n"
	if out.Text != want {
		t.Errorf("got %q, want %q", out.Text, want)
	}
}

// TestGrepSearchFileStopsOnCancel searches a file many chunks long with a
// cancelled context: the search ends after the first chunk instead of
// reading the whole file.
func TestGrepSearchFileStopsOnCancel(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("needle\n", 4*grepChunkBytes/7)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := &grepWorker{grepSearch: &grepSearch{re: regexp.MustCompile("needle"), literal: []byte("needle"), shown: firstN[grepMatch]{n: 1}}}
	err := w.searchFile(ctx, path)
	if !errors.Is(err, context.Canceled) || w.count > grepChunkBytes/7 {
		t.Errorf("cancelled search = %d matches, error %v; want at most one chunk's %d and %v", w.count, err, grepChunkBytes/7, context.Canceled)
	}
}

// TestGrepFilesEmptyLines searches for empty lines: the empty place after
// a file's last newline, or after the last newline of a chunk read, is no
// line and must not be reported.
func TestGrepFilesEmptyLines(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{
		"blank.txt": "a\n\nb\n",
		"big.txt":   strings.Repeat("xxxxxxx\n", 3*grepChunkBytes/8),
	})
	out := callTool(t, env, grepFilesTool(), `{"pattern":"^$"}`)
	if want := "blank.txt:2:\n(1 matching line in 1 file)\n"; out.Text != want {
		t.Errorf("got %q, want %q", cutBytes(out.Text, 300, "..."), want)
	}
}

// TestSearchesTakeEveryCore: a process running on one P, as minicode does,
// has every core while any search runs and one again after the last ends.
func TestSearchesTakeEveryCore(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("needs two CPUs")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	first, second := allCores(), allCores()
	if got := runtime.GOMAXPROCS(0); got != runtime.NumCPU() {
		t.Errorf("during two searches GOMAXPROCS = %d, want %d", got, runtime.NumCPU())
	}
	first()
	if got := runtime.GOMAXPROCS(0); got != runtime.NumCPU() {
		t.Errorf("after the first search ended GOMAXPROCS = %d, want %d", got, runtime.NumCPU())
	}
	second()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("after both ended GOMAXPROCS = %d, want 1", got)
	}
}

// TestIndexLiteral finds the literal by its rare byte: at the end, cut off by the end, after a
// false start, and in upper case under ignore case.
func TestIndexLiteral(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		expr, s string
		want    int
	}{
		{"(?m)New", "errors.New", 7},
		{"(?m)New", "errors.Ne", -1},
		{"(?m)ab.Cd", "xCe Cd", 4},
		{"(?i)(?m)errors\\.new", "x.ERRORS.NEW", 2},
		{"(?i)(?m)errors\\.new", "errors.ne", -1},
		{"(?i)(?m)a-b", "a-c a-B", 4},
	} {
		g := &grepSearch{}
		g.literal, g.fold, g.rare = requiredLiteral(tc.expr)
		if got := g.indexLiteral([]byte(tc.s)); got != tc.want {
			t.Errorf("indexLiteral of %q in %q = %d, want %d", g.literal, tc.s, got, tc.want)
		}
	}
}
