//go:build !linux

package main

import (
	"errors"
	"os/exec"
)

// landlockABI reports that there is no Landlock outside Linux.
func landlockABI() (int, string) {
	return 0, "Landlock exists only on Linux"
}

// newRuleset fails: NewSandbox asks for one only where Landlock exists.
func newRuleset(int, map[string]uint64, bool) (int, error) {
	return -1, errors.New("the Landlock sandbox exists only on Linux")
}

// startConfined fails: without a ruleset nothing is started confined.
func startConfined(*exec.Cmd, int) error {
	return errors.New("the Landlock sandbox exists only on Linux")
}
