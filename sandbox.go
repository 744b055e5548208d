package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// How the sandbox confines a command (Linux; elsewhere the permission check alone limits commands):
// Sandbox.Start hands it, with an environment stripped of credentials, to the supervisor
// (sandbox_supervisor_linux.go), minicode run again in new namespaces (user, mount, PID, network, IPC, as
// far as the system allows), which forks it from a confined thread. The supervisor's setup
// (sandbox_mounts_linux.go) makes the mounts once: its own /proc and devices, build caches as overlays, the
// denied paths (secrets) masked and the protected paths read-only; it builds the Landlock rules
// (sandbox_landlock_linux.go: read all but the denied, write only the workspace, TMPDIR and the caches) and
// the seccomp filter (sandbox_seccomp_linux.go: no Unix sockets by path, no io_uring, no new user
// namespaces or mounts). The protected paths (sandbox_protect*.go, sandbox_tree.go) are what configures git
// and agents, which a command may not change even in the workspace; what it plants among them is moved out
// when it ends. sandbox_status.go reports which layers hold.

// SandboxConfig is what a session's sandbox is made from.
type SandboxConfig struct {
	Workspace, UserHome, Home string // Home is minicode's own folder ($MINICODE_HOME)
	Settings                  SandboxSettings
	DenyWrite                 []string // folders Edit and Write deny rules name
	DenyMatching              []string // patterns over the workspace whose matches Read deny rules name
	Getenv                    func(string) string
	bare                      bool // no namespaces, as where none can be made (for tests)
}

// sandboxDisabled is why there is no sandbox when the settings say so.
const sandboxDisabled = "turned off by the setting sandbox.enabled"

// supervisorArg, as minicode's first argument, makes it the sandbox's supervisor.
const supervisorArg = "__minicode-sandbox-supervisor"

// Sandbox runs commands in the sandbox, on Linux through a supervisor process started once per session
// (sandbox_supervisor_linux.go) when first needed, so that a session running no command does not wait
// for it. Without one, commands run plainly and reason says why.
type Sandbox struct {
	TempDir  string       // the private temp folder (TMPDIR of every command)
	Notice   func(string) // tells the user what the sandbox removed, or that it could not start
	passEnv  []string
	guard    *protectedPaths
	plan     *supervisorPlan // nil when turned off
	once     sync.Once       // starts the supervisor; then done is set, with the fields below
	done     atomic.Bool
	reason   string // why there is no sandbox
	report   sandboxReport
	super    *supervisor
	extraEnv []string // the private folders of caches without an overlay
}

// supervisorPlan is what the supervisor sets up.
type supervisorPlan struct {
	Flags     uintptr // the namespaces it was started in
	Bare      bool    // try none
	Shell     string
	Network   bool
	DenyRead  []string // paths commands may not read, ReadAgain aside
	ReadAgain []string
	Matching  []string // patterns of paths in the workspace commands may not read, matched at the start
	Workspace string
	KeptOut   []string // folders inside the workspace that stay read-only: the home folder a workspace above it holds
	Write     []string // more folders commands may change
	Anchors   []string // folders bound onto themselves, so that they cannot be renamed
	ReadOnly  []string // protected paths
	Caches    []buildCache
}

