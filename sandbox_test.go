package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// sandboxTree is a workspace, a fake HOME with a key in ~/.ssh and a Go
// build cache, and a folder outside both.
type sandboxTree struct {
	ws, home, outside, minicodeHome string
}

// newSandboxTree builds a sandboxTree; it skips the test where the kernel
// has no Landlock.
func newSandboxTree(t *testing.T) sandboxTree {
	t.Helper()
	if abi, reason := landlockABI(); abi == 0 {
		t.Skip(reason)
	}
	var tr sandboxTree
	for _, p := range []*string{&tr.ws, &tr.home, &tr.outside, &tr.minicodeHome} {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		*p = dir
	}
	writeTree(t, tr.home, map[string]string{".ssh/id_rsa": "PRIVATE KEY\n", ".profile": "PROFILE\n", ".cache/go-build/README": "cache\n"})
	writeTree(t, tr.ws, map[string]string{"secrets/token": "TOKEN\n", "src/main.go": "package main\n"})
	return tr
}

// sandbox builds the sandbox of the tree with settings.
func (tr sandboxTree) sandbox(t *testing.T, settings SandboxSettings) *Sandbox {
	t.Helper()
	getenv := func(name string) string {
		if name == "HOME" {
			return tr.home
		}
		return ""
	}
	sb, err := newSandbox(SandboxConfig{Workspace: tr.ws, UserHome: tr.home, Home: tr.minicodeHome, Settings: settings, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	return sb
}

func TestSandboxedCommands(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	extra := filepath.Join(tr.outside, "extra")
	if err := os.Mkdir(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	writeTree(t, tr.outside, map[string]string{"private/key": "OUTSIDE SECRET\n", "public/doc": "DOC\n"})
	sb := tr.sandbox(t, SandboxSettings{AllowWrite: []string{extra}, DenyRead: []string{filepath.Join(tr.outside, "private")}})
	tests := []struct {
		name, command string
		ok            bool
		want          string
	}{
		{"write in the workspace", "echo hi > made && cat made", true, "hi"},
		{"write outside", fmt.Sprintf("echo hi > %s/x", tr.outside), false, "Permission denied"},
		{"write in /tmp itself", fmt.Sprintf("echo hi > /tmp/minicode-sandbox-test-%d", time.Now().UnixNano()), false, "Permission denied"},
		{"write in the private TMPDIR", `echo hi > "$TMPDIR/x" && cat "$TMPDIR/x"`, true, "hi"},
		{"write into a cache", fmt.Sprintf("echo hi > %s/.cache/go-build/new && echo done", tr.home), true, "done"},
		{"write into an allowWrite folder", fmt.Sprintf("echo hi > %s/y && echo done", extra), true, "done"},
		{"read ~/.ssh", fmt.Sprintf("cat %s/.ssh/id_rsa", tr.home), false, "Permission denied"},
		{"read the rest of home", fmt.Sprintf("cat %s/.profile", tr.home), true, "PROFILE"},
		{"read a denyRead path", "cat " + tr.outside + "/private/key", false, "Permission denied"},
		{"read beside a denyRead path", "cat " + tr.outside + "/public/doc", true, "DOC"},
		{"read the workspace", "cat src/main.go secrets/token", true, "package main"},
		{"run programs", "go version >/dev/null && ls / >/dev/null && echo ran", true, "ran"},
		{"no file minicode's parent left open", "ls /proc/self/fd | tr '\\n' ' '", true, "stdout:\n0 1 2 3 \n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: tc.command}, time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if out.IsError == tc.ok {
				t.Errorf("%q: IsError = %v, want %v; output %q", tc.command, out.IsError, !tc.ok, out.Text)
			}
			mustContain(t, out.Text, tc.want)
			if hasNote := strings.Contains(out.Text, `"sandbox": false`); hasNote == tc.ok {
				t.Errorf("%q: note about leaving the sandbox = %v, want %v; output %q", tc.command, hasNote, !tc.ok, out.Text)
			}
			if strings.Contains(out.Text, "PRIVATE KEY") || strings.Contains(out.Text, "OUTSIDE SECRET") {
				t.Errorf("%q leaked a secret: %q", tc.command, out.Text)
			}
		})
	}
}

// TestSandboxDenyReadInWorkspace denies a folder inside the workspace:
// it cannot be read or written, and the rest of the workspace can still be
// written, what commands make there later read and run.
func TestSandboxDenyReadInWorkspace(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	sb := tr.sandbox(t, SandboxSettings{DenyRead: []string{filepath.Join(tr.ws, "secrets")}})
	for _, tc := range []struct {
		command string
		ok      bool
		want    string
	}{
		{"cat secrets/token", false, "secrets/token: "},
		{"echo x > secrets/more", false, "secrets/more: "},
		{"cat src/main.go && echo new > new.txt && echo more >> src/main.go && echo done", true, "done"},
		{"cat new.txt && mkdir out && printf '#!/bin/sh\\necho ran\\n' > out/run && chmod +x out/run && out/run", true, "ran"},
	} {
		out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: tc.command}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if out.IsError == tc.ok || strings.Contains(out.Text, "TOKEN") {
			t.Errorf("%q: IsError = %v, want %v; output %q", tc.command, out.IsError, !tc.ok, out.Text)
		}
		mustContain(t, out.Text, tc.want)
	}
}

