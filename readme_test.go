package main

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readmeRef matches a file.go:Function or file.go:Type.Method reference.
var readmeRef = regexp.MustCompile("`([a-z0-9_]+\\.go):([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)?)`")

// declaredFuncs lists a Go file's functions, methods as Type.Method.
func declaredFuncs(t *testing.T, path string) map[string]bool {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	names := map[string]bool{}
	for _, d := range file.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if fn.Recv == nil || len(fn.Recv.List) == 0 {
			names[fn.Name.Name] = true
			continue
		}
		recv := fn.Recv.List[0].Type
		if star, ok := recv.(*ast.StarExpr); ok {
			recv = star.X
		}
		switch r := recv.(type) {
		case *ast.IndexExpr:
			recv = r.X
		case *ast.IndexListExpr:
			recv = r.X
		}
		if id, ok := recv.(*ast.Ident); ok {
			names[id.Name+"."+fn.Name.Name] = true
		}
	}
	return names
}

func TestREADMENamesExistingFunctions(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	refs := readmeRef.FindAllStringSubmatch(string(data), -1)
	if len(refs) < 30 {
		t.Fatalf("README names %d functions, want the walk through one turn (at least 30)", len(refs))
	}
	files := map[string]map[string]bool{}
	for _, ref := range refs {
		file, name := ref[1], ref[2]
		if files[file] == nil {
			if _, err := os.Stat(file); err != nil {
				t.Errorf("README names %q, but there is no file %q", ref[0], file)
				continue
			}
			files[file] = declaredFuncs(t, file)
		}
		if !files[file][name] {
			t.Errorf("README names %q, but %s declares no %q", ref[0], file, name)
		}
	}
}

// newcomer is someone trying minicode on a fresh machine: an empty HOME (minicode's
// home is the default one inside it) and an empty workspace, where the binary runs.
type newcomer struct {
	t        *testing.T
	home, ws string
}

// newNewcomer makes the empty HOME and workspace.
func newNewcomer(t *testing.T) *newcomer {
	base := t.TempDir()
	n := &newcomer{t: t, home: filepath.Join(base, "home"), ws: filepath.Join(base, "ws")}
	for _, dir := range []string{n.home, n.ws} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// run runs minicode in the workspace with stdin and the arguments.
func (n *newcomer) run(stdin string, args ...string) runResult {
	n.t.Helper()
	return runIn(n.t, n.ws, []string{"HOME=" + n.home}, stdin, args...)
}

// mustRun runs minicode and fails the test unless it exits with code.
func (n *newcomer) mustRun(code int, args ...string) runResult {
	n.t.Helper()
	return n.mustRunWith(code, "", args...)
}

// mustRunWith is mustRun with stdin.
func (n *newcomer) mustRunWith(code int, stdin string, args ...string) runResult {
	n.t.Helper()
	r := n.run(stdin, args...)
	if r.code != code {
		n.t.Fatalf("minicode %q: exit %d, want %d\nstdout: %s\nstderr: %s", args, r.code, code, r.stdout, r.stderr)
	}
	return r
}

// readmeBlocks returns the README's fenced blocks of a language, each as its lines,
// with the paragraph before each block.
func readmeBlocks(t *testing.T, lang string) (blocks [][]string, intros []string) {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for {
		start := strings.Index(text, "\n```"+lang+"\n")
		if start < 0 {
			return blocks, intros
		}
		body, rest, _ := strings.Cut(text[start+len(lang)+5:], "\n```\n")
		intros = append(intros, text[strings.LastIndex(text[:start], "\n\n")+1:start])
		blocks, text = append(blocks, strings.Split(body, "\n")), rest
	}
}

// TestREADMESampleSessionIsTrue types the README's sample session into minicode, in the
// example folder it names: every line the README shows must be printed, in that order.
func TestREADMESampleSessionIsTrue(t *testing.T) {
	t.Parallel()
	blocks, intros := readmeBlocks(t, "text")
	if len(blocks) == 0 || !strings.Contains(intros[0], "go run . --workspace testdata/hello") {
		t.Fatalf("the README's first text block is not the sample session in testdata/hello: %q", intros)
	}
	var typed, shown []string
	for _, line := range blocks[0] {
		if input, ok := strings.CutPrefix(line, "> "); ok {
			typed = append(typed, input)
		} else {
			shown = append(shown, line)
		}
	}
	r := runMinicode(t, nil, strings.Join(typed, "\n")+"\n", "--workspace", filepath.Join("testdata", "hello"))
	printed := strings.Split(r.stdout, "\n")
	for _, want := range shown {
		i := slices.Index(printed, want)
		if i < 0 {
			t.Fatalf("the README shows %q, which minicode does not print (next) in testdata/hello:\n%s", want, r.stdout)
		}
		printed = printed[i+1:]
	}
}

// readmeOffline are the README's command lines this machine cannot run (by prefix), and why.
var readmeOffline = map[string]string{
	"go test ./...":             "this test is part of it",
	"export ":                   "a real provider's key",
	"minicode --provider ":      "a model server",
	"minicode mcp tools files":  "the filesystem server from npm",
	"minicode mcp call files":   "the filesystem server from npm",
	"minicode mcp login remote": "a browser and the server at example.com",
	"bash scripts/":             "peers installed from npm",
}

// TestREADMECommandsWorkInAFreshClone follows the README's shell blocks as a newcomer would, in a copy
// of this repository with an empty HOME: every command it can run offline (`go run .` as the binary,
// `ID` a session the walk made, `UUID` a new id) must succeed, and what its comment promises must hold.
func TestREADMECommandsWorkInAFreshClone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs minicode")
	}
	t.Parallel()
	base := t.TempDir()
	clone, home, bin := filepath.Join(base, "minicode"), filepath.Join(base, "home"), filepath.Join(base, "bin")
	copyRepository(t, ".", clone)
	for _, dir := range []string{home, bin, filepath.Join(base, "other")} { // other: the folder `trust ../other` names
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(minicodeBinary(t), filepath.Join(bin, "minicode")); err != nil {
		t.Fatal(err)
	}
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	env := []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + home, "GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE"),
		"GOPROXY=off", "GOTOOLCHAIN=local"}
	promises := map[string]func(stdout string) bool{
		"go install .":               func(string) bool { return exists(filepath.Join(home, "go", "bin", "minicode")) },
		"go build -o minicode .":     func(string) bool { return exists(filepath.Join(clone, "minicode")) },
		"minicode -p \"list files\"": func(out string) bool { return strings.Contains(out, "README.md") },
		"minicode -p \"list files\" --output-format json": func(out string) bool {
			var res struct{ Type string }
			return json.Unmarshal([]byte(out), &res) == nil && res.Type == "result"
		},
		"echo \"read README.md\" | minicode -p --output-format stream-json": func(out string) bool {
			return strings.HasPrefix(out, `{"type":"system","subtype":"init"`) && strings.Contains(out, `"type":"result"`)
		},
		"minicode mcp add files":  func(string) bool { return fileHolds(filepath.Join(home, ".minicode", "mcp.json"), `"files"`) },
		"minicode mcp add remote": func(string) bool { return fileHolds(filepath.Join(clone, ".mcp.json"), `"remote"`) },
		"minicode mcp list": func(out string) bool {
			return strings.Contains(out, "files\tstdio") && strings.Contains(out, "remote\thttp")
		},
		"minicode trust ": func(out string) bool { return strings.Contains(out, "trusted") },
	}
	blocks, _ := readmeBlocks(t, "sh")
	ran := 0
	for _, block := range blocks {
		for _, line := range block {
			command, _, _ := strings.Cut(line, "  #")
			command = strings.ReplaceAll(strings.TrimSpace(command), "go run .", "minicode")
			if command == "" || slices.ContainsFunc(slices.Collect(maps.Keys(readmeOffline)), func(p string) bool { return strings.HasPrefix(command, p) }) {
				continue
			}
			if strings.Contains(command, " ID ") {
				command = strings.ReplaceAll(command, " ID ", " "+newestSession(t, home)+" ")
			}
			command = strings.ReplaceAll(command, " UUID ", " "+newSessionID()+" ")
			cmd := exec.Command("bash", "-c", command)
			cmd.Dir, cmd.Env, cmd.Stdin = clone, env, strings.NewReader("")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("README line %q (run as %q): %v\n%s%s", line, command, err, out, stderr.String())
			}
			for prefix, holds := range promises {
				if strings.HasPrefix(command, prefix) && !holds(string(out)) {
					t.Errorf("README line %q: what it promises does not hold; it printed:\n%s", line, cutBytes(string(out), 2000, "..."))
				}
			}
			ran++
		}
	}
	if ran < 20 {
		t.Errorf("ran %d README commands, want the walk-through (at least 20)", ran)
	}
}

