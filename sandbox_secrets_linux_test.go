package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxSecretsOutOfReach gives minicode provider keys and other
// credentials in its environment, other sessions' transcripts and stored
// results, Claude Code's credentials and transcripts, an ssh key, npm and gh
// tokens, a shell history and the system's password hashes; a
// script dumps its environment and every process's it can see, and reads
// those files: none leaks. A variable sandbox.passEnv names is passed, the
// skills and this session's own stored results stay readable.
func TestSandboxSecretsOutOfReach(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		r.env = []string{"ANTHROPIC_API_KEY=sk-ant-SECRET1", "OPENAI_API_KEY=sk-SECRET2", "GITHUB_TOKEN=ghp_SECRET3", "DB_PASSWORD=SECRET4",
			"ANTHROPIC_AUTH_TOKEN=SECRET5", "DATABASE_URL=postgres://app:SECRET6@db/app", "MYSQL_PWD=SECRET7", "GITLAB_PAT=SECRET8", "PASSED_TOKEN=PASSED-OK"}
		writeTree(t, r.minicodeHome, map[string]string{"settings.json": `{"sandbox": {"passEnv": ["PASSED_TOKEN"]}}`,
			"projects/-elsewhere/0a1b2c3d-0000-4000-8000-000000000000.jsonl": "OTHER-TRANSCRIPT\n",
			"tool-results/0a1b2c3d-0000-4000-8000-000000000000/r.txt":        "OTHER-RESULT\n", "skills/m/SKILL.md": "MINICODE-SKILL-OK\n"})
		writeTree(t, r.home, map[string]string{".claude/.credentials.json": "CLAUDE-CREDENTIAL\n", ".claude/projects/-x/y.jsonl": "CLAUDE-TRANSCRIPT\n",
			".claude/settings.json": `{"model": "CLAUDE-SETTINGS-SECRET"}`, ".claude.json": "CLAUDE-STATE\n", ".ssh/id_ed25519": "SSH-KEY\n",
			".claude/skills/c/SKILL.md": "CLAUDE-SKILL-OK\n", ".npmrc": "//registry.npmjs.org/:_authToken=NPM-TOKEN\n", ".bash_history": "HISTORY-SECRET\n",
			".config/gh/hosts.yml": "GH-TOKEN\n"})
		own := "5e55e55e-0000-4000-8000-000000000000"
		r.args = []string{"--session-id", own}
		writeFile(t, filepath.Join(r.minicodeHome, "tool-results", own, "r.txt"), "OWN-RESULT\n") // as if stored earlier
		r.chown(t)
		results := r.minicode(t, nil, `env; for f in /proc/[0-9]*/environ; do tr '\0' '\n' < $f; done 2>/dev/null
cat "$MINICODE_HOME"/projects/*/*.jsonl "$MINICODE_HOME"/tool-results/*/* "$MINICODE_HOME"/settings.json ~/.claude/.credentials.json \
  ~/.claude/projects/*/*.jsonl ~/.claude/settings.json ~/.claude.json ~/.ssh/id_ed25519 ~/.claude/skills/c/SKILL.md "$MINICODE_HOME"/skills/m/SKILL.md ~/.npmrc ~/.bash_history ~/.config/gh/hosts.yml /etc/shadow
grep -r . "$MINICODE_HOME" ~/.claude ~/.ssh 2>/dev/null | grep -v SKILL`)
		out := results[len(results)-1]
		for _, secret := range []string{"SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6", "SECRET7", "SECRET8", "NPM-TOKEN", "HISTORY-SECRET", "GH-TOKEN", "daemon:", "OTHER-TRANSCRIPT", "OTHER-RESULT",
			"CLAUDE-CREDENTIAL", "CLAUDE-TRANSCRIPT", "CLAUDE-SETTINGS-SECRET", "CLAUDE-STATE", "SSH-KEY", "passEnv"} {
			if strings.Contains(out, secret) {
				t.Errorf("the sandbox read %s: %s", secret, out)
			}
		}
		mustContain(t, out, "PASSED_TOKEN=PASSED-OK", "MINICODE-SKILL-OK", "CLAUDE-SKILL-OK", "OWN-RESULT")
	})
}

// TestSandboxDeniesMinicodeHomeMadeLater starts minicode without its
// folder: the folder and the session's transcript, made after the sandbox
// started, are still out of reach.
func TestSandboxDeniesMinicodeHomeMadeLater(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		if err := errors.Join(os.RemoveAll(r.minicodeHome), os.Chown(filepath.Dir(r.minicodeHome), r.user.uid, r.user.uid)); err != nil {
			t.Fatal(err)
		}
		out := strings.Join(r.minicode(t, nil, `ls -R "$MINICODE_HOME" && echo LISTED; cat "$MINICODE_HOME"/projects/*/*.jsonl && echo READ`), "\n")
		if strings.Contains(out, "LISTED") || strings.Contains(out, "READ") {
			t.Errorf("a command reached the minicode folder made after the sandbox: %s", out)
		}
		if files, _ := filepath.Glob(filepath.Join(r.minicodeHome, "projects", "*", "*.jsonl")); len(files) == 0 {
			t.Errorf("no transcript was written, so the test proves nothing")
		}
	})
}