// missing reports whether nothing is at path.
func missing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// newSandbox starts the sandbox of a session, or says why there is none.
func newSandbox(cfg SandboxConfig) (*Sandbox, error) {
	s := &Sandbox{passEnv: cfg.Settings.PassEnv}
	if cfg.Settings.Enabled != nil && !*cfg.Settings.Enabled {
		s.reason = sandboxDisabled
		return s, nil
	}
	// To deny it, it must exist: sessions and tokens come later. One minicode may not make (a folder it
	// cannot write, a read-only system) holds nothing to deny, nor will; a full disk may free up.
	if err := os.MkdirAll(cfg.Home, 0o700); err != nil && (errors.Is(err, syscall.ENOSPC) || !missing(cfg.Home)) {
		return nil, fmt.Errorf("creating %s: %w", cfg.Home, err)
	}
	var err error
	if s.TempDir, err = os.MkdirTemp("", "minicode-tmp-"); err != nil {
		return nil, fmt.Errorf("creating the sandbox temp folder: %w", err)
	}
	if err := supervisorUnavailable(); err != nil {
		s.reason = err.Error()
		return s, nil
	}
	state := filepath.Join(cfg.Home, "sandbox", regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(cfg.Workspace, "-"))
	s.guard = watchProtected(cfg.Workspace, state, cfg.DenyWrite)
	home, getenv := cfg.UserHome, cfg.Getenv
	plan := supervisorPlan{Bare: cfg.bare, Network: cfg.Settings.Network,
		DenyRead:  existingPaths(home, slices.Concat(secretPaths(), []string{cfg.Home}, cfg.Settings.DenyRead)),
		ReadAgain: existingPaths(home, []string{filepath.Join(cfg.Home, "skills"), ".claude/skills"}),
		Matching:  cfg.DenyMatching, Workspace: cfg.Workspace, KeptOut: keptOut(cfg.Workspace, home), Write: append(existingPaths(home, cfg.Settings.AllowWrite), s.TempDir)}
	for _, c := range buildCaches(home, getenv) {
		if c.Make {
			os.MkdirAll(c.Path, 0o755) // a fresh HOME: the tools need these folders
		}
		if real, err := filepath.EvalSymlinks(c.Path); err == nil {
			dir := filepath.Join(state, c.Name)
			c.Path, c.Upper, c.Work, c.Private = real, filepath.Join(dir, "upper"), filepath.Join(dir, "work"), filepath.Join(dir, "private")
			plan.Caches = append(plan.Caches, c)
		}
	}
	s.plan = &plan
	return s, nil
}

// start starts the supervisor, once; a failure is told (outside the once, as the notice's listeners
// may ask about the sandbox), as commands then run without it.
func (s *Sandbox) start() {
	var err error
	s.once.Do(func() {
		defer s.done.Store(true)
		if s.plan == nil {
			return
		}
		s.plan.ReadOnly, s.plan.Anchors = s.guard.mounts()
		if s.super, s.report, err = startSupervisor(*s.plan); err != nil {
			s.reason = err.Error()
		} else {
			s.guard.sealed, s.guard.reprotect, s.guard.stopAll = s.super.sealed, s.super.protect, s.super.stopAll
		}
		for _, c := range s.plan.Caches {
			if slices.Contains(s.report.Fallback, c.Path) && c.Env != "" {
				s.extraEnv = append(s.extraEnv, c.Env+"="+c.Private)
			}
		}
	})
	if err != nil && s.Notice != nil {
		s.Notice("Commands run without the sandbox: " + err.Error())
	}
}

// keptOut are the folders inside a workspace above them that commands may not change: the home
// folder, whose dotfiles run outside the sandbox (.bashrc, .gitconfig, ~/.local/bin), and the system's.
func keptOut(workspace, home string) []string {
	return slices.DeleteFunc(existingPaths(home, []string{home, "/etc", "/usr", "/var", "/boot", "/opt", "/root", "/srv", "/bin", "/sbin", "/lib", "/lib64"}),
		func(p string) bool { return !within(workspace, p) })
}

// secretPaths are what commands may not read (from the home folder): keys and credentials, the password
// store, keyrings, browser profiles, shell histories, Claude Code's sessions and settings; the system's
// password hashes and host keys (readable to root); the devices but those allowed.
func secretPaths() []string {
	return []string{".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".netrc", ".git-credentials", ".config/gh", ".config/hub",
		".docker/config.json", ".config/containers/auth.json", ".kube", ".pypirc", ".npmrc", ".gem/credentials", ".cargo/credentials",
		".cargo/credentials.toml", ".vault-token", ".terraform.d/credentials.tfrc.json", ".pgpass", ".my.cnf", ".password-store",
		".local/share/keyrings", ".mozilla", ".config/google-chrome", ".config/chromium", ".bash_history", ".zsh_history", ".zhistory",
		".local/share/fish/fish_history", ".python_history", ".psql_history", ".mysql_history", ".node_repl_history", ".claude", ".claude.json",
		"/etc/shadow", "/etc/gshadow", "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key", "/dev"}
}

