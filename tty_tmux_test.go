package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmuxTerm is the real minicode binary running in a detached tmux
// session with the demo model, a fresh home and a workspace holding
// a.txt. Keys go in with send-keys; the screen comes back with
// capture-pane. Each one has its own tmux server, killed at the end.
type tmuxTerm struct {
	t      *testing.T
	socket string
	dir    string // holds ws/, home/ and the stty snapshots
}

// startTUI starts bin in a new tmux server of the given size. A shell
// records `stty -a` before and after minicode, then waits.
func startTUI(t *testing.T, bin string, width, height int) *tmuxTerm {
	t.Helper()
	return startTUIIn(t, tuiDir(t), bin, width, height, nil)
}

// tuiDir is a test's folder for startTUIIn: ws/, holding a.txt, and home/.
func tuiDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"ws", "home"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "ws", "a.txt"), []byte("hello world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// startTUIIn starts bin with the demo model (and args after it) in dir's
// workspace, its environment with env added, as startTUI does.
func startTUIIn(t *testing.T, dir, bin string, width, height int, env []string, args ...string) *tmuxTerm {
	t.Helper()
	tm := &tmuxTerm{t: t, socket: fmt.Sprintf("minicode-tui-%d-%d", os.Getpid(), time.Now().UnixNano()), dir: dir}
	script := fmt.Sprintf(`cd %[1]s/ws; stty -a > %[1]s/stty.before; env -u NO_COLOR MINICODE_HOME=%[1]s/home HOME=%[1]s %[3]s %[2]s --provider mock %[4]s; echo MINICODE-EXITED $?; stty -a > %[1]s/stty.after; sleep 60`,
		dir, bin, strings.Join(env, " "), strings.Join(args, " "))
	tm.tmux("-f", "/dev/null", "new-session", "-d", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "-s", "main", "bash", "--norc", "-c", script)
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", tm.socket, "kill-server").Run()
		tm.waitGone() // before the folders go: minicode may still be saving its session and checkpoints
	})
	tm.waitFor("Type /help")
	return tm
}

// waitGone waits, at most 20 seconds, until no process works in the test's folders.
func (tm *tmuxTerm) waitGone() {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		cwds, _ := filepath.Glob("/proc/[0-9]*/cwd")
		if !slices.ContainsFunc(cwds, func(link string) bool { dir, _ := os.Readlink(link); return within(tm.dir, dir) }) {
			return
		}
	}
}

// tmux runs a tmux command on this test's server.
func (tm *tmuxTerm) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.socket}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// send types keys (tmux key names such as Enter or C-c, or text).
func (tm *tmuxTerm) send(keys ...string) {
	tm.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...)
}

// screen is the pane's visible text; with scrollback, the history too;
// with escapes, its colours.
func (tm *tmuxTerm) screen(scrollback, escapes bool) string {
	args := []string{"capture-pane", "-p", "-t", "main"}
	if scrollback {
		args = append(args, "-J", "-S", "-2000")
	}
	if escapes {
		args = append(args, "-e")
	}
	return tm.tmux(args...)
}

// waitFor waits until the scrollback holds want, and returns it.
func (tm *tmuxTerm) waitFor(want string) string {
	tm.t.Helper()
	return tm.waitUntil("the screen to show "+strconv.Quote(want), func(s string) bool { return strings.Contains(s, want) })
}

