package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// parseFlags reads the command line, whose flags may come before or after
// the task ("-p 'list files' --output-format json").
func parseFlags(args []string, stderr io.Writer) (opts Options, showVersion bool, err error) {
	var skipPermissions bool
	fs := newFlagSet(&opts, &skipPermissions, &showVersion)
	args = spreadVariadic(joinResumeValue(args))
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				printUsage(stderr, fs)
				return opts, false, err
			}
			return opts, false, describeFlagError(err)
		}
		if fs.NArg() == 0 {
			break
		}
		words = append(words, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if opts.InputFormat == "stream-json" {
		opts.Print = true // a program drives minicode: nobody at a terminal
	}
	if skipPermissions {
		opts.PermissionMode = string(ModeBypass)
	}
	if err := cmp.Or(checkFlagValues(opts), checkSessionFlags(opts)); err != nil {
		return opts, false, err
	}
	if opts.OutputFormat == "json" && opts.Verbose { // stream-json's lines, printed as one array
		opts.OutputFormat, opts.JSONArray = "stream-json", true
	}
	if len(words) > 0 && !opts.Print {
		return opts, false, usageErrorf("unexpected argument %q (to run a task, use -p %q)", words[0], strings.Join(words, " "))
	}
	opts.Task = strings.Join(words, " ")
	return opts, showVersion, nil
}

