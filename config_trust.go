package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// Workspace trust: what a project's files would run or allow (.mcp.json servers, allow rules, env, a
// permissive mode, allowed-tools) waits until the user trusts the workspace; what tightens always applies.

// The trust classes: a gated key applies only in a trusted workspace, a harmless one in any.
const gated, harmless = true, false

// trustTable classes every key of every project file minicode reads. Gated are the keys that could run code,
// send the conversation, a key or a file out, widen what the model may do, pick the model or its provider or
// their endpoints, or delete the user's data; harmless keys narrow, or change how minicode works in this
// workspace only. A test fails for a key not here. Keys minicode does not use (statusLine, otel…) apply nowhere.
var trustTable = map[string]bool{
	// .claude/settings.json, .minicode/settings.json, .claude/settings.local.json
	"settings: provider": gated, "settings: api": gated, "settings: model": gated, "settings: baseUrl": gated, "settings: webSearchUrl": gated,
	"settings: env": gated, "settings: hooks": gated, "settings: disableAllHooks": gated, // the user's hooks may be guards
	"settings: cleanupPeriodDays": gated,                                    // it prunes every project's sessions
	"settings: subagentDepth":     gated,                                    // nesting without end would spend tokens without end
	"settings: apiKeyHelper":      gated, "settings: outputStyle": harmless, // a style is text for the model, as memory is
	"settings: permissions.allow": gated, "settings: permissions.defaultMode": gated, "settings: permissions.additionalDirectories": gated,
	"settings: sandbox.enabled": gated, "settings: sandbox.network": gated, "settings: sandbox.allowWrite": gated,
	"settings: sandbox.passEnv": gated, "settings: sandbox.autoAllowBashIfSandboxed": gated, "settings: enabledMcpjsonServers": gated, "settings: enableAllProjectMcpServers": gated,
	"settings: permissions.ask": harmless, "settings: permissions.deny": harmless, "settings: sandbox.denyRead": harmless,
	"settings: disabledMcpjsonServers": harmless, "settings: maxTurns": harmless, "settings: maxTokens": harmless,
	"settings: modelLimits": harmless, "settings: contextWindow": harmless,
	"settings: compaction.micro": harmless, "settings: compaction.snip": harmless, "settings: compaction.collapse": harmless,
	"settings: compaction.auto": harmless, "settings: checkpoints.maxFiles": harmless, "settings: checkpoints.maxBytes": harmless,
	"settings: $schema": harmless,
	// .minicode/permissions.json
	"permissions.json: allow": gated, "permissions.json: deny": harmless,
	// .mcp.json: a stdio server runs its command, an HTTP one receives the ${VAR}s its entry names
	".mcp.json: mcpServers": gated,
	// the front matter of agents, commands, skills and rule files in .claude/ and .minicode/
	"front matter: allowed-tools": gated, "front matter: model": gated, "front matter: tools": harmless, // tools only narrows an agent's
	"front matter: name": harmless, "front matter: description": harmless, "front matter: when_to_use": harmless,
	"front matter: argument-hint": harmless, "front matter: context": harmless, "front matter: paths": harmless,
	"front matter: keep-coding-instructions": harmless, // an output style's
	// CLAUDE.md, AGENTS.md, MINI.md and the rule files: text for the model, which asks before it acts
	"memory: text": harmless, "memory: @include of a file outside the project": gated, "memory: link to a file outside the project": gated,
}

// narrowingValues are the values of gated settings that only narrow, which apply untrusted.
var narrowingValues = map[string][]string{"permissions.defaultMode": {"default", "plan", "dontAsk"}, "sandbox.enabled": {"true"}}

// dropGated removes the settings a project's file may use only in a trusted workspace, naming each with its file.
func (s *Settings) dropGated() []string {
	var names []string
	settingsKeys(reflect.ValueOf(s).Elem(), "", func(key string, v reflect.Value) {
		set := !v.IsZero()
		if k := v.Kind(); k == reflect.Slice || k == reflect.Map {
			set = v.Len() > 0
		}
		if isGated, known := trustTable["settings: "+key]; set && (isGated || !known) && !slices.Contains(narrowingValues[key], fmt.Sprint(reflect.Indirect(v))) {
			names = append(names, fmt.Sprintf("%s (%s)", key, s.source))
			v.SetZero()
		}
	})
	return names
}

