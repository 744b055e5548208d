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
//	minicode acp [flags]             serve an editor over the Agent Client Protocol
//	minicode sandbox [DIR]           what the sandbox holds here: each layer and guarantee
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
// continues one. In line mode, Ctrl-C stops the turn; twice in a row, minicode.
//
// Settings come from ~/.claude/settings.json, ~/.minicode/settings.json,
// the project's .claude/settings.json, .minicode/settings.json and
// .claude/settings.local.json, then --settings; flags and environment win.
// A broken file is named with its line and skipped (a broken --settings
// stops the run). What a project's files would run, send or allow (stdio
// servers in .mcp.json, allow rules, hooks, env, baseUrl, ...) applies only
// in a trusted workspace: the first start at a terminal asks, and
// "minicode trust [--revoke] [DIR]" decides.
//
// Exit codes: 0 success (even if some calls were denied); 1 the task failed
// (model error, max turns); 2 usage error; 130 interrupted.
//
// Example:
//
//	$ minicode -p "list files" --output-format json
//	{"type":"result","subtype":"success","is_error":false,"result":"...","session_id":"...",...}
//
// Reading the code: README.md's "How it works" follows one turn through
// the files, function by function. Each concern's files share a prefix;
// open them in this order.
//
//	main.go          Run and exit codes; main_flags.go: the command line
//	loop.go          the agent loop: one turn, step by step (message.go: the history)
//	provider*.go     the model; provider_stream.go: streaming, retries, the reply assembled; mock*.go: the demo
//	tools*.go        the tools the model calls and their registry
//	permissions*.go  the check: permissions.go decides, _command.go reads command lines, _approval.go asks
//	sandbox*.go      the sandbox, its layers told atop sandbox.go; process*.go: process groups, bounded output
//	compact*.go      keeping the history inside the context window
//	session*.go      the journal on disk and the input history
//	app*.go          wiring it together: line mode, -p output, slash commands, sessions, the program interface
//	tty*.go          the terminal UI: the transcript in the scrollback, a live region redrawn below it
//	mcp*.go          the MCP client and the "minicode mcp" commands
//	acp*.go          the Agent Client Protocol: editors driving minicode
//	skills*.go       skills and /init; memory.go: memory files; hooks.go: hooks
//	agents.go        subagents; checkpoint.go: snapshots and /rewind; media.go: images and PDFs
//	config*.go       settings files and workspace trust; files.go, text.go, json.go, exit.go: small helpers
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

// main runs minicode on the process's arguments and exits with Run's outcome.
func main() {
	if len(os.Args) > 1 && os.Args[1] == supervisorArg {
		os.Exit(runSupervisor()) // minicode re-executed as the sandbox's supervisor
	}
	log.SetFlags(0)
	log.SetPrefix("minicode: ")
	tuneRuntime()
	// Ctrl-C is Run's: it ends -p but only interrupts a turn in line mode.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	err := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// tuneRuntime fits the runtime to a program that mostly waits, on the model, files and
// commands, unless GOGC or GOMAXPROCS choose: each step's garbage is collected half as often,
// for a few MiB, and one P wakes no second thread at a hand-off (grep_files still takes every
// core). Each saves about 15% of a long session's CPU (BenchmarkLongSession).
func tuneRuntime() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(200)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// exitCode maps Run's result to the exit status, printing an error not yet reported.
func exitCode(err error, stderr io.Writer) int {
	var usage UsageError
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

// Run is minicode with its arguments and standard streams: a subcommand, or the app built from the flags.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) > 0 {
		switch args[0] {
		case "skills", "mcp":
			return runSubcommand(ctx, args, stdin, stdout, stderr, getenv)
		case "trust":
			return runTrustCommand(args[1:], stdout, stderr, getenv)
		case "acp":
			opts, _, err := parseFlags(args[1:], stderr)
			if err != nil {
				return err
			}
			return runACP(ctx, opts, stdin, stdout, stderr, getenv)
		case "sandbox":
			return runSandboxCommand(args[1:], stdout, getenv)
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
	if opts.Print && opts.InputFormat != "stream-json" {
		if opts.Task, err = taskWithStdin(opts.Task, stdin); err != nil {
			return err
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
	if in, out, ok := terminalPair(stdin, stdout); ok && getenv("TERM") != "dumb" { // a dumb terminal cannot move the cursor
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

// maxPipedBytes bounds what -p reads from stdin: 4 MiB of text is about a
// million tokens, more than any model's context window holds.
const maxPipedBytes = 4 << 20

// taskWithStdin is -p's task: the argument followed by what was piped in (git diff | minicode -p
// "review this"), or stdin alone. With an argument, stdin that sends nothing for 3 seconds counts as
// empty, as in Claude Code, since a program may leave it open; a terminal is not read.
func taskWithStdin(task string, stdin io.Reader) (string, error) {
	in, _ := stdin.(*os.File)
	if task != "" && isTerminal(in) {
		return task, nil
	}
	r := bufio.NewReader(stdin)
	started, patience := make(chan struct{}), time.After(3*time.Second)
	go func() {
		r.Peek(1) // the first byte, or the end
		close(started)
	}()
	if task == "" {
		patience = nil // the task must come
	}
	select {
	case <-started:
	case <-patience:
		return task, nil
	}
	data, err := io.ReadAll(io.LimitReader(r, maxPipedBytes+1))
	switch task = strings.TrimSpace(task + "\n" + string(data)); {
	case err != nil:
		return "", fmt.Errorf("reading stdin: %w", err)
	case len(data) > maxPipedBytes:
		return "", usageErrorf("stdin holds more than %d MiB, more than -p sends: save it in a file and name the file in the task", maxPipedBytes>>20)
	case task == "":
		return "", usageErrorf("-p needs a task, as an argument or on stdin")
	}
	return task, nil
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