// TestSandboxMasksWhatADenyPatternMatches starts a sandbox with the pattern
// Read(./.env) gives (**/.env): a matching file, and the workspace file a
// matching link leads to, cannot be read by commands; a matching link that
// leads out of the workspace covers nothing there.
func TestSandboxMasksWhatADenyPatternMatches(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	writeTree(t, tr.ws, map[string]string{".env": "TOKEN=top\n", "real.txt": "TOKEN=linked\n"})
	writeTree(t, tr.outside, map[string]string{"marker": "OUTSIDE MARKER\n"})
	for link, to := range map[string]string{"sub/.env": filepath.Join(tr.ws, "real.txt"), "out/.env": tr.outside} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tr.ws, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(to, filepath.Join(tr.ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	sb, err := newSandbox(SandboxConfig{Workspace: tr.ws, UserHome: tr.home, Home: tr.minicodeHome, DenyMatching: []string{filepath.Join(tr.ws, "**", ".env")},
		Getenv: func(name string) string { return map[string]string{"HOME": tr.home}[name] }})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: "cat .env; cat real.txt; cat sub/.env; cat " + tr.outside + "/marker; echo done"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "TOKEN") || !strings.Contains(out.Text, "OUTSIDE MARKER") || !strings.Contains(out.Text, "done") {
		t.Errorf("commands under a deny pattern printed %q: want no TOKEN, and the folder a link leads to outside unchanged", out.Text)
	}
}

func TestSandboxNetwork(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "HELLO\n")
			c.Close()
		}
	}()
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && head -1 <&3", ln.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		name    string
		network bool
		ok      bool
		want    string
	}{{"blocked by default", false, false, "Permission denied"}, {"allowed by the setting", true, true, "HELLO"}} {
		if abi, _ := landlockABI(); abi < 4 { // the kernel's: the report is filled when the supervisor starts, at the first command
			t.Skipf("Landlock ABI %d cannot limit the network", abi)
		}
		sb := tr.sandbox(t, SandboxSettings{Network: tc.network})
		out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: connect}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if out.IsError == tc.ok {
			t.Errorf("%s: IsError = %v; output %q", tc.name, out.IsError, out.Text)
		}
		mustContain(t, out.Text, tc.want)
	}
}

// TestSandboxLeavesMinicodeFree runs sandboxed commands and then writes
// outside the workspace from many goroutines, directly and through
// unsandboxed commands: only the commands' own threads are confined.
func TestSandboxLeavesMinicodeFree(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	sb := tr.sandbox(t, SandboxSettings{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: fmt.Sprintf("echo x > %s/sandboxed%d", tr.outside, i)}, time.Minute)
			if err != nil || !out.IsError {
				t.Errorf("sandboxed write outside: err %v, output %q; want refused", err, out.Text)
			}
		})
	}
	wg.Wait()
	for i := range 4 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			if err := os.WriteFile(filepath.Join(tr.outside, fmt.Sprintf("direct%d", i)), []byte("x"), 0o644); err != nil {
				t.Errorf("minicode itself cannot write outside after sandboxed commands: %v", err)
			}
			out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: fmt.Sprintf("echo x > %s/plain%d", tr.outside, i), Unsandboxed: true}, time.Minute)
			if err != nil || out.IsError {
				t.Errorf("unsandboxed write outside: err %v, output %q", err, out.Text)
			}
		})
	}
	wg.Wait()
}

