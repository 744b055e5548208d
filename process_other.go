//go:build !linux

package main

import "syscall"

// commandProcAttr puts a command (run_command's, a hook's, a stdio MCP server's, git's) in its own process group.
func commandProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
