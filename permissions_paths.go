package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// within reports whether the clean absolute path is dir or lies below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
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

// matchGlob reports whether the slash-separated path name matches glob:
// `*`, `?` and `[…]` work within one name, and `**` stands for any number
// of names, at least one at the end ("src/**" is what is inside src).
func matchGlob(glob, name string) bool {
	return matchSegments(splitPattern(filepath.ToSlash(glob)), splitPattern(filepath.ToSlash(name)))
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

// splitPattern splits a slash-separated glob or path into its names.
func splitPattern(pattern string) []string {
	return slices.DeleteFunc(strings.Split(pattern, "/"), func(s string) bool { return s == "" })
}

// matchSegments matches path names against glob names, backtracking only
// to the latest "**", in time within the product of the two lengths.
func matchSegments(glob, names []string) bool {
	if len(glob) > 0 && glob[len(glob)-1] == "**" {
		glob = append(glob[:len(glob)-1:len(glob)-1], "*", "**")
	}
	g, n := 0, 0
	star, starN := -1, 0 // the latest "**" and the names it has taken so far
	for g < len(glob) || n < len(names) {
		switch {
		case g < len(glob) && glob[g] == "**":
			star, starN = g, n
			g++
		case g < len(glob) && n < len(names) && matchName(glob[g], names[n]):
			g++
			n++
		case star >= 0 && starN < len(names):
			starN++
			g, n = star+1, starN
		default:
			return false
		}
	}
	return true
}

// matchName matches one name against one element of a glob.
func matchName(glob, name string) bool {
	ok, err := path.Match(glob, name)
	return ok && err == nil
}
