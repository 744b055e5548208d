package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunCommand(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"hello.txt": "hi there\n"})
	procs := &ProcessManager{}
	defer procs.Close()
	tool := runCommandTool(procs)
	tests := []struct {
		name    string
		input   string
		wantErr bool
		want    []string
	}{
		{"output and exit code", `{"command":"cat hello.txt; echo oops >&2"}`, false, []string{"Exit code: 0\n", "stdout:\nhi there\n", "stderr:\noops\n"}},
		{"runs in the workspace", `{"command":"pwd"}`, false, []string{"stdout:\n" + env.Workspace + "\n"}},
		{"failure keeps stdout", `{"command":"echo partial; echo broken >&2; exit 3"}`, true, []string{"Exit code: 3\n", "stdout:\npartial\n", "stderr:\nbroken\n"}},
		{"empty streams", `{"command":"true"}`, false, []string{"stdout:\n(empty)\n", "stderr:\n(empty)\n"}},
		{"non-utf-8 output", `{"command":"printf 'a\\xffb'"}`, false, []string{"a\uFFFDb"}},
		{"no input", `{"command":"cat"}`, false, []string{"Exit code: 0"}},
		{"killed by a signal", `{"command":"kill -9 $$"}`, true, []string{"Exit code: none, killed by signal killed"}},
		{"huge output is cut", `{"command":"yes 0123456789 | head -c 5000000"}`, false, []string{"bytes of output omitted"}},
		{"endless output times out", `{"command":"yes","timeout_ms":300}`, true, []string{"timed out after 300ms", "bytes of output omitted"}},
		{"negative timeout", `{"command":"true","timeout_ms":-5}`, true, []string{`"timeout_ms" must be at least 1`}},
		{"timeout over the max", `{"command":"true","timeout_ms":700000}`, true, []string{`"timeout_ms" must be at most 600000`}},
		{"missing command", `{}`, true, []string{`"command" is required`}},
		{"command wrong type", `{"command":["ls"]}`, true, []string{`"command" must be a string`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := callTool(t, env, tool, tc.input)
			if out.IsError != tc.wantErr {
				t.Errorf("IsError = %v, want %v; text %q", out.IsError, tc.wantErr, cutBytes(out.Text, 500, "..."))
			}
			mustContain(t, out.Text, tc.want...)
			if len(out.Text) > 3*commandStreamBudget {
				t.Errorf("result is %d characters, want at most %d", len(out.Text), 3*commandStreamBudget)
			}
		})
	}
}

func TestRunCommandPermissionRequest(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	procs := &ProcessManager{}
	defer procs.Close()
	perms := &recordingPerms{}
	env.Perms = perms
	callTool(t, env, runCommandTool(procs), `{"command":"echo hi"}`)
	if len(perms.reqs) != 1 || perms.reqs[0].Access != AccessExecute || perms.reqs[0].Command != "echo hi" {
		t.Errorf("requests = %+v, want one execute of %q", perms.reqs, "echo hi")
	}
	env.Perms = denyAll{}
	out := callTool(t, env, runCommandTool(procs), `{"command":"touch made"}`)
	if _, err := os.Stat(filepath.Join(env.Workspace, "made")); err == nil || !out.IsError {
		t.Errorf("denied command ran: %q", out.Text)
	}
}

// readPid reads the process id a test command wrote to a file ($$ or $!),
// waiting for the file, and returns the id the test sees. A sandboxed
// command sees the ids of its own PID namespace, so a live process is
// found by the last id of its NSpid line and its working folder (the
// deepest such process: the sandbox's supervisor is another's first).
func readPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		data, err := os.ReadFile(path)
		inner, perr := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || perr != nil {
			continue
		}
		found, depth := inner, 0
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
			_, nspid, _ := strings.Cut(string(status), "NSpid:")
			nspid, _, _ = strings.Cut(nspid, "\n")
			ids := strings.Fields(nspid)
			cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
			if pid, err := strconv.Atoi(e.Name()); err == nil && len(ids) > depth && ids[len(ids)-1] == strconv.Itoa(inner) && cwd == filepath.Dir(path) {
				found, depth = pid, len(ids)
			}
		}
		return found // a process already gone is no sandboxed one: the tests read those while they run
	}
	t.Fatalf("no process id in %s", path)
	return 0
}

