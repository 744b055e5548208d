// Minicode is a coding agent for the terminal: it talks to a language
// model and lets it read, search, edit and run code in your workspace,
// under your control.
//
// Usage:
//
//	minicode [flags]                 interactive session (line mode when stdin is not a terminal)
//	minicode -p "task" [flags]       run one task to completion and exit
//	minicode mcp add|list|remove|tools|call ...   (minicode mcp help)
//	minicode skills list|add|remove ...
//	minicode trust [--revoke] [DIR]
//
// "minicode --help" lists the flags; Claude Code's names work too
// (--allowedTools, --output-format stream-json, --resume, ...). With no API
// key, the offline demo model answers a few plain requests ("list files",
// "help") through the real agent loop.
//
// Environment: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL,
// ANTHROPIC_MODEL, ANTHROPIC_CUSTOM_HEADERS, ANTHROPIC_SMALL_FAST_MODEL,
// CLAUDE_CODE_MAX_OUTPUT_TOKENS, API_TIMEOUT_MS, OPENAI_API_KEY,
// OPENAI_BASE_URL, MINICODE_MODEL, MINICODE_PROVIDER, MINICODE_HOME
// (default ~/.minicode) and MINI_CODE_MODEL_MODE=mock.
//
// Each session is saved as it happens in
// ~/.minicode/projects/<workspace>/<session-id>.jsonl; -c or --resume
// continues one. In line mode, Ctrl-C stops the turn; twice, minicode.
//
// Settings come from ~/.claude/settings.json, ~/.minicode/settings.json,
// the project's .claude/settings.json, .minicode/settings.json and
// .claude/settings.local.json, then --settings; flags and environment win.
// A mistake stops minicode with the file, line and field named. What a
// project's files would run or allow (stdio servers in .mcp.json, allow
// rules, hooks, env, ...) applies only in a trusted workspace: the first
// interactive start asks, and "minicode trust [--revoke] [DIR]" decides.
//
// Exit codes: 0 success (even if some calls were denied); 1 the task failed
// (model error, max turns); 2 usage error; 130 interrupted.
//
// Example:
//
//	$ minicode -p "list files" --output-format json
//	{"type":"result","subtype":"success","is_error":false,"result":"...","session_id":"...",...}
//
// Reading the code: each concern's files share a prefix; open them in
// this order.
//
//	main.go          flags, subcommands, exit codes
//	loop.go          the agent loop: one turn, step by step (message.go: the history)
//	provider*.go     the model: requests, streaming, retries; mock*.go is the demo model
//	tools*.go        the tools the model calls and their registry
//	permissions*.go  modes, rules, the command check, approvals
//	sandbox*.go      the Landlock sandbox; process*.go: process groups, bounded output
//	compact*.go      keeping the history inside the context window
//	session*.go      the journal on disk, resume and input history
//	app*.go          wiring it together: line mode, -p output, slash commands, the program interface
//	tty*.go          the full-screen terminal UI
//	mcp*.go          the MCP client and the "minicode mcp" commands
//	skills*.go       skills, memory files and /init; hooks*.go: hooks
//	config*.go       settings files and workspace trust; text.go: text helpers
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"unicode"
)

// version is the release of this build.
const version = "0.1.0"

func main() {
	log.SetFlags(0)
	log.SetPrefix("minicode: ")
	if os.Getenv("GOGC") == "" {
		// Each step's request and results are garbage by the next step: collecting half as
		// often costs a few MiB and saves about 15% of a long session's CPU (BenchmarkLongSession).
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// minicode mostly waits, on the model, files and commands. With one P a hand-off
		// between goroutines wakes no second thread: about 15% less CPU over a long session
		// (BenchmarkLongSession). grep_files takes every core while it searches.
		runtime.GOMAXPROCS(1)
	}
	// Ctrl-C is Run's: it ends -p but only interrupts a turn in line mode.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	err := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError is a mistake in how minicode was called.
type usageError struct{ error }

// usageErrorf formats a usageError.
func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// errTaskFailed marks a task that ran but failed, as its output said.
var errTaskFailed = errors.New("the task failed")

// exitCode maps Run's result to the exit status, printing an error not
// yet reported.
func exitCode(err error, stderr io.Writer) int {
	var usage usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, errTaskFailed):
		return exitFailed
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "minicode: %v\nRun 'minicode --help' for usage.\n", err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "minicode: %v\n", err)
		return exitFailed
	}
}