// waitUntil waits until cond holds for the scrollback.
func (tm *tmuxTerm) waitUntil(what string, cond func(string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := tm.screen(true, false)
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out waiting for %s; the screen:\n%s", what, s)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitIdle waits until no task runs: the status line shows no activity.
func (tm *tmuxTerm) waitIdle() {
	tm.t.Helper()
	tm.waitUntil("the turn to end", func(string) bool {
		for _, line := range strings.Split(tm.screen(false, false), "\n") {
			if strings.Contains(line, "· ctx ") {
				return !slices.ContainsFunc(spinnerFrames, func(f string) bool { return strings.Contains(line, f) })
			}
		}
		return false
	})
}

// waitTerminalSize waits until the pane's terminal device has the given
// size. tmux re-wraps its screen first and sets the device's size later;
// minicode, which reads the device, cannot know of a resize before that.
func (tm *tmuxTerm) waitTerminalSize(width, height int) {
	tm.t.Helper()
	tty := strings.TrimSpace(tm.tmux("display-message", "-p", "-t", "main", "#{pane_tty}"))
	tm.waitUntil(fmt.Sprintf("%s to be %dx%d", tty, width, height), func(string) bool {
		f, err := os.OpenFile(tty, os.O_RDONLY|syscall.O_NOCTTY, 0)
		if err != nil {
			return false
		}
		defer f.Close()
		w, h := terminalSize(int(f.Fd()))
		return w == width && h == height
	})
}

// inputLine is the input box's first line: the last line of the visible
// screen that starts with the prompt marker.
func (tm *tmuxTerm) inputLine() string {
	lines := strings.Split(tm.screen(false, false), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "›") {
			return strings.TrimRight(lines[i], " ")
		}
	}
	return ""
}

// waitInput waits until the input box's first line is want.
func (tm *tmuxTerm) waitInput(want string) {
	tm.t.Helper()
	tm.waitUntil("the input line "+strconv.Quote(want), func(string) bool { return tm.inputLine() == want })
}

func TestTUIInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := minicodeBinary(t)
	t.Run("task, editing and history", func(t *testing.T) { tmuxTaskEditHistory(t, bin) })
	t.Run("multi-line paste is one turn", func(t *testing.T) { tmuxPaste(t, bin) })
	t.Run("Ctrl-C twice exits and restores the terminal", func(t *testing.T) { tmuxExit(t, bin, "Ctrl-C") })
	t.Run("a question's hint stays while the answer is typed", func(t *testing.T) { tmuxAnswer(t, bin) })
	if testing.Short() {
		return
	}
	for _, how := range []string{"Ctrl-D", "SIGTERM", "SIGHUP"} {
		t.Run(how+" exits and restores the terminal", func(t *testing.T) { tmuxExit(t, bin, how) })
	}
	t.Run("an edit shows a coloured diff and is approved", func(t *testing.T) { tmuxApproveEdit(t, bin) })
	t.Run("Ctrl-C during a command kills it and the session goes on", func(t *testing.T) { tmuxInterrupt(t, bin) })
	t.Run("resize", func(t *testing.T) { tmuxResize(t, bin) })
	t.Run("an idle prompt wakes no thread", func(t *testing.T) { tmuxIdle(t, bin) })
}

// tmuxTaskEditHistory: a task's result lands in the scrollback, Ctrl-A
// then typing edits the line, and Up recalls earlier tasks.
func tmuxTaskEditHistory(t *testing.T, bin string) {
	tm := startTUI(t, bin, 80, 24)
	tm.send("read a.txt", "Enter")
	tm.waitFor("Result of read_file:")
	tm.waitFor("hello world")
	tm.send("ist files")
	tm.waitInput("› ist files")
	tm.send("C-a", "l")
	tm.waitInput("› list files")
	tm.send("Enter")
	tm.waitFor("Result of list_files:")
	tm.waitInput("›")
	tm.send("Up")
	tm.waitInput("› list files")
	tm.send("Up")
	tm.waitInput("› read a.txt")
}

// tmuxAnswer: after the model asks a question, the hint under the input
// box stays while the answer is typed and goes when it is sent.
func tmuxAnswer(t *testing.T, bin string) {
	tm := startTUI(t, bin, 80, 24)
	tm.send("ask me something", "Enter")
	tm.waitFor("Which word should I search the workspace for?")
	tm.waitIdle()
	tm.send("hel")
	tm.waitInput("› hel")
	if s := tm.screen(false, false); !strings.Contains(s, answerHint) {
		t.Errorf("the screen lacks %q while the answer is typed:\n%s", answerHint, s)
	}
	tm.send("lo", "Enter")
	tm.waitFor(`You answered "hello"`)
	tm.waitIdle()
	if s := tm.screen(false, false); strings.Contains(s, answerHint) {
		t.Errorf("the screen still shows %q after the answer was sent:\n%s", answerHint, s)
	}
}

