package main

import "syscall"

// oNoFollowAny is macOS's O_NOFOLLOW_ANY (macOS 11): no link in any name of the path.
const oNoFollowAny = 0x20000000

// openNoFollowFD opens the absolute path following no link in any of its names, returning the file
// descriptor; a name that has become a link is an error (ELOOP).
func openNoFollowFD(path string, flag int, perm uint32) (int, error) {
	return syscall.Open(path, flag|syscall.O_CLOEXEC|oNoFollowAny, perm)
}