// processGone reports whether pid has ended (a zombie counts as ended),
// waiting up to ten seconds for it.
func processGone(pid int) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return true
		}
		if fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(fields) > 0 && fields[0] == "Z" {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func TestRunCommandTimeoutKillsGrandchildren(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	start := time.Now()
	out, err := runForeground(context.Background(), nil, CommandSpec{Dir: env.Workspace, Command: "bash -c 'sleep 300 & echo $! > grandchild.pid; wait' & sleep 300"}, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("timed-out command took %s to return", took)
	}
	mustContain(t, out.Text, "timed out after 3s")
	pid := readPid(t, filepath.Join(env.Workspace, "grandchild.pid"))
	if !processGone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("grandchild %d still runs after the timeout", pid)
	}
}

func TestRunCommandCancel(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(env.Workspace, "ready")); err == nil {
				return
			}
		}
	}()
	out, err := runForeground(ctx, nil, CommandSpec{Dir: env.Workspace, Command: "echo started; echo $$ > ready; sleep 300"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out.Text, "Command cancelled", "stdout:\nstarted\n")
}

func TestRunCommandLeftoverProcesses(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	tests := []struct {
		name, command, pidFile string
	}{
		{"child left in the group", "sleep 300 & echo $! > left.pid; echo done", "left.pid"},
		{"child that left the group holds the pipe", "setsid bash -c 'echo $$ > escaped.pid; exec sleep 300' & sleep 0.2; echo done", "escaped.pid"},
	}
	for _, tc := range tests {
		start := time.Now()
		out, err := runForeground(context.Background(), nil, CommandSpec{Dir: env.Workspace, Command: tc.command}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("%s: took %s to return", tc.name, took)
		}
		mustContain(t, out.Text, "Exit code: 0", "stdout:\ndone\n")
		pid := readPid(t, filepath.Join(env.Workspace, tc.pidFile))
		if tc.pidFile == "left.pid" && !processGone(pid) {
			t.Errorf("%s: process %d still runs", tc.name, pid)
		}
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// waitForOutput polls command_output until its text holds want.
func waitForOutput(t *testing.T, env *ToolEnv, procs *ProcessManager, id, want string) string {
	t.Helper()
	seen := ""
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		out := callTool(t, env, commandOutputTool(procs), fmt.Sprintf(`{"id":%q}`, id))
		if out.IsError {
			t.Fatalf("command_output: %q", out.Text)
		}
		seen += out.Text
		if strings.Contains(seen, want) {
			return seen
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("output of %s never held %q; saw %q", id, want, seen)
	return ""
}

func TestBackgroundCommands(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	procs := &ProcessManager{}
	defer procs.Close()
	run := runCommandTool(procs)

	out := callTool(t, env, run, `{"command":"echo first; echo err >&2; sleep 300 & echo $! > bg.pid; wait","run_in_background":true}`)
	mustContain(t, out.Text, "Started background process bg1")
	seen := waitForOutput(t, env, procs, "bg1", "err")
	mustContain(t, seen, "bg1: running", "first\n")
	again := callTool(t, env, commandOutputTool(procs), `{"id":"bg1"}`)
	if !strings.Contains(again.Text, "(no new output)") {
		t.Errorf("second read = %q, want no new output", again.Text)
	}
	pid := readPid(t, filepath.Join(env.Workspace, "bg.pid"))
	killed := callTool(t, env, commandKillTool(procs), `{"id":"bg1"}`)
	mustContain(t, killed.Text, "bg1: killed")
	if !processGone(pid) {
		t.Errorf("child %d of the killed command still runs", pid)
	}

	callTool(t, env, run, `{"command":"echo bye; exit 4","run_in_background":true}`)
	waitForOutput(t, env, procs, "bg2", "exited 4")

	for _, input := range []string{`{"id":"bg9"}`, `{}`} {
		if out := callTool(t, env, commandOutputTool(procs), input); !out.IsError {
			t.Errorf("command_output %s = %q, want an error", input, out.Text)
		}
	}
	if out := callTool(t, env, commandKillTool(procs), `{"id":"nope"}`); !out.IsError || !strings.Contains(out.Text, "known ids: bg1, bg2") {
		t.Errorf("command_kill of an unknown id = %q", out.Text)
	}
}

// TestBackgroundKillAfterExit kills a background command whose shell has
// exited while a process that left its group still holds the output pipe:
// it was not killed, and its exit code is reported.
func TestBackgroundKillAfterExit(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	procs := &ProcessManager{}
	defer procs.Close()
	callTool(t, env, runCommandTool(procs), `{"command":"setsid bash -c 'echo $$ > escaped.pid; exec sleep 300' & while [ ! -s escaped.pid ]; do sleep 0.05; done; exit 4","run_in_background":true}`)
	pid := readPid(t, filepath.Join(env.Workspace, "escaped.pid"))
	defer syscall.Kill(pid, syscall.SIGKILL)
	p, err := procs.get("bg1")
	if err != nil {
		t.Fatal(err)
	}
	<-p.done
	out := callTool(t, env, commandKillTool(procs), `{"id":"bg1"}`)
	mustContain(t, out.Text, "bg1: exited 4")
}

func TestProcessManagerCloseStopsAll(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	_, procs := newBuiltins("", nil)
	run := runCommandTool(procs)
	for i := range 2 {
		callTool(t, env, run, fmt.Sprintf(`{"command":"sleep 300 & echo $! > p%d.pid; wait","run_in_background":true}`, i))
	}
	pids := []int{readPid(t, filepath.Join(env.Workspace, "p0.pid")), readPid(t, filepath.Join(env.Workspace, "p1.pid"))}
	procs.Close()
	for _, pid := range pids {
		if !processGone(pid) {
			t.Errorf("process %d survived Close", pid)
		}
	}
	if out := callTool(t, env, run, `{"command":"true","run_in_background":true}`); !out.IsError {
		t.Errorf("start after Close = %q, want an error", out.Text)
	}
}

func TestUnreadLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"kept until read", []string{"ab", "cd"}, "abcd"},
		{"oldest dropped", []string{"0123456789", strings.Repeat("x", maxUnreadOutput)}, "[... 10 older bytes of output dropped ...]\n" + strings.Repeat("x", maxUnreadOutput)},
		{"invalid utf-8", []string{"a\xffb"}, "a\uFFFDb"},
	}
	for _, tc := range tests {
		l := &BoundedOutput{tailMax: maxUnreadOutput}
		for _, w := range tc.writes {
			l.Write([]byte(w))
		}
		if got := l.take(); got != tc.want {
			t.Errorf("%s: take = %q, want %q", tc.name, cutBytes(got, 100, "..."), cutBytes(tc.want, 100, "..."))
		}
		if again := l.take(); again != "" {
			t.Errorf("%s: second take = %q, want nothing", tc.name, cutBytes(again, 100, "..."))
		}
	}
}

