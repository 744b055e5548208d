package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// resolvePath turns a path given by the model into an absolute path with
// symlinks resolved, and reports whether it lies inside the workspace.
// Relative paths are taken from the workspace, not the process's working
// directory. A path that does not exist yet is resolved through its nearest
// existing parent, so that a new file under a link that leaves the
// workspace still counts as outside. The workspace itself must be absolute
// with its own symlinks resolved.
func resolvePath(workspace, path string) (abs string, inside bool, err error) {
	if path == "" {
		path = "."
	}
	if strings.HasPrefix(path, "~/") {
		if home, herr := os.UserHomeDir(); herr == nil {
			path = filepath.Join(home, path[2:])
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(workspace, path)
	}
	abs, err = resolveExisting(filepath.Clean(path))
	if err != nil {
		return "", false, err
	}
	return abs, within(workspace, abs), nil
}

// maxLinkHops bounds how many dangling symlinks resolveExisting follows,
// as the kernel bounds a chain of links.
const maxLinkHops = 40

// resolveExisting resolves the symlinks of the longest existing prefix of
// path and appends the part that does not exist yet. A dangling symlink is
// followed to where it points, since writing through it creates its target.
func resolveExisting(path string) (string, error) {
	rest := ""
	for hops := 0; ; {
		real, err := filepath.EvalSymlinks(path)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if target, lerr := os.Readlink(path); lerr == nil {
			if hops++; hops > maxLinkHops {
				return "", fmt.Errorf("resolving %s: too many levels of symbolic links", path)
			}
			path, err = linkTarget(path, target)
			if err != nil {
				return "", err
			}
			continue
		}
		parent := filepath.Dir(path)
		if parent == path {
			return filepath.Join(path, rest), nil
		}
		rest = filepath.Join(filepath.Base(path), rest)
		path = parent
	}
}

// linkTarget is where the link at path, reading target, points: a
// relative target is taken from the link's real folder, so that ".." in
// it climbs from where the link really is.
func linkTarget(path, target string) (string, error) {
	if filepath.IsAbs(target) {
		return filepath.Clean(target), nil
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, target), nil
}

// within reports whether path is dir or lies below it. Both must be clean
// absolute paths.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
