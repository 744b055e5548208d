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

// secretPaths are the files under HOME that sandboxed commands never read.
var secretPaths = []string{".ssh", ".aws", ".gnupg", ".config/gcloud", ".netrc"}

// sandboxRule grants access rights beneath one path.
type sandboxRule struct {
	path   string
	access uint64
}

// SandboxConfig is what NewSandbox needs.
type SandboxConfig struct {
	Workspace string
	Home      string
	Settings  SandboxSettings
	Getenv    func(string) string
}

// Sandbox runs commands under Landlock, or plainly where it is missing.
type Sandbox struct {
	ABI     int    // the Landlock ABI in use; 0 when there is no sandbox
	Reason  string // why there is no sandbox
	TempDir string // the private temp folder (TMPDIR of every command)
	network bool
	ruleset int // the Landlock ruleset's file descriptor
}

// NewSandbox detects Landlock and prepares the ruleset for cfg.
func NewSandbox(cfg SandboxConfig) (*Sandbox, error) {
	s := &Sandbox{network: cfg.Settings.Network, ruleset: -1}
	if s.ABI, s.Reason = landlockABI(); cfg.Settings.Enabled != nil && !*cfg.Settings.Enabled {
		s.ABI, s.Reason = 0, sandboxDisabled
	}
	if s.ABI == 0 {
		return s, nil
	}
	dir, err := os.MkdirTemp("", "minicode-tmp-")
	if err == nil {
		s.TempDir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("creating the sandbox temp folder: %w", err)
	}
	denied := existingPaths(cfg.Home, slices.Concat(secretPaths, cfg.Settings.DenyRead))
	write := slices.Concat([]string{cfg.Workspace, s.TempDir}, cachePaths(cfg.Home, cfg.Getenv),
		existingPaths(cfg.Home, cfg.Settings.AllowWrite))
	rules := expandRule("/", accessRead, denied)
	for _, dir := range write {
		rules = append(rules, expandRule(dir, accessWrite, denied)...)
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom", "/dev/shm", "/dev/pts", "/dev/ptmx"} {
		rules = append(rules, sandboxRule{dev, accessWrite})
	}
	if s.ruleset, err = newRuleset(s.ABI, rules, s.network); err != nil {
		s.Close()
		return nil, fmt.Errorf("preparing the sandbox: %w", err)
	}
	return s, nil
}

// Close removes the private temp folder and releases the ruleset.
func (s *Sandbox) Close() {
	if s.TempDir != "" {
		os.RemoveAll(s.TempDir)
	}
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
	if !s.Sandboxed() || unsandboxed {
		return cmd.Start()
	}
	return startConfined(cmd, s.ruleset)
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

// cachePaths are the existing build caches of Go, Node, Python and Rust.
func cachePaths(home string, getenv func(string) string) []string {
	cache := cmp.Or(getenv("XDG_CACHE_HOME"), filepath.Join(home, ".cache"))
	gopath := cmp.Or(strings.Split(getenv("GOPATH"), ":")[0], filepath.Join(home, "go"))
	paths := []string{
		cmp.Or(getenv("GOCACHE"), filepath.Join(cache, "go-build")),
		cmp.Or(getenv("GOMODCACHE"), filepath.Join(gopath, "pkg", "mod")),
		cmp.Or(getenv("npm_config_cache"), filepath.Join(home, ".npm")),
		filepath.Join(cache, "yarn"), filepath.Join(home, ".local", "share", "pnpm"),
		cmp.Or(getenv("PIP_CACHE_DIR"), filepath.Join(cache, "pip")),
		cmp.Or(getenv("UV_CACHE_DIR"), filepath.Join(cache, "uv")),
		filepath.Join(cache, "pypoetry"),
		cmp.Or(getenv("CARGO_HOME"), filepath.Join(home, ".cargo")),
		cmp.Or(getenv("RUSTUP_HOME"), filepath.Join(home, ".rustup")),
	}
	return existingPaths(home, paths)
}

// expandRule grants access beneath root but not under the denied paths:
// a folder above one keeps all but reading files, and each entry is
// granted on its own, a link where it leads.
func expandRule(root string, access uint64, denied []string) []sandboxRule {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	link := real != filepath.Clean(root)
	var above bool
	for _, d := range denied {
		if within(d, real) {
			return nil
		}
		above = above || within(real, d)
	}
	switch {
	case !above:
		return []sandboxRule{{real, access}}
	case link:
		return nil // the folder it leads to is walked under its own name
	}
	rules := []sandboxRule{{real, access &^ (accessReadFile | accessExecute | accessRefer)}}
	entries, _ := os.ReadDir(real)
	for _, e := range entries {
		rules = append(rules, expandRule(filepath.Join(real, e.Name()), access, denied)...)
	}
	return rules
}
