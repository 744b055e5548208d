package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"
)

// The Landlock system calls (the same numbers on every Linux architecture)
// and their constants.
const (
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446
	landlockVersionFlag      = 1 << 0
	landlockRulePathBeneath  = 1
	landlockNetBindTCP       = 1 << 0
	landlockNetConnectTCP    = 1 << 1
	landlockScopeAll         = 1<<0 | 1<<1 // abstract unix sockets and signals
	prSetNoNewPrivs          = 38
	oPath                    = 0x200000 // O_PATH, which package syscall does not name
)

// landlockRulesetAttr is struct landlock_ruleset_attr.
type landlockRulesetAttr struct {
	handledFS, handledNet, scoped uint64
}

// landlockABI returns the kernel's Landlock ABI version, or 0 and why
// there is none.
func landlockABI() (int, string) {
	abi, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, landlockVersionFlag)
	switch {
	case errno == syscall.ENOSYS:
		return 0, "this kernel has no Landlock"
	case errno == syscall.EOPNOTSUPP:
		return 0, "Landlock is turned off in this kernel"
	case errno != 0:
		return 0, "Landlock is unavailable: " + errno.Error()
	}
	return int(abi), ""
}

// commandProcAttr makes a command the leader of its own process group, so
// that it and what it starts are stopped together, and kills it if
// minicode dies without stopping it.
func commandProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// runSandboxLauncher is the launcher: minicode re-executed with
// sandboxArgument, the policy as JSON and the command to run. It restricts
// itself and then becomes the command, which inherits the restriction.
// It returns only on failure.
func runSandboxLauncher(args []string) error {
	if len(args) < 2 {
		return errors.New("sandbox launcher: missing policy or command")
	}
	var policy sandboxPolicy
	if err := json.Unmarshal([]byte(args[0]), &policy); err != nil {
		return fmt.Errorf("sandbox launcher: reading policy: %w", err)
	}
	runtime.LockOSThread() // the restriction holds for this thread, which execs
	// The parent-death signal minicode asked for belongs to the thread it
	// started; the command inherits this thread's, which may be another.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); errno != 0 {
		return fmt.Errorf("sandbox launcher: setting the parent-death signal: %w", errno)
	}
	if err := restrictSelf(policy); err != nil {
		return fmt.Errorf("sandbox launcher: %w", err)
	}
	program, err := exec.LookPath(args[1])
	if err != nil {
		return fmt.Errorf("sandbox launcher: %w", err)
	}
	return fmt.Errorf("sandbox launcher: running %s: %w", program, syscall.Exec(program, args[1:], os.Environ()))
}

// restrictSelf applies the policy to this thread with the best Landlock
// ABI the kernel offers, leaving out what older ABIs cannot handle.
func restrictSelf(policy sandboxPolicy) error {
	abi, reason := landlockABI()
	if abi == 0 {
		return errors.New(reason)
	}
	attr := landlockRulesetAttr{handledFS: accessWrite &^ accessRefer &^ accessTruncate &^ accessIoctlDev}
	size := unsafe.Sizeof(attr.handledFS)
	for _, f := range []struct {
		abi  int
		bits uint64
	}{{2, accessRefer}, {3, accessTruncate}, {5, accessIoctlDev}} {
		if abi >= f.abi {
			attr.handledFS |= f.bits
		}
	}
	if abi >= 4 {
		size = 2 * unsafe.Sizeof(attr.handledFS)
		if !policy.Network {
			attr.handledNet = landlockNetBindTCP | landlockNetConnectTCP
		}
	}
	if abi >= 6 {
		size, attr.scoped = unsafe.Sizeof(attr), landlockScopeAll
	}
	fd, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("creating the Landlock ruleset: %w", errno)
	}
	defer syscall.Close(int(fd))
	for _, r := range policy.Rules {
		if err := addPathRule(int(fd), r, attr.handledFS); err != nil {
			return err
		}
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("setting no_new_privs: %w", errno)
	}
	if _, _, errno := syscall.Syscall(sysLandlockRestrictSelf, fd, 0, 0); errno != 0 {
		return fmt.Errorf("applying the Landlock ruleset: %w", errno)
	}
	return nil
}

// addPathRule grants a rule's rights beneath its path; a file gets only
// the rights that apply to files. A path that is gone is skipped.
func addPathRule(ruleset int, r sandboxRule, handled uint64) error {
	fd, err := syscall.Open(r.Path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil
	}
	access := r.Access & handled
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		access &= accessFileOnly
	}
	if access == 0 {
		return nil
	}
	// struct landlock_path_beneath_attr is packed: 12 bytes, written by hand.
	var buf [12]byte
	binary.NativeEndian.PutUint64(buf[:8], access)
	binary.NativeEndian.PutUint32(buf[8:], uint32(int32(fd)))
	_, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(ruleset), landlockRulePathBeneath, uintptr(unsafe.Pointer(&buf[0])), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("adding the Landlock rule for %s: %w", r.Path, errno)
	}
	return nil
}