// TestSandboxedChildDiesWithMinicode kills minicode while a sandboxed
// command runs: the kernel kills the command too.
func TestSandboxedChildDiesWithMinicode(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	script := writeScript(t, `[{"tool_calls":[{"id":"t1","name":"run_command","input":{"command":"echo $$ > child.pid; exec sleep 300"}}]},{"text":"done"}]`)
	cmd := exec.Command(minicodeBinary(t), "-p", "go", "--provider", "mock", "--mock-script", script, "--workspace", tr.ws,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tr.home, "MINICODE_HOME=" + t.TempDir()}
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := readPid(t, filepath.Join(tr.ws, "child.pid"))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	cmd.Process.Kill()
	cmd.Wait()
	mustContain(t, out.String(), `"sandbox":"sandboxed`)
	if !processGone(pid) {
		t.Errorf("the sandboxed command %d outlived the killed minicode", pid)
	}
}

func TestSandboxTurnedOff(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	off := false
	sb := tr.sandbox(t, SandboxSettings{Enabled: &off})
	if sb.Sandboxed() {
		t.Fatal("sandbox still on with enabled false")
	}
	mustContain(t, sb.Status(), "no sandbox", sandboxDisabled, "permission check alone")
	out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: fmt.Sprintf("echo hi > %s/x && echo wrote", tr.outside)}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if out.IsError || !strings.Contains(out.Text, "wrote") {
		t.Errorf("without a sandbox the write failed: %q", out.Text)
	}
}

// TestUnsandboxedRunAfterApproval asks for a command outside the sandbox:
// the prompt shows the reason, and after approval the write outside works.
func TestUnsandboxedRunAfterApproval(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	sb := tr.sandbox(t, SandboxSettings{})
	procs := &ProcessManager{sandbox: sb}
	defer procs.Close()
	target := filepath.Join(tr.outside, "out")
	input := fmt.Sprintf(`{"command":"echo hi > %s","sandbox":false,"reason":"write the release notes"}`, target)
	for _, tc := range []struct {
		name   string
		mode   PermissionMode
		answer ChoiceID
		wrote  bool
	}{{"denied", ModeBypass, ChoiceDenyOnce, false}, {"approved", ModeBypass, ChoiceAllowOnce, true}} {
		asker := &scriptedAsker{answers: []Answer{{Choice: tc.answer}}}
		perms, err := newPermissions(PermissionConfig{Mode: tc.mode, Workspace: tr.ws, Asker: asker})
		if err != nil {
			t.Fatal(err)
		}
		env := &ToolEnv{Workspace: tr.ws, Perms: perms}
		out := callTool(t, env, runCommandTool(procs), input)
		if asker.asked() != 1 || !strings.Contains(asker.prompts[0].Reason, "write the release notes") {
			t.Errorf("%s: prompts %+v, want one showing the reason", tc.name, asker.prompts)
		}
		if _, err := os.Stat(target); (err == nil) != tc.wrote {
			t.Errorf("%s: file written = %v, want %v; output %q", tc.name, err == nil, tc.wrote, out.Text)
		}
	}
	perms, err := newPermissions(PermissionConfig{Mode: ModeBypass, Workspace: tr.ws})
	if err != nil {
		t.Fatal(err)
	}
	out := callTool(t, &ToolEnv{Workspace: tr.ws, Perms: perms}, runCommandTool(procs), input)
	mustContain(t, out.Text, "nobody can approve it", `--allowedTools "run_command(sandbox:false)"`)
}

// BenchmarkSandboxedCommand measures starting `bash -c true` in the
// sandbox against starting it plainly, in one run.
func BenchmarkSandboxedCommand(b *testing.B) {
	home, _ := os.UserHomeDir()
	sb, err := newSandbox(SandboxConfig{Workspace: b.TempDir(), UserHome: home, Home: b.TempDir(), Getenv: os.Getenv})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	if !sb.Sandboxed() {
		b.Skip(sb.reason)
	}
	for _, bc := range []struct {
		name        string
		unsandboxed bool
	}{{"plain", true}, {"sandboxed", false}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				p, err := sb.Start(context.Background(), CommandSpec{Dir: home, Command: "true", Stdout: io.Discard, Stderr: io.Discard, Unsandboxed: bc.unsandboxed})
				if err != nil {
					b.Fatal(err)
				}
				if p.Wait(time.Second); p.ExitStatus() != "0" {
					b.Fatalf("exit %s", p.ExitStatus())
				}
			}
		})
	}
}

