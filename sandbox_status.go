package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// The sandbox's layers, as minicode sandbox, /status and the init event name them.
const (
	layerLandlock    = "Landlock"
	layerLandlockNet = "Landlock TCP rules"
	layerSeccomp     = "seccomp filter"
	layerUserNS      = "user namespace"
	layerMountNS     = "mount namespace"
	layerPIDNS       = "PID namespace"
	layerNetNS       = "network namespace"
	layerIPCNS       = "IPC namespace"
	layerProc        = "private /proc"
	layerDevices     = "private /dev/pts and /dev/shm"
	layerProtect     = "read-only protected paths"
	layerCaches      = "build cache overlays"
	layerNestedPID   = "a PID namespace per command"
)

// sandboxReport is what the supervisor could set up: each missing layer
// with the reason, the Landlock ABI, and the caches without an overlay.
type sandboxReport struct {
	Lost     map[string]string
	ABI      int
	Fallback []string
}

// sandboxGuarantee is a promise and the layers it rests on: all of one alternative (none: it always holds).
type sandboxGuarantee struct {
	text  string
	needs [][]string
}

// sandboxGuarantees are the promises; network drops the one it lifts.
func sandboxGuarantees(network bool) []sandboxGuarantee {
	g := []sandboxGuarantee{
		{"writes only in the workspace, the temp folder and the build caches, no device files", [][]string{{layerLandlock}}},
		{"protected paths that exist (.git/hooks, .git/config, .git/info, agent settings, memory, skills, .envrc, .vscode, .idea, Edit deny rules) read-only",
			[][]string{{layerMountNS, layerProtect}}},
		{"protected paths a command makes are removed when it ends", [][]string{{layerNestedPID}}},
		{"no Unix sockets (ssh-agent, Docker, D-Bus, tmux), no other terminal, no typing into one", [][]string{{layerSeccomp, layerLandlock}}},
		{"build caches: nothing written reaches another project", [][]string{{layerLandlock}}},
		{"secrets unreadable: ~/.ssh, ~/.aws and the like, minicode's and Claude Code's sessions and credentials", [][]string{{layerLandlock}}},
		{"no API key or other credential in the environment (but sandbox.passEnv)", nil},
		{"other processes out of reach (/proc, signals, ptrace)", [][]string{{layerPIDNS, layerProc}}},
		{"no process outlives its command, setsid daemons included", [][]string{{layerNestedPID}}},
		{"no io_uring, bpf, keyrings, mounts or new user namespaces", [][]string{{layerSeccomp}}},
	}
	if !network {
		g = append(g, sandboxGuarantee{"no network of any kind (TCP, UDP, raw, MPTCP, DNS)", [][]string{{layerNetNS}, {layerSeccomp, layerLandlock, layerLandlockNet}}})
	}
	return g
}

// held tells whether a guarantee holds; if not, it names what it lacks.
func (s *Sandbox) held(g sandboxGuarantee) (bool, string) {
	var missing []string
	for _, alt := range g.needs {
		if missing = slices.DeleteFunc(slices.Clone(alt), func(l string) bool { _, lost := s.report.Lost[l]; return !lost }); len(missing) == 0 {
			break
		}
	}
	return len(missing) == 0, g.text + " (without " + strings.Join(missing, ", ") + ")"
}

// Status says in one line what the sandbox holds, or that there is none.
func (s *Sandbox) Status() string {
	if !s.Sandboxed() {
		reason := "none made"
		if s != nil {
			reason = s.reason
		}
		return "no sandbox (" + reason + "): commands are limited by the permission check alone"
	}
	if lost := s.lost(); lost != nil {
		return "sandboxed, with guarantees lost: " + strings.Join(lost, "; ") + " (minicode sandbox tells why)"
	}
	return fmt.Sprintf("sandboxed: Landlock ABI %d, seccomp, user, mount, PID, network and IPC namespaces; every guarantee holds", s.report.ABI)
}

// lost lists the guarantees lost, each with what it lacks.
func (s *Sandbox) lost() []string {
	var lost []string
	for _, g := range sandboxGuarantees(s.plan.Network) {
		if ok, why := s.held(g); !ok {
			lost = append(lost, why)
		}
	}
	return lost
}

// Holds reports whether commands run in the sandbox and every guarantee holds.
func (s *Sandbox) Holds() bool { return s.Sandboxed() && s.lost() == nil }

// Describe lists each layer and each guarantee as held or lost: the text of minicode sandbox and /sandbox.
func (s *Sandbox) Describe() string {
	if !s.Sandboxed() {
		return s.Status() + "\n"
	}
	var b strings.Builder
	b.WriteString("Layers:\n")
	for _, name := range []string{layerLandlock, layerLandlockNet, layerSeccomp, layerUserNS, layerMountNS, layerPIDNS, layerNetNS, layerIPCNS,
		layerProc, layerDevices, layerProtect, layerCaches, layerNestedPID} {
		why, lost := s.report.Lost[name]
		switch {
		case lost:
			fmt.Fprintf(&b, "  lost  %s: %s\n", name, why)
		case name == layerNetNS && s.plan.Network:
			fmt.Fprintf(&b, "  off   %s: sandbox.network allows the network\n", name)
		case name == layerLandlock:
			fmt.Fprintf(&b, "  held  %s (ABI %d)\n", name, s.report.ABI)
		default:
			fmt.Fprintf(&b, "  held  %s\n", name)
		}
	}
	b.WriteString("Guarantees:\n")
	for _, g := range sandboxGuarantees(s.plan.Network) {
		if ok, why := s.held(g); ok {
			fmt.Fprintf(&b, "  held  %s\n", g.text)
		} else {
			fmt.Fprintf(&b, "  lost  %s\n", why)
		}
	}
	if s.report.Fallback != nil {
		fmt.Fprintf(&b, "Read-only without an overlay (GOCACHE, npm's and pip's caches are private folders instead): %s\n", strings.Join(s.report.Fallback, ", "))
	}
	return b.String()
}

// runSandboxCommand is minicode sandbox [DIR]: it starts DIR's sandbox (default: here's) and describes it.
func runSandboxCommand(args []string, stdout io.Writer, getenv func(string) string) error {
	if len(args) > 1 || len(args) == 1 && strings.HasPrefix(args[0], "-") {
		return usageErrorf("usage: minicode sandbox [DIR]")
	}
	home, err := minicodeHome(getenv)
	if err != nil {
		return err
	}
	ws, err := resolveWorkspace(strings.Join(args, ""))
	if err != nil {
		return err
	}
	ignore := func(error) {} // `minicode sandbox` shows the sandbox; a start names broken files
	layers, err := loadSettings(home, userHome(getenv), ws, nil, nil, ignore)
	if err != nil {
		return err
	}
	trusted, _ := workspaceTrust(home, userHome(getenv), ws, ignore)
	sb, err := newSandbox(SandboxConfig{Workspace: ws, UserHome: userHome(getenv), Home: home, Settings: mergeSettings(layers, ws, trusted).Sandbox, Getenv: getenv})
	if err != nil {
		return err
	}
	defer sb.Close()
	fmt.Fprintf(stdout, "The sandbox of commands in %s\n%s", ws, sb.Describe())
	return nil
}
