package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
)

// The supervisor is minicode re-executed once per session (supervisorArg),
// PID 1 of new user, mount, PID, network and IPC namespaces as far as the
// system allows. It sets up mounts and Landlock once and forks each command
// from a confined thread (sandbox_fork_linux.go): re-executing per command
// would cost 5 ms. The two speak JSON packets over a SOCK_SEQPACKET pair
// (fd 3 there): the plan and its report, then per command a request
// carrying its output pipes and a socket of its own, over which minicode
// sends signals and hears that it started and how it ended.

// commandRequest asks the supervisor to run one command.
type commandRequest struct {
	Dir, Command, Readable string
	Env                    []string
}

// commandEvent is a signal to send (from minicode), or news of a command:
// that it started (or could not: Error), or that it ended.
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

// supervisorUnavailable is nil: Linux has the supervisor; startSupervisor
// says which of its layers the system lacks.
func supervisorUnavailable() error { return nil }

// startSupervisor starts the supervisor in the strongest set of namespaces
// the system grants (with a user namespace; as root without one; none) and
// hands it the plan; the report names each layer missing.
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

// launchSupervisor starts the supervisor in the namespaces flags name, the
// user mapped to root in a new user namespace (root keeps every user's
// files as they are); with no environment, no terminal, dying with minicode.
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

// socketPair makes a SOCK_SEQPACKET pair: this end as a connection, the
// other as a file to hand over.
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

// close ends the supervisor, and with it every process in its PID
// namespace; the kernel tears the namespaces down meanwhile.
func (sv *supervisor) close() {
	sv.conn.Close()
	sv.cmd.Process.Kill()
	go sv.cmd.Wait()
}

// start runs a command in the sandbox with env: the supervisor forks it,
// minicode copies its output and learns how it ended.
func (sv *supervisor) start(spec CommandSpec, env []string) (*Process, error) {
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
		err = sendMessage(sv.conn, commandRequest{Dir: spec.Dir, Command: spec.Command, Readable: spec.Readable, Env: env}, ends[0], ends[1], remote)
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

// receive reads one JSON packet of at most size bytes into v, and the
// files attached; the peer closing is an error.
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
