package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rewindTurnScript is a turn that edits with edit_file, makes a file and changes a mode with
// commands, and deletes a file with rm.
const rewindTurnScript = `[
	{"tool_calls": [{"name": "edit_file", "input": {"path": "a.txt", "old_string": "two", "new_string": "TWO"}}]},
	{"tool_calls": [{"name": "run_command", "input": {"command": "echo made > made.txt && mkdir -p out && echo x > out/y && chmod 644 run.sh"}}]},
	{"tool_calls": [{"name": "run_command", "input": {"command": "rm sub/b.txt"}}]},
	{"text": "done"}
]`

func TestRewindRestoresWhatFileToolsAndCommandsChanged(t *testing.T) {
	t.Parallel()
	for _, repo := range []bool{true, false} {
		t.Run(map[bool]string{true: "in a git repository", false: "in a plain folder"}[repo], func(t *testing.T) {
			t.Parallel()
			ws := checkpointWorkspace(t)
			if !repo {
				os.RemoveAll(filepath.Join(ws, ".git"))
			}
			before, userGit := treeState(t, ws), ""
			if repo {
				userGit = gitState(t, ws)
			}
			r := runMinicode(t, nil, "change things\n/rewind 1\nf\ny\n", "--provider", "mock", "--mock-script", writeScript(t, rewindTurnScript),
				"--workspace", ws, "--dangerously-skip-permissions")
			for _, want := range []string{"`a.txt` changed (+1 -1)", "`made.txt` removed (made since)", "`out/y` removed", "`sub/b.txt` brought back", "`run.sh` changed", "Restored 5 files. /rewind 2 undoes this."} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the output lacks %q:\n%s\nstderr: %s", want, r.stdout, r.stderr)
				}
			}
			if strings.Contains(r.stdout, "(+0 -0)") { // run.sh's mode changed, no line of it
				t.Errorf("a change of no lines is counted as one:\n%s", r.stdout)
			}
			if after := treeState(t, ws); after != before {
				t.Errorf("after /rewind the workspace is\n%s\nwant\n%s", after, before)
			}
			if repo && gitState(t, ws) != userGit {
				t.Errorf("the user's .git changed: %s, was %s", gitState(t, ws), userGit)
			}
		})
	}
}

// TestRewindRemovesTheFoldersATurnMade rewinds a turn that made a file in a new folder beside
// empty ones, and a folder inside an empty one that was there before: the new folders go, but
// not the one that was there, nor a new one that holds a file git ignores.
func TestRewindRemovesTheFoldersATurnMade(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"a.txt": "one\n", ".gitignore": "*.log\n"})
	if err := os.Mkdir(filepath.Join(ws, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	before := treeState(t, ws)
	script := writeScript(t, `[{"tool_calls": [{"name": "run_command", "input": {"command": "echo two > a.txt && mkdir -p out/empty/deeper keep/inner held && echo x > out/made.txt && touch held/run.log"}}]}, {"text": "done"}]`)
	r := runMinicode(t, nil, "change things\n/rewind 1\nf\ny\n", "--provider", "mock", "--mock-script", script, "--workspace", ws, "--dangerously-skip-permissions")
	if !strings.Contains(r.stdout, "Restored 2 files") {
		t.Fatalf("/rewind said:\n%s\nstderr: %s", r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "held", "run.log")); err != nil {
		t.Errorf("a new folder that holds an ignored file was removed: %v", err)
	}
	os.RemoveAll(filepath.Join(ws, "held"))
	if after := treeState(t, ws); after != before {
		t.Errorf("after /rewind the workspace is\n%s\nwant\n%s", after, before)
	}
}

// TestRewindOfFoldersOnly rewinds a turn that made only empty folders: they go, the message says the
// folders were restored (not that the files were already as they were), and undoing the rewind makes
// them again.
func TestRewindOfFoldersOnly(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"a.txt": "one\n"})
	before := treeState(t, ws)
	script := writeScript(t, `[{"tool_calls": [{"name": "run_command", "input": {"command": "mkdir -p out/empty/deeper"}}]}, {"text": "done"}]`)
	env := []string{"HOME=" + t.TempDir(), "MINICODE_HOME=" + t.TempDir()}
	args := []string{"--provider", "mock", "--mock-script", script, "--workspace", ws, "--dangerously-skip-permissions"}
	r := runMinicode(t, env, "make folders\n/rewind 1\nf\n", args...)
	if !strings.Contains(r.stdout, "Restored the empty folders as they were at #1") {
		t.Fatalf("/rewind said:\n%s\nstderr: %s", r.stdout, r.stderr)
	}
	if after := treeState(t, ws); after != before {
		t.Errorf("after /rewind the workspace is\n%s\nwant\n%s", after, before)
	}
	r = runMinicode(t, env, "/rewind 2\nf\n", append(args, "--continue")...)
	if info, err := os.Stat(filepath.Join(ws, "out", "empty", "deeper")); err != nil || !info.IsDir() {
		t.Errorf("undoing the rewind did not make the folders again: %v\n%s\nstderr: %s", err, r.stdout, r.stderr)
	}
}

