package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// setup prepares the supervisor's namespaces once and reports each layer it
// could not set up; the Landlock rules follow the mounts, as they name the mounted folders.
func (sv *supervisorState) setup() sandboxReport {
	r := sandboxReport{Lost: map[string]string{}}
	devices := []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}
	var terminals []string
	mounts := sv.plan.Flags&syscall.CLONE_NEWNS != 0 // then first made private, so that none reaches the system's
	if mounts {
		if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
			r.Lost[layerMountNS], mounts = "making its mounts private: "+err.Error(), false
		}
	}
	if sv.mounts = mounts; mounts {
		devices, terminals = sv.mountDevices(&r, devices)
		if err := sv.protect(sv.plan.Anchors, sv.plan.ReadOnly); err != nil {
			r.Lost[layerProtect] = err.Error()
		}
	}
	write := append(sv.mountCaches(&r, mounts), sv.plan.Write...)
	if mounts {
		sv.plan.DenyRead = sv.maskDenied(write)
	}
	if sv.plan.Flags&syscall.CLONE_NEWNET != 0 {
		if err := loopbackUp(); err != nil {
			r.Lost[layerNetNS] = "its loopback device is down: " + err.Error()
		}
	}
	sv.landlock(&r, write, devices, terminals)
	var err error
	if sv.filter, err = seccompProgram(!sv.plan.Network && sv.plan.Flags&syscall.CLONE_NEWNET == 0); err != nil {
		r.Lost[layerSeccomp] = err.Error()
	}
	probe := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread, whose children would be in the new namespace, ends
		probe <- syscall.Unshare(syscall.CLONE_NEWPID)
	}()
	if err := <-probe; err != nil {
		r.Lost[layerNestedPID] = "making a PID namespace: " + err.Error()
	}
	sv.nestedPID = r.Lost[layerNestedPID] == ""
	return r
}