// TestSandboxReported runs the real binary: the stream-json init event,
// the banner and /status say whether commands are sandboxed, and a
// sandboxed command run by the model cannot write outside.
func TestSandboxReported(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	off := t.TempDir()
	writeFile(t, filepath.Join(off, "settings.json"), `{"sandbox": {"enabled": false}}`)
	target := filepath.Join(tr.outside, "escaped")
	script := writeScript(t, fmt.Sprintf(`[{"tool_calls":[{"id":"t1","name":"run_command","input":{"command":"echo x > %s"}}]},{"text":"done"}]`, target))
	for _, tc := range []struct {
		name, home, want string
		wrote            bool
	}{{"sandboxed", t.TempDir(), "sandboxed", false}, {"turned off", off, "no sandbox (" + sandboxDisabled, true}} {
		r := runMinicode(t, []string{"MINICODE_HOME=" + tc.home}, "", "-p", "go", "--output-format", "stream-json", "--provider", "mock",
			"--mock-script", script, "--workspace", tr.ws, "--permission-mode", "bypassPermissions")
		first, _, _ := strings.Cut(r.stdout, "\n")
		mustContain(t, first, `"subtype":"init"`, `"sandbox":"`+tc.want)
		if _, err := os.Stat(target); (err == nil) != tc.wrote {
			t.Errorf("%s: wrote outside = %v, want %v; output %q", tc.name, err == nil, tc.wrote, r.stdout)
		}
		if !tc.wrote {
			mustContain(t, r.stdout, "Permission denied", `with \"sandbox\": false`)
		}
	}
	r := runMinicode(t, []string{"MINICODE_HOME=" + off}, "/status\n", "--provider", "mock", "--workspace", tr.ws)
	mustContain(t, r.stdout, "Warning: no sandbox ("+sandboxDisabled, "sandbox: no sandbox ("+sandboxDisabled)
}

// TestReadDenyRuleHoldsInTheSandbox denies Read(./secrets/**) and runs,
// in bypass mode, a command whose pattern the check cannot follow: the
// sandbox still refuses the file.
func TestReadDenyRuleHoldsInTheSandbox(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "settings.json"), `{"permissions": {"deny": ["Read(./secrets/**)"]}}`)
	script := writeScript(t, `[{"tool_calls":[{"id":"t1","name":"run_command","input":{"command":"cat se*/token"}}]},{"text":"done"}]`)
	r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "go", "--output-format", "stream-json", "--provider", "mock",
		"--mock-script", script, "--workspace", tr.ws, "--permission-mode", "bypassPermissions")
	if strings.Contains(r.stdout, "TOKEN") || !strings.Contains(r.stdout, "Permission denied") && !strings.Contains(r.stdout, "No such file") {
		t.Errorf("cat se*/token under a Read deny rule: %q", r.stdout)
	}
}

