package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Workspace trust: what a project's files would run or allow (.mcp.json
// servers, allow rules, env, a permissive mode, allowed-tools) waits until
// the user trusts the workspace; what tightens always applies.

// trustFileName is the file in $MINICODE_HOME that keeps the answers.
const trustFileName = "trust.json"

// workspaceTrust reports whether the workspace is trusted and whether the user
// has answered: the nearest answer, minicode's before Claude Code's, wins.
func workspaceTrust(home, userHome, workspace string) (trusted, answered bool) {
	mine := readTrustAnswers(home)
	var claude struct {
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	if data, err := os.ReadFile(filepath.Join(userHome, ".claude.json")); err == nil {
		_ = json.Unmarshal(data, &claude) // a file we cannot read trusts nothing
	}
	for dir := workspace; ; dir = filepath.Dir(dir) {
		if t, ok := mine[dir]; ok {
			return t, true
		}
		if claude.Projects[dir].HasTrustDialogAccepted {
			return true, true
		}
		if dir == filepath.Dir(dir) {
			return false, false
		}
	}
}

// readTrustAnswers reads the trust file, {"workspaces": {"/dir": true}}; a missing or broken one trusts nothing.
func readTrustAnswers(home string) map[string]bool {
	var t struct {
		Workspaces map[string]bool `json:"workspaces"`
	}
	if data, err := os.ReadFile(filepath.Join(home, trustFileName)); err == nil {
		_ = json.Unmarshal(data, &t)
	}
	if t.Workspaces == nil {
		return map[string]bool{}
	}
	return t.Workspaces
}

// saveTrust records the user's answer for a workspace.
func saveTrust(home, workspace string, trusted bool) error {
	answers := readTrustAnswers(home)
	answers[workspace] = trusted
	data, _ := json.MarshalIndent(map[string]any{"workspaces": answers}, "", "  ") // a map of bools always encodes
	if err := writeFileAtomic(filepath.Join(home, trustFileName), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving workspace trust: %w", err)
	}
	return nil
}

// runTrustCommand is "minicode trust [--revoke] [DIR]".
func runTrustCommand(args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" }) {
		fmt.Fprintln(stderr, "usage: minicode trust [--revoke] [DIR]")
		return flag.ErrHelp
	}
	dirs, revoke, err := commandArgs(args, "revoke")
	if err != nil {
		return err
	}
	if len(dirs) > 1 {
		return usageErrorf("trust takes one folder, not %q", strings.Join(dirs, " "))
	}
	home, err := minicodeHome(getenv)
	if err != nil {
		return err
	}
	dir, err := resolveWorkspace(strings.Join(dirs, ""))
	if err != nil {
		return err
	}
	if err := saveTrust(home, dir, !revoke); err != nil {
		return err
	}
	if revoke {
		fmt.Fprintf(stdout, "%s is no longer trusted: its project settings, servers and skills' allowed-tools are ignored.\n", dir)
	} else {
		fmt.Fprintf(stdout, "%s is trusted: its project settings, servers and skills' allowed-tools take effect.\n", dir)
	}
	return nil
}

// projectEnables lists what the project would enable in a trusted workspace.
func (app *App) projectEnables(layers []Settings, servers []MCPServerConfig) []string {
	out := mergeSettings(layers, app.Workspace, false).Ignored
	for _, c := range servers {
		switch {
		case c.Source != filepath.Join(app.Workspace, projectMCPFile):
		case c.isHTTP():
			out = append(out, fmt.Sprintf("MCP server %s connects to %s (%s)", c.Name, c.URL, projectMCPFile))
		default:
			out = append(out, fmt.Sprintf("MCP server %s runs %s (%s)", c.Name, strings.Join(append([]string{c.Command}, c.Args...), " "), projectMCPFile))
		}
	}
	for _, s := range app.Skills.Skills {
		if len(s.AllowedTools) > 0 && within(app.Workspace, s.Dir) {
			out = append(out, fmt.Sprintf("skill %s allows %s", s.Name, strings.Join(s.AllowedTools, ", ")))
		}
	}
	for _, c := range app.Commands {
		if len(c.AllowedTools) > 0 && within(app.Workspace, c.Path) {
			out = append(out, fmt.Sprintf("command /%s allows %s", c.Name, strings.Join(c.AllowedTools, ", ")))
		}
	}
	return out
}