func TestRewindAfterKillAndResume(t *testing.T) {
	t.Parallel()
	ws, home, id := workspaceWith(t, map[string]string{"a.txt": "one\n"}), t.TempDir(), newSessionID()
	before := treeState(t, ws)
	script := writeScript(t, `[{"tool_calls": [{"name": "run_command", "input": {"command": "echo made > made.txt && echo more >> a.txt && exec sleep 60"}}]}]`)
	cmd := exec.Command(minicodeBinary(t), "--provider", "mock", "--mock-script", script, "--workspace", ws, "--session-id", id, "--dangerously-skip-permissions")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MINICODE_HOME=" + home}
	cmd.Stdin = strings.NewReader("change things\n")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if data, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(data) == "one\nmore\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn's command did not run")
		}
	}
	cmd.Process.Signal(syscall.SIGKILL) // mid-turn: the command still sleeps
	cmd.Wait()
	r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "/rewind\n/rewind 1\nf\ny\n", "--provider", "mock", "--workspace", ws, "--resume", id)
	if !strings.Contains(r.stdout, "turn unfinished · change things") || !strings.Contains(r.stdout, "Restored 2 files") {
		t.Errorf("the resumed session's /rewind said:\n%s\nstderr: %s", r.stdout, r.stderr)
	}
	if after := treeState(t, ws); after != before {
		t.Errorf("after /rewind the workspace is\n%s\nwant\n%s", after, before)
	}
}