// TestBackgroundOutputKeepsLettersWhole reads a background command's output
// while a letter of it is half printed: the read that sees the first half
// leaves it for the next, so no letter is broken into U+FFFD.
func TestBackgroundOutputKeepsLettersWhole(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	procs := &ProcessManager{}
	defer procs.Close()
	// € is \342\202\254; the command prints its first two bytes with the a, and the rest once the file go exists.
	callTool(t, env, runCommandTool(procs), `{"command":"printf 'a\\342\\202'; until [ -e go ]; do sleep 0.01; done; printf '\\254b\\n'","run_in_background":true}`)
	seen, running := "", true
	read := func() {
		text := callTool(t, env, commandOutputTool(procs), `{"id":"bg1"}`).Text
		status, out, _ := strings.Cut(strings.TrimSuffix(text, "\n"), "\n")
		seen, running = seen+strings.TrimPrefix(out, "(no new output)"), strings.HasPrefix(status, "bg1: running")
	}
	for deadline := time.Now().Add(15 * time.Second); seen == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		read() // the a and the first half come in one write, so seeing the a means the half is there too
	}
	if err := os.WriteFile(filepath.Join(env.Workspace, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); running && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		read()
	}
	if seen != "a€b\n" {
		t.Errorf("the reads joined are %q, want %q", seen, "a€b\n")
	}
}
