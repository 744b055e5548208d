package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxedCommandPlantsNoSubfolderProjectFiles runs, in a trusted
// workspace, a sandboxed command that writes a subfolder's .mcp.json and
// .minicode/settings.json. The subfolder is trusted as the workspace is, so
// opening it would start that server and run that hook outside the
// sandbox: both are moved out when the command ends, and opening the
// subfolder runs nothing of them.
func TestSandboxedCommandPlantsNoSubfolderProjectFiles(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		if err := saveTrust(r.minicodeHome, r.ws, true); err != nil {
			t.Fatal(err)
		}
		hook := `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch ` + filepath.Join(r.ws, "pwned") + `"}]}]}}`
		os.Mkdir(filepath.Join(r.ws, "sub"), 0o755)
		r.chown(t)
		out := r.minicode(t, nil, "m=mini; p=mcp; mkdir -p sub/.${m}code && echo '"+touchServer("planted", r.ws)+"' > sub/.$p.json && echo '"+hook+"' > sub/.${m}code/settings.json")
		mustContain(t, out[0], "The sandbox removed", "sub/.mcp.json", "sub/.minicode")
		for _, planted := range []string{"sub/.mcp.json", "sub/.minicode"} {
			if _, err := os.Lstat(filepath.Join(r.ws, planted)); err == nil {
				t.Errorf("%s stayed in the workspace", planted)
			}
		}
		r.ws = filepath.Join(r.ws, "sub")
		r.minicode(t, nil)
		if _, err := os.Stat(filepath.Join(filepath.Dir(r.ws), "pwned")); err == nil {
			t.Error("the hook a sandboxed command planted ran when the subfolder was opened")
		}
	})
}

// TestProjectConfigLinkedToADeviceIsNotRead opens a repository whose
// settings, MCP, command, agent or output style file is a link to
// /proc/self/fd/0: reading it would eat the tasks piped in (a link to
// /dev/zero would never end). minicode leaves it out, as not a regular
// file, and answers the task.
func TestProjectConfigLinkedToADeviceIsNotRead(t *testing.T) {
	t.Parallel()
	for _, file := range []string{".claude/settings.json", ".minicode/permissions.json", ".mcp.json", ".claude/commands/x.md", ".claude/agents/x.md", ".claude/output-styles/x.md"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			ws := workspaceWith(t, map[string]string{".claude/settings.local.json": `{"outputStyle": "x"}`})
			os.MkdirAll(filepath.Dir(filepath.Join(ws, file)), 0o755)
			if err := os.Symlink("/proc/self/fd/0", filepath.Join(ws, file)); err != nil {
				t.Fatal(err)
			}
			r := runMinicode(t, nil, "/help\n", "--provider", "mock", "--workspace", ws)
			if !strings.Contains(r.stdout, "Commands:") {
				t.Errorf("exit %d, stdout %q, stderr %q; want /help answered", r.code, r.stdout, r.stderr)
			}
		})
	}
}
