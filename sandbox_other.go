//go:build !linux

package main

import (
	"errors"
	"os"
	"time"
)

// errNoSandbox is why there is no sandbox outside Linux.
var errNoSandbox = errors.New("the sandbox exists only on Linux (Landlock, namespaces and seccomp)")

// supervisor stands for the Linux supervisor, which never runs here.
type supervisor struct{}

// supervisorUnavailable says there is none here: commands run plainly, as Status says.
func supervisorUnavailable() error { return errNoSandbox }

// startSupervisor fails, as newSandbox never asks for one here.
func startSupervisor(supervisorPlan) (*supervisor, sandboxReport, error) {
	return nil, sandboxReport{}, errNoSandbox
}

// start fails: newSandbox never makes a supervisor here.
func (*supervisor) start(CommandSpec, []string, []string, []string) (*Process, error) {
	return nil, errNoSandbox
}

// close does nothing.
func (*supervisor) close() {}

// landlockABI reports that there is no Landlock here.
func landlockABI() (int, string) { return 0, "Landlock exists only on Linux" }

// runSupervisor fails: there is no supervisor to be.
func runSupervisor() int { return 1 }

// renameBeneath fails: the sandbox never runs here.
func renameBeneath(*os.Root, string, string) error { return errNoSandbox }

// fileIdentity has no change time here: every folder counts as changed (the sandbox never runs here).
func fileIdentity(os.FileInfo) (uint64, time.Time) { return 0, time.Now() }

// links is unknown here: no file counts as having one name.
func links(os.FileInfo) uint64 { return 0 }

// sealed is false here: there is no mount to make a file read-only.
func (*supervisor) sealed(string, os.FileInfo) bool { return false }

// protect has nothing to do here.
func (*supervisor) protect([]string) {}

// stopAll has nothing to do here.
func (*supervisor) stopAll() {}