// tmuxPaste: a bracketed paste of several lines is one input, one turn.
func tmuxPaste(t *testing.T, bin string) {
	tm := startTUI(t, bin, 80, 24)
	tm.tmux("set-buffer", "-b", "p", "--", "first line\nsecond line")
	tm.tmux("paste-buffer", "-p", "-b", "p", "-t", "main")
	tm.waitFor("  second line")
	tm.send("Enter")
	tm.waitFor("did not understand")
	tm.waitInput("›")
	s := tm.screen(true, false)
	if n := strings.Count(s, "did not understand"); n != 1 || !strings.Contains(s, "› first line\n  second line") {
		t.Errorf("want one turn for the pasted lines, got %d replies; the screen:\n%s", n, s)
	}
}

// tmuxExit: Ctrl-C twice or Ctrl-D at an empty prompt exits, saying how
// to resume; so do SIGTERM and SIGHUP during a turn. Either way the
// terminal's modes are as before.
func tmuxExit(t *testing.T, bin, how string) {
	tm := startTUI(t, bin, 80, 24)
	tm.send("list files", "Enter")
	tm.waitFor("Result of list_files:")
	tm.waitIdle() // Ctrl-C and Ctrl-D during the turn would act on the turn
	switch how {
	case "Ctrl-C":
		tm.send("C-c")
		tm.waitFor("Press Ctrl-C again to exit.")
		tm.send("C-c")
	case "Ctrl-D":
		tm.send("C-d")
	default:
		tm.send("run sleep 40", "Enter")
		tm.waitFor("Permission needed")
		pids := descendantsRunning(tm.panePID(), bin+" --provider mock")
		if len(pids) != 1 {
			t.Fatalf("found minicode processes %v, want one", pids)
		}
		sig := map[string]syscall.Signal{"SIGTERM": syscall.SIGTERM, "SIGHUP": syscall.SIGHUP}[how]
		if err := syscall.Kill(pids[0], sig); err != nil {
			t.Fatal(err)
		}
	}
	tm.waitFor("MINICODE-EXITED")
	tm.waitFor("To resume: minicode --resume ")
	var before, after []byte
	tm.waitUntil("stty -a after the exit", func(string) bool {
		var err error
		after, err = os.ReadFile(filepath.Join(tm.dir, "stty.after"))
		return err == nil && len(after) > 0
	})
	before, err := os.ReadFile(filepath.Join(tm.dir, "stty.before"))
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Errorf("the terminal's modes changed:\nbefore: %s\nafter:  %s", before, after)
	}
}

// panePID is the process id of the shell in the pane.
func (tm *tmuxTerm) panePID() int {
	tm.t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(tm.tmux("display-message", "-p", "-t", "main", "#{pane_pid}")))
	if err != nil {
		tm.t.Fatal(err)
	}
	return pid
}

// tmuxApproveEdit: an edit asks with a red and green diff; Enter applies it.
func tmuxApproveEdit(t *testing.T, bin string) {
	tm := startTUI(t, bin, 80, 24)
	tm.send("replace hello with bye in a.txt", "Enter")
	tm.waitFor("Permission needed")
	colored := tm.screen(true, true)
	for _, want := range []string{"\x1b[31m-hello world", "\x1b[32m+bye world"} {
		if !strings.Contains(colored, want) {
			t.Errorf("the diff lacks %q; the screen:\n%q", want, colored)
		}
	}
	tm.send("Enter")
	tm.waitFor("→ apply once")
	tm.waitFor("✓ edit_file a.txt")
	if data, _ := os.ReadFile(filepath.Join(tm.dir, "ws", "a.txt")); string(data) != "bye world\n" {
		t.Errorf("a.txt holds %q, want the edit applied", data)
	}
}

