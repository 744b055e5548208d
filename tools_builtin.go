package main

import (
	"fmt"
	"path/filepath"
)

// defaultSearchEndpoint is DuckDuckGo's plain HTML results page.
const defaultSearchEndpoint = "https://html.duckduckgo.com/html/"

// BuiltinConfig configures the built-in tools.
type BuiltinConfig struct {
	SearchEndpoint string   // results page web_search queries with the q parameter; "" for DuckDuckGo's
	Sandbox        *Sandbox // where run_command runs commands; nil runs them plainly
}

// Builtins holds the built-in tools and their background processes.
type Builtins struct {
	Tools     []*Tool
	Processes *processManager
}

// newBuiltins builds every built-in tool for cfg.
func newBuiltins(cfg BuiltinConfig) *Builtins {
	procs := newProcessManager(cfg.Sandbox)
	web := newWebClient(cfg)
	return &Builtins{
		Processes: procs,
		Tools: []*Tool{
			readFileTool(),
			writeFileTool(),
			editFileTool(),
			patchFileTool(),
			listFilesTool(),
			grepFilesTool(),
			globFilesTool(),
			runCommandTool(procs),
			commandOutputTool(procs),
			commandKillTool(procs),
			webFetchTool(web),
			webSearchTool(web),
			askUserTool(),
		},
	}
}

// displayPath names a path to the model: relative when in the workspace.
func displayPath(env *ToolEnv, abs string) string {
	if rel, err := filepath.Rel(env.Workspace, abs); err == nil && within(env.Workspace, abs) {
		return filepath.ToSlash(rel)
	}
	return abs
}

// resolveInput resolves a path given by the model against the workspace.
func resolveInput(env *ToolEnv, path string) (string, error) {
	abs, _, err := resolvePath(env.Workspace, path)
	if err != nil {
		return "", fmt.Errorf("cannot resolve path %q: %w", path, err)
	}
	return abs, nil
}

// readPermission is the permission request of a tool that only reads path.
func readPermission(env *ToolEnv, path, verb string) (PermissionRequest, error) {
	abs, err := resolveInput(env, path)
	if err != nil {
		return PermissionRequest{}, err
	}
	return PermissionRequest{Access: AccessRead, Paths: []string{abs}, Summary: verb + " " + displayPath(env, abs)}, nil
}

// optInt returns *p, or def when p is nil.
func optInt(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}