// mountDevices mounts a /proc showing only the sandbox's processes, a devpts instance of its own (no
// other terminal is reachable) and a private /dev/shm; it returns the devices commands may use and the
// terminals they may also send ioctls.
func (sv *supervisorState) mountDevices(r *sandboxReport, devices []string) (usable, terminals []string) {
	if sv.plan.Flags&syscall.CLONE_NEWPID == 0 {
		r.Lost[layerProc] = "no PID namespace"
	} else if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		r.Lost[layerProc] = "mounting /proc: " + err.Error()
	}
	err := syscall.Mount("devpts", "/dev/pts", "devpts", syscall.MS_NOSUID|syscall.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
	if err == nil {
		err = syscall.Mount("/dev/pts/ptmx", "/dev/ptmx", "", syscall.MS_BIND, "")
	}
	if err == nil {
		err, terminals = syscall.Mount("tmpfs", "/dev/shm", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777"), []string{"/dev/pts", "/dev/ptmx"}
	}
	if err != nil {
		r.Lost[layerDevices] = err.Error()
		return devices, nil
	}
	return append(devices, "/dev/shm"), terminals
}

// protect binds each anchor onto itself (a mount point cannot be renamed or removed), then makes each
// path read-only with a bind mount; the remount keeps the flags a user namespace locks. It skips what is
// so already: it runs at setup and again as each command starts while none runs, as the user's git may
// have made a repository since, or replaced a file (git config writes a new one), which ends the mount
// on the one replaced.
func (sv *supervisorState) protect(anchors, paths []string) error {
	if !sv.mounts {
		return nil // no mount namespace of its own: the sweep alone protects
	}
	var errs []error
	sv.mu.Lock()
	defer sv.mu.Unlock()
	for _, a := range anchors {
		if !sv.anchored[a] {
			sv.anchored[a] = true
			errs = append(errs, syscall.Mount(a, a, "", syscall.MS_BIND, ""))
		}
	}
	for _, p := range paths {
		var st syscall.Statfs_t
		if syscall.Statfs(p, &st) == nil && st.Flags&syscall.MS_RDONLY != 0 {
			continue
		}
		err := syscall.Mount(p, p, "", syscall.MS_BIND|syscall.MS_REC, "")
		if err == nil {
			err = syscall.Statfs(p, &st)
		}
		locked := uintptr(st.Flags) & (syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC) // ST_* and MS_* agree on these
		if err == nil {
			err = syscall.Mount("", p, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY|locked, "")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
		}
	}
	return errors.Join(errs...)
}

// maskDenied mounts an empty read-only folder over each denied folder in the workspace and returns the
// denied paths left to Landlock. Landlock can only deny a folder by granting each of its neighbours on its
// own, which would leave what a command makes later beside it (a build's output, a new file in the
// workspace's top folder) unreadable; a folder holding what commands must reach stays with Landlock.
func (sv *supervisorState) maskDenied(write []string) (left []string) {
	var reached []string
	for _, c := range sv.plan.Caches {
		reached = append(reached, c.Upper, c.Work, c.Private)
	}
	sv.reached = slices.Concat(reached, write, sv.plan.ReadAgain)
	for _, p := range sv.plan.DenyRead {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() || !within(sv.plan.Workspace, p) || slices.ContainsFunc(sv.reached, func(q string) bool { return within(p, q) }) ||
			mask(p, true) != nil {
			left = append(left, p)
		} else {
			sv.masked[p], _ = fileID(p)
		}
	}
	sv.maskAgain()
	return left
}

// maskAgain hides what the Read deny rules' patterns match in the workspace and the denied folders hidden
// before, but what is hidden already: it runs at setup and again as each command starts while none runs,
// as a match may have been made since, or a hidden file or folder replaced (an editor's save renames a new
// file over it), which ends the mask on the old one. A match that cannot be masked is left to the permission
// check, as Landlock would break its folder.
func (sv *supervisorState) maskAgain() {
	for _, p := range append(slices.Collect(maps.Keys(sv.masked)), matchingPaths(sv.plan.Workspace, sv.plan.Matching)...) {
		if id, ok := fileID(p); ok && sv.masked[p] != id && !slices.ContainsFunc(sv.reached, func(q string) bool { return within(p, q) }) &&
			mask(p, isDir(p)) == nil {
			sv.masked[p], _ = fileID(p)
		}
	}
}

// fileID is what a path leads to now: its device and inode.
func fileID(p string) ([2]uint64, bool) {
	var st syscall.Stat_t
	err := syscall.Stat(p, &st)
	return [2]uint64{st.Dev, st.Ino}, err == nil
}

// mask hides the folder or file at path from commands: an empty read-only folder over a folder; over a
// file /dev/null on a mount that opens no device, so that opening it is refused.
func mask(path string, dir bool) error {
	const flags = syscall.MS_RDONLY | syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC
	if dir {
		return syscall.Mount("tmpfs", path, "tmpfs", flags, "mode=000,size=4k")
	}
	if err := syscall.Mount("/dev/null", path, "", syscall.MS_BIND, ""); err != nil {
		return err
	}
	return syscall.Mount("", path, "", syscall.MS_REMOUNT|syscall.MS_BIND|flags, "")
}

// matchingPaths walks the folder for the files and folders a glob matches, passing over folders that
// cannot hold a match, and .git and node_modules, whose insides no deny rule is about and which can be
// vast. A matching link gives where it leads, if in the folder: a mount on it would cover its target.
func matchingPaths(folder string, globs []string) []string {
	if len(globs) == 0 {
		return nil
	}
	var out []string
	filepath.WalkDir(folder, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil // a folder it cannot read, nor can commands
		case !slices.ContainsFunc(globs, func(g string) bool { return matchGlob(g, path) }):
		case d.Type()&fs.ModeSymlink != 0:
			if real, err := filepath.EvalSymlinks(path); err == nil && within(folder, real) {
				out = append(out, real)
			}
			return nil
		default:
			out = append(out, path)
			if d.IsDir() {
				return fs.SkipDir // masked whole
			}
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || !slices.ContainsFunc(globs, func(g string) bool { return holdsMatch(g, path) })) {
			return fs.SkipDir
		}
		return nil
	})
	return out
}

