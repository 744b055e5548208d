package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A repository's index may link folders as submodules (entries of mode 160000, gitlinks), however deep.
// The user's git status runs git in each linked folder that has a .git, with that folder's settings, so
// a command that can write the index (git add must work) could link a repository it planted deep down,
// with a core.fsmonitor of its own. The protected paths therefore watch every folder an index links.

// maxRepoFolders bounds the folders watched: past it, a workspace's further repositories are not.
const maxRepoFolders = 1000

// gitlinkCache keeps each index file's gitlinks while its size and time stay the same: the protected
// paths are listed before and after every sandboxed command, and an index can be megabytes.
var gitlinkCache = struct {
	sync.Mutex
	m map[string]gitlinkRead
}{m: map[string]gitlinkRead{}}

type gitlinkRead struct {
	stamp string
	links []string
}

// repoGitDir is the git folder of the repository whose work tree is dir: dir/.git, or where a .git file
// points ("gitdir: ..."), as in a submodule or a linked work tree; "" if there is none.
func repoGitDir(dir string) string {
	git := filepath.Join(dir, ".git")
	if isDir(git) {
		return git
	}
	data, err := os.ReadFile(git)
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if err != nil || !ok {
		return ""
	}
	if target = strings.TrimSpace(target); !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return target
}

// gitlinks returns the folders, relative to the work tree, that the index of the repository in gitDir
// links, from the index and a split index's shared part.
func gitlinks(gitDir string) []string {
	hashLen := 20
	if config, _ := os.ReadFile(filepath.Join(gitDir, "config")); bytes.Contains(bytes.ReplaceAll(bytes.ToLower(config), []byte(" "), nil), []byte("objectformat=sha256")) {
		hashLen = 32
	}
	files, _ := filepath.Glob(filepath.Join(gitDir, "sharedindex.*"))
	var links []string
	for _, f := range append(files, filepath.Join(gitDir, "index")) {
		info, err := os.Stat(f)
		if err != nil {
			continue
		}
		stamp := fmt.Sprint(info.Size(), info.ModTime().UnixNano(), hashLen)
		gitlinkCache.Lock()
		read, ok := gitlinkCache.m[f]
		gitlinkCache.Unlock()
		if !ok || read.stamp != stamp {
			data, _ := os.ReadFile(f)
			read.stamp = stamp
			read.links, _ = indexGitlinks(data, hashLen) // what a damaged index lists before the damage
			gitlinkCache.Lock()
			gitlinkCache.m[f] = read
			gitlinkCache.Unlock()
		}
		links = append(links, read.links...)
	}
	return links
}

// indexGitlinks reads an index file (versions 2 to 4; hashLen is 20 for SHA-1, 32 for SHA-256) and returns
// the paths of its gitlink entries. An entry is 40 bytes of stat data and mode, the object's hash, 16 bits
// of flags (and 16 more in version 3 and up when the flags say so), then the path: NUL-ended and padded to
// a multiple of 8 bytes, or in version 4 a count of the previous path's bytes to drop and what follows.
func indexGitlinks(data []byte, hashLen int) ([]string, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errors.New("not a git index")
	}
	version, count := binary.BigEndian.Uint32(data[4:]), binary.BigEndian.Uint32(data[8:])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("git index version %d", version)
	}
	damaged := errors.New("a damaged git index")
	var links []string
	var path []byte
	for at := 12; count > 0; count-- {
		start := at
		if at += 40 + hashLen + 2; at > len(data) {
			return links, damaged
		}
		mode, flags := binary.BigEndian.Uint32(data[start+24:]), binary.BigEndian.Uint16(data[at-2:])
		if flags&0x4000 != 0 { // extended flags
			if at += 2; version < 3 || at > len(data) {
				return links, damaged
			}
		}
		if version == 4 {
			drop, n := indexVarint(data[at:])
			if n == 0 || drop > len(path) {
				return links, damaged
			}
			path, at = path[:len(path)-drop], at+n
		} else {
			path = path[:0]
		}
		end := bytes.IndexByte(data[at:], 0)
		if end < 0 {
			return links, damaged
		}
		path = append(path, data[at:at+end]...)
		if at += end + 1; version < 4 {
			at = start + (at-start+7)&^7 // 1 to 8 NULs end the path
		}
		if mode == 0o160000 {
			links = append(links, string(path))
		}
	}
	return links, nil
}

// indexVarint reads a version 4 index's number (7 bits a byte, high bit set while more follow, each
// continuation adding one), returning it and the bytes read, or 0 bytes if it is cut short or too large.
func indexVarint(b []byte) (int, int) {
	if len(b) == 0 {
		return 0, 0
	}
	value, n := int(b[0]&127), 1
	for c := b[0]; c&128 != 0; n++ {
		if n >= len(b) || value > 1<<40 {
			return 0, 0
		}
		c = b[n]
		value = (value+1)<<7 | int(c&127)
	}
	return value, n
}
