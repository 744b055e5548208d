package main

import (
	"errors"
	"fmt"
)

// The errors that choose minicode's exit code (main.go's exitCode): any
// concern may return them, so they live below all of them.

// UsageError is a mistake in how minicode was called.
type UsageError struct{ error }

// usageErrorf formats a UsageError.
func usageErrorf(format string, args ...any) error {
	return UsageError{fmt.Errorf(format, args...)}
}

// errTaskFailed marks a task that ran but failed, as its output said.
var errTaskFailed = errors.New("the task failed")
