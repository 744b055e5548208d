//go:build !linux

package main

import "syscall"

// mcpProcAttr starts a stdio server in its own process group, with what a wrapper starts.
func mcpProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
