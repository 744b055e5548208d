package main

import "syscall"

// mcpProcAttr starts a stdio server in its own process group, so that
// stopping it also stops what a wrapper (npx, uvx, a shell script) started,
// and has the kernel kill it if minicode dies without stopping it.
func mcpProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
