package main

import (
	"cmp"
	"flag"
	"fmt"
	"slices"
	"strings"
)

// ProgramOptions are the flags a program driving minicode through the
// program interface (app_sdk.go) passes, as the Agent SDK passes them to
// Claude Code.
type ProgramOptions struct {
	// PermissionPromptTool "stdio" sends permission questions to the
	// program as can_use_tool control requests.
	PermissionPromptTool string
	// AllowSkipPermissions lets set_permission_mode switch to
	// bypassPermissions.
	AllowSkipPermissions bool
	// Tools are the built-in tools offered, by minicode's or Claude Code's
	// names; nil offers all of them ("default" too).
	Tools []string
	// SettingSources limits the settings files read to these kinds (user,
	// project, local); nil reads all of them.
	SettingSources []string
	// NoSessionPersistence keeps the session in memory only.
	NoSessionPersistence bool
	// JSONSchema asks for the final answer as JSON matching this schema.
	JSONSchema string
	// MaxBudgetUSD stops the session once it has cost more; 0 is no limit.
	MaxBudgetUSD float64
	// Thinking (adaptive, enabled or disabled), MaxThinkingTokens and
	// Effort choose how much the model may think before answering.
	Thinking          string
	MaxThinkingTokens int
	Effort            string
}

// addProgramFlags defines the program interface's flags.
func addProgramFlags(fs *flag.FlagSet, p *ProgramOptions) {
	fs.StringVar(&p.PermissionPromptTool, "permission-prompt-tool", "", "")
	fs.BoolVar(&p.AllowSkipPermissions, "allow-dangerously-skip-permissions", false, "")
	fs.Var(optionalList{&p.Tools}, "tools", "")
	fs.Var(optionalList{&p.SettingSources}, "setting-sources", "")
	fs.BoolVar(&p.NoSessionPersistence, "no-session-persistence", false, "")
	fs.StringVar(&p.JSONSchema, "json-schema", "", "")
	fs.Float64Var(&p.MaxBudgetUSD, "max-budget-usd", 0, "")
	fs.StringVar(&p.Thinking, "thinking", "", "")
	fs.IntVar(&p.MaxThinkingTokens, "max-thinking-tokens", 0, "")
	fs.StringVar(&p.Effort, "effort", "", "")
}

// checkProgramFlags rejects program-interface flags that cannot work.
func checkProgramFlags(opts Options) error {
	p := opts.ProgramOptions
	switch {
	case p.PermissionPromptTool != "" && p.PermissionPromptTool != "stdio":
		return usageErrorf("--permission-prompt-tool %q: minicode asks a program only over stdio (--permission-prompt-tool=stdio)", p.PermissionPromptTool)
	case p.PermissionPromptTool == "stdio" && opts.InputFormat != "stream-json":
		return usageErrorf("--permission-prompt-tool=stdio needs --input-format stream-json")
	case p.MaxBudgetUSD < 0:
		return usageErrorf("--max-budget-usd must not be negative")
	case !slices.Contains([]string{"", "adaptive", "enabled", "disabled"}, p.Thinking):
		return usageErrorf("--thinking must be adaptive, enabled or disabled, not %q", p.Thinking)
	case !slices.Contains([]string{"", "low", "medium", "high", "xhigh", "max"}, p.Effort):
		return usageErrorf("--effort must be low, medium, high, xhigh or max, not %q", p.Effort)
	}
	for _, s := range p.SettingSources {
		if !slices.Contains([]string{"user", "project", "local"}, s) {
			return usageErrorf("--setting-sources: unknown source %q (use user, project or local)", s)
		}
	}
	return nil
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

// optionalList is a flag holding a comma-separated list that may be given
// empty: "--tools=" offers no built-in tool, while a missing flag leaves
// the list nil. "--tools=default" means every tool.
type optionalList struct{ list *[]string }

// String returns the list as given.
func (f optionalList) String() string {
	if f.list == nil {
		return ""
	}
	return strings.Join(*f.list, ",")
}

// Set records the list; an empty value is an empty, non-nil list.
func (f optionalList) Set(value string) error {
	*f.list = []string{}
	for _, v := range strings.Split(value, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*f.list = append(*f.list, v)
		}
	}
	return nil
}

// keepTools leaves in the offered tools only those --tools names (in
// minicode's or Claude Code's names); an unknown name is a warning.
func keepTools(tools []*Tool, names []string, warn func(string)) []*Tool {
	if names == nil || slices.Contains(names, "default") {
		return tools
	}
	var want []string
	for _, n := range names {
		want = append(want, minicodeToolNames(n)...)
	}
	var kept []*Tool
	for _, t := range tools {
		if slices.Contains(want, t.Name) {
			kept = append(kept, t)
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(tools, func(t *Tool) bool { return slices.Contains(minicodeToolNames(n), t.Name) }) {
			warn(fmt.Sprintf("--tools: there is no tool %q", n))
		}
	}
	return kept
}

// keepSources leaves only the settings files of the given kinds (user,
// project, local: settings.local.json) among the layers read, and every
// --settings value; nil kinds keep every layer. files are the settings
// files minicode looks for.
func keepSources(layers, files []Settings, kinds []string) []Settings {
	if kinds == nil {
		return layers
	}
	kindOf := map[string]string{}
	for _, f := range files {
		switch {
		case strings.HasSuffix(f.source, "settings.local.json"):
			kindOf[f.source] = "local"
		case f.project:
			kindOf[f.source] = "project"
		default:
			kindOf[f.source] = "user"
		}
	}
	var kept []Settings
	for _, l := range layers {
		if k, ok := kindOf[l.source]; !ok || slices.Contains(kinds, k) {
			kept = append(kept, l)
		}
	}
	return kept
}
