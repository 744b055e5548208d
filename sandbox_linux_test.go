package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestSandboxNoTerminalIoctls checks that a sandboxed command can write to
// a terminal but not send it ioctls: TIOCSTI would type a line into the
// user's shell, to run there outside the sandbox once minicode exits.
func TestSandboxNoTerminalIoctls(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skip(err)
	}
	defer master.Close()
	var n, unlock uint32
	if err := ioctl(int(master.Fd()), syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Fatal(err)
	}
	if err := ioctl(int(master.Fd()), syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Fatal(err)
	}
	sb := tr.sandbox(t, SandboxSettings{})
	if sb.ABI < 5 {
		t.Skip("Landlock limits device ioctls from ABI 5")
	}
	out, err := runForeground(context.Background(), sb, tr.ws, fmt.Sprintf("echo hi > /dev/pts/%d && stty -F /dev/pts/%d", n, n), false, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !out.IsError || !strings.Contains(out.Text, "Permission denied") {
		t.Errorf("stty on a terminal in the sandbox: %q, want a refusal", out.Text)
	}
	if !strings.Contains(out.Text, "stty:") {
		t.Errorf("writing to the terminal was refused too: %q", out.Text)
	}
}