// newFlagSet defines every flag of the command line on opts; a flag's usage is its line in --help, naming
// its value in back quotes.
func newFlagSet(opts *Options, skipPermissions, showVersion *bool) *flag.FlagSet {
	fs := flag.NewFlagSet("minicode", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by exitCode
	fs.Usage = func() {}
	fs.BoolVar(&opts.Print, "print", false, "run one task to completion and exit (or -p)")
	fs.StringVar(&opts.OutputFormat, "output-format", "text", "the output `FORMAT`: text (default), json or stream-json")
	fs.StringVar(&opts.InputFormat, "input-format", "", "the input `FORMAT`: text, or stream-json (user messages as JSON lines on stdin)")
	fs.BoolVar(&opts.IncludePartialMessages, "include-partial-messages", false, "stream-json: add stream_event lines with the streamed deltas")
	fs.Bool("await-initialize", false, "stream-json input: the program's initialize request may carry MCP servers (always so in minicode)")
	fs.BoolVar(&opts.Verbose, "verbose", false, "with --output-format json, every message in one JSON array (stream-json is always complete)")
	fs.BoolFunc("debug", "log what is loaded and sent, on stderr", func(v string) error { // any value but false, such as a filter ("--debug=api")
		opts.Debug = v != "false"
		return nil
	})
	fs.StringVar(&opts.Model, "model", "", "the model: a `NAME` or an alias (sonnet, opus, haiku)")
	fs.StringVar(&opts.FallbackModel, "fallback-model", "", "the model `NAME` used when the model is overloaded or missing")
	fs.StringVar(&opts.Provider, "provider", "", "the provider `NAME`: anthropic, openai, ollama, lmstudio, openrouter, gemini or mock (default: the one whose API key is set; else mock)")
	fs.StringVar(&opts.API, "api", "", "the openai provider's `API`: chat (Chat Completions, the default) or responses")
	fs.StringVar(&opts.SystemPrompt, "system-prompt", "", "replace the built-in system prompt with `TEXT`")
	fs.StringVar(&opts.AppendSystemPrompt, "append-system-prompt", "", "add `TEXT` to the end of the system prompt")
	fs.StringVar(&opts.PermissionMode, "permission-mode", "", "the permission `MODE`: default, acceptEdits, plan, dontAsk or bypassPermissions")
	fs.BoolVar(skipPermissions, "dangerously-skip-permissions", false, "the same as --permission-mode bypassPermissions")
	fs.Func("allowedTools", "allow what `RULES` name, split by commas or spaces: \"Read Bash(go test:*)\" (or --allowed-tools)", appendTo(&opts.AllowedTools, splitRuleList))
	fs.Func("disallowedTools", "deny what `RULES` name (or --disallowed-tools)", appendTo(&opts.DisallowedTools, splitRuleList))
	oneValue := func(v string) []string { return []string{v} }
	fs.Func("add-dir", "more folders `DIR...` the tools may use", appendTo(&opts.AddDirs, oneValue))
	fs.Func("settings", "one more settings `FILE` or JSON, read last", appendTo(&opts.Settings, oneValue))
	fs.Func("mcp-config", "more MCP servers, from `FILE...` or JSON", appendTo(&opts.MCPConfig, oneValue))
	fs.BoolVar(&opts.StrictMCPConfig, "strict-mcp-config", false, "use only the MCP servers of --mcp-config")
	fs.IntVar(&opts.MaxTurns, "max-turns", 0, "at most `N` model round trips per task (default 50)")
	fs.StringVar(&opts.Workspace, "workspace", "", "the folder `DIR` the agent works in (default: the current folder)")
	fs.StringVar(&opts.MockScript, "mock-script", "", "the mock provider replays the scripted replies of `FILE`")
	fs.StringVar(&opts.MCPElicitation, "mcp-elicitation", "", "with -p, the `MODE` of answering MCP servers' questions: decline (default) or defaults")
	fs.BoolVar(showVersion, "version", false, "print the version")
	addSessionFlags(fs, opts)
	fs.StringVar(&opts.PermissionPromptTool, "permission-prompt-tool", "", "ask the `TOOL` mcp__server__tool, or with stdio and --input-format stream-json the program (can_use_tool)")
	fs.BoolVar(&opts.AllowSkipPermissions, "allow-dangerously-skip-permissions", false, "let the program switch to bypassPermissions")
	fs.Func("tools", "the built-in tools offered, a comma-separated `LIST` (default: all)", appendTo(&opts.Tools, splitRuleList))
	fs.Func("setting-sources", "the settings files read, a `LIST` of user, project and local (default: all)", appendTo(&opts.SettingSources, splitRuleList))
	fs.BoolVar(&opts.NoSessionPersistence, "no-session-persistence", false, "keep the session in memory only")
	fs.StringVar(&opts.JSONSchema, "json-schema", "", "the final answer as JSON matching `SCHEMA` (structured_output)")
	fs.Float64Var(&opts.MaxBudgetUSD, "max-budget-usd", 0, "stop once the session has cost more than `N` dollars")
	fs.StringVar(&opts.Thinking, "thinking", "", "the thinking `MODE`: adaptive, enabled or disabled")
	fs.IntVar(&opts.MaxThinkingTokens, "max-thinking-tokens", 0, "let the model think up to `N` tokens")
	fs.StringVar(&opts.Effort, "effort", "", "the model's effort `LEVEL`: low, medium, high, xhigh or max")
	for alias, name := range map[string]string{"p": "print", "c": "continue", "r": "resume",
		"allowed-tools": "allowedTools", "disallowed-tools": "disallowedTools"} {
		fs.Var(fs.Lookup(name).Value, alias, "") // another name of the flag, not in --help
	}
	return fs
}

// addSessionFlags defines --continue, --resume [ID], --session-id and --fork-session.
func addSessionFlags(fs *flag.FlagSet, opts *Options) {
	fs.BoolVar(&opts.Continue, "continue", false, "continue the newest session of this workspace (or -c)")
	// --resume alone (a boolean flag: "true") asks for the list; joinResumeValue has joined "--resume ID".
	resume := func(value string) error {
		opts.Resume, opts.ResumePick = value, value == "true"
		if opts.ResumePick {
			opts.Resume = ""
		}
		return nil
	}
	fs.BoolFunc("resume", "continue the session `[ID]`; without an ID, list the sessions to pick one (or -r)", resume)
	fs.StringVar(&opts.SessionID, "session-id", "", "the `UUID` of the new session")
	fs.BoolVar(&opts.ForkSession, "fork-session", false, "with --continue or --resume: continue into a new session")
}

// checkFlagValues rejects flag values that cannot work.
func checkFlagValues(opts Options) error {
	switch {
	case !slices.Contains([]string{"text", "json", "stream-json"}, opts.OutputFormat):
		return usageErrorf("unknown --output-format %q (use text, json or stream-json)", opts.OutputFormat)
	case !slices.Contains([]string{"", "text", "stream-json"}, opts.InputFormat):
		return usageErrorf("unknown --input-format %q (use text or stream-json)", opts.InputFormat)
	case opts.InputFormat == "stream-json" && opts.OutputFormat != "stream-json":
		return usageErrorf("--input-format stream-json needs --output-format stream-json")
	case opts.OutputFormat != "text" && !opts.Print:
		return usageErrorf("--output-format %s needs -p (or --input-format stream-json): the terminal UI prints text", opts.OutputFormat)
	case !slices.Contains([]string{"", "decline", "defaults"}, opts.MCPElicitation):
		return usageErrorf("--mcp-elicitation must be decline or defaults, not %q", opts.MCPElicitation)
	case opts.MaxTurns < 0:
		return usageErrorf("--max-turns must be a positive number")
	case opts.PermissionPromptTool != "" && opts.PermissionPromptTool != "stdio" && !strings.HasPrefix(opts.PermissionPromptTool, "mcp__"):
		return usageErrorf("--permission-prompt-tool %q: name an MCP tool (mcp__server__tool), or stdio for the program driving minicode", opts.PermissionPromptTool)
	case opts.PermissionPromptTool == "stdio" && opts.InputFormat != "stream-json":
		return usageErrorf("--permission-prompt-tool=stdio needs --input-format stream-json")
	case opts.MaxBudgetUSD < 0:
		return usageErrorf("--max-budget-usd must not be negative")
	case !slices.Contains([]string{"", "adaptive", "enabled", "disabled"}, opts.Thinking):
		return usageErrorf("--thinking must be adaptive, enabled or disabled, not %q", opts.Thinking)
	case !slices.Contains([]string{"", "low", "medium", "high", "xhigh", "max"}, opts.Effort):
		return usageErrorf("--effort must be low, medium, high, xhigh or max, not %q", opts.Effort)
	}
	for _, s := range opts.SettingSources {
		if !slices.Contains([]string{"user", "project", "local"}, s) {
			return usageErrorf("--setting-sources: unknown source %q (use user, project or local)", s)
		}
	}
	return nil
}

// checkSessionFlags rejects session flags that cannot go together.
func checkSessionFlags(opts Options) error {
	resuming := opts.Continue || opts.Resume != "" || opts.ResumePick
	switch {
	case opts.Continue && (opts.Resume != "" || opts.ResumePick):
		return usageErrorf("use either --continue or --resume, not both")
	case opts.ForkSession && !resuming:
		return usageErrorf("--fork-session needs --continue or --resume")
	case opts.SessionID != "" && !isSessionID(opts.SessionID):
		return usageErrorf("--session-id must be a UUID, such as %s", newSessionID())
	case opts.SessionID != "" && resuming && !opts.ForkSession:
		return usageErrorf("--session-id with --continue or --resume needs --fork-session (the resumed session keeps its id)")
	}
	return nil
}

// flagName is a flag as the flag package writes it in errors, with one dash.
var flagName = regexp.MustCompile(` -+(\pL[\pL\pN-]*)`)

// describeFlagError names the flag of a flag package error as it is written, with two dashes.
func describeFlagError(err error) error {
	msg := flagName.ReplaceAllString(err.Error(), " --$1")
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return usageErrorf("unknown flag %s", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return usageErrorf("flag %s needs a value", name)
	}
	return usageErrorf("%s", msg)
}

// joinResumeValue rewrites "--resume ID" as "--resume=ID" when the next word is no flag and holds no space.
func joinResumeValue(args []string) []string {
	args = slices.Clone(args)
	for i := 0; i+1 < len(args); i++ {
		name, next := strings.TrimLeft(args[i], "-"), args[i+1]
		if (name == "resume" || name == "r") && name != args[i] && next != "" && !strings.HasPrefix(next, "-") && !strings.ContainsAny(next, " \t\n") {
			args[i] += "=" + next
			args = slices.Delete(args, i+1, i+2)
		}
	}
	return args
}

// variadicValue tells which following arguments a flag that takes several
// values (as in Claude Code) takes; nil for other flags.
func variadicValue(arg string) func(string) bool {
	switch strings.TrimLeft(arg, "-") {
	case "add-dir":
		return isDir
	case "mcp-config":
		return func(s string) bool {
			info, err := os.Stat(s)
			return strings.HasPrefix(s, "{") || err == nil && info.Mode().IsRegular()
		}
	case "allowedTools", "allowed-tools", "disallowedTools", "disallowed-tools":
		return looksLikeRule
	}
	return nil
}

// spreadVariadic rewrites "--add-dir a b" as "--add-dir a --add-dir b",
// so that the flag package sees one value per flag.
func spreadVariadic(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		out = append(out, args[i])
		accepts := variadicValue(args[i])
		if !strings.HasPrefix(args[i], "-") || accepts == nil || i+1 >= len(args) {
			continue
		}
		flagArg := args[i]
		i++
		out = append(out, args[i])
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && accepts(args[i+1]) {
			i++
			out = append(out, flagArg, args[i])
		}
	}
	return out
}

