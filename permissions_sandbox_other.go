//go:build !linux

package main

import (
	"errors"
	"syscall"
)

// landlockABI reports that there is no Landlock outside Linux.
func landlockABI() (int, string) {
	return 0, "Landlock exists only on Linux"
}

// commandProcAttr makes a command the leader of its own process group, so
// that it and what it starts are stopped together.
func commandProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// runSandboxLauncher fails: without Landlock nothing starts the launcher.
func runSandboxLauncher(args []string) error {
	return errors.New("sandbox launcher: Landlock exists only on Linux")
}
