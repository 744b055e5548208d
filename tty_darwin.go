package main

import "syscall"

// The ioctl requests that read and set a terminal's modes on macOS.
const (
	ioctlGetTermios = syscall.TIOCGETA
	ioctlSetTermios = syscall.TIOCSETA
)

// clipboardCommands print the clipboard's image; osascript as «data PNGf…» hex, which readClipboardImage decodes.
var clipboardCommands = [][]string{{"osascript", "-e", "the clipboard as «class PNGf»"}}
