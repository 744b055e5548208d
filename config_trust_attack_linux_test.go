package main

import (
	"os"
	"path/filepath"
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