// settingsKeys calls visit with each key of a settings struct (a nested one's as parent.key) and its value.
func settingsKeys(v reflect.Value, prefix string, visit func(key string, v reflect.Value)) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		switch name := jsonName(f); {
		case !f.IsExported() || name == "":
		case f.Type.Kind() == reflect.Struct:
			settingsKeys(v.Field(i), prefix+name+".", visit)
		default:
			visit(prefix+name, v.Field(i))
		}
	}
}

// trustFileName is the file in $MINICODE_HOME that keeps the answers.
const trustFileName = "trust.json"

// workspaceTrust reports whether the workspace is trusted and whether the user has answered: the nearest
// answer, minicode's before Claude Code's, wins. The answer for the home folder or a folder above it covers
// that folder alone, as every repository the user clones is inside. A broken trust file is passed to skip,
// and trusts nothing.
func workspaceTrust(home, userHome, workspace string, skip func(error)) (trusted, answered bool) {
	mine, err := readTrustAnswers(home)
	if err != nil {
		skip(err)
	}
	var claude struct {
		Projects map[string]struct {
			HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
		} `json:"projects"`
	}
	if data, err := os.ReadFile(filepath.Join(userHome, ".claude.json")); err == nil {
		_ = json.Unmarshal(data, &claude) // a file we cannot read trusts nothing
	}
	homeDir, err := filepath.EvalSymlinks(userHome) // as the workspace is resolved
	if err != nil {
		homeDir = userHome
	}
	for dir := workspace; ; dir = filepath.Dir(dir) {
		covers := dir == workspace || !within(dir, homeDir)
		if t, ok := mine[dir]; ok && covers {
			return t, true
		}
		if claude.Projects[dir].HasTrustDialogAccepted && covers {
			return true, true
		}
		if dir == filepath.Dir(dir) {
			return false, false
		}
	}
}

// readTrustAnswers reads the trust file, {"workspaces": {"/dir": true}}; a missing one trusts nothing.
func readTrustAnswers(home string) (map[string]bool, error) {
	var t struct {
		Workspaces map[string]bool `json:"workspaces"`
	}
	path := filepath.Join(home, trustFileName)
	data, err := os.ReadFile(path)
	if err == nil {
		err = decodeJSON(data, &t, false)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, fmt.Errorf("trust file %s: %w", path, err)
	}
	if t.Workspaces == nil {
		t.Workspaces = map[string]bool{}
	}
	return t.Workspaces, nil
}

// saveTrust records the user's answer for a workspace; a broken trust file is left as it is.
func saveTrust(home, workspace string, trusted bool) error {
	answers, err := readTrustAnswers(home)
	if err != nil {
		return fmt.Errorf("%w; mend or remove it to keep answers", err)
	}
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
	dirs, set, err := commandArgs(args, "revoke")
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
	if err := saveTrust(home, dir, !set["revoke"]); err != nil {
		return err
	}
	verdict := map[bool]string{false: "is trusted: its project settings, servers and skills' allowed-tools take effect",
		true: "is no longer trusted: its project settings, servers and skills' allowed-tools are ignored"}[set["revoke"]]
	fmt.Fprintf(stdout, "%s %s.\n", dir, verdict)
	return nil
}

// projectEnables lists what the project would enable in a trusted workspace. A project file that links outside
// the workspace is named without what it holds, which may be the user's own (a link to ~/.claude.json).
func (app *App) projectEnables(layers []Settings, servers []MCPServerConfig) []string {
	var out []string
	for _, l := range layers {
		wide := mergeSettings([]Settings{l}, app.Workspace, false).Ignored
		if line := linkedOut(app.Workspace, l.source); line != "" && len(wide) > 0 {
			wide = []string{line}
		}
		out = append(out, wide...)
	}
	mcpFile := filepath.Join(app.Workspace, projectMCPFile)
	if line := linkedOut(app.Workspace, mcpFile); line != "" && slices.ContainsFunc(servers, func(c MCPServerConfig) bool { return c.Source == mcpFile }) {
		out, servers = append(out, line), nil
	}
	for _, c := range servers {
		switch {
		case c.Source != mcpFile:
		case c.isHTTP():
			out = append(out, fmt.Sprintf("MCP server %s connects to %s (%s)", c.Name, c.URL, projectMCPFile))
		default:
			out = append(out, fmt.Sprintf("MCP server %s runs %s (%s)", c.Name, strings.Join(append([]string{c.Command}, c.Args...), " "), projectMCPFile))
		}
	}
	for _, s := range app.Skills.Skills {
		if len(s.AllowedTools) > 0 && s.Source == "project" { // also of a folder above the workspace, up to the repository's root
			out = append(out, fmt.Sprintf("skill %s allows %s", s.Name, strings.Join(s.AllowedTools, ", ")))
		}
	}
	for _, c := range app.Commands {
		if len(c.AllowedTools) > 0 && c.Problem == "" && app.projectFile(c.Path) {
			out = append(out, cmp.Or(linkedOut(app.Workspace, c.Path), fmt.Sprintf("command /%s allows %s", c.Name, strings.Join(c.AllowedTools, ", "))))
		}
	}
	return out
}

