package main

import "syscall"

// mcpProcAttr starts a stdio server in its own process group (stopping it
// stops what a wrapper started), killed by the kernel if minicode dies.
func mcpProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