// TestSandboxWithoutNamespaces runs the sandbox as where no namespace can
// be made: Landlock and the seccomp filter still refuse writes outside,
// secrets, every socket but TCP (and TCP by Landlock), Unix sockets and
// device files; the guarantees that need namespaces are reported lost;
// Go's build cache is a private folder, the shared one read-only.
func TestSandboxWithoutNamespaces(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	sb, err := newSandbox(SandboxConfig{Workspace: tr.ws, UserHome: tr.home, Home: tr.minicodeHome, bare: true,
		Getenv: func(name string) string { return map[string]string{"HOME": tr.home}[name] }})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	mustContain(t, sb.Status(), "guarantees lost", "other processes out of reach", "without PID namespace",
		"protected paths that exist", "without mount namespace")
	if daemons := strings.Contains(sb.Status(), "no process outlives its command"); daemons == (os.Getuid() == 0) {
		t.Errorf("lost that no process outlives its command = %v as uid %d (root makes PID namespaces without a user one)", daemons, os.Getuid())
	}
	mustContain(t, sb.Describe(), "lost  network namespace: the system lets minicode make none", "held  seccomp filter", "held  Landlock",
		"held  no network of any kind", "Read-only without an overlay")
	attack := `import socket
for name, args in [("udp", (socket.AF_INET, socket.SOCK_DGRAM)), ("mptcp", (socket.AF_INET, socket.SOCK_STREAM, 262)),
        ("raw", (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)), ("unix", (socket.AF_UNIX, socket.SOCK_STREAM)),
        ("packet", (socket.AF_PACKET, socket.SOCK_RAW))]:
    try:
        socket.socket(*args)
        print("ESCAPED", name)
    except OSError as e:
        print("blocked", name, e)
try:
    socket.create_connection(("127.0.0.1", 9), timeout=3)
except OSError as e:
    print("blocked tcp", e)
`
	writeFile(t, filepath.Join(tr.ws, "attack.py"), attack)
	out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: fmt.Sprintf(
		"python3 attack.py; echo x > %s/x; cat %s/.ssh/id_rsa; mknod dev c 1 3; echo $GOCACHE; echo x > %s/.cache/go-build/poison", tr.outside, tr.home, tr.home)}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Text, "ESCAPED") || strings.Contains(out.Text, "PRIVATE KEY") {
		t.Errorf("escaped without namespaces: %s", out.Text)
	}
	mustContain(t, out.Text, "blocked udp", "blocked mptcp", "blocked raw", "blocked unix", "blocked tcp [Errno 13] Permission denied",
		tr.minicodeHome+"/sandbox/", "go-build/private")
	for _, path := range []string{filepath.Join(tr.outside, "x"), filepath.Join(tr.ws, "dev"), filepath.Join(tr.home, ".cache/go-build/poison")} {
		if _, err := os.Lstat(path); err == nil {
			t.Errorf("%s was made", path)
		}
	}
}

