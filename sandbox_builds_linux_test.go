package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxBuilds runs go test, npm test, a pip install and pytest of a small
// project in the sandbox, as root and as uid 65534, with a fresh HOME: the caches
// the tools need are made, and the builds pass. Go reads a copy of the
// tests' own build cache through the sandbox's overlay, as it would the
// user's, rather than compile the standard library anew in each run.
func TestSandboxBuilds(t *testing.T) {
	t.Parallel()
	projects := []struct {
		name, command, needs string // needs: the shell check that the tool is there
		files                map[string]string
	}{
		{"go", "go test ./...", "command -v go", map[string]string{"go.mod": "module example.com/p\n\ngo 1.21\n", "p.go": "package p\n\nfunc Add(a, b int) int { return a + b }\n",
			"p_test.go": "package p\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n"}},
		{"npm", "npm test", "command -v npm", map[string]string{"package.json": `{"name": "p", "version": "1.0.0", "scripts": {"test": "node test.js"}}`,
			"test.js": "const assert = require('assert'); assert.strictEqual(2 + 3, 5); console.log('npm tests passed');\n"}},
		{"pip", "python3 -m pip install -q --no-index --no-build-isolation --target out ./pkg && test -w \"$(python3 -m pip cache dir)\"", "python3 -m pip --version && python3 -c 'import setuptools'",
			map[string]string{"pkg/setup.py": "from setuptools import setup\nsetup(name=\"p\", version=\"1.0\", py_modules=[\"p\"])\n", "pkg/p.py": "X = 1\n"}},
		{"pytest", "python3 -m pytest -q", "python3 -c 'import pytest'", map[string]string{"test_p.py": "def test_add():\n    assert 2 + 3 == 5\n"}},
	}
	for _, p := range projects {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			check := exec.Command("bash", "-c", p.needs)
			if check.Env = []string{"PATH=" + escapePath}; check.Run() != nil {
				t.Skipf("%s fails: not installed (pytest: apt-get install python3-pytest)", p.needs)
			}
			forEachUser(t, func(t *testing.T, r *escapeRun) {
				if p.name == "go" {
					r.env = append(r.env, "GOCACHE="+warmGoCache(t, filepath.Join(filepath.Dir(r.ws), "gocache"), r.user.uid))
				}
				sub := filepath.Join(r.ws, p.name)
				writeTree(t, sub, p.files)
				r.chown(t)
				out := strings.Join(r.minicode(t, map[string]any{"timeout_ms": 600000}, "cd "+p.name+" && "+p.command), "\n") // a fresh cache, a busy machine
				if !strings.Contains(out, "Exit code: 0") {
					t.Errorf("%s failed in the sandbox: %s", p.command, out)
				}
			})
		})
	}
}

// warmGoCache makes dir a copy of the Go build cache the tests run with:
// folders of the user's, whose files are hard links to the cache's, which
// every user may read; it returns dir. Where that fails (another file
// system), dir is empty: a cold cache, which is slower.
func warmGoCache(t *testing.T, dir string, uid int) string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err == nil {
		err = exec.Command("cp", "-al", strings.TrimSpace(string(out)), dir).Run()
	}
	if err != nil {
		t.Logf("a cold Go cache: copying the tests' own: %v", err)
		os.RemoveAll(dir)
		os.Mkdir(dir, 0o755)
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			err = os.Lchown(path, uid, uid)
		}
		return err
	})
	return dir
}
