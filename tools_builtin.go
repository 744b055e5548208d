package main

import "path/filepath"

// newBuiltins builds every built-in tool, web_search querying searchEndpoint ("" for
// DuckDuckGo) and run_command running in sb (nil: plainly); procs.Close stops them.
func newBuiltins(searchEndpoint string, sb *Sandbox) (tools []*Tool, procs *processManager) {
	procs = &processManager{sandbox: sb}
	web := newWebClient(searchEndpoint)
	return []*Tool{
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
	}, procs
}

// displayPath names a path to the model: relative when in the workspace.
func displayPath(env *ToolEnv, abs string) string {
	if rel, err := filepath.Rel(env.Workspace, abs); err == nil && within(env.Workspace, abs) {
		return filepath.ToSlash(rel)
	}
	return abs
}

// readPermission is the permission request of a tool that only reads path.
func readPermission(env *ToolEnv, path, verb string) (PermissionRequest, error) {
	abs, err := resolveInput(env, path)
	if err != nil {
		return PermissionRequest{}, err
	}
	return PermissionRequest{Access: AccessRead, Paths: []string{abs}, Named: []string{inputPath(env, path)}, Summary: verb + " " + displayPath(env, abs)}, nil
}