func TestRewindOnlyTheConversation(t *testing.T) {
	t.Parallel()
	ws, env := workspaceWith(t, map[string]string{"a.txt": "one\n"}), []string{"MINICODE_HOME=" + t.TempDir()}
	script := writeScript(t, `[{"text": "first answer"}, {"tool_calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "two\n"}}]}, {"text": "second answer"}, {"text": "third answer"}]`)
	r := runMinicode(t, env, "first\nsecond\n/rewind 2\nc\nthird\n", "--provider", "mock", "--mock-script", script,
		"--workspace", ws, "--dangerously-skip-permissions")
	if !strings.Contains(r.stdout, "the conversation is back to before #2. /rewind 3 undoes this.") {
		t.Fatalf("/rewind said:\n%s\nstderr: %s", r.stdout, r.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(data) != "two\n" {
		t.Errorf("a.txt = %q; rewinding the conversation alone must leave the files", data)
	}
	r = runMinicode(t, env, "/rewind 1\nn\n", "--provider", "mock", "--workspace", ws, "--continue")
	if !strings.Contains(r.stdout, "(4 messages)") || !strings.Contains(r.stdout, "Nothing was changed.") {
		t.Errorf("want the conversation of first and third alone, and a cancelled rewind:\n%s", r.stdout)
	}
}

func TestRewindNamesFilesChangedOutsideMinicode(t *testing.T) {
	t.Parallel()
	ws, home := workspaceWith(t, map[string]string{"a.txt": "one\n", "notes.txt": "mine\n"}), t.TempDir()
	script := writeScript(t, `[{"tool_calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "two\n"}}]}, {"text": "done"}]`)
	env := []string{"MINICODE_HOME=" + home}
	runMinicode(t, env, "change a\n", "--provider", "mock", "--mock-script", script, "--workspace", ws, "--dangerously-skip-permissions")
	writeFile(t, filepath.Join(ws, "notes.txt"), "edited in an editor\n")
	r := runMinicode(t, env, "/rewind 1\nf\nn\n", "--provider", "mock", "--workspace", ws, "--continue")
	if !strings.Contains(r.stdout, "changed outside minicode since the checkpoint, and overwritten too: notes.txt") || !strings.Contains(r.stdout, "Nothing was changed.") {
		t.Errorf("the question does not name notes.txt:\n%s", r.stdout)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(data) != "edited in an editor\n" {
		t.Errorf("notes.txt = %q after a cancelled rewind", data)
	}
}

func TestRewindFaults(t *testing.T) {
	t.Parallel()
	ws, home := workspaceWith(t, map[string]string{"a.txt": "one\n"}), t.TempDir()
	writeFile(t, filepath.Join(home, "checkpoints"), "not a folder") // the store cannot be written
	script := writeScript(t, `[{"tool_calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "two\n"}}]}, {"text": "done"}, {"text": "again"}]`)
	r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "change a\nonce more\n/rewind 1\nf\n", "--provider", "mock", "--mock-script", script,
		"--workspace", ws, "--dangerously-skip-permissions")
	if n := strings.Count(r.stderr, "checkpoints are off for this session"); n != 1 || !strings.Contains(r.stdout, "again") {
		t.Errorf("want one warning and the turns going on; stderr %q, stdout:\n%s", r.stderr, r.stdout)
	}
	if !strings.Contains(r.stdout, "no files kept") || !strings.Contains(r.stdout, "choice [c/n]") {
		t.Errorf("/rewind without a store offers the conversation alone:\n%s", r.stdout)
	}

	// A damaged store is reported, and the session goes on; a store that is gone says so.
	for _, damage := range []string{"objects", ""} {
		ws, home = workspaceWith(t, map[string]string{"a.txt": "one\n"}), t.TempDir()
		env := []string{"MINICODE_HOME=" + home}
		runMinicode(t, env, "change a\n", "--provider", "mock", "--mock-script", script, "--workspace", ws, "--dangerously-skip-permissions")
		stores, _ := filepath.Glob(filepath.Join(home, "checkpoints", "*"))
		for _, s := range stores {
			os.RemoveAll(filepath.Join(s, damage))
		}
		r = runMinicode(t, env, "/rewind 1\nf\nread a.txt\n", "--provider", "mock", "--workspace", ws, "--continue")
		want := map[string]string{"objects": "error: the files cannot be restored while checkpoints are off", "": "error: the files of checkpoint #1 are gone from the store: git diff-tree"}[damage]
		if len(stores) != 1 || !strings.Contains(r.stdout, want) || !strings.Contains(r.stdout, "Result of read_file") {
			t.Errorf("a rewind with the store's %q removed said:\n%s\nstderr: %s", damage, r.stdout, r.stderr)
		}
	}
}

func TestSDKRewindFiles(t *testing.T) {
	t.Parallel()
	script := writeScript(t, `[{"tool_calls": [{"name": "run_command", "input": {"command": "echo two > a.txt && echo new > b.txt"}}]}, {"text": "done"}]`)
	p := startSDK(t, "", "--provider", "mock", "--mock-script", script, "--dangerously-skip-permissions")
	writeFile(t, filepath.Join(p.ws, "a.txt"), "one\n")
	const id = "6a1d7c3e-58a4-4c5e-9d0e-5d2f0f3b7a11"
	p.send(map[string]any{"type": "user", "uuid": id, "message": map[string]any{"role": "user", "content": "change them"}})
	p.await("the result", isType("result", ""), nil)
	for _, tc := range []struct {
		request map[string]any
		want    string
	}{
		{map[string]any{"subtype": "rewind_files", "user_message_id": id, "dry_run": true}, `"canRewind":true,"deletions":2,"filesChanged":["` + p.ws + `/a.txt","` + p.ws + `/b.txt"],"insertions":1`},
		{map[string]any{"subtype": "rewind_files", "user_message_id": id}, `"canRewind":true`},
		{map[string]any{"subtype": "rewind_files", "user_message_id": "nope"}, `"canRewind":false,"error":"no checkpoint was taken before a user message \"nope\""`},
	} {
		p.control("r", tc.request)
		m := p.await("the rewind_files answer", isType("control_response", "success"), nil)
		raw, _ := json.Marshal(m["response"].(map[string]any)["response"])
		if got := string(raw); !strings.Contains(got, tc.want) {
			t.Errorf("%v answered %s, want %s", tc.request, got, tc.want)
		}
		if tc.request["dry_run"] == true {
			if data, _ := os.ReadFile(filepath.Join(p.ws, "b.txt")); string(data) != "new\n" {
				t.Errorf("a dry run changed b.txt: %q", data)
			}
		}
	}
	if after := treeState(t, p.ws); after != `a.txt -rw-r--r-- "one\n"` {
		t.Errorf("after rewind_files the workspace is %s", after)
	}
}

func TestCheckpointsOfASessionInMemoryGoWithIt(t *testing.T) {
	t.Parallel()
	ws, home := workspaceWith(t, map[string]string{"a.txt": "one\n"}), t.TempDir()
	script := writeScript(t, `[{"tool_calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "two\n"}}]}, {"text": "done"}]`)
	r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "change a\n/rewind\n", "--provider", "mock", "--mock-script", script,
		"--workspace", ws, "--dangerously-skip-permissions", "--no-session-persistence")
	if !strings.Contains(r.stdout, "files changed: 1 · change a") {
		t.Errorf("/rewind in a session kept in memory lists:\n%s", r.stdout)
	}
	if stores, _ := filepath.Glob(filepath.Join(home, "checkpoints", "*")); len(stores) > 0 {
		t.Errorf("the checkpoints outlive the session: %q", stores)
	}
}

// TestRewindInPrintMode lists the checkpoints with -p "/rewind", and refuses -p "/rewind N",
// whose questions nobody can answer there, saying where it can run; the files stay.
func TestRewindInPrintMode(t *testing.T) {
	t.Parallel()
	ws, home, id := workspaceWith(t, map[string]string{"a.txt": "one\n"}), []string{"MINICODE_HOME=" + t.TempDir()}, newSessionID()
	script := writeScript(t, `[{"tool_calls": [{"name": "write_file", "input": {"path": "a.txt", "content": "two\n"}}]}, {"text": "done"}]`)
	if r := runMinicode(t, home, "", "-p", "change a.txt", "--provider", "mock", "--mock-script", script, "--workspace", ws, "--session-id", id, "--dangerously-skip-permissions"); r.code != 0 {
		t.Fatalf("the turn: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runMinicode(t, home, "", "-p", "/rewind", "--provider", "mock", "--workspace", ws, "--resume", id); r.code != 0 || !strings.Contains(r.stdout, "files changed: 1 · change a.txt") {
		t.Errorf("-p /rewind: exit %d, stdout %q, stderr %q; want the list", r.code, r.stdout, r.stderr)
	}
	r := runMinicode(t, home, "", "-p", "/rewind 1", "--provider", "mock", "--workspace", ws, "--resume", id)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "-p has nobody to answer: run it in minicode --resume "+id) || strings.Contains(r.stderr, "panic") {
		t.Errorf("-p /rewind 1: exit %d, stdout %q, stderr %q; want exit 1 and where to run it", r.code, r.stdout, r.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(data) != "two\n" {
		t.Errorf("a.txt = %q after -p /rewind 1", data)
	}
}
