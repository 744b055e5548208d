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
//
// With no API key configured, minicode runs its offline demo model, which
// understands a few plain requests ("list files", "read main.go", "help")
// and answers through the real agent loop, with real tools.
//
// Flags:
//
//	-p, --print                 run the task given as argument (or on stdin) and exit
//	--output-format FORMAT      text (default), json or stream-json (with -p)
//	--model NAME                model name, e.g. claude-sonnet-4-5 or gpt-4.1
//	--provider NAME             anthropic, openai or mock
//	--permission-mode MODE      default, acceptEdits, plan or bypassPermissions
//	--allowedTools LIST         rules that allow, e.g. "read_file,run_command(go test:*)"
//	--disallowedTools LIST      rules that deny
//	--max-turns N               model round trips per task (default 50)
//	--workspace DIR             the folder the agent works in (default: current folder)
//	--mock-script FILE          the demo provider replays scripted replies from FILE
//	--mcp-elicitation MODE      with -p: decline (default) or defaults, for MCP servers' questions
//	-c, --continue              continue the newest session of this workspace
//	--resume [ID]               continue session ID; alone, list the sessions to pick one
//	--session-id UUID           the id of the new session
//	--fork-session              with --continue or --resume: continue into a new session
//	--version, --help
//
// Environment: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL,
// ANTHROPIC_MODEL, OPENAI_API_KEY, OPENAI_BASE_URL, MINICODE_MODEL,
// MINICODE_PROVIDER, MINICODE_HOME (default ~/.minicode) and
// MINI_CODE_MODEL_MODE=mock.
//
// Every session is saved as it happens in
// ~/.minicode/projects/<workspace>/<session-id>.jsonl; -c or --resume
// continues one. In line mode, Ctrl-C stops the running turn, and twice at
// the prompt ends minicode.
//
// Settings are read from ~/.minicode/settings.json and then from the
// project's .minicode/settings.json; flags and environment win over both.
// A settings file with a mistake stops minicode with the file, line and
// field named.
//
// Exit codes: 0 success; 1 the task failed (model error, max turns, a
// denial in headless mode); 2 usage error; 130 interrupted.
//
// Example:
//
//	$ minicode -p "list files" --output-format json
//	{"type":"result","subtype":"success","is_error":false,"result":"...","session_id":"...",...}
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// version is the release of this build.
const version = "0.1.0"

