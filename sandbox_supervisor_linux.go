package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
)

// The supervisor is minicode re-executed once per session (supervisorArg), PID 1 of new user, mount, PID,
// network and IPC namespaces as far as the system allows. It sets up mounts and Landlock once
// (sandbox_mounts_linux.go) and forks each command from a confined thread: re-executing per command would
// cost 5 ms. The two speak JSON packets over a SOCK_SEQPACKET pair (fd 3 there): the plan and its report,
// then per command a request carrying its output pipes and a socket of its own, over which minicode sends
// signals and hears that it started and how it ended. This file holds minicode's end (supervisor), then
// the supervisor's (supervisorState).

// commandRequest asks the supervisor to run one command, after protecting the paths not yet protected.
type commandRequest struct {
	Dir, Command, Readable string
	Env, ReadOnly, Anchors []string
	StopAll                bool // instead, kill every command running
}

// commandEvent is a signal to send (from minicode), or news that a command started (or not: Error) or ended.
type commandEvent struct {
	Signal int
	Error  string
	Ended  bool
	Status uint32
}

// supervisor is minicode's end of the running supervisor.
type supervisor struct {
	cmd  *exec.Cmd
	conn *net.UnixConn
}

// supervisorUnavailable is nil: Linux has the supervisor; startSupervisor says which layers are lacking.
func supervisorUnavailable() error { return nil }

// startSupervisor starts the supervisor in the strongest set of namespaces the system grants (with a user
// namespace; as root without one; none) and hands it the plan; the report names each layer missing.
func startSupervisor(plan supervisorPlan) (*supervisor, sandboxReport, error) {
	report := sandboxReport{Lost: map[string]string{}}
	shell, err := exec.LookPath("bash")
	if err != nil {
		return nil, report, fmt.Errorf("finding bash: %w", err)
	}
	plan.Shell = shell
	why := "not tried"
	ns := uintptr(syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWNET)
	if plan.Network {
		ns &^= syscall.CLONE_NEWNET
	}
	var sv *supervisor
	for _, flags := range []uintptr{ns | syscall.CLONE_NEWUSER, ns, 0} {
		if plan.Bare && flags != 0 || flags == ns && os.Getuid() != 0 {
			continue
		}
		if sv, err = launchSupervisor(flags); err == nil {
			plan.Flags = flags
			break
		} else if why == "not tried" {
			why = err.Error()
		}
	}
	if sv == nil {
		return nil, report, fmt.Errorf("the sandbox cannot start: %w", err)
	}
	for layer, flag := range map[string]uintptr{layerUserNS: syscall.CLONE_NEWUSER, layerMountNS: syscall.CLONE_NEWNS, layerPIDNS: syscall.CLONE_NEWPID,
		layerNetNS: ns & syscall.CLONE_NEWNET, layerIPCNS: syscall.CLONE_NEWIPC} {
		if plan.Flags&flag == 0 && flag != 0 {
			report.Lost[layer] = "the system lets minicode make none: " + why
		}
	}
	if err = sendMessage(sv.conn, plan); err == nil {
		_, err = receive(sv.conn, 1<<16, &report) // adds to the layers lost
	}
	if err != nil {
		sv.close()
		return nil, report, fmt.Errorf("starting the sandbox: %w", err)
	}
	return sv, report, nil
}

// launchSupervisor starts the supervisor in the namespaces flags name, the user mapped to root in a new user
// namespace (root keeps every user's files as they are); with no environment or terminal, dying with minicode.
func launchSupervisor(flags uintptr) (*supervisor, error) {
	conn, remote, err := socketPair()
	if err != nil {
		return nil, err
	}
	defer remote.Close()
	cmd := exec.Command("/proc/self/exe", supervisorArg)
	cmd.Env, cmd.Dir, cmd.ExtraFiles = []string{}, "/", []*os.File{remote}
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags, Setsid: true, Pdeathsig: syscall.SIGKILL}
	if flags&syscall.CLONE_NEWUSER != 0 {
		size := map[bool]int{true: 1<<32 - 1, false: 1}[os.Getuid() == 0]
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: size}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: size}}
		cmd.SysProcAttr.GidMappingsEnableSetgroups = os.Getuid() == 0
	}
	if err := cmd.Start(); err != nil {
		conn.Close()
		return nil, err
	}
	return &supervisor{cmd: cmd, conn: conn}, nil
}

