package main

import (
	"strings"
	"testing"
)

// TestSandboxedSearchPassesOverDeniedFiles denies reading .env anywhere and the folder secrets, and
// searches the workspace and a folder with grep -r in -p: the commands run, as the sandbox hides the
// denied files from them, and print what the other files hold, not the secrets.
func TestSandboxedSearchPassesOverDeniedFiles(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		writeTree(t, r.minicodeHome, map[string]string{"settings.json": `{"permissions": {"deny": ["Read(./**/.env)", "Read(./secrets/**)"]}}`})
		writeTree(t, r.ws, map[string]string{".env": "KEY=SECRET-A\n", "sub/.env": "KEY=SECRET-B\n", "secrets/key": "KEY=SECRET-C\n", "sub/notes.txt": "KEY=PUBLIC\n"})
		r.chown(t)
		out := strings.Join(r.minicode(t, nil, "grep -r KEY . 2>&1; echo GREP-RAN", "grep -rc KEY sub 2>&1; echo SUB-RAN"), "\n")
		mustContain(t, out, "GREP-RAN", "SUB-RAN", "./sub/notes.txt:KEY=PUBLIC", "sub/notes.txt:1")
		if strings.Contains(out, "SECRET") || strings.Contains(out, "denied by the rule") {
			t.Errorf("a search read a denied file or was refused: %s", out)
		}
	})
}
