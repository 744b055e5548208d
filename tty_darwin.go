package main

import "syscall"

// The ioctl requests that read and set a terminal's modes on macOS.
const (
	ioctlGetTermios = syscall.TIOCGETA
	ioctlSetTermios = syscall.TIOCSETA
)