// copyRepository copies the repository's files below dir to clone, as a fresh clone holds them (.git aside).
func copyRepository(t *testing.T, dir, clone string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		switch {
		case err != nil:
			return err
		case d.Name() == ".git" && d.IsDir():
			return fs.SkipDir
		case d.Name() == ".git": // a worktree's link to its repository
			return nil
		case d.IsDir():
			return os.MkdirAll(filepath.Join(clone, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err == nil {
			err = os.WriteFile(filepath.Join(clone, rel), data, 0o644)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// newestSession is the id of the newest session saved under home, for the README's ID.
func newestSession(t *testing.T, home string) string {
	paths, _ := filepath.Glob(filepath.Join(home, ".minicode", "projects", "*", "*.jsonl"))
	if len(paths) == 0 {
		out, _ := exec.Command("find", home).Output()
		t.Fatalf("the walk-through has saved no session to resume: %s", out)
	}
	slices.SortFunc(paths, func(a, b string) int {
		ia, _ := os.Stat(a)
		ib, _ := os.Stat(b)
		return ib.ModTime().Compare(ia.ModTime())
	})
	return strings.TrimSuffix(filepath.Base(paths[0]), ".jsonl")
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// fileHolds reports whether the file at path holds s.
func fileHolds(path, s string) bool {
	data, _ := os.ReadFile(path)
	return strings.Contains(string(data), s)
}

// TestResumeHintFollowsGoRun: started by `go run .` (a binary in go's build folder), minicode's
// hints say `go run . --resume`, which works there; otherwise they name the installed command.
func TestResumeHintFollowsGoRun(t *testing.T) {
	t.Parallel()
	// A hard link, not a copy: writing a copy races other tests' forks, which may still hold it
	// open for writing when it runs (text file busy). Both are under the system's temporary folder.
	built := filepath.Join(t.TempDir(), "go-build1234", "b001", "exe", "minicode")
	if err := errors.Join(os.MkdirAll(filepath.Dir(built), 0o755), os.Link(minicodeBinary(t), built)); err != nil {
		t.Fatal(err)
	}
	for exe, want := range map[string]string{built: "To resume: go run . --resume ", minicodeBinary(t): "To resume: minicode --resume "} {
		cmd := exec.Command(exe, "--provider", "mock", "--workspace", t.TempDir())
		cmd.Env, cmd.Stdin = []string{"HOME=" + t.TempDir()}, strings.NewReader("list files\n")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: %v, output %q lacks %q", exe, err, out, want)
		}
	}
}
