package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// isDir reports whether path names an existing folder.
func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// describeOpenError turns a failure to open a file into a short sentence.
func describeOpenError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied by the file system")
	default:
		return err
	}
}

// writeFileAtomic replaces path through a synced temporary file renamed
// over it, keeping an existing file's mode; a new file gets perm.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return replaceFile(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// replaceFile is writeFileAtomic with the content written by write.
func replaceFile(path string, perm fs.FileMode, write func(io.Writer) error) error {
	if info, err := os.Stat(path); err == nil {
		perm = info.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating folder: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return describeOpenError(err)
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return err
}