// rulePattern is one permission rule: a capitalised or underscored tool
// name (Read, mcp__github), then maybe "(" and a specifier.
var rulePattern = regexp.MustCompile(`(?s)^(?:\p{Lu}[\pL\pN_-]*|[\pL\pN-]*_[\pL\pN_-]*)(?:\(.*)?$`)

// looksLikeRule reports whether s reads as permission rules (Read, mcp__github, Bash(go test:*),Edit)
// rather than a task, which has spaces outside parentheses.
func looksLikeRule(s string) bool {
	rules := splitRuleList(s)
	return len(rules) > 0 && (len(rules) == len(strings.Split(s, ",")) || strings.Contains(s, "(")) &&
		!slices.ContainsFunc(rules, func(r string) bool { return !rulePattern.MatchString(r) })
}

// appendTo is a repeatable flag whose values, cut by split, add up; once
// given, even empty ("--tools="), the list is not nil.
func appendTo(values *[]string, split func(string) []string) func(string) error {
	return func(v string) error {
		*values = append(append([]string{}, *values...), split(v)...)
		return nil
	}
}

// usageText is the start of --help; the flags follow.
const usageText = `minicode: a coding agent for the terminal.

Usage:
  minicode [flags]                 interactive session (line mode when stdin is not a terminal)
  minicode -p "task" [flags]       run one task and exit (the task may also come on stdin)
  minicode mcp add|list|remove|tools|call ...    manage and try MCP servers
  minicode skills list|add|remove ...            manage skills
  minicode trust [--revoke] [DIR]                trust a workspace's project files (or stop)
  minicode acp [flags]                           serve an editor over the Agent Client Protocol (stdio)
  minicode sandbox [DIR]                         what the sandbox holds here: each layer and guarantee

With no API key, minicode runs its offline demo model: try "help" or "list files".
Exit codes: 0 success, 1 task failed, 2 usage error, 130 interrupted.

Flags (--flag=value works; list flags may be repeated; -h or --help prints this):
`

// printUsage prints --help: usageText, then each flag by name.
func printUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, usageText)
	fs.VisitAll(func(f *flag.Flag) {
		if f.Usage != "" {
			arg, help := flag.UnquoteUsage(f)
			fmt.Fprintf(w, "  --%-34s %s\n", strings.TrimSpace(f.Name+" "+arg), help)
		}
	})
}
