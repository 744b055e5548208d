package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditsOfWhatHooksRunAsk edits, in acceptEdits mode, a workspace script that a hook runs outside
// the sandbox: the edit asks (headless: it is refused, saying why) and the script stays as it was,
// while an edit of another file applies.
func TestEditsOfWhatHooksRunAsk(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"hooks/after.sh": "true\n", "notes.txt": "old\n"})
	script := `[
	{"tool_calls": [{"name": "edit_file", "input": {"path": "hooks/after.sh", "old_string": "true", "new_string": "touch PWNED"}}]},
	{"tool_calls": [{"name": "edit_file", "input": {"path": "notes.txt", "old_string": "old", "new_string": "new"}}]},
	{"text": "done"}
]`
	settings := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bash \"$CLAUDE_PROJECT_DIR\"/hooks/after.sh"}]}]}}`
	r := runMinicode(t, nil, "", "-p", "go", "--provider", "mock", "--mock-script", writeScript(t, script), "--workspace", ws,
		"--permission-mode", "acceptEdits", "--settings", settings, "--output-format", "stream-json")
	if !strings.Contains(r.stdout+r.stderr, "is run outside the sandbox by a hook") {
		t.Errorf("the edit of the hook's script did not ask:\n%s\nstderr: %s", r.stdout, r.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "hooks/after.sh")); string(data) != "true\n" {
		t.Errorf("hooks/after.sh = %q, want it as it was", data)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(data) != "new\n" {
		t.Errorf("notes.txt = %q, want the edit applied", data)
	}
}
