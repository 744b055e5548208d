package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// recordingAuthorizer remembers the requests it sees and answers with err.
type recordingAuthorizer struct {
	err  error
	seen []PermissionRequest
}

// Authorize records req and returns the configured answer.
func (a *recordingAuthorizer) Authorize(ctx context.Context, req PermissionRequest) error {
	a.seen = append(a.seen, req)
	return a.err
}

// TestInspectProject checks what /init finds in projects of several kinds.
func TestInspectProject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		want    []string
		notWant []string
	}{
		{
			name: "go with makefile",
			files: map[string]string{
				"go.mod":                   "module example.com/tool\n\ngo 1.22\n",
				"main.go":                  "package main\n",
				"cmd/x/x.go":               "package main\n",
				"scripts/gen.sh":           "#!/bin/sh\n",
				"vendor/v/v.go":            "package v\n",
				".hidden/h.go":             "package h\n",
				"Makefile":                 ".PHONY: build test\nVERSION := 1\nbuild: gen\n\tgo build ./...\ntest:\n\tgo test ./...\nmain.o: main.c\n\tcc -c main.c\n",
				".github/workflows/ci.yml": "on: push\n",
			},
			want:    []string{"Languages: Go (2 files), Shell (1 file)", "Go module: example.com/tool", "Build: `go build ./...`", "Test: `go test ./...`", "Make targets: build, test (run as `make <target>`)", "Top-level folders: cmd/, scripts/", ".github/workflows", "Run the tests after each change"},
			notWant: []string{"VERSION", "main.o", "vendor/", "Go (4"},
		},
		{
			name: "node with pnpm",
			files: map[string]string{
				"package.json":            `{"scripts": {"build": "tsc", "test": "vitest", "dev": "vite", "lint": "eslint ."}}`,
				"pnpm-lock.yaml":          "",
				"src/app.ts":              "",
				"src/main.tsx":            "",
				"node_modules/x/index.js": "",
			},
			want:    []string{"TypeScript (2 files)", "Build: `pnpm build`", "Test: `pnpm test`", "Lint: `pnpm lint`", "Other scripts (`pnpm <name>`): dev"},
			notWant: []string{"JavaScript", "node_modules"},
		},
		{
			name:    "npm default test script",
			files:   map[string]string{"package.json": `{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}`},
			notWant: []string{"Test:"},
		},
		{
			name:  "rust",
			files: map[string]string{"Cargo.toml": "[package]\n", "src/main.rs": ""},
			want:  []string{"Rust (1 file)", "Test: `cargo test`"},
		},
		{
			name:  "python with uv",
			files: map[string]string{"pyproject.toml": "", "uv.lock": "", "app.py": ""},
			want:  []string{"Python (1 file)", "Test: `uv run pytest`"},
		},
		{
			name:    "empty",
			files:   map[string]string{},
			want:    []string{"No source files or build files were found", "Follow the style"},
			notWant: []string{"## Commands", "Run the tests"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			got := starterAgents(context.Background(), dir)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("AGENTS.md = %q\nwant it to contain %q", got, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("AGENTS.md = %q\nwant it not to contain %q", got, w)
				}
			}
		})
	}
}

// TestCountLanguagesUnreadableFolder checks that a folder that cannot be
// read is passed over and the folders after it are still counted.
func TestCountLanguagesUnreadableFolder(t *testing.T) {
	t.Parallel()
	if rerunUnprivileged(t) {
		return
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a-data/x.go": "", "b.go": "", "src/c.go": ""})
	locked := filepath.Join(dir, "a-data")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	if _, err := os.ReadDir(locked); err == nil {
		t.Skip("this user can read a folder with mode 0 (root), so there is no unreadable folder to pass over")
	}
	if got, want := countLanguages(context.Background(), dir), []string{"Go (2 files)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("countLanguages = %q, want %q", got, want)
	}
}

// TestInitAgentsFile writes AGENTS.md through the permission check: it is
// written when allowed, not when denied, and an existing file is never
// touched (nor is permission asked for it).
func TestInitAgentsFile(t *testing.T) {
	t.Parallel()
	denied := errors.New("permission denied: not now")
	tests := []struct {
		name      string
		files     map[string]string
		authErr   error
		wantErr   string
		wantAsked bool
		wantText  string
	}{
		{name: "go project allowed", files: map[string]string{"go.mod": "module m\n", "a.go": ""}, wantAsked: true, wantText: "Test: `go test ./...`"},
		{name: "empty folder allowed", files: map[string]string{}, wantAsked: true, wantText: "No source files"},
		{name: "go project denied", files: map[string]string{"go.mod": "module m\n"}, authErr: denied, wantAsked: true, wantErr: "permission denied: not now"},
		{name: "empty folder denied", files: map[string]string{}, authErr: denied, wantAsked: true, wantErr: "permission denied: not now"},
		{name: "existing file", files: map[string]string{"AGENTS.md": "mine"}, wantErr: "already exists; /init never overwrites it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, tt.files)
			before, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
			auth := &recordingAuthorizer{err: tt.authErr}
			content, err := initAgentsFile(context.Background(), &ToolEnv{Workspace: dir, Perms: auth}, dir)
			if (len(auth.seen) > 0) != tt.wantAsked {
				t.Errorf("asked %d times, want asked = %v", len(auth.seen), tt.wantAsked)
			}
			after, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				if content != "" || string(after) != string(before) {
					t.Errorf("after the error: content %q, file %q (was %q)", content, after, before)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(after) != content || !strings.Contains(content, tt.wantText) {
				t.Errorf("wrote %q, returned %q; want %q in it", after, content, tt.wantText)
			}
			req := auth.seen[0]
			if req.Access != AccessWrite || len(req.Paths) != 1 || req.Paths[0] != filepath.Join(dir, "AGENTS.md") {
				t.Errorf("request = %+v, want a write of AGENTS.md", req)
			}
			if !strings.HasPrefix(req.Diff, "--- a/AGENTS.md\n+++ b/AGENTS.md\n") || !strings.Contains(req.Diff, "\n+# AGENTS.md\n") {
				t.Errorf("request diff = %q", req.Diff)
			}
		})
	}
}

// TestInitAgentsFileWithPermissions runs /init through the real permission
// check: AGENTS.md is protected, so with nobody to ask every mode refuses
// it, and an approval writes it.
func TestInitAgentsFileWithPermissions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		mode    PermissionMode
		asker   Asker
		wantErr bool
	}{{ModePlan, nil, true}, {ModeDefault, nil, true}, {ModeAcceptEdits, nil, true}, {ModeBypass, nil, true},
		{ModeDefault, &scriptedAsker{answers: []Answer{{Choice: ChoiceAllowOnce}}}, false}} {
		dir := realTempDir(t)
		perms, err := newPermissions(PermissionConfig{Mode: tt.mode, Workspace: dir, Asker: tt.asker})
		if err != nil {
			t.Fatal(err)
		}
		_, err = initAgentsFile(context.Background(), &ToolEnv{Workspace: dir, Perms: perms}, dir)
		if (err != nil) != tt.wantErr {
			t.Errorf("mode %s: error = %v, want error %v", tt.mode, err, tt.wantErr)
		}
		if _, statErr := os.Stat(filepath.Join(dir, "AGENTS.md")); (statErr == nil) == tt.wantErr {
			t.Errorf("mode %s: AGENTS.md exists = %v", tt.mode, statErr == nil)
		}
	}
}

// WalkFilter hides nothing.
func (*recordingAuthorizer) WalkFilter(string) func(string) bool { return nil }
