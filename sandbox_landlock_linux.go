package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
	"unsafe"
)

// Landlock's file system access rights, as the kernel numbers them.
const (
	accessExecute   = 1 << 0
	accessWriteFile = 1 << 1
	accessReadFile  = 1 << 2
	accessReadDir   = 1 << 3
	accessMakeChar  = 1 << 6
	accessMakeBlock = 1 << 11
	accessRefer     = 1 << 13 // ABI 2
	accessTruncate  = 1 << 14 // ABI 3
	accessIoctlDev  = 1 << 15 // ABI 5
	accessRead      = accessExecute | accessReadFile | accessReadDir
	accessAll       = 1<<16 - 1 // every right: the ones the ruleset handles
	accessChange    = accessAll &^ (accessIoctlDev | accessMakeChar | accessMakeBlock)
	accessFileOnly  = accessExecute | accessWriteFile | accessReadFile | accessTruncate | accessIoctlDev
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
	attr := [3]uint64{accessAll}
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

// expandRule grants access beneath root but not under the denied paths: a folder above one keeps
// all but reading files (nothing above a kept-out one, as rights reach down), and each entry is
// granted on its own, a link where it leads.
func expandRule(rules map[string]uint64, root string, access uint64, denied, keptOut []string) {
	real, err := filepath.EvalSymlinks(root)
	all := slices.Concat(denied, keptOut)
	if err != nil || slices.ContainsFunc(all, func(d string) bool { return within(d, real) }) {
		return
	}
	switch {
	case !slices.ContainsFunc(all, func(d string) bool { return within(real, d) }):
		rules[real] |= access
		return
	case real != filepath.Clean(root):
		return // a link: the folder it leads to is walked under its own name
	}
	if !slices.ContainsFunc(keptOut, func(k string) bool { return within(real, k) }) {
		rules[real] |= access &^ (accessReadFile | accessExecute | accessRefer)
	}
	entries, _ := os.ReadDir(real)
	for _, e := range entries {
		expandRule(rules, filepath.Join(real, e.Name()), access, denied, keptOut)
	}
}

// renameBeneath renames name, beneath root, to the absolute path to, from its folder as opened within root.
func renameBeneath(root *os.Root, name, to string) error {
	dir, err := root.Open(filepath.Dir(name))
	if err != nil {
		return err
	}
	defer dir.Close()
	return syscall.Renameat(int(dir.Fd()), filepath.Base(name), int(dir.Fd()), to)
}

// fileIdentity is a file's inode and change time (ctime), which only the kernel's clock sets.
func fileIdentity(info os.FileInfo) (uint64, time.Time) {
	st := info.Sys().(*syscall.Stat_t)
	return st.Ino, time.Unix(st.Ctim.Unix())
}

// links is how many names a file has.
func links(info os.FileInfo) uint64 { return uint64(info.Sys().(*syscall.Stat_t).Nlink) }
