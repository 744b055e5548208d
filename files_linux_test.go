package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenNoFollowRefusesLinks opens paths with openat2 and with the walk
// that kernels without it use: a link in any name, the last one included,
// is refused (by the walk as no folder, when it is not the last name); a
// path without links opens, the root folder too.
func TestOpenNoFollowRefusesLinks(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "real", "f.txt"), "text\n")
	for link, to := range map[string]string{"link": "real", "real/flink": "f.txt"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	walking := func(path string, flag int, perm uint32) (*os.File, error) {
		fd, err := openWalking(path, flag, perm)
		if err != nil {
			return nil, err
		}
		return os.NewFile(uintptr(fd), path), nil
	}
	for name, open := range map[string]func(string, int, uint32) (*os.File, error){"openat2": openNoFollow, "walk": walking} {
		for path, wantErr := range map[string]error{"real/f.txt": nil, "link/f.txt": syscall.ELOOP, "real/flink": syscall.ELOOP, "real/none": syscall.ENOENT} {
			f, err := open(filepath.Join(dir, path), syscall.O_RDONLY, 0)
			if !errors.Is(err, wantErr) && !(name == "walk" && wantErr == syscall.ELOOP && errors.Is(err, syscall.ENOTDIR)) { // O_PATH opens the link, which is no folder
				t.Errorf("%s %s: error %v, want %v", name, path, err, wantErr)
			}
			if err == nil {
				if data, _ := io.ReadAll(f); string(data) != "text\n" {
					t.Errorf("%s %s read %q", name, path, data)
				}
				f.Close()
			}
		}
		f, err := open("/", syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
		if err != nil {
			t.Errorf("%s /: %v", name, err)
		} else if names, err := f.Readdirnames(-1); err != nil || len(names) == 0 {
			t.Errorf("%s /: names %q, %v", name, names, err)
		}
		f.Close()
	}
}