// tmuxInterrupt: Ctrl-C during `run sleep 40` kills the child at once,
// shows "interrupted", and the next task works.
func tmuxInterrupt(t *testing.T, bin string) {
	tm := startTUI(t, bin, 80, 24)
	panePID := tm.panePID()
	tm.send("run sleep 40", "Enter")
	tm.waitFor("Permission needed")
	tm.send("y")
	tm.waitFor("running sleep 40")
	tm.waitUntil("the sleep to start", func(string) bool { return len(descendantsRunning(panePID, "sleep 40")) > 0 })
	tm.send("C-c")
	tm.waitFor("interrupted")
	tm.waitUntil("the sleep to be killed", func(string) bool { return len(descendantsRunning(panePID, "sleep 40")) == 0 })
	tm.waitInput("›")
	tm.send("list files", "Enter")
	tm.waitFor("Result of list_files:")
}

// tmuxIdle: after a turn, minicode waiting at the prompt is switched in
// almost never (a frame clock left running would wake it 60 times a second).
func tmuxIdle(t *testing.T, bin string) {
	tm := startTUI(t, bin, 80, 24)
	tm.send("list files", "Enter")
	tm.waitFor("Result of list_files:")
	tm.waitIdle()
	pids := descendantsRunning(tm.panePID(), bin+" --provider mock")
	if len(pids) != 1 {
		t.Fatalf("found %d minicode processes in the pane", len(pids))
	}
	switches := func() int {
		statuses, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pids[0]))
		n := 0
		for _, path := range statuses {
			data, _ := os.ReadFile(path)
			for _, line := range strings.Split(string(data), "\n") {
				if name, value, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(name, "ctxt_switches") {
					v, _ := strconv.Atoi(strings.TrimSpace(value))
					n += v
				}
			}
		}
		return n
	}
	time.Sleep(200 * time.Millisecond) // the last frame
	before := switches()
	time.Sleep(time.Second)
	if n := switches() - before; n > 20 {
		t.Errorf("the idle process was switched in %d times in a second", n)
	}
}

// tmuxResize: after the window shrinks, the live region is laid out for
// the new width, drawn once.
func tmuxResize(t *testing.T, bin string) {
	tm := startTUI(t, bin, 80, 24)
	tm.send("list files", "Enter")
	tm.waitFor("Result of list_files:")
	for _, size := range [][2]int{{50, 15}, {100, 30}} {
		tm.tmux("resize-window", "-t", "main", "-x", strconv.Itoa(size[0]), "-y", strconv.Itoa(size[1]))
		tm.waitTerminalSize(size[0], size[1])
		text := fmt.Sprintf("abc%d", size[0])
		tm.send(text)
		tm.waitInput("› " + text)
		// The key may be drawn before the resize is seen; the redraw
		// for the new width follows.
		tm.waitUntil(fmt.Sprintf("one status line narrower than %d columns", size[0]), func(string) bool {
			var status []string
			for _, line := range strings.Split(tm.screen(false, false), "\n") {
				if strings.Contains(line, "· ctx ") {
					status = append(status, line)
				}
			}
			return len(status) == 1 && displayWidth(strings.TrimRight(status[0], " ")) < size[0]
		})
		tm.send("C-u")
	}
}

// descendantsRunning returns the processes below pid whose command line
// is command.
func descendantsRunning(pid int, command string) []int {
	parents := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 1 {
			parents[p], _ = strconv.Atoi(fields[1])
		}
	}
	var found []int
	for p := range parents {
		for q := parents[p]; q > 1; q = parents[q] {
			if q == pid {
				cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
				if strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " ") == command {
					found = append(found, p)
				}
				break
			}
		}
	}
	return found
}
