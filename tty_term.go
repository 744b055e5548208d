package main

import (
	"io"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// terminalPair returns stdin and stdout as files when both are terminals, for the terminal UI.
func terminalPair(stdin io.Reader, stdout io.Writer) (in, out *os.File, ok bool) {
	in, _ = stdin.(*os.File)
	out, _ = stdout.(*os.File)
	return in, out, isTerminal(in) && isTerminal(out)
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	return f != nil && ioctl(int(f.Fd()), ioctlGetTermios, unsafe.Pointer(&t)) == nil
}

// ioctl performs a terminal ioctl whose argument is a pointer.
func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// enterRaw switches the terminal to raw input (keys one by one, unechoed, Ctrl-C a key; output unchanged)
// and returns a function, safe to call again, that puts its modes back.
func enterRaw(fd int) (restore func(), err error) {
	var saved syscall.Termios
	if err := ioctl(fd, ioctlGetTermios, unsafe.Pointer(&saved)); err != nil {
		return nil, err
	}
	raw := saved
	raw.Iflag &^= syscall.ICRNL | syscall.INLCR | syscall.IGNCR | syscall.IXON | syscall.ISTRIP | syscall.BRKINT
	raw.Lflag &^= syscall.ECHO | syscall.ECHONL | syscall.ICANON | syscall.ISIG | syscall.IEXTEN
	raw.Cflag |= syscall.CS8
	raw.Cc[syscall.VMIN], raw.Cc[syscall.VTIME] = 1, 0
	if err := ioctl(fd, ioctlSetTermios, unsafe.Pointer(&raw)); err != nil {
		return nil, err
	}
	return sync.OnceFunc(func() { _ = ioctl(fd, ioctlSetTermios, unsafe.Pointer(&saved)) }), nil
}

// terminalSize returns the width and height of the terminal fd, or 80x24 when unknown.
func terminalSize(fd int) (width, height int) {
	var ws struct{ rows, cols, x, y uint16 }
	if ioctl(fd, syscall.TIOCGWINSZ, unsafe.Pointer(&ws)) != nil || ws.cols == 0 || ws.rows == 0 {
		return 80, 24
	}
	return int(ws.cols), int(ws.rows)
}
