package main

import (
	"strings"
	"syscall"
	"unsafe"
)

// oPath is O_PATH, which package syscall does not name.
const oPath = 0x200000

// openat2(2), which Go's syscall package does not wrap, and what it needs.
const (
	sysOpenat2        = 437  // the same number on every Linux architecture
	atFDCWD           = -100 // AT_FDCWD: a relative path starts in the working folder
	resolveNoSymlinks = 0x04 // RESOLVE_NO_SYMLINKS: no link in any name of the path, /proc's magic ones included
)

// openHow is openat2's struct open_how.
type openHow struct{ flags, mode, resolve uint64 }

// openNoFollowFD opens the absolute path following no link in any of its names, returning the file
// descriptor: with openat2 where the kernel has it (Linux 5.6), else one name at a time. A name that
// has become a link is an error (ELOOP).
func openNoFollowFD(path string, flag int, perm uint32) (int, error) {
	name, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	how, cwd := openHow{uint64(flag | syscall.O_CLOEXEC), uint64(perm), resolveNoSymlinks}, atFDCWD
	for {
		fd, _, errno := syscall.Syscall6(sysOpenat2, uintptr(cwd), uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
		switch errno {
		case 0:
			return int(fd), nil
		case syscall.EINTR:
			continue
		case syscall.ENOSYS, syscall.EPERM: // an old kernel, or a seccomp filter that does not know openat2
			return openWalking(path, flag, perm)
		}
		return -1, errno
	}
}

// openWalking is openNoFollow without openat2: each folder on the way is
// opened with O_NOFOLLOW beneath the one before it, then the file itself.
func openWalking(path string, flag int, perm uint32) (int, error) {
	dir, err := syscall.Open("/", oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	names := strings.Split(strings.Trim(path, "/"), "/")
	if names[0] == "" {
		names[0] = "." // the root folder itself
	}
	for i := 0; err == nil && i < len(names); i++ {
		f, p := oPath|syscall.O_DIRECTORY, uint32(0)
		if i == len(names)-1 {
			f, p = flag, perm
		}
		var next int
		next, err = syscall.Openat(dir, names[i], f|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, p)
		syscall.Close(dir)
		dir = next
	}
	if err != nil {
		return -1, err
	}
	return dir, nil
}