// socketPair makes a SOCK_SEQPACKET pair: this end as a connection, the other as a file to hand over.
func socketPair() (*net.UnixConn, *os.File, error) {
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("making a socket pair: %w", err)
	}
	local, remote := os.NewFile(uintptr(pair[0]), "sandbox"), os.NewFile(uintptr(pair[1]), "sandbox")
	defer local.Close()
	c, err := net.FileConn(local)
	if err != nil {
		remote.Close()
		return nil, nil, err
	}
	return c.(*net.UnixConn), remote, nil
}

// close ends the supervisor, and with it every process in its PID namespace; the kernel removes the namespaces.
func (sv *supervisor) close() {
	sv.conn.Close()
	sv.cmd.Process.Kill()
	go sv.cmd.Wait()
}

// start runs a command in the sandbox with env, once the protected paths are read-only and the git folders
// anchored (those not yet so): the supervisor forks it; minicode copies its output.
func (sv *supervisor) start(spec CommandSpec, env, readOnly, anchors []string) (*Process, error) {
	if spec.Readable != "" {
		os.MkdirAll(spec.Readable, 0o700) // a Landlock rule needs the folder
	}
	p := &Process{exited: make(chan struct{})}
	ends, err := p.outputPipes(spec.Stdout, spec.Stderr)
	if err != nil {
		return nil, err
	}
	conn, remote, err := socketPair()
	if err == nil {
		req := commandRequest{Dir: spec.Dir, Command: spec.Command, Readable: spec.Readable, Env: env, ReadOnly: readOnly, Anchors: anchors}
		err = sendMessage(sv.conn, req, ends[0], ends[1], remote)
		remote.Close()
	}
	closeFiles(ends)
	var started commandEvent
	if err == nil {
		if _, err = receive(conn, 1<<10, &started); err == nil && started.Error != "" {
			err = errors.New(started.Error)
		}
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		closeFiles(p.readers)
		return nil, fmt.Errorf("in the sandbox: %w", err)
	}
	p.signal = func(sig syscall.Signal) error { return sendMessage(conn, commandEvent{Signal: int(sig)}) }
	go func() {
		var ended commandEvent
		if _, err := receive(conn, 1<<10, &ended); err != nil || !ended.Ended {
			p.err = errors.New("the sandbox ended before the command")
		}
		p.status = syscall.WaitStatus(ended.Status)
		conn.Close()
		close(p.exited)
	}()
	return p, nil
}

// protect makes paths read-only to the commands running now, before any command starts after: files the
// sweep put back, or the user's own that replaced a protected one.
func (sv *supervisor) protect(paths []string) { sendMessage(sv.conn, commandRequest{ReadOnly: paths}) }

// stopAll kills every command running now, with all they started.
func (sv *supervisor) stopAll() { sendMessage(sv.conn, commandRequest{StopAll: true}) }

