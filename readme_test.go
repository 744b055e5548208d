package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
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
