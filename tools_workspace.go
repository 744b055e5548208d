package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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

// maxLinkHops bounds how many symlinks resolveExisting follows.
const maxLinkHops = 40

// resolveExisting resolves an absolute path the way the kernel walks it,
// element by element, so `link/..` is the folder above the link's target;
// the part that does not exist yet is appended as it is (a ".." in it is
// an error), so a dangling link leads to where writing through it would.
func resolveExisting(path string) (string, error) {
	resolved, rest, hops := "/", strings.Split(path, "/"), 0
	for len(rest) > 0 {
		elem := rest[0]
		rest = rest[1:]
		switch elem {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, elem)
		info, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if slices.Contains(rest, "..") {
				return "", fmt.Errorf("resolving %s: %s does not exist", path, next)
			}
			return filepath.Join(append([]string{next}, rest...)...), nil
		case err != nil:
			return "", err
		case info.Mode()&fs.ModeSymlink != 0:
			if hops++; hops > maxLinkHops {
				return "", fmt.Errorf("resolving %s: too many levels of symbolic links", path)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if filepath.IsAbs(target) {
				resolved = "/"
			}
			rest = append(strings.Split(target, "/"), rest...)
		default:
			resolved = next
		}
	}
	return resolved, nil
}

// hardLinks counts the names of a regular file; anything else has one.
func hardLinks(info fs.FileInfo) int {
	if st, ok := info.Sys().(*syscall.Stat_t); ok && info.Mode().IsRegular() {
		return int(st.Nlink)
	}
	return 1
}

// holdsMatch reports whether a folder may hold a path the glob matches: a head of the glob matches the folder.
func holdsMatch(glob, folder string) bool {
	segments, names := splitPattern(filepath.ToSlash(glob)), splitPattern(filepath.ToSlash(folder))
	for n := range len(segments) {
		if matchSegments(segments[:n], names) {
			return true
		}
	}
	return false
}

// within reports whether the clean absolute path is dir or lies below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