// sealed reports whether commands see the file at path as the file outside is, on a read-only mount:
// then no command can have changed it through that name. Looked up through the supervisor's root, the
// path leads to what its mounts show; opened and not followed, it cannot be swapped between the looks.
func (sv *supervisor) sealed(path string, outside os.FileInfo) bool {
	fd, err := syscall.Open(fmt.Sprintf("/proc/%d/root%s", sv.cmd.Process.Pid, path), oPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	var fs syscall.Statfs_t
	out := outside.Sys().(*syscall.Stat_t)
	return syscall.Fstat(fd, &st) == nil && st.Dev == out.Dev && st.Ino == out.Ino &&
		syscall.Fstatfs(fd, &fs) == nil && fs.Flags&syscall.MS_RDONLY != 0 // ST_RDONLY is MS_RDONLY
}

// sendMessage sends v as one JSON packet, with files attached.
func sendMessage(conn *net.UnixConn, v any, files ...*os.File) error {
	data, err := json.Marshal(v)
	var fds []int
	for _, f := range files {
		fds = append(fds, int(f.Fd()))
	}
	var oob []byte
	if fds != nil {
		oob = syscall.UnixRights(fds...)
	}
	if err == nil {
		_, _, err = conn.WriteMsgUnix(data, oob, nil)
	}
	return err
}

// receive reads one JSON packet of at most size bytes into v, and the files attached; a close is an error.
func receive(conn *net.UnixConn, size int, v any) ([]*os.File, error) {
	buf, oob := make([]byte, size), make([]byte, syscall.CmsgSpace(3*4))
	n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err == nil && n == 0 {
		err = errors.New("closed")
	}
	if err != nil {
		return nil, err
	}
	var files []*os.File
	msgs, _ := syscall.ParseSocketControlMessage(oob[:oobn])
	for _, m := range msgs {
		fds, _ := syscall.ParseUnixRights(&m)
		for _, fd := range fds {
			files = append(files, os.NewFile(uintptr(fd), "received"))
		}
	}
	return files, json.Unmarshal(buf[:n], v)
}

// supervisorState is the supervisor process: its plan, what it set up, the threads that fork the commands.
type supervisorState struct {
	plan      supervisorPlan
	abi       int               // the Landlock ABI in use, 0 for none
	rules     map[string]uint64 // Landlock: path → the rights granted beneath it
	filter    []bpfInsn         // the seccomp filter, nil without one
	nestedPID bool              // each command gets a PID namespace of its own
	mounts    bool              // it has a mount namespace of its own
	mu        sync.Mutex
	anchored  map[string]bool        // the git folders bound onto themselves
	masked    map[string][2]uint64   // what maskDenied and maskAgain hid, by what it hid it with
	reached   []string               // the folders commands must reach, which no mask may cover
	threads   map[string]chan func() // by the stored results folder its commands may read
	running   map[int]*exec.Cmd
}

// runSupervisor is the supervisor's main: it reads the plan on fd 3, sets up and reports, then starts each
// command asked for until minicode closes the socket. Its exit ends every process in its PID namespace.
func runSupervisor() int {
	sv := &supervisorState{threads: map[string]chan func(){}, running: map[int]*exec.Cmd{}, anchored: map[string]bool{}, masked: map[string][2]uint64{}}
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
			// The lock is held to the exit: no command starts or is tracked while they are ended.
			sv.mu.Lock()
			for _, cmd := range sv.running { // without a PID namespace nothing else would end them
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
			return 0
		}
		switch {
		case len(files) == 3:
			go sv.run(req, files[0], files[1], files[2])
		case len(files) == 0 && req.StopAll:
			for _, cmd := range sv.runningNow() {
				sv.signal(cmd, syscall.SIGKILL)
			}
		case len(files) == 0 && req.Command == "":
			sv.protect(nil, req.ReadOnly) // what replaced a protected file while commands run
		default:
			closeFiles(files)
		}
	}
}

// run starts one command, forwards minicode's signals to it (SIGKILL when minicode lets go), reports its end.
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
	sv.mu.Lock()
	if sv.mounts && len(sv.running) == 0 {
		sv.maskAgain()
	}
	sv.mu.Unlock()
	if err = sv.protect(req.Anchors, req.ReadOnly); err == nil {
		err = sv.fork(req.Readable, cmd)
	}
	closeFiles([]*os.File{stdout, stderr})
	if err != nil {
		sendMessage(conn, commandEvent{Error: err.Error()})
		return
	}
	sv.mu.Lock()
	sv.running[cmd.Process.Pid] = cmd
	sv.mu.Unlock()
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
	sv.mu.Lock()
	delete(sv.running, cmd.Process.Pid)
	sv.mu.Unlock()
	sendMessage(conn, commandEvent{Ended: true, Status: uint32(cmd.ProcessState.Sys().(syscall.WaitStatus))})
}

// runningNow lists the commands running.
func (sv *supervisorState) runningNow() []*exec.Cmd {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return slices.Collect(maps.Values(sv.running))
}

// signal sends sig to a running command's process group; SIGKILL also to the command, the first process of
// its PID namespace, whose end ends the rest. Once it ended nothing is sent: its process id may be another's.
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

// fork starts cmd from the confined thread of the session whose stored results it may read, confining a
// new thread the first time, as Landlock rules name the folder. A fork thread stays locked and confined for
// good; it is the parent of its commands.
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

// confineThread confines the calling thread for good: what it executes gains no privileges (and as root
// no capabilities), Landlock applies the rules, seccomp the filter.
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