// Run is minicode with its arguments and standard streams: a subcommand,
// or the app built from the flags.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) > 0 {
		switch args[0] {
		case "skills", "mcp":
			return runSubcommand(ctx, args, stdin, stdout, stderr, getenv)
		case "trust":
			return runTrustCommand(args[1:], stdout, stderr, getenv)
		}
	}
	opts, showVersion, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if showVersion {
		fmt.Fprintln(stdout, "minicode", version)
		return nil
	}
	if opts.Print && opts.Task == "" && opts.InputFormat != "stream-json" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("reading the task from stdin: %w", err)
		}
		opts.Task = strings.TrimSpace(string(data))
		if opts.Task == "" {
			return usageErrorf("-p needs a task, as an argument or on stdin")
		}
	}
	app, err := newApp(ctx, opts, stdin, stdout, stderr, getenv)
	if err != nil {
		return err
	}
	defer app.Close()
	if opts.Print {
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
		defer stop()
		return app.runHeadless(ctx, opts.Task)
	}
	if in, out, ok := terminalPair(stdin, stdout); ok {
		err = app.runTUI(ctx, in, out)
	} else {
		interrupts := make(chan os.Signal, 1)
		signal.Notify(interrupts, os.Interrupt)
		defer signal.Stop(interrupts)
		err = app.runLineMode(ctx, interrupts)
	}
	if hint := app.Session.ResumeHint(); hint != "" {
		fmt.Fprintln(app.stdout, hint)
	}
	return err
}

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
	if len(words) > 0 && !opts.Print {
		return opts, false, usageErrorf("unexpected argument %q (to run a task, use -p %q)", words[0], strings.Join(words, " "))
	}
	opts.Task = strings.Join(words, " ")
	return opts, showVersion, nil
}

