package main

import "slices"

// claudeTool is what one of Claude Code's tool names stands for.
type claudeTool struct {
	// tools are the minicode tools the name stands for in hook matchers,
	// the tool lists of agents, skills and commands, and --tools.
	tools []string
	// rule is what a permission rule written with the name covers: one
	// tool, or the Read or Edit alias; "" keeps the name as written.
	rule string
}

// claudeTools maps Claude Code's tool names to minicode's, so its files work unchanged.
func claudeTools() map[string]claudeTool {
	return map[string]claudeTool{
		"Bash":         {[]string{"run_command", "command_output", "command_kill"}, "run_command"},
		"Read":         {[]string{"read_file"}, readAlias},
		"Write":        {[]string{"write_file"}, editAlias},
		"Edit":         {[]string{"edit_file", "patch_file"}, editAlias},
		"MultiEdit":    {[]string{"patch_file"}, editAlias},
		"NotebookEdit": {nil, editAlias},
		"Glob":         {[]string{"glob_files"}, "glob_files"},
		"Grep":         {[]string{"grep_files"}, "grep_files"},
		"LS":           {[]string{"list_files"}, "list_files"},
		"WebFetch":     {[]string{"web_fetch"}, "web_fetch"},
		"WebSearch":    {[]string{"web_search"}, "web_search"},
		"Task":         {[]string{"task"}, "task"},
		"Skill":        {[]string{"load_skill"}, ""},
	}
}

// minicodeToolNames returns the minicode tools a minicode or Claude Code name stands for.
func minicodeToolNames(name string) []string {
	if ours := claudeTools()[name].tools; ours != nil {
		return ours
	}
	return []string{name}
}

// toolNamesFor returns a minicode tool's names: its own and Claude Code's.
func toolNamesFor(tool string) []string {
	names := []string{tool}
	for claude, c := range claudeTools() {
		if slices.Contains(c.tools, tool) {
			names = append(names, claude)
		}
	}
	return names
}
