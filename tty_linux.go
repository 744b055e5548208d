package main

import "syscall"

// The ioctl requests that read and set a terminal's modes on Linux.
const (
	ioctlGetTermios = syscall.TCGETS
	ioctlSetTermios = syscall.TCSETS
)