func main() {
	LaunchIfSandboxed()
	log.SetFlags(0)
	log.SetPrefix("minicode: ")
	// Ctrl-C is Run's to handle: it ends -p, but in line mode it only
	// interrupts the turn.
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
type usageError struct{ msg string }

// Error returns the message.
func (e usageError) Error() string { return e.msg }

// usageErrorf formats a usageError.
func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// errTaskFailed marks a task that ran but did not succeed; its output has
// already said why.
var errTaskFailed = errors.New("the task failed")

// exitCode maps the result of Run to the process's exit status, printing
// the error unless it was already reported.
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

// Run is minicode with its arguments and standard streams: it dispatches
// subcommands, parses flags, builds the app and runs it.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) > 0 {
		switch args[0] {
		case "skills":
			return runSkillsSubcommand(args[1:], stdout, stderr, getenv)
		case "mcp":
			return runMCPSubcommand(ctx, args[1:], stdin, stdout, stderr, getenv)
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
	if opts.Print && opts.Task == "" {
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
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(interrupts)
	return app.runLineMode(ctx, interrupts)
}

// parseFlags reads the command line. Flags may come before or after the
// task, so "-p 'list files' --output-format json" works.
func parseFlags(args []string, stderr io.Writer) (opts Options, showVersion bool, err error) {
	fs := flag.NewFlagSet("minicode", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usageText) }
	fs.BoolVar(&opts.Print, "p", false, "")
	fs.BoolVar(&opts.Print, "print", false, "")
	fs.StringVar(&opts.OutputFormat, "output-format", "text", "")
	fs.StringVar(&opts.Model, "model", "", "")
	fs.StringVar(&opts.Provider, "provider", "", "")
	fs.StringVar(&opts.PermissionMode, "permission-mode", "", "")
	fs.StringVar(&opts.AllowedTools, "allowedTools", "", "")
	fs.StringVar(&opts.DisallowedTools, "disallowedTools", "", "")
	fs.IntVar(&opts.MaxTurns, "max-turns", 0, "")
	fs.StringVar(&opts.Workspace, "workspace", "", "")
	fs.StringVar(&opts.MockScript, "mock-script", "", "")
	fs.StringVar(&opts.MCPElicitation, "mcp-elicitation", "", "")
	fs.BoolVar(&showVersion, "version", false, "")
	addSessionFlags(fs, &opts)
	args = joinResumeValue(args)
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return opts, false, err
			}
			return opts, false, usageError{err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		words = append(words, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch opts.OutputFormat {
	case "text", "json", "stream-json":
	default:
		return opts, false, usageErrorf("unknown --output-format %q (use text, json or stream-json)", opts.OutputFormat)
	}
	switch opts.MCPElicitation {
	case "", "decline", "defaults":
	default:
		return opts, false, usageErrorf("--mcp-elicitation must be decline or defaults, not %q", opts.MCPElicitation)
	}
	if err := checkSessionFlags(opts); err != nil {
		return opts, false, err
	}
	if opts.MaxTurns < 0 {
		return opts, false, usageErrorf("--max-turns must be a positive number")
	}
	if len(words) > 0 && !opts.Print {
		return opts, false, usageErrorf("unexpected argument %q (to run a task, use -p %q)", words[0], strings.Join(words, " "))
	}
	opts.Task = strings.Join(words, " ")
	return opts, showVersion, nil
}

// usageText is printed by --help.
const usageText = `minicode: a coding agent for the terminal.

Usage:
  minicode [flags]                 interactive session (line mode when stdin is not a terminal)
  minicode -p "task" [flags]       run one task and exit (the task may also come on stdin)
  minicode mcp add|list|remove|tools|call ...    manage and try MCP servers
  minicode skills list|add|remove ...            manage skills

Flags:
  -p, --print                 run one task to completion and exit
  --output-format FORMAT      text (default), json or stream-json
  --model NAME                model name
  --provider NAME             anthropic, openai or mock (default: from the API key found; else mock)
  --permission-mode MODE      default, acceptEdits, plan or bypassPermissions
  --allowedTools LIST         rules that allow, e.g. "read_file,run_command(go test:*)"
  --disallowedTools LIST      rules that deny
  --max-turns N               model round trips per task (default 50)
  --workspace DIR             the folder the agent works in (default: current folder)
  --mock-script FILE          the mock provider replays scripted replies from FILE
  --mcp-elicitation MODE      with -p: answer MCP servers' questions with decline (default) or defaults
  -c, --continue              continue the newest session of this workspace
  -r, --resume [ID]           continue session ID; alone, list the sessions to pick one
  --session-id UUID           the id of the new session
  --fork-session              with --continue or --resume: continue into a new session
  --version                   print the version
  --help                      print this help

With no API key, minicode runs its offline demo model: try "help" or "list files".
Exit codes: 0 success, 1 task failed, 2 usage error, 130 interrupted.
`

// runMCPSubcommand runs "minicode mcp ..." in the current folder.
func runMCPSubcommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	home, workspace, err := subcommandFolders(getenv)
	if err != nil {
		return err
	}
	return runMCPCommand(ctx, args, stdin, stdout, stderr, home, workspace)
}

// runSkillsSubcommand runs "minicode skills ..." in the current folder.
func runSkillsSubcommand(args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	home, workspace, err := subcommandFolders(getenv)
	if err != nil {
		return err
	}
	return runSkillsCommand(args, stdout, stderr, home, userHome(getenv), workspace)
}

// subcommandFolders returns minicode's home and the current folder as
// the workspace, for the subcommands.
func subcommandFolders(getenv func(string) string) (home, workspace string, err error) {
	if home, err = minicodeHome(getenv); err != nil {
		return "", "", err
	}
	workspace, err = resolveWorkspace(".")
	return home, workspace, err
}