// linkedOut is the trust notice's line for a project file that links outside the workspace, or "".
func linkedOut(workspace, path string) string {
	if real, err := filepath.EvalSymlinks(path); err != nil || within(workspace, real) {
		return ""
	}
	return "use " + path + ", which links outside the project"
}

// projectFile reports whether a command or skill file is the project's: in the workspace, and not in the user's
// own folders, which a workspace at the home folder holds.
func (app *App) projectFile(path string) bool {
	for _, dir := range []string{app.Home, filepath.Join(userHome(app.getenv), ".claude")} {
		if real, _ := resolveExisting(dir); within(dir, path) || within(real, path) {
			return false
		}
	}
	return within(app.Workspace, path)
}

// decideTrust settles whether the workspace is trusted, asking once if the project would enable something and
// a person at a terminal can answer: piped input is the task, not an answer to keep.
func (app *App) decideTrust(ctx context.Context, wide []string) (bool, error) {
	trusted, answered := workspaceTrust(app.Home, userHome(app.getenv), app.Workspace, app.reportBroken)
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
		if err := saveTrust(app.Home, app.Workspace, answer); err != nil || answer {
			return answer, err
		}
	}
	fmt.Fprintf(app.stderr, "minicode: this workspace is not trusted, so its project files were not allowed to: %s. Run 'minicode trust' to allow them "+
		"(in CI, run it before the task, or name the files with --settings and --mcp-config).\n", strings.Join(wide, "; "))
	return false, nil
}

// reportBroken tells the user of a broken file or rule (each of a joined error), which minicode runs without.
func (app *App) reportBroken(err error) {
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, err := range errs {
		if errors.Is(err, errKeptRestrictions) {
			fmt.Fprintf(app.stderr, "minicode: %v\n", err)
		} else {
			fmt.Fprintf(app.stderr, "minicode: %v; running without it\n", err)
		}
	}
}

// loadConfig reads the settings and MCP configuration, settles whether the project is trusted,
// and returns the merged settings, that answer and the MCP servers to start.
func (app *App) loadConfig(ctx context.Context) (Settings, bool, []MCPServerConfig, error) {
	layers, err := loadSettings(app.Home, userHome(app.getenv), app.Workspace, app.Opts.Settings, app.Opts.SettingSources, app.reportBroken)
	if err != nil {
		return Settings{}, false, nil, err
	}
	servers, err := loadRunMCPServers(app.Home, app.Workspace, app.Opts.MCPConfig, app.Opts.StrictMCPConfig, app.reportBroken)
	if err != nil {
		return Settings{}, false, nil, err
	}
	for _, l := range layers {
		app.debugf("settings read from %s", l.source)
	}
	trusted, err := app.decideTrust(ctx, app.projectEnables(layers, servers))
	if err != nil {
		return Settings{}, false, nil, err
	}
	app.debugf("workspace %s trusted: %v", app.Workspace, trusted)
	settings := mergeSettings(layers, app.Workspace, trusted)
	if len(settings.Unknown) > 0 {
		fmt.Fprintf(app.stderr, "minicode: ignoring settings minicode does not use: %s\n", strings.Join(settings.Unknown, ", "))
	}
	servers = selectProjectServers(servers, settings, app.Workspace, trusted)
	for _, c := range servers {
		app.debugf("MCP server %s from %s", c.Name, c.Source)
	}
	return settings, trusted, servers, nil
}

// withSettingsEnv is getenv with the settings' env on top; the variables are also set in
// minicode's own environment, for the commands and servers it starts.
func withSettingsEnv(getenv func(string) string, env map[string]string) (func(string) string, error) {
	for name, v := range env {
		if err := os.Setenv(name, v); err != nil {
			return nil, fmt.Errorf("settings env %s: %w", name, err)
		}
	}
	if len(env) == 0 {
		return getenv, nil
	}
	return func(name string) string {
		if v, ok := env[name]; ok {
			return v
		}
		return getenv(name)
	}, nil
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
