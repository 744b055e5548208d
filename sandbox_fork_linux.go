package main

import (
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
)

// supervisorState is the supervisor process: its plan, what it set up,
// and the confined threads that fork the commands.
type supervisorState struct {
	plan      supervisorPlan
	abi       int               // the Landlock ABI in use, 0 for none
	rules     map[string]uint64 // Landlock: path → the rights granted beneath it
	filter    []bpfInsn         // the seccomp filter, nil without one
	nestedPID bool              // each command gets a PID namespace of its own
	mu        sync.Mutex
	threads   map[string]chan func() // by the stored results folder its commands may read
	running   map[int]*exec.Cmd
}

// runSupervisor is the supervisor's main: it reads the plan on fd 3, sets
// up and reports, then starts each command asked for until minicode closes
// the socket. Its exit ends every process in its PID namespace.
func runSupervisor() int {
	sv := &supervisorState{threads: map[string]chan func(){}, running: map[int]*exec.Cmd{}}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds { // what minicode's parent left open must not reach the commands
		if n, err := strconv.Atoi(fd.Name()); err == nil && n > 2 {
			syscall.CloseOnExec(n)
		}
	}
	c, err := net.FileConn(os.NewFile(3, "sandbox"))
	if err != nil {
		return 1
	}
	conn := c.(*net.UnixConn)
	if _, err := receive(conn, 1<<20, &sv.plan); err != nil || sendMessage(conn, sv.setup()) != nil {
		return 1
	}
	for {
		var req commandRequest
		files, err := receive(conn, 1<<20, &req) // the files come close-on-exec: no command forked meanwhile gets them
		if err != nil {
			for _, cmd := range sv.running { // without a PID namespace nothing else would end them
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
			return 0
		}
		if len(files) == 3 {
			go sv.run(req, files[0], files[1], files[2])
		} else {
			closeFiles(files)
		}
	}
}

// run starts one command, forwards minicode's signals to it (SIGKILL when
// minicode lets go of it), and reports its end.
func (sv *supervisorState) run(req commandRequest, stdout, stderr, events *os.File) {
	c, err := net.FileConn(events)
	events.Close()
	if err != nil {
		closeFiles([]*os.File{stdout, stderr})
		return
	}
	conn := c.(*net.UnixConn)
	defer conn.Close()
	cmd := &exec.Cmd{Path: sv.plan.Shell, Args: []string{"bash", "-c", req.Command}, Dir: req.Dir, Env: req.Env, Stdout: stdout, Stderr: stderr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if sv.nestedPID {
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWPID // when it ends, all it started ends
	}
	err = sv.fork(req.Readable, cmd)
	closeFiles([]*os.File{stdout, stderr})
	if err != nil {
		sendMessage(conn, commandEvent{Error: err.Error()})
		return
	}
	sv.track(cmd, true)
	sendMessage(conn, commandEvent{})
	go func() {
		for {
			var ev commandEvent
			if _, err := receive(conn, 1<<10, &ev); err != nil {
				sv.signal(cmd, syscall.SIGKILL)
				return
			}
			sv.signal(cmd, syscall.Signal(ev.Signal))
		}
	}()
	cmd.Wait()
	sv.track(cmd, false)
	sendMessage(conn, commandEvent{Ended: true, Status: uint32(cmd.ProcessState.Sys().(syscall.WaitStatus))})
}

// track records whether cmd runs.
func (sv *supervisorState) track(cmd *exec.Cmd, running bool) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if running {
		sv.running[cmd.Process.Pid] = cmd
	} else {
		delete(sv.running, cmd.Process.Pid)
	}
}

// signal sends sig to a running command's process group; SIGKILL also to
// the command, the first process of its PID namespace, whose end ends the
// rest. Once it ended nothing is sent: its process id may be another's.
func (sv *supervisorState) signal(cmd *exec.Cmd, sig syscall.Signal) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.running[cmd.Process.Pid] == cmd {
		syscall.Kill(-cmd.Process.Pid, sig)
		if sig == syscall.SIGKILL {
			cmd.Process.Kill()
		}
	}
}

// fork starts cmd from the confined thread of the session whose stored
// results it may read, confining a new thread the first time: Landlock
// rules name the folder. A fork thread stays locked and confined for good;
// it is the parent of its commands.
func (sv *supervisorState) fork(readable string, cmd *exec.Cmd) error {
	sv.mu.Lock()
	thread, ok := sv.threads[readable]
	if !ok {
		rules := maps.Clone(sv.rules)
		if real, err := filepath.EvalSymlinks(readable); readable != "" && err == nil {
			rules[real] |= accessRead
		}
		ready := make(chan error)
		thread = make(chan func())
		go func() {
			runtime.LockOSThread()
			err := sv.confineThread(rules)
			if ready <- err; err != nil {
				return // the half-confined thread ends with its goroutine
			}
			for start := range thread {
				start()
			}
		}()
		if err := <-ready; err != nil {
			sv.mu.Unlock()
			return fmt.Errorf("confining the sandbox: %w", err)
		}
		sv.threads[readable] = thread
	}
	sv.mu.Unlock()
	started := make(chan error, 1)
	thread <- func() { started <- cmd.Start() }
	return <-started
}

// Thread settings of the kernel that package syscall does not name.
const (
	prSetNoNewPrivs = 38
	secbitsNoRoot   = 1<<0 | 1<<1 | 1<<6 | 1<<7 // NOROOT and NO_CAP_AMBIENT_RAISE, each locked
	seccompFilter   = 2                         // SECCOMP_MODE_FILTER
)

// confineThread confines the calling thread for good: what it executes
// gains no privileges (and as root no capabilities), Landlock applies the
// rules, seccomp the filter.
func (sv *supervisorState) confineThread(rules map[string]uint64) error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); errno != 0 {
		return fmt.Errorf("setting no_new_privs: %w", errno)
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_SECUREBITS, secbitsNoRoot, 0); errno != 0 && syscall.Geteuid() == 0 {
		return fmt.Errorf("dropping root's capabilities: %w", errno)
	}
	if sv.abi > 0 {
		ruleset, err := newRuleset(sv.abi, rules, sv.plan.Network)
		if err != nil {
			return err
		}
		_, _, errno := syscall.RawSyscall(sysLandlockRestrictSelf, uintptr(ruleset), 0, 0)
		if syscall.Close(ruleset); errno != 0 {
			return fmt.Errorf("applying the Landlock ruleset: %w", errno)
		}
	}
	if sv.filter == nil {
		return nil
	}
	prog := struct {
		n     uint16
		insns *bpfInsn
	}{uint16(len(sv.filter)), &sv.filter[0]}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_SECCOMP, seccompFilter, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return fmt.Errorf("installing the seccomp filter: %w", errno)
	}
	return nil
}