// TestSandboxCommandListsLayers runs minicode sandbox: each layer and
// each guarantee, held or lost; a bad argument is a usage error.
func TestSandboxCommandListsLayers(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	r := runMinicode(t, nil, "", "sandbox", tr.ws)
	mustContain(t, r.stdout, "The sandbox of commands in "+tr.ws, "Layers:", "held  Landlock (ABI", "held  seccomp filter",
		"Guarantees:", "no network of any kind")
	if r := runMinicode(t, nil, "", "sandbox", "a", "b"); r.code != exitUsage || !strings.Contains(r.stderr, "usage: minicode sandbox [DIR]") {
		t.Errorf("minicode sandbox a b: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestAutoAllowBashIfSandboxed decides commands with auto-allow on and off:
// on, a sandboxed command runs without asking, but one that destroys
// work, leaves the sandbox, names a protected path or meets an ask or
// deny rule does not.
func TestAutoAllowBashIfSandboxed(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	unsandboxed := runReq("make release")
	unsandboxed.Unsandboxed = "the release needs the network"
	for _, tc := range []struct {
		name string
		auto bool
		req  PermissionRequest
		want verdict
	}{
		{"a command, auto-allow off", false, runReq("go test ./..."), verdictAsk},
		{"a command", true, runReq("go test ./... && cat /etc/hosts"), verdictAllow},
		{"a pattern the check cannot follow", true, runReq("python3 -c 'print(1)' > out.txt"), verdictAllow},
		{"destroys work", true, runReq("rm -rf build"), verdictAsk},
		{"leaves the sandbox", true, unsandboxed, verdictAsk},
		{"names a protected path", true, runReq("echo x > .mcp.json"), verdictAsk},
		{"an ask rule", true, runReq("git push"), verdictAsk},
		{"a deny rule", true, runReq("curl example.com"), verdictDeny},
		{"not a command", true, editReq("main.go"), verdictAsk},
	} {
		p, err := newPermissions(PermissionConfig{Workspace: ws, Settings: []RuleSet{{Source: "settings.json", Ask: []string{"Bash(git push:*)"},
			Deny: []string{"Bash(curl:*)"}}}})
		if err != nil {
			t.Fatal(err)
		}
		p.SetAutoAllow(tc.auto)
		if d := p.decide(tc.req); d.Verdict != tc.want {
			t.Errorf("%s: %s, want %s (%s)", tc.name, verdictNames[d.Verdict], verdictNames[tc.want], d.Reason)
		}
	}
}

// TestSandboxModeCommand runs /sandbox in line mode: it shows the layers
// and the mode, /sandbox auto saves the setting in the workspace's local
// settings (and a later -p run obeys it from the user's settings), and a
// command then runs without asking.
func TestSandboxModeCommand(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	home := t.TempDir()
	r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "/sandbox\n/sandbox auto\n/sandbox bogus\n", "--provider", "mock", "--workspace", tr.ws)
	mustContain(t, r.stdout, "Layers:", "Mode: regular permissions", "Mode: auto-allow", `/sandbox takes auto or regular, not "bogus"`)
	if got := readFileString(t, filepath.Join(tr.ws, ".claude", "settings.local.json")); !strings.Contains(got, `"autoAllowBashIfSandboxed": true`) {
		t.Errorf("settings.local.json = %q", got)
	}
	writeFile(t, filepath.Join(home, "settings.json"), `{"sandbox": {"autoAllowBashIfSandboxed": true}}`)
	script := writeScript(t, `[{"tool_calls":[{"id":"t1","name":"run_command","input":{"command":"echo ran > ran.txt"}}]},
		{"tool_calls":[{"id":"t2","name":"run_command","input":{"command":"rm -rf src"}}]},{"text":"done"}]`)
	r = runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "go", "--provider", "mock", "--mock-script", script, "--workspace", tr.ws)
	if _, err := os.Stat(filepath.Join(tr.ws, "ran.txt")); err != nil {
		t.Errorf("the sandboxed command asked under auto-allow: %s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(tr.ws, "src")); err != nil {
		t.Errorf("rm -rf ran without asking under auto-allow: %s", r.stdout)
	}
}

// readFileString reads a file, failing the test when it cannot.
func readFileString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestAutoAllowDailyCommands judges a day's ordinary commands in the
// default mode: with sandbox.autoAllowBashIfSandboxed each runs without
// asking but one with $, which could hide a destructive command from the
// check; the counts are BENCHMARKS.md's.
func TestAutoAllowDailyCommands(t *testing.T) {
	t.Parallel()
	daily := []string{"go test ./...", "go build -o bin/app .", "go vet ./...", "gofmt -l .", "make", "make test", "npm test", "npm run build",
		"npx eslint src", "python3 -m pytest -q", "pip install -e .", "cargo test", "git status", "git diff", "git add -A", "git commit -m 'fix'",
		"git log --oneline -5", "git checkout -b fix", "git stash", "ls -la", "cat go.mod | head", "grep -rn TODO src", "find . -name '*.go' | wc -l",
		"sed -i 's/a/b/' main.go", "mkdir -p build && cp app build/", "python3 scripts/gen.py > gen.txt", "./run.sh", "echo $PATH", "mv old.go new.go", "rm build/app"}
	asked := map[bool]int{}
	for _, auto := range []bool{false, true} {
		p, err := newPermissions(PermissionConfig{Workspace: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		p.SetAutoAllow(auto)
		for _, c := range daily {
			if d := p.decide(runReq(c)); d.Verdict != verdictAllow {
				if asked[auto]++; auto && !strings.Contains(c, "$") {
					t.Errorf("%q asks with auto-allow: %s", c, d.Reason)
				}
			}
		}
	}
	t.Logf("of %d commands, %d ask without auto-allow, %d with it", len(daily), asked[false], asked[true])
}

// TestSandboxThatCannotStartSaysSo starts a sandbox where bash cannot be
// found: the first question about it says so in a notice, once, and the
// status names the reason.
func TestSandboxThatCannotStartSaysSo(t *testing.T) {
	tr := newSandboxTree(t)
	t.Setenv("PATH", t.TempDir())
	sb := tr.sandbox(t, SandboxSettings{})
	var notices []string
	sb.Notice = func(msg string) { notices = append(notices, msg) }
	for range 2 {
		if sb.Sandboxed() {
			t.Fatal("sandboxed without bash")
		}
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "Commands run without the sandbox: finding bash") {
		t.Errorf("notices = %q, want one that the sandbox could not start", notices)
	}
	mustContain(t, sb.Status(), "no sandbox", "finding bash")
}
