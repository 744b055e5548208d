package main

import (
	"fmt"
	"runtime"
	"syscall"
)

// The seccomp filter closes what namespaces and Landlock leave open: Unix sockets by path (ssh-agent,
// Docker, D-Bus, a tmux server that would run any command), io_uring (which acts out of the filter's
// sight), new user namespaces, mounts, keyrings, bpf, ptrace, typing into a terminal; and without a network
// namespace every socket but TCP, which Landlock limits. Refused calls fail with EPERM; clone3, whose
// flags it cannot read, with ENOSYS, so that the C library falls back to clone.

// bpfInsn is one classic BPF instruction (struct sock_filter).
type bpfInsn struct {
	code   uint16
	jt, jf uint8
	k      uint32
}

// BPF opcodes (load word, and, jump if equal, greater or equal, any bit set, return), the offsets of
// struct seccomp_data's number, architecture and arguments' low words (little-endian), and the verdicts.
const (
	bpfLoad, bpfAnd, bpfJumpEq, bpfJumpGE, bpfJumpSet, bpfReturn = 0x20, 0x54, 0x15, 0x35, 0x45, 0x06
	dataNr, dataArch, dataArg0, dataArg1, dataArg2               = 0, 4, 16, 24, 32
	retAllow, retErrno, retKill                                  = 0x7fff0000, 0x00050000, 0x80000000
)

// seccompArch is what the filter needs to know of one architecture.
type seccompArch struct {
	audit                         uint32 // AUDIT_ARCH_*
	x32                           bool   // x32 numbers (bit 30) reach the same kernel
	socket, ioctl, clone, unshare uint32
	refused                       []uint32
}

// seccompArchFor describes the architectures minicode is built for.
func seccompArchFor(arch string) (seccompArch, bool) {
	// The same on every architecture: io_uring_setup, _enter, _register,
	// open_tree, move_mount, fsopen, fsconfig, fsmount, fspick, mount_setattr.
	common := []uint32{425, 426, 427, 428, 429, 430, 431, 432, 433, 442}
	switch arch {
	case "amd64":
		// ptrace, process_vm_readv/writev, keyctl, add_key, request_key, bpf, perf_event_open, userfaultfd,
		// mount, umount2, pivot_root, kexec_load, kexec_file_load, init/finit/delete_module.
		return seccompArch{audit: 0xc000003e, x32: true, socket: 41, ioctl: 16, clone: 56, unshare: 272,
			refused: append(common, 101, 310, 311, 250, 248, 249, 321, 298, 323, 165, 166, 155, 246, 320, 175, 313, 176)}, true
	case "arm64":
		return seccompArch{audit: 0xc00000b7, socket: 198, ioctl: 29, clone: 220, unshare: 97,
			refused: append(common, 117, 270, 271, 219, 217, 218, 280, 241, 282, 40, 39, 41, 104, 294, 105, 273, 106)}, true
	}
	return seccompArch{}, false
}

// seccompProgram builds the filter; strict refuses every socket but TCP.
func seccompProgram(strict bool) ([]bpfInsn, error) {
	a, ok := seccompArchFor(runtime.GOARCH)
	if !ok {
		return nil, fmt.Errorf("no seccomp filter for %s", runtime.GOARCH)
	}
	b := bpfBuilder{labels: map[string]int{}}
	b.add(bpfLoad, dataArch, "", "")
	b.add(bpfJumpEq, a.audit, "", "kill")
	b.add(bpfLoad, dataNr, "", "")
	if a.x32 {
		b.add(bpfJumpGE, 0x40000000, "deny", "")
	}
	for _, nr := range a.refused {
		b.add(bpfJumpEq, nr, "deny", "")
	}
	b.add(bpfJumpEq, 435, "enosys", "") // clone3
	b.add(bpfJumpEq, a.socket, "socket", "")
	b.add(bpfJumpEq, a.clone, "clone", "")
	b.add(bpfJumpEq, a.unshare, "clone", "")
	b.add(bpfJumpEq, a.ioctl, "ioctl", "allow")
	b.label("clone")
	b.add(bpfLoad, dataArg0, "", "")
	b.add(bpfJumpSet, syscall.CLONE_NEWUSER, "deny", "allow")
	b.label("ioctl")
	b.add(bpfLoad, dataArg1, "", "")
	b.add(bpfJumpEq, syscall.TIOCSTI, "deny", "")
	b.add(bpfJumpEq, 0x541c, "deny", "allow") // TIOCLINUX
	b.label("socket")                         // internet and routing sockets; AF_UNIX pairs come from socketpair
	b.add(bpfLoad, dataArg0, "", "")
	b.add(bpfJumpEq, syscall.AF_NETLINK, "allow", "")
	b.add(bpfJumpEq, syscall.AF_INET, "inet", "")
	b.add(bpfJumpEq, syscall.AF_INET6, "inet", "deny")
	b.label("inet")
	if strict {
		b.add(bpfLoad, dataArg1, "", "")
		b.add(bpfAnd, 0xf, "", "") // the type, without SOCK_NONBLOCK and SOCK_CLOEXEC
		b.add(bpfJumpEq, syscall.SOCK_STREAM, "", "deny")
		b.add(bpfLoad, dataArg2, "", "")
		b.add(bpfJumpEq, 0, "allow", "")
		b.add(bpfJumpEq, syscall.IPPROTO_TCP, "allow", "deny") // not MPTCP (262)
	}
	for _, ret := range []struct {
		label string
		k     uint32
	}{{"allow", retAllow}, {"deny", retErrno | uint32(syscall.EPERM)}, {"enosys", retErrno | uint32(syscall.ENOSYS)}, {"kill", retKill}} {
		b.label(ret.label)
		b.add(bpfReturn, ret.k, "", "")
	}
	return b.program(), nil
}

// bpfBuilder assembles a BPF program whose jumps name labels ahead ("" is the next instruction).
type bpfBuilder struct {
	insns   []bpfInsn
	targets [][2]string
	labels  map[string]int
}

// add appends an instruction, and its jumps' labels when it jumps.
func (b *bpfBuilder) add(code uint16, k uint32, jt, jf string) {
	b.insns, b.targets = append(b.insns, bpfInsn{code: code, k: k}), append(b.targets, [2]string{jt, jf})
}

// label names the next instruction.
func (b *bpfBuilder) label(name string) { b.labels[name] = len(b.insns) }

// program resolves the labels into the offsets BPF counts from the next instruction.
func (b *bpfBuilder) program() []bpfInsn {
	for at, targets := range b.targets {
		if targets[0] != "" {
			b.insns[at].jt = uint8(b.labels[targets[0]] - at - 1)
		}
		if targets[1] != "" {
			b.insns[at].jf = uint8(b.labels[targets[1]] - at - 1)
		}
	}
	return b.insns
}
