package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// The Landlock system calls (the same on every architecture) and flags.
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

// landlockABI returns the kernel's Landlock ABI, or 0 and why there is none.
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

// newRuleset creates the Landlock ruleset granting rules (path: rights)
// and returns its fd; rights and features the kernel's ABI lacks are left out.
func newRuleset(abi int, rules map[string]uint64, network bool) (int, error) {
	// struct landlock_ruleset_attr: the file system rights, the network rights and the scopes it
	// handles; older kernels take the whole struct as long as the fields they lack are zero.
	attr := [3]uint64{accessWrite}
	for minABI, right := range map[int]uint64{2: accessRefer, 3: accessTruncate, 5: accessIoctlDev} {
		if abi < minABI {
			attr[0] &^= right
		}
	}
	if abi >= 4 && !network {
		attr[1] = landlockNetBindTCP | landlockNetConnectTCP
	}
	if abi >= 6 {
		attr[2] = landlockScopeAll
	}
	fd, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return -1, fmt.Errorf("creating the Landlock ruleset: %w", errno)
	}
	for path, access := range rules {
		if err := addPathRule(int(fd), path, access&attr[0]); err != nil {
			syscall.Close(int(fd))
			return -1, err
		}
	}
	return int(fd), nil
}

// addPathRule grants access beneath path, if it exists.
func addPathRule(ruleset int, path string, access uint64) error {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		access &= accessFileOnly
	}
	// struct landlock_path_beneath_attr is packed: 12 bytes, written by hand.
	buf := binary.NativeEndian.AppendUint32(binary.NativeEndian.AppendUint64(nil, access), uint32(fd))
	_, _, errno := syscall.Syscall6(sysLandlockAddRule, uintptr(ruleset), landlockRulePathBeneath, uintptr(unsafe.Pointer(&buf[0])), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("adding the Landlock rule for %s: %w", path, errno)
	}
	return nil
}

// startConfined starts cmd from an OS thread of its own, confined first:
// Landlock and no_new_privs hold for that thread and the command it forks
// only. The thread is never unlocked, so it ends with its goroutine.
func startConfined(cmd *exec.Cmd, ruleset int) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer outliveChildren()
		if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
			started <- fmt.Errorf("setting no_new_privs: %w", errno)
		} else if _, _, errno := syscall.Syscall(sysLandlockRestrictSelf, uintptr(ruleset), 0, 0); errno != 0 {
			started <- fmt.Errorf("applying the Landlock ruleset: %w", errno)
		} else {
			started <- cmd.Start()
		}
	}()
	return <-started
}

// outliveChildren returns once the calling thread has no children left: the kernel sends the
// parent-death signal when the thread that forked a child ends, and the thread may have forked
// others (an MCP server) before it was locked. Where the kernel does not list them, it sleeps for good.
func outliveChildren() {
	children := fmt.Sprintf("/proc/self/task/%d/children", syscall.Gettid())
	list, err := os.ReadFile(children)
	for ; err == nil && len(bytes.TrimSpace(list)) > 0; list, err = os.ReadFile(children) {
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		select {} // kept, asleep: no polling that would cost CPU for every command run
	}
}