// decideTrust settles whether the workspace is trusted, asking once if the
// project would enable something and a person at a terminal can answer:
// piped input is the task, not an answer to keep.
func (app *App) decideTrust(ctx context.Context, wide []string) (bool, error) {
	trusted, answered := workspaceTrust(app.Home, userHome(app.getenv), app.Workspace)
	if trusted || len(wide) == 0 {
		return trusted, nil
	}
	if !app.Opts.Print && !answered && app.typed {
		fmt.Fprintf(app.stdout, "This workspace (%s) is not trusted yet. Trusting it lets its project files:\n  - %s\nTrust this workspace? [y/N] ",
			app.Workspace, strings.Join(wide, "\n  - "))
		line, err := app.lines.ReadLine(ctx)
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		answer := slices.Contains([]string{"y", "yes"}, strings.ToLower(strings.TrimSpace(line)))
		if err := saveTrust(app.Home, app.Workspace, answer); err != nil {
			return false, err
		}
		if answer {
			return true, nil
		}
	}
	fmt.Fprintf(app.stderr, "minicode: this workspace is not trusted, so its project files were not allowed to: %s. Run 'minicode trust' to allow them "+
		"(in CI, run it before the task, or name the files with --settings and --mcp-config).\n", strings.Join(wide, "; "))
	return false, nil
}

// loadConfig reads the settings and MCP configuration, settles trust and returns the MCP servers to start.
func (app *App) loadConfig(ctx context.Context) ([]MCPServerConfig, error) {
	layers, err := loadSettings(app.Home, userHome(app.getenv), app.Workspace, app.Opts.Settings, app.Opts.SettingSources)
	if err != nil {
		return nil, err
	}
	servers, err := loadRunMCPServers(app.Home, app.Workspace, app.Opts.MCPConfig, app.Opts.StrictMCPConfig)
	if err != nil {
		return nil, err
	}
	for _, l := range layers {
		app.debugf("settings read from %s", l.source)
	}
	trusted, err := app.decideTrust(ctx, app.projectEnables(layers, servers))
	if err != nil {
		return nil, err
	}
	app.debugf("workspace %s trusted: %v", app.Workspace, trusted)
	app.Settings = mergeSettings(layers, app.Workspace, trusted)
	if len(app.Settings.Unknown) > 0 {
		fmt.Fprintf(app.stderr, "minicode: ignoring settings minicode does not use: %s\n", strings.Join(app.Settings.Unknown, ", "))
	}
	app.Trusted = trusted
	if env := app.Settings.Env; len(env) > 0 {
		base := app.getenv
		app.getenv = func(name string) string {
			if v, ok := env[name]; ok {
				return v
			}
			return base(name)
		}
		for name, v := range env {
			if err := os.Setenv(name, v); err != nil { // for the commands and servers minicode starts
				return nil, fmt.Errorf("settings env %s: %w", name, err)
			}
		}
	}
	servers = selectProjectServers(servers, app.Settings, app.Workspace, trusted)
	for _, c := range servers {
		app.debugf("MCP server %s from %s", c.Name, c.Source)
	}
	return servers, nil
}

// selectProjectServers applies the enabled and disabled lists to the project's
// .mcp.json servers (all skipped unless trusted), the user's taking their place.
func selectProjectServers(servers []MCPServerConfig, s Settings, workspace string, trusted bool) []MCPServerConfig {
	projectFile := filepath.Join(workspace, projectMCPFile)
	onlyListed := len(s.EnabledMCPJSONServers) > 0 && !s.EnableAllProjectMCPServers
	var out []MCPServerConfig
	for _, c := range servers {
		skip := c.Source == projectFile && (!trusted ||
			slices.Contains(s.DisabledMCPJSONServers, c.Name) ||
			onlyListed && !slices.Contains(s.EnabledMCPJSONServers, c.Name))
		switch {
		case !skip:
			out = append(out, c)
		case c.Shadowed != nil:
			out = append(out, *c.Shadowed)
		}
	}
	return out
}