// buildCache is a build tool's cache, which every project on the machine shares. A sandboxed command sees
// it through an overlay with a writable layer of the workspace's own (Upper, Work); without overlays it
// stays read-only, and the tool's variable (Env) points at a private folder.
type buildCache struct {
	Name, Path, Env      string
	Make                 bool // create it when missing
	Upper, Work, Private string
}

// buildCaches are the caches of Go, Node, Python and Rust, not the programs beside some, which run outside.
func buildCaches(home string, getenv func(string) string) []buildCache {
	cache := cmp.Or(getenv("XDG_CACHE_HOME"), filepath.Join(home, ".cache"))
	gopath := cmp.Or(strings.Split(getenv("GOPATH"), ":")[0], filepath.Join(home, "go"))
	cargo := cmp.Or(getenv("CARGO_HOME"), filepath.Join(home, ".cargo"))
	return []buildCache{
		{Name: "go-build", Path: cmp.Or(getenv("GOCACHE"), filepath.Join(cache, "go-build")), Env: "GOCACHE", Make: true},
		{Name: "go-mod", Path: cmp.Or(getenv("GOMODCACHE"), filepath.Join(gopath, "pkg", "mod")), Make: true},
		{Name: "npm", Path: cmp.Or(getenv("npm_config_cache"), filepath.Join(home, ".npm")), Env: "npm_config_cache", Make: true},
		{Name: "yarn", Path: filepath.Join(cache, "yarn"), Env: "YARN_CACHE_FOLDER"},
		{Name: "pnpm", Path: filepath.Join(home, ".local", "share", "pnpm", "store")},
		{Name: "pip", Path: cmp.Or(getenv("PIP_CACHE_DIR"), filepath.Join(cache, "pip")), Env: "PIP_CACHE_DIR", Make: true},
		{Name: "uv", Path: cmp.Or(getenv("UV_CACHE_DIR"), filepath.Join(cache, "uv")), Env: "UV_CACHE_DIR"},
		{Name: "poetry", Path: filepath.Join(cache, "pypoetry"), Env: "POETRY_CACHE_DIR"},
		{Name: "cargo-registry", Path: filepath.Join(cargo, "registry")},
		{Name: "cargo-git", Path: filepath.Join(cargo, "git")},
	}
}

// Close stops the supervisor, which ends every sandboxed process, and
// removes the temp folder; a supervisor not yet started never starts.
func (s *Sandbox) Close() {
	if s.once.Do(func() { s.reason = "the session ended"; s.done.Store(true) }); s.super != nil {
		s.super.close()
	}
	os.RemoveAll(s.TempDir) // nothing when there is none
}

// Accept is told of a file a file tool wrote, which the patrol of protected paths then leaves in place.
func (s *Sandbox) Accept(path string, data []byte) {
	if s != nil && s.guard != nil {
		s.guard.accept(path, data)
	}
}

// Planted are the protected paths, relative to the workspace, that differ from what was there while no command
// ran: what a running command may have planted, which a checkpoint must not keep (a rewind writes outside the sandbox).
func (s *Sandbox) Planted() []string {
	if s == nil || s.guard == nil {
		return nil
	}
	return s.guard.planted()
}

// Sandboxed reports whether commands run in the sandbox unless asked not to; it starts the supervisor.
func (s *Sandbox) Sandboxed() bool {
	if s == nil {
		return false
	}
	s.start()
	return s.super != nil
}

// Label is the status line's word for the sandbox; it starts nothing.
func (s *Sandbox) Label() string {
	if s != nil && s.plan != nil && !s.done.Load() {
		return "sandboxed" // from the first command on
	}
	return map[bool]string{true: "sandboxed", false: "no sandbox"}[s.Sandboxed()]
}

