package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// isDir reports whether path names an existing folder.
func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// within reports whether the clean absolute path is dir or lies below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// expandHome replaces a leading ~ (alone or before a slash) with home.
func expandHome(home, path string) string {
	if rest, ok := strings.CutPrefix(path, "~"); ok && (rest == "" || rest[0] == '/') {
		return home + rest
	}
	return path
}

// describeOpenError turns a failure to open a file into a short sentence.
func describeOpenError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied by the file system")
	case errors.Is(err, syscall.ELOOP):
		return errors.New("a name on the way is a link now, which the file tools do not follow: it was not one when the call was checked")
	default:
		return err
	}
}

// openNoFollow is openNoFollowFD as an *os.File.
func openNoFollow(path string, flag int, perm uint32) (*os.File, error) {
	fd, err := openNoFollowFD(path, flag, perm)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openJudged opens the file at the resolved path abs for reading, following no link, and checks that it is
// found, the regular file that was there when the call was checked: between the check and the use a folder on
// the way may be swapped for a link to elsewhere, or the file for another.
func openJudged(abs string, found fs.FileInfo) (*os.File, error) {
	f, err := openNoFollow(abs, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, describeOpenError(err)
	}
	info, err := f.Stat()
	switch {
	case err != nil:
	case !os.SameFile(found, info):
		err = errors.New("it was replaced by another file after the call was checked")
	case hardLinks(info) > hardLinks(found):
		err = errors.New("it got another name (a hard link) after the call was checked")
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// writeJudged replaces the file at the resolved path through a synced temporary file renamed over it, making
// missing folders and keeping an existing file's mode (a new one gets perm); no link on the way to it is
// followed, so it is written where a file tool's call was checked.
func writeJudged(path string, data []byte, perm fs.FileMode) error {
	dir, err := makeFolder(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("opening the folder: %w", describeOpenError(err))
	}
	defer dir.Close()
	return replaceIn(dir, filepath.Base(path), perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// openFolder opens the folder at the resolved path dir, following no link on the way.
func openFolder(dir string) (*os.Root, error) {
	f, err := openNoFollow(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	root, err := os.OpenRoot(dir) // by name, so checked to be the folder f is
	if err != nil {
		return nil, err
	}
	want, err := f.Stat()
	got, rootErr := root.Stat(".")
	if err != nil || rootErr != nil || !os.SameFile(want, got) {
		root.Close()
		return nil, fmt.Errorf("%s changed while it was opened", dir)
	}
	return root, nil
}

// makeFolder is openFolder that first makes dir and the missing folders above it, each in the folder opened before it.
func makeFolder(dir string) (*os.Root, error) {
	root, err := openFolder(dir)
	if !errors.Is(err, fs.ErrNotExist) || dir == filepath.Dir(dir) {
		return root, err
	}
	parent, err := makeFolder(filepath.Dir(dir))
	if err != nil {
		return nil, err
	}
	err = parent.Mkdir(filepath.Base(dir), 0o755)
	parent.Close()
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	return openFolder(dir)
}

// writeFileAtomic replaces path, links resolved, as writeJudged does.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = resolveExisting(abs)
	}
	if err != nil {
		return err
	}
	return writeJudged(abs, data, perm)
}

// replaceIn is writeJudged in the folder dir, the new content made by
// write; a link of that name is replaced, not written through.
func replaceIn(dir *os.Root, name string, perm fs.FileMode, write func(io.Writer) error) error {
	if info, err := dir.Stat(name); err == nil {
		perm = info.Mode().Perm()
	}
	tmpName := "." + name + ".tmp-" + strconv.FormatUint(rand.Uint64(), 36)
	tmp, err := dir.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return describeOpenError(err)
	}
	defer dir.Remove(tmpName) // there is nothing to remove once it is renamed
	// Each step runs, and the first error counts.
	if err := cmp.Or(write(tmp), tmp.Chmod(perm), tmp.Sync(), tmp.Close()); err != nil {
		return err
	}
	return dir.Rename(tmpName, name)
}

// maxLinkHops bounds how many symlinks resolveExisting follows.
const maxLinkHops = 40

// resolveExisting resolves an absolute path the way the kernel walks it, element by element, so `link/..` is
// the folder above the link's target; the part that does not exist yet is appended as it is (a ".." in it is
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

// resolveWorkspace makes the workspace absolute and resolves its symlinks.
func resolveWorkspace(dir string) (string, error) {
	dir = cmp.Or(dir, ".")
	real, err := filepath.Abs(dir)
	if err == nil {
		real, err = filepath.EvalSymlinks(real)
	}
	if err != nil || !isDir(real) {
		return "", usageErrorf("workspace %s is not a folder that exists", dir)
	}
	return real, nil
}

// readConfigFile reads a settings, MCP or definition file. One that is not a regular file is an error: a
// repository's link to /dev/zero would never end, one to /proc/self/fd/0 would eat the tasks piped in.
func readConfigFile(path string) ([]byte, error) {
	if info, err := os.Stat(path); err == nil && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return os.ReadFile(path)
}
