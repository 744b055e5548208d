package main

// claudeToolNames maps Claude Code's tool names to the minicode tools they
// stand for, so that hook matchers, agent definitions and the allowed-tools
// of skills and commands written for Claude Code work unchanged.
func claudeToolNames() map[string][]string {
	return map[string][]string{
		"Bash":      {"run_command", "command_output", "command_kill"},
		"Read":      {"read_file"},
		"Write":     {"write_file"},
		"Edit":      {"edit_file", "patch_file"},
		"MultiEdit": {"patch_file"},
		"Glob":      {"glob_files"},
		"Grep":      {"grep_files"},
		"LS":        {"list_files"},
		"WebFetch":  {"web_fetch"},
		"WebSearch": {"web_search"},
		"Task":      {"task"},
		"Skill":     {"load_skill"},
	}
}

// minicodeToolNames turns a tool name as a definition lists it (minicode's
// or Claude Code's) into the minicode tools it stands for.
func minicodeToolNames(name string) []string {
	if ours, ok := claudeToolNames()[name]; ok {
		return ours
	}
	return []string{name}
}

// toolNamesFor returns the names a minicode tool answers to: its own and
// the Claude Code names that stand for it.
func toolNamesFor(tool string) []string {
	names := []string{tool}
	for claude, ours := range claudeToolNames() {
		for _, o := range ours {
			if o == tool {
				names = append(names, claude)
			}
		}
	}
	return names
}
