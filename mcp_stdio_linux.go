package main

import "syscall"

// mcpProcAttr starts a stdio server in its own process group, killed if minicode dies.
func mcpProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
