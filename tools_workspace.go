package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// inputPath makes a path given by the model absolute, its symlinks kept.
func inputPath(env *ToolEnv, path string) string {
	abs := cmp.Or(path, ".")
	if strings.HasPrefix(abs, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			abs = home + abs[1:]
		}
	}
	if !filepath.IsAbs(abs) {
		abs = env.Workspace + "/" + abs
	}
	return abs
}

// resolveInput makes a path given by the model absolute, with symlinks resolved.
func resolveInput(env *ToolEnv, path string) (string, error) {
	abs, err := resolveExisting(inputPath(env, path))
	if err != nil {
		return "", fmt.Errorf("cannot resolve path %q: %w", path, err)
	}
	return abs, nil
}