// newFlagSet defines every flag of the command line on opts; a flag's usage
// is its line in --help, naming its value in back quotes, and a flag with no
// usage is another name of the flag before it.
func newFlagSet(opts *Options, skipPermissions, showVersion *bool) *flag.FlagSet {
	fs := flag.NewFlagSet("minicode", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by exitCode
	fs.Usage = func() {}
	fs.BoolVar(&opts.Print, "print", false, "run one task to completion and exit (or -p)")
	fs.BoolVar(&opts.Print, "p", false, "")
	fs.StringVar(&opts.OutputFormat, "output-format", "text", "the output `FORMAT`: text (default), json or stream-json")
	fs.StringVar(&opts.InputFormat, "input-format", "", "the input `FORMAT`: text, or stream-json (user messages as JSON lines on stdin)")
	fs.BoolVar(&opts.IncludePartialMessages, "include-partial-messages", false, "stream-json: add stream_event lines with the streamed deltas")
	fs.Bool("verbose", false, "accepted (stream-json output is always complete)")
	fs.BoolFunc("debug", "log what is loaded and sent, on stderr", func(v string) error { // any value but false, such as a filter ("--debug=api")
		opts.Debug = v != "false"
		return nil
	})
	fs.StringVar(&opts.Model, "model", "", "the model: a `NAME` or an alias (sonnet, opus, haiku)")
	fs.StringVar(&opts.FallbackModel, "fallback-model", "", "the model `NAME` used when the model is overloaded or missing")
	fs.StringVar(&opts.Provider, "provider", "", "the provider `NAME`: anthropic, openai or mock (default: the one whose API key is set; else mock)")
	fs.StringVar(&opts.SystemPrompt, "system-prompt", "", "replace the built-in system prompt with `TEXT`")
	fs.StringVar(&opts.AppendSystemPrompt, "append-system-prompt", "", "add `TEXT` to the end of the system prompt")
	fs.StringVar(&opts.PermissionMode, "permission-mode", "", "the permission `MODE`: default, acceptEdits, plan, dontAsk or bypassPermissions")
	fs.BoolVar(skipPermissions, "dangerously-skip-permissions", false, "the same as --permission-mode bypassPermissions")
	fs.Func("allowedTools", "allow what `RULES` name, split by commas or spaces: \"Read Bash(go test:*)\" (or --allowed-tools)", appendTo(&opts.AllowedTools, splitRuleList))
	fs.Func("allowed-tools", "", appendTo(&opts.AllowedTools, splitRuleList))
	fs.Func("disallowedTools", "deny what `RULES` name (or --disallowed-tools)", appendTo(&opts.DisallowedTools, splitRuleList))
	fs.Func("disallowed-tools", "", appendTo(&opts.DisallowedTools, splitRuleList))
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
	fs.StringVar(&opts.PermissionPromptTool, "permission-prompt-tool", "", "with `stdio` and --input-format stream-json, ask the program (can_use_tool)")
	fs.BoolVar(&opts.AllowSkipPermissions, "allow-dangerously-skip-permissions", false, "let the program switch to bypassPermissions")
	fs.Func("tools", "the built-in tools offered, a comma-separated `LIST` (default: all)", appendTo(&opts.Tools, splitRuleList))
	fs.Func("setting-sources", "the settings files read, a `LIST` of user, project and local (default: all)", appendTo(&opts.SettingSources, splitRuleList))
	fs.BoolVar(&opts.NoSessionPersistence, "no-session-persistence", false, "keep the session in memory only")
	fs.StringVar(&opts.JSONSchema, "json-schema", "", "the final answer as JSON matching `SCHEMA` (structured_output)")
	fs.Float64Var(&opts.MaxBudgetUSD, "max-budget-usd", 0, "stop once the session has cost more than `N` dollars")
	fs.StringVar(&opts.Thinking, "thinking", "", "the thinking `MODE`: adaptive, enabled or disabled")
	fs.IntVar(&opts.MaxThinkingTokens, "max-thinking-tokens", 0, "let the model think up to `N` tokens")
	fs.StringVar(&opts.Effort, "effort", "", "the model's effort `LEVEL`: low, medium, high, xhigh or max")
	return fs
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
	case !slices.Contains([]string{"", "decline", "defaults"}, opts.MCPElicitation):
		return usageErrorf("--mcp-elicitation must be decline or defaults, not %q", opts.MCPElicitation)
	case opts.MaxTurns < 0:
		return usageErrorf("--max-turns must be a positive number")
	case opts.PermissionPromptTool != "" && opts.PermissionPromptTool != "stdio":
		return usageErrorf("--permission-prompt-tool %q: minicode asks a program only over stdio (--permission-prompt-tool=stdio)", opts.PermissionPromptTool)
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

// describeFlagError names the flag of a flag package error as it is
// written, with two dashes.
func describeFlagError(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return usageErrorf("unknown flag --%s", strings.TrimLeft(name, "-"))
	}
	if rest, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return usageErrorf("flag --%s needs a value", strings.TrimLeft(rest, "-"))
	}
	return usageError{err}
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
		if args[i] == "--" || !strings.HasPrefix(args[i], "-") || accepts == nil || i+1 >= len(args) {
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

// looksLikeRule reports whether s reads as permission rules (Read,
// mcp__github, Bash(go test:*),Edit) rather than a task, which has spaces
// outside parentheses.
func looksLikeRule(s string) bool {
	rules := splitRuleList(s)
	return len(rules) > 0 && (len(rules) == len(strings.Split(s, ",")) || strings.Contains(s, "(")) &&
		!slices.ContainsFunc(rules, func(r string) bool { return !rulePattern.MatchString(r) })
}

// splitRuleList splits a list of rules at commas and spaces outside
// parentheses: "Read Bash(go test:*),Edit" is three rules.
func splitRuleList(s string) []string {
	var rules []string
	depth, start := 0, 0
	for i, c := range s + "," {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0 && (c == ',' || unicode.IsSpace(c)) || i == len(s):
			if r := strings.TrimSpace(s[start:min(i, len(s))]); r != "" {
				rules = append(rules, r)
			}
			start = i + 1
		}
	}
	return rules
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

// runSubcommand runs "minicode mcp ..." or "minicode skills ..." here.
func runSubcommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	home, err := minicodeHome(getenv)
	if err != nil {
		return err
	}
	workspace, err := resolveWorkspace(".")
	if err != nil {
		return err
	}
	if args[0] == "mcp" {
		return runMCPCommand(ctx, args[1:], stdin, stdout, stderr, home, workspace)
	}
	return runSkillsCommand(args[1:], stdout, stderr, home, userHome(getenv), workspace)
}