// CommandSpec is one shell command to run.
type CommandSpec struct {
	Dir, Command   string
	Stdout, Stderr io.Writer
	Unsandboxed    bool   // run plainly: the user approved leaving the sandbox
	Readable       string // the session's stored results, which a sandboxed command may read
}

// Start starts a command under bash in the sandbox, or plainly when spec.Unsandboxed is set or there is
// none, either way without minicode's credentials in its environment. Cancelling ctx kills all it started.
func (s *Sandbox) Start(ctx context.Context, spec CommandSpec) (p *Process, err error) {
	if s.Sandboxed() && !spec.Unsandboxed {
		var readOnly, anchors []string
		if s.guard.commandStarted() { // and what the user's git made or replaced since the last is protected too
			go s.guard.patrol(s.Notice)
			readOnly, anchors = s.guard.mounts()
		}
		if p, err = s.super.start(spec, append(s.commandEnv(), s.extraEnv...), readOnly, anchors); err == nil {
			p.finish = func() string { // moves out what it made among the protected paths, and says so
				s.guard.commandEnded()
				note := s.guard.sweep()
				if note != "" && s.Notice != nil {
					s.Notice(note)
				}
				return s.guard.told(note)
			}
		} else {
			s.guard.commandEnded()
		}
	} else {
		cmd := exec.Command("bash", "-c", spec.Command)
		cmd.Dir, cmd.Env = spec.Dir, s.commandEnv()
		p, err = startPlain(cmd, spec.Stdout, spec.Stderr)
	}
	if err != nil {
		return nil, fmt.Errorf("starting bash: %w", err)
	}
	go func() {
		select {
		case <-ctx.Done():
			p.Signal(syscall.SIGKILL)
		case <-p.exited:
		}
	}()
	return p, nil
}

// commandEnv is minicode's environment without the variables that hold credentials, but those passed on.
func (s *Sandbox) commandEnv() []string {
	var env, passEnv []string
	if s != nil {
		passEnv = s.passEnv
	}
	for _, kv := range os.Environ() {
		if name, value, _ := strings.Cut(kv, "="); !credentialVariable(name) && !urlPassword.MatchString(value) || slices.Contains(passEnv, name) {
			env = append(env, kv)
		}
	}
	if env = append(env, shellEnv...); s != nil && s.TempDir != "" {
		env = append(env, "TMPDIR="+s.TempDir)
	}
	return env
}

// urlPassword matches a URL with a password in it (DATABASE_URL, a proxy).
var urlPassword = regexp.MustCompile(`://[^/@\s:]*:[^/@\s]+@`)

// credentialVariable reports whether a name says its variable holds a credential (key, token, password, secret).
func credentialVariable(name string) bool {
	upper := strings.ToUpper(name)
	words := strings.Split(upper, "_") // GIT_AUTHOR_NAME is no AUTH
	return upper == "ANTHROPIC_CUSTOM_HEADERS" || slices.ContainsFunc(words, func(w string) bool { return w == "KEY" || w == "AUTH" || w == "PAT" }) ||
		strings.HasSuffix(upper, "_PWD") ||
		slices.ContainsFunc([]string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "APIKEY"}, func(word string) bool {
			return strings.Contains(upper, word)
		})
}

// refusalNote is what a failed sandboxed command's result adds.
func (s *Sandbox) refusalNote(output string) string {
	if !s.Sandboxed() || !strings.Contains(output, "Permission denied") && !strings.Contains(output, "Operation not permitted") &&
		!strings.Contains(output, "Read-only file system") {
		return ""
	}
	return "Note: this command ran in the sandbox, which allows writes only in the workspace (not its protected files such as " +
		".git/hooks, .git/config or agent settings), $TMPDIR and build caches; no network and no Unix sockets unless the settings " +
		"allow them; and no reading of secrets such as ~/.ssh. If the sandbox refused what the task needs, run the command again " +
		"with \"sandbox\": false and a \"reason\"; the user will be asked."
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
