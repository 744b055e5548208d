package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// SandboxSettings are the "sandbox" settings; Enabled false turns it off.
type SandboxSettings struct {
	Enabled    *bool    `json:"enabled,omitempty"`
	Network    bool     `json:"network,omitempty"`    // allow TCP connect and bind
	AllowWrite []string `json:"allowWrite,omitempty"` // more folders commands may write
	DenyRead   []string `json:"denyRead,omitempty"`   // more paths commands may not read
}

// Landlock's file system access rights, as the kernel numbers them.
const (
	accessExecute   = 1 << 0
	accessWriteFile = 1 << 1
	accessReadFile  = 1 << 2
	accessReadDir   = 1 << 3
	accessRefer     = 1 << 13 // ABI 2
	accessTruncate  = 1 << 14 // ABI 3
	accessIoctlDev  = 1 << 15 // ABI 5
	accessRead      = accessExecute | accessReadFile | accessReadDir
	accessWrite     = 1<<16 - 1 // every right, making and removing files included
	accessFileOnly  = accessExecute | accessWriteFile | accessReadFile | accessTruncate | accessIoctlDev
	sandboxDisabled = "turned off by the setting sandbox.enabled"
)

// Sandbox runs commands under Landlock, or plainly where it is missing.
type Sandbox struct {
	ABI     int    // the Landlock ABI in use; 0 when there is no sandbox
	Reason  string // why there is no sandbox
	TempDir string // the private temp folder (TMPDIR of every command)
	network bool
	ruleset int // the Landlock ruleset's file descriptor
}

// NewSandbox detects Landlock and prepares the ruleset confining commands
// to workspace; home and getenv locate the secrets and the build caches.
func NewSandbox(workspace, home string, settings SandboxSettings, getenv func(string) string) (*Sandbox, error) {
	s := &Sandbox{network: settings.Network, ruleset: -1}
	if s.ABI, s.Reason = landlockABI(); settings.Enabled != nil && !*settings.Enabled {
		s.ABI, s.Reason = 0, sandboxDisabled
	}
	if s.ABI == 0 {
		return s, nil
	}
	var err error
	if s.TempDir, err = os.MkdirTemp("", "minicode-tmp-"); err != nil {
		return nil, fmt.Errorf("creating the sandbox temp folder: %w", err)
	}
	denied := existingPaths(home, slices.Concat([]string{".ssh", ".aws", ".gnupg", ".config/gcloud", ".netrc", ".git-credentials",
		".config/gh", ".docker/config.json", ".kube", ".pypirc", ".cargo/credentials.toml"}, settings.DenyRead))
	rules := map[string]uint64{} // path: the access rights granted beneath it
	expandRule(rules, "/", accessRead, denied)
	for _, dir := range slices.Concat([]string{workspace, s.TempDir}, cachePaths(home, getenv), existingPaths(home, settings.AllowWrite),
		[]string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/shm", "/dev/pts", "/dev/ptmx"}) {
		expandRule(rules, dir, accessWrite&^accessIoctlDev, denied) // no device ioctls: TIOCSTI types into the user's terminal
	}
	if s.ruleset, err = newRuleset(s.ABI, rules, s.network); err != nil {
		s.Close()
		return nil, fmt.Errorf("preparing the sandbox: %w", err)
	}
	return s, nil
}

// Close removes the private temp folder and releases the ruleset.
func (s *Sandbox) Close() {
	os.RemoveAll(s.TempDir) // nothing when there is none
	if s.ruleset >= 0 {
		syscall.Close(s.ruleset)
		s.ruleset = -1
	}
}

// Status says in one line what the sandbox enforces, or that there is none.
func (s *Sandbox) Status() string {
	switch {
	case s == nil:
		return "no sandbox: commands are limited by the permission check alone"
	case s.ABI == 0:
		return "no sandbox (" + s.Reason + "): commands are limited by the permission check alone"
	}
	net := map[bool]string{false: "no network", true: "network allowed"}[s.network]
	if !s.network && s.ABI < 4 {
		net = "network not limited (needs Landlock ABI 4)"
	}
	return fmt.Sprintf("Landlock sandbox (ABI %d): commands write only in the workspace, %s and build caches; %s; secrets such as ~/.ssh unreadable",
		s.ABI, s.TempDir, net)
}

