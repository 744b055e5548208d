package main

import (
	"cmp"
	"flag"
	"fmt"
	"slices"
)

// ProgramOptions are the flags a program driving minicode passes, as the
// Agent SDK passes them to Claude Code.
type ProgramOptions struct {
	PermissionPromptTool string   // "stdio": ask the program with can_use_tool
	AllowSkipPermissions bool     // set_permission_mode may bypass permissions
	Tools                []string // the built-in tools offered; nil: all
	SettingSources       []string // the settings kinds read (user, project, local); nil: all
	NoSessionPersistence bool     // keep the session in memory only
	JSONSchema           string   // the final answer is JSON matching this schema
	MaxBudgetUSD         float64  // stop once the session cost more; 0: no limit
	Thinking             string   // adaptive, enabled or disabled
	MaxThinkingTokens    int
	Effort               string // low, medium, high, xhigh or max
}

// addProgramFlags defines the program interface's flags.
func addProgramFlags(fs *flag.FlagSet, p *ProgramOptions) {
	fs.StringVar(&p.PermissionPromptTool, "permission-prompt-tool", "", "with `stdio` and --input-format stream-json, ask the program (can_use_tool)")
	fs.BoolVar(&p.AllowSkipPermissions, "allow-dangerously-skip-permissions", false, "let the program switch to bypassPermissions")
	fs.Func("tools", "the built-in tools offered, a comma-separated `LIST` (default: all)", appendTo(&p.Tools, splitRuleList))
	fs.Func("setting-sources", "the settings files read, a `LIST` of user, project and local (default: all)", appendTo(&p.SettingSources, splitRuleList))
	fs.BoolVar(&p.NoSessionPersistence, "no-session-persistence", false, "keep the session in memory only")
	fs.StringVar(&p.JSONSchema, "json-schema", "", "the final answer as JSON matching `SCHEMA` (structured_output)")
	fs.Float64Var(&p.MaxBudgetUSD, "max-budget-usd", 0, "stop once the session has cost more than `N` dollars")
	fs.StringVar(&p.Thinking, "thinking", "", "the thinking `MODE`: adaptive, enabled or disabled")
	fs.IntVar(&p.MaxThinkingTokens, "max-thinking-tokens", 0, "let the model think up to `N` tokens")
	fs.StringVar(&p.Effort, "effort", "", "the model's effort `LEVEL`: low, medium, high, xhigh or max")
}

// thinkingBudget is the thinking the flags ask for, in tokens: 0 for none
// asked (the settings decide), -1 for thinking turned off.
func (p ProgramOptions) thinkingBudget() int {
	switch {
	case p.Thinking == "disabled":
		return -1
	case p.MaxThinkingTokens > 0:
		return p.MaxThinkingTokens
	case p.Thinking != "" || p.Effort != "":
		return map[string]int{"low": 2_000, "medium": 8_000, "high": 16_000, "xhigh": 32_000, "max": 64_000}[cmp.Or(p.Effort, "medium")]
	}
	return 0
}

// keepTools keeps the tools --tools names (in minicode's or Claude Code's
// names) and warns of unknown names.
func keepTools(tools []*Tool, names []string, warn func(string)) []*Tool {
	if names == nil || slices.Contains(names, "default") {
		return tools
	}
	var want []string
	for _, n := range names {
		named := minicodeToolNames(n)
		if !slices.ContainsFunc(tools, func(t *Tool) bool { return slices.Contains(named, t.Name) }) {
			warn(fmt.Sprintf("--tools: there is no tool %q", n))
		}
		want = append(want, named...)
	}
	return slices.DeleteFunc(slices.Clone(tools), func(t *Tool) bool { return !slices.Contains(want, t.Name) })
}