// TestSandboxCachesStayPrivate poisons the shared build caches of Go, npm
// and pip from a sandboxed command: the shared files keep their content,
// nothing new appears in them, and a sandboxed command of another
// workspace sees the originals; the poisoning workspace sees its own.
func TestSandboxCachesStayPrivate(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		cached := map[string]string{"go/pkg/mod/example.com/dep@v1.0.0/dep.go": "package dep // ORIGINAL\n",
			".cache/go-build/aa/aa-d": "ORIGINAL\n", ".npm/_cacache/index-v5/x": "ORIGINAL\n", ".cache/pip/http/x": "ORIGINAL\n"}
		writeTree(t, r.home, cached)
		os.Chmod(filepath.Join(r.home, "go/pkg/mod/example.com/dep@v1.0.0/dep.go"), 0o444)
		r.chown(t)
		poison := "cd ~ && for f in go/pkg/mod/example.com/dep@v1.0.0/dep.go .cache/go-build/aa/aa-d .npm/_cacache/index-v5/x .cache/pip/http/x; " +
			"do chmod u+w $f $(dirname $f); echo POISON > $f; echo POISON > $(dirname $f)/new; done; cat go/pkg/mod/example.com/dep@v1.0.0/dep.go"
		if out := strings.Join(r.minicode(t, nil, poison), "\n"); !strings.Contains(out, "POISON") {
			t.Errorf("the workspace does not see its own writes: %s", out)
		}
		for rel, want := range cached {
			if got := readFileString(t, filepath.Join(r.home, rel)); got != want {
				t.Errorf("the shared ~/%s now holds %q", rel, got)
			}
			if _, err := os.Stat(filepath.Join(r.home, filepath.Dir(rel), "new")); err == nil {
				t.Errorf("a file appeared beside the shared ~/%s", rel)
			}
		}
		other := *r
		other.ws = filepath.Join(filepath.Dir(r.ws), "other")
		os.Mkdir(other.ws, 0o755)
		other.chown(t)
		out := strings.Join(other.minicode(t, nil, "cat ~/go/pkg/mod/example.com/dep@v1.0.0/dep.go ~/.cache/go-build/aa/aa-d"), "\n")
		if strings.Contains(out, "POISON") || !strings.Contains(out, "ORIGINAL") {
			t.Errorf("another workspace's sandbox sees: %s", out)
		}
	})
}

// TestStoredResultsOfOtherSessionsAsk reads stored tool results with
// read_file: this session's are read without asking, another session's
// ask (and in -p are denied).
func TestStoredResultsOfOtherSessionsAsk(t *testing.T) {
	t.Parallel()
	r := newEscapeRun(t, sandboxUser{"uid", os.Getuid()})
	own, other := "5e55e55e-0000-4000-8000-000000000000", "0a1b2c3d-0000-4000-8000-000000000000"
	r.args = []string{"--session-id", own, "--permission-mode", "default"}
	writeTree(t, r.minicodeHome, map[string]string{"tool-results/" + own + "/r.txt": "OWN-RESULT\n", "tool-results/" + other + "/r.txt": "OTHER-RESULT\n"})
	results := r.minicodeCalls(t, map[string]any{"name": "read_file", "input": map[string]any{"path": filepath.Join(r.minicodeHome, "tool-results", own, "r.txt")}},
		map[string]any{"name": "read_file", "input": map[string]any{"path": filepath.Join(r.minicodeHome, "tool-results", other, "r.txt")}})
	if len(results) != 2 || !strings.Contains(results[0], "OWN-RESULT") || strings.Contains(results[1], "OTHER-RESULT") || !strings.Contains(results[1], "permission") {
		t.Errorf("results = %q, want this session's read and the other's denied", results)
	}
}

// TestSandboxHidesDeniedFilesMadeOrReplacedLater denies reading .env
// anywhere and the folder secrets: after the first command, the user's
// tools replace the hidden .env (a save that renames a new file over it)
// and the folder, and make another .env in a folder. The next command,
// which names none, reads none.
func TestSandboxHidesDeniedFilesMadeOrReplacedLater(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		writeTree(t, r.minicodeHome, map[string]string{"settings.json": `{"permissions": {"deny": ["Read(./**/.env)", "Read(./secrets/**)"]}}`})
		writeTree(t, r.ws, map[string]string{".env": "SECRET-A\n", "sub/keep.txt": "", "secrets/key": "SECRET-D\n",
			"read.py": "import glob\nfor p in glob.glob('**/.e*', recursive=True, include_hidden=True):\n    try: print(p, open(p).read())\n    except OSError as e: print(p, e)\n",
			"write.py": "import os\nopen('new', 'w').write('SECRET-B')\nos.rename('new', '.e' + 'nv')\nopen('sub/.e' + 'nv', 'w').write('SECRET-C')\n" +
				"os.rename('secre' + 'ts', 'old')\nos.mkdir('secre' + 'ts')\nos.rename('old/key', 'secre' + 'ts/key')\nprint('WRITTEN')\n"})
		r.chown(t)
		r.args = []string{"--allowedTools", "run_command(sandbox:false)"}
		out := strings.Join(r.minicodeCalls(t, map[string]any{"name": "run_command", "input": map[string]any{"command": "python3 read.py"}},
			map[string]any{"name": "run_command", "input": map[string]any{"command": "python3 write.py", "sandbox": false, "reason": "the user's tools"}},
			map[string]any{"name": "run_command", "input": map[string]any{"command": "python3 read.py && cat */key; echo READ"}}), "\n")
		mustContain(t, out, "WRITTEN", "READ")
		for _, secret := range []string{"SECRET-A", "SECRET-B", "SECRET-C", "SECRET-D"} {
			if strings.Contains(out, secret) {
				t.Errorf("a command read %s: %s", secret, out)
			}
		}
	})
}
