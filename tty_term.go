package main

import (
	"sync"
	"syscall"
	"unsafe"
)

// rawTerminal is a terminal switched to raw input: keys arrive one by one,
// unechoed, and Ctrl-C is a key rather than a signal. Output processing
// stays on, so "\n" still starts a new line. restore puts the saved modes
// back; it may be called any number of times, from any exit path.
type rawTerminal struct {
	fd    int
	saved syscall.Termios
	once  sync.Once
}

// ioctl performs a terminal ioctl whose argument is a pointer.
func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}

// isTerminal reports whether fd is a terminal.
func isTerminal(fd int) bool {
	var t syscall.Termios
	return ioctl(fd, ioctlGetTermios, unsafe.Pointer(&t)) == nil
}

// enterRaw switches the terminal fd to raw input.
func enterRaw(fd int) (*rawTerminal, error) {
	rt := &rawTerminal{fd: fd}
	if err := ioctl(fd, ioctlGetTermios, unsafe.Pointer(&rt.saved)); err != nil {
		return nil, err
	}
	raw := rt.saved
	raw.Iflag &^= syscall.ICRNL | syscall.INLCR | syscall.IGNCR | syscall.IXON | syscall.ISTRIP | syscall.BRKINT
	raw.Lflag &^= syscall.ECHO | syscall.ECHONL | syscall.ICANON | syscall.ISIG | syscall.IEXTEN
	raw.Cflag |= syscall.CS8
	raw.Cc[syscall.VMIN], raw.Cc[syscall.VTIME] = 1, 0
	if err := ioctl(fd, ioctlSetTermios, unsafe.Pointer(&raw)); err != nil {
		return nil, err
	}
	return rt, nil
}

// restore puts back the modes the terminal had before enterRaw.
func (rt *rawTerminal) restore() {
	rt.once.Do(func() { _ = ioctl(rt.fd, ioctlSetTermios, unsafe.Pointer(&rt.saved)) })
}

// terminalSize returns the width and height of the terminal fd, or 80x24
// when it cannot be read.
func terminalSize(fd int) (width, height int) {
	var ws struct{ rows, cols, x, y uint16 }
	if ioctl(fd, syscall.TIOCGWINSZ, unsafe.Pointer(&ws)) != nil || ws.cols == 0 || ws.rows == 0 {
		return 80, 24
	}
	return int(ws.cols), int(ws.rows)
}