// Command prepares command to run under bash in dir; Start starts it.
func (s *Sandbox) Command(ctx context.Context, dir, command string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "CDPATH=")
	if s != nil && s.TempDir != "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+s.TempDir)
	}
	return cmd
}

// Start starts cmd confined by the sandbox, unless unsandboxed is set.
func (s *Sandbox) Start(cmd *exec.Cmd, unsandboxed bool) error {
	if s.Sandboxed() && !unsandboxed {
		return startConfined(cmd, s.ruleset)
	}
	return cmd.Start()
}

// Sandboxed reports whether commands run in the sandbox unless asked not to.
func (s *Sandbox) Sandboxed() bool { return s != nil && s.ABI > 0 }

// refusalNote is what a failed sandboxed command's result adds.
func (s *Sandbox) refusalNote(output string) string {
	if !s.Sandboxed() || !strings.Contains(output, "Permission denied") && !strings.Contains(output, "Operation not permitted") {
		return ""
	}
	return "Note: this command ran in the sandbox, which allows writes only in the workspace, $TMPDIR and build caches, " +
		"no network connections unless the settings allow them, and no reading of secrets such as ~/.ssh. If the sandbox " +
		"refused what the task needs, run the command again with \"sandbox\": false and a \"reason\"; the user will be asked."
}

// existingPaths resolves paths from home and keeps those that exist.
func existingPaths(home string, paths []string) []string {
	var out []string
	for _, p := range paths {
		if p = expandHome(home, p); !filepath.IsAbs(p) {
			p = filepath.Join(home, p)
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// cachePaths are the build caches of Go, Node, Python and Rust; not the
// programs and scripts beside some of them, which run outside the sandbox.
func cachePaths(home string, getenv func(string) string) []string {
	cache := cmp.Or(getenv("XDG_CACHE_HOME"), filepath.Join(home, ".cache"))
	gopath := cmp.Or(strings.Split(getenv("GOPATH"), ":")[0], filepath.Join(home, "go"))
	cargo := cmp.Or(getenv("CARGO_HOME"), filepath.Join(home, ".cargo"))
	return []string{
		cmp.Or(getenv("GOCACHE"), filepath.Join(cache, "go-build")),
		cmp.Or(getenv("GOMODCACHE"), filepath.Join(gopath, "pkg", "mod")),
		cmp.Or(getenv("npm_config_cache"), filepath.Join(home, ".npm")),
		filepath.Join(cache, "yarn"), filepath.Join(home, ".local", "share", "pnpm", "store"),
		cmp.Or(getenv("PIP_CACHE_DIR"), filepath.Join(cache, "pip")),
		cmp.Or(getenv("UV_CACHE_DIR"), filepath.Join(cache, "uv")),
		filepath.Join(cache, "pypoetry"),
		filepath.Join(cargo, "registry"), filepath.Join(cargo, "git"),
	}
}

// expandRule grants access beneath root but not under the denied paths: a folder above one keeps
// all but reading files, and each entry is granted on its own, a link where it leads.
func expandRule(rules map[string]uint64, root string, access uint64, denied []string) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil || slices.ContainsFunc(denied, func(d string) bool { return within(d, real) }) {
		return
	}
	switch {
	case !slices.ContainsFunc(denied, func(d string) bool { return within(real, d) }):
		rules[real] |= access
		return
	case real != filepath.Clean(root):
		return // a link: the folder it leads to is walked under its own name
	}
	rules[real] |= access &^ (accessReadFile | accessExecute | accessRefer)
	entries, _ := os.ReadDir(real)
	for _, e := range entries {
		expandRule(rules, filepath.Join(real, e.Name()), access, denied)
	}
}
