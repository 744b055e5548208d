package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWalksPassOverWhatDenyRulesCover runs the binary with the deny rules Claude Code's
// documentation recommends: listing, globbing and searching the workspace work, pass over
// what the rules cover (saying how many entries, naming none), and show nothing of it;
// a call whose own path a rule covers is refused.
func TestWalksPassOverWhatDenyRulesCover(t *testing.T) {
	t.Parallel()
	r := newEscapeRun(t, escapeUsers(t)[0])
	writeTree(t, r.ws, map[string]string{".env": "TOKEN=hunter2\n", "sub/.env": "TOKEN=deep\n",
		"secrets/key.txt": "APIKEY=s3cret\n", "secrets/more/x.txt": "APIKEY=2\n", "app.go": "// TODO: ship\n"})
	r.args = []string{"--disallowedTools", "Read(./.env)", "--disallowedTools", "Read(./secrets/**)"}
	results := r.minicodeCalls(t,
		map[string]any{"name": "list_files", "input": map[string]any{"recursive": true}},
		map[string]any{"name": "glob_files", "input": map[string]any{"pattern": "**/*"}},
		map[string]any{"name": "grep_files", "input": map[string]any{"pattern": "TOKEN|APIKEY|TODO"}},
		map[string]any{"name": "list_files", "input": map[string]any{"path": "secrets"}},
		map[string]any{"name": "read_file", "input": map[string]any{"path": ".env"}},
		map[string]any{"name": "read_file", "input": map[string]any{"path": "sub/.env"}},
		map[string]any{"name": "grep_files", "input": map[string]any{"pattern": "=", "path": "secrets/key.txt"}},
		map[string]any{"name": "list_files", "input": map[string]any{"path": "secrets/more"}},
		map[string]any{"name": "run_command", "input": map[string]any{"command": "cat .env secrets/key.txt"}},
		map[string]any{"name": "run_command", "input": map[string]any{"command": "grep -r TOKEN ."}},
		map[string]any{"name": "run_command", "input": map[string]any{"command": "cat s*/k* ./*env sub/.e*"}},
		map[string]any{"name": "run_command", "input": map[string]any{"command": "cd secrets && cat key.txt"}},
		map[string]any{"name": "run_command", "input": map[string]any{"command": "f=.en; cat ${f}v; for x in s e c r e t s; do :; done; cat $(printf secrets/key.txt)"}},
	)
	if len(results) != 13 {
		t.Fatalf("got %d results, want 13: %q", len(results), results)
	}
	for i, want := range []string{"app.go", "app.go", "app.go:1:// TODO: ship", "secrets/: empty folder"} {
		got := results[i]
		if !strings.Contains(got, want) || !strings.Contains(got, "not shown, as permission rules deny or ask for reading: ") {
			t.Errorf("walk %d = %q, want %q and how many entries it passed over", i, got, want)
		}
		for _, hidden := range []string{"hunter2", "deep", "s3cret", "APIKEY", ".env", "key.txt", "more"} {
			if strings.Contains(got, hidden) {
				t.Errorf("walk %d = %q, which shows %q", i, got, hidden)
			}
		}
	}
	if !strings.Contains(results[3], "2 entries") {
		t.Errorf("list secrets = %q, want 2 entries passed over", results[3])
	}
	for _, got := range results[8:] {
		if strings.Contains(got, "hunter2") || strings.Contains(got, "deep") || strings.Contains(got, "s3cret") {
			t.Errorf("a command read a denied file: %q", got)
		}
	}
	for _, got := range results[4:8] {
		if !strings.Contains(got, "denied by the rule Read(./") || strings.Contains(got, "hunter2") || strings.Contains(got, "s3cret") {
			t.Errorf("a call naming a denied path = %q, want it refused", got)
		}
	}
}

// TestGrepSaysHowManyFilesItCouldNotRead searches, as a user who cannot read one of the files, a
// workspace: the result counts the file it could not read instead of passing over it in silence.
func TestGrepSaysHowManyFilesItCouldNotRead(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		t.Skip("needs root, to run minicode as another user")
	}
	r := newEscapeRun(t, sandboxUser{"uid 65534", 65534})
	writeTree(t, r.ws, map[string]string{"open.txt": "needle\n", "locked.txt": "needle\n"})
	r.chown(t)
	if err := os.Chmod(filepath.Join(r.ws, "locked.txt"), 0); err != nil {
		t.Fatal(err)
	}
	got := r.minicodeCalls(t, map[string]any{"name": "grep_files", "input": map[string]any{"pattern": "needle"}})
	if len(got) != 1 || !strings.Contains(got[0], "open.txt:1:needle") || !strings.Contains(got[0], "[1 file could not be read]") {
		t.Errorf("grep = %q, want the readable match and the count of the unreadable file", got)
	}
	got = r.minicodeCalls(t, map[string]any{"name": "grep_files", "input": map[string]any{"pattern": "nothing"}})
	if len(got) != 1 || !strings.HasPrefix(got[0], "No matches for \"nothing\" in .\n") || !strings.Contains(got[0], "[1 file could not be read]") {
		t.Errorf("grep with no match = %q, want the workspace named once, and the count", got)
	}
}