// mountCaches lays an overlay over each shared build cache: reads see the shared files, writes land in
// the workspace's own layer, which nothing outside this workspace's sandbox reads. Where that is impossible
// the shared cache stays read-only and a private folder takes the writes. It returns the folders to write.
func (sv *supervisorState) mountCaches(r *sandboxReport, mounts bool) (write []string) {
	errs := make([]error, len(sv.plan.Caches))
	var wg sync.WaitGroup
	for i, c := range sv.plan.Caches { // at once: each overlay takes milliseconds to mount
		errs[i] = errors.New("no mount namespace")
		if mounts && strings.ContainsAny(c.Path+c.Upper, ",:\\") {
			errs[i] = errors.New("a comma, colon or backslash in the path")
		} else if mounts {
			opts := "lowerdir=" + c.Path + ",upperdir=" + c.Upper + ",workdir=" + c.Work
			if sv.plan.Flags&syscall.CLONE_NEWUSER != 0 {
				opts += ",userxattr" // trusted.* attributes need root outside
			}
			wg.Go(func() {
				if errs[i] = errors.Join(os.MkdirAll(c.Upper, 0o700), os.MkdirAll(c.Work, 0o700)); errs[i] == nil {
					errs[i] = syscall.Mount("overlay", c.Path, "overlay", syscall.MS_NOSUID|syscall.MS_NODEV, opts)
				}
			})
		}
	}
	wg.Wait()
	var lost []error
	for i, c := range sv.plan.Caches {
		if errs[i] == nil {
			write = append(write, c.Path)
		} else if lost = append(lost, fmt.Errorf("%s: %w", c.Path, errs[i])); os.MkdirAll(c.Private, 0o700) == nil {
			r.Fallback, write = append(r.Fallback, c.Path), append(write, c.Private)
		}
	}
	if lost != nil {
		r.Lost[layerCaches] = errors.Join(lost...).Error()
	}
	return write
}

// loopbackUp brings up a new network namespace's only device, loopback, so a test may reach its own server.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifreq [40]byte // struct ifreq: the name, then the flags
	copy(ifreq[:], "lo")
	binary.NativeEndian.PutUint16(ifreq[16:], syscall.IFF_UP)
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifreq[0]))); errno != 0 {
		return errno
	}
	return nil
}

// landlock builds the rules every fork thread starts from: read all but the denied paths (ReadAgain aside),
// change the write folders, use the devices, send ioctls to its own terminals; never make device files.
func (sv *supervisorState) landlock(r *sandboxReport, write, devices, terminals []string) {
	abi, reason := landlockABI()
	if r.ABI = abi; abi == 0 {
		r.Lost[layerLandlock] = reason
		return
	}
	sv.abi, sv.rules = abi, map[string]uint64{}
	expandRule(sv.rules, "/", accessRead, sv.plan.DenyRead, nil)
	expandRule(sv.rules, sv.plan.Workspace, accessChange, sv.plan.DenyRead, sv.plan.KeptOut)
	for _, dir := range write {
		expandRule(sv.rules, dir, accessChange, sv.plan.DenyRead, nil)
	}
	for _, p := range sv.plan.ReadAgain {
		sv.rules[p] |= accessRead
	}
	for _, d := range devices {
		sv.rules[d] |= accessChange
	}
	for _, d := range terminals {
		sv.rules[d] |= accessChange | accessIoctlDev
	}
	if abi < 4 {
		r.Lost[layerLandlockNet] = fmt.Sprintf("Landlock ABI %d has no network rules (4 has)", abi)
	}
}
