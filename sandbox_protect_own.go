package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// While a sandboxed command runs (a dev server, for hours), the user works on in another terminal or an
// editor, and may change a protected file: save CLAUDE.md, run git push -u, which writes .git/config anew.
// The patrol must not take such a change for a command's. A change is the user's when no command can have
// made it (the file is one the commands see on a read-only mount) or when it cannot matter (a git config
// that only sets which remote branch a branch follows). Any other change is moved out, and the file as it
// was is put back, so that a repository keeps its config.

// keptFile is what the sweep keeps of a protected file: its content, if small, and whether it had one name.
type keptFile struct {
	data   []byte
	mode   fs.FileMode
	single bool // a file with a second name may be changed through that name, which no mount covers
}

// keptSize bounds the content kept of a protected file.
const keptSize = 256 << 10

// keep records the file at p, whose identity is id, if it is one: its content when small, its mode and
// whether it has one name.
func (g *protectedPaths) keep(p, id string) {
	delete(g.kept, p)
	if data, info, err := readIdentified(p, id); err == nil {
		g.kept[p] = keptFile{data, info.Mode().Perm(), links(info) == 1}
	}
}

// readIdentified reads the regular file at p, following no link, if it is still the one whose identity is id
// and holds at most keptSize bytes (else no data).
func readIdentified(p, id string) ([]byte, fs.FileInfo, error) {
	f, err := openNoFollow(p, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || identity(info) != id {
		return nil, nil, fs.ErrInvalid
	}
	data, err := io.ReadAll(io.LimitReader(f, keptSize+1))
	if len(data) > keptSize {
		data = nil
	}
	return data, info, err
}

// usersOwn reports whether the change to the known file at p, now of identity id, is the user's, and then
// takes it as the file now is.
func (g *protectedPaths) usersOwn(p, id string) bool {
	data, info, err := readIdentified(p, id)
	if err != nil {
		return false
	}
	before, had := g.kept[p]
	sealed := had && before.single && links(info) == 1 && g.sealed != nil && g.sealed(p, info)
	if !sealed && (filepath.Base(p) != "config" || !had || before.data == nil || data == nil || !followsBranches(before.data, data)) {
		return false
	}
	g.known[p], g.kept[p] = id, keptFile{data, info.Mode().Perm(), sealed} // a config commands could change is made read-only again
	return true
}

// putBack writes the file known at p (beneath root as rel) as it was, once the sweep moved out what is
// there now, and knows it so; what a command made there in the meantime stays, for the next sweep.
func (g *protectedPaths) putBack(root *os.Root, rel, p string) {
	k, ok := g.kept[p]
	if !ok || k.data == nil || !within(g.workspace, p) { // a deny rule's elsewhere: a link on the way could lead anywhere
		return
	}
	f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, k.mode)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Write(k.data); err == nil {
		if info, err := f.Stat(); err == nil {
			g.known[p], g.kept[p] = identity(info), keptFile{k.data, k.mode, false}
		}
	}
}

// followsBranches reports whether git config now differs from before only in the settings of branches
// that say which branch of which remote each follows (what git push -u, git branch -u, -m or -d and an
// editor's branch commands write), to a remote before names: nothing git runs, no address of its own.
func followsBranches(before, now []byte) bool {
	was, err1 := gitSettings(before)
	is, err2 := gitSettings(now)
	if err1 != nil || err2 != nil {
		return false
	}
	count := map[string]int{}
	for _, kv := range was {
		count[kv]++
	}
	for _, kv := range is {
		count[kv]--
	}
	for kv, n := range count {
		key, value, _ := strings.Cut(kv, "\n")
		section, rest, _ := strings.Cut(key, ".")
		dot := strings.LastIndex(rest, ".")
		switch name := rest[dot+1:]; {
		case n == 0:
		case section != "branch" || dot < 1:
			return false
		case n > 0 || slices.Contains([]string{"merge", "rebase", "description", "vscode-merge-base"}, name): // n > 0: taken away
		case name != "remote" && name != "pushremote" ||
			value != "." && !slices.ContainsFunc(was, func(kv string) bool { return strings.HasPrefix(kv, "remote."+value+".url\n") }):
			return false
		}
	}
	return true
}

// gitSettings are the settings a git config file holds, each "key\nvalue" as git reads them (a file it
// cannot read is an error), without following its includes.
func gitSettings(config []byte) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "config", "--no-includes", "--file", "-", "--list", "--null")
	cmd.Dir, cmd.Stdin = "/", bytes.NewReader(config)
	out, err := cmd.Output()
	if len(out) == 0 {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"), err
}
