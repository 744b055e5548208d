package main

import (
	"os"
	"syscall"
)

// oNoFollowAny is macOS's O_NOFOLLOW_ANY (macOS 11): no link in any name of the path.
const oNoFollowAny = 0x20000000

// openNoFollow opens the absolute path following no link in any of its
// names; a name that has become a link is an error (ELOOP).
func openNoFollow(path string, flag int, perm uint32) (*os.File, error) {
	fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC|oNoFollowAny, perm)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
