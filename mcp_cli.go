package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
)

// errMCPToolFailed reports that `mcp call`'s tool answered with isError: exit status 1.
var errMCPToolFailed = fmt.Errorf("the MCP tool reported an error: %w", errTaskFailed)

// mcpUsage is the help of `minicode mcp`.
const mcpUsage = `usage:
  minicode mcp add NAME [--project] [--force] [--env K=V]... [--header K=V]... [--url URL] [-- COMMAND ARGS...]
  minicode mcp list
  minicode mcp remove NAME [--project]
  minicode mcp login NAME|URL
  minicode mcp logout NAME|URL
  minicode mcp tools NAME|URL
  minicode mcp call [--mcp-elicitation decline|defaults|ask] NAME|URL TOOL [JSON-ARGUMENTS]

add saves a server in $MINICODE_HOME/mcp.json (or the project's .mcp.json
with --project): a stdio server is a command, an HTTP server a --url;
--force replaces a server of that name.
login logs in to an HTTP server that asks for it (OAuth, in a browser);
logout forgets its tokens, kept in $MINICODE_HOME/mcp-tokens.json.
tools lists a server's tools with their input schemas; call runs one tool,
prints its result, and exits with status 1 if the tool reports an error.`

// runMCPCommand runs `minicode mcp ...`; usage mistakes come back as UsageError.
func runMCPCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, home, workspace string) error {
	if len(args) == 0 {
		return usageErrorf("%s", mcpUsage)
	}
	rest := args[1:]
	switch args[0] {
	case "add", "remove":
		return mcpEdit(args[0], rest, stdout, home, workspace)
	case "list":
		return mcpList(stdout, stderr, home, workspace)
	case "login", "logout":
		return mcpLogin(ctx, args[0], rest, stdout, stderr, home, workspace)
	case "tools":
		return mcpTools(ctx, rest, stdout, stderr, home, workspace)
	case "call":
		return mcpCall(ctx, rest, stdin, stdout, stderr, home, workspace)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, mcpUsage)
		return nil
	}
	return usageErrorf("unknown mcp command %q\n%s", args[0], mcpUsage)
}

// keyValue returns a repeatable K=V flag's function, filling m.
func keyValue(m map[string]string) func(string) error {
	return func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return fmt.Errorf("want KEY=VALUE, got %q", s)
		}
		m[k] = v
		return nil
	}
}

// mcpEdit runs `mcp add`, which saves a server, and `mcp remove`, which deletes one, in the user's or the project's file.
func mcpEdit(verb string, args []string, stdout io.Writer, home, workspace string) error {
	fs := flag.NewFlagSet("mcp "+verb, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	project, force := fs.Bool("project", false, ""), new(bool)
	c := &MCPServerConfig{Env: map[string]string{}, Headers: map[string]string{}}
	if verb == "add" {
		fs.BoolVar(force, "force", false, "")
		fs.Func("env", "", keyValue(c.Env))
		fs.Func("header", "", keyValue(c.Headers))
		fs.StringVar(&c.URL, "url", "", "")
		fs.StringVar(&c.Type, "type", "", "")
	}
	name, rest, err := parseNamed(fs, args)
	switch {
	case err != nil:
		return err
	case verb == "remove" && (name == "" || len(rest) > 0):
		return usageErrorf("mcp remove needs one NAME")
	case verb == "remove":
		c = nil
	case name == "":
		return usageErrorf("mcp add needs a NAME\n%s", mcpUsage)
	case c.URL != "" && len(rest) > 0:
		return usageErrorf("mcp add: give either --url or a command, not both")
	case c.URL != "":
		c.Type = cmp.Or(c.Type, "http")
	case len(rest) > 0:
		c.Command, c.Args = rest[0], rest[1:]
	}
	if c != nil {
		c.Name = name
		if err := c.validate(); err != nil {
			return usageErrorf("mcp add: %v", err)
		}
	}
	path := mcpConfigFile(home, workspace, *project)
	found, err := editMCPFile(path, name, c, *force)
	switch {
	case err != nil:
		return err
	case c != nil:
		fmt.Fprintf(stdout, "Added MCP server %s to %s\n", name, path)
	case !found:
		other := mcpConfigFile(home, workspace, !*project)
		data, _ := os.ReadFile(other)
		elsewhere, _ := parseMCPServers(data, other)
		if slices.ContainsFunc(elsewhere, func(s MCPServerConfig) bool { return s.Name == name }) {
			return fmt.Errorf("no MCP server named %q in %s; it is in %s: minicode mcp remove %s%s", name, path, other, name, map[bool]string{false: " --project"}[*project])
		}
		return fmt.Errorf("no MCP server named %q in %s", name, path)
	default:
		fmt.Fprintf(stdout, "Removed MCP server %s from %s\n", name, path)
	}
	return nil
}

// parseNamed parses a command's flags and its NAME, before or after them, and what follows.
func parseNamed(fs *flag.FlagSet, args []string) (string, []string, error) {
	name := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", nil, usageErrorf("%s: %v", fs.Name(), err)
	}
	rest := fs.Args()
	if name == "" && len(rest) > 0 && rest[0] != "--" {
		name, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	return name, rest, nil
}

// mcpList prints the configured servers, and on stderr the broken entries left out.
func mcpList(stdout, stderr io.Writer, home, workspace string) error {
	configs := loadMCPConfig(home, workspace, func(err error) { fmt.Fprintf(stderr, "minicode: %v; left out\n", err) })
	if len(configs) == 0 {
		fmt.Fprintln(stdout, "No MCP servers configured. Add one with: minicode mcp add NAME -- COMMAND ARGS")
		return nil
	}
	for _, c := range configs {
		target := c.URL
		if !c.isHTTP() {
			target = strings.TrimSpace(c.Command + " " + strings.Join(c.Args, " "))
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\t(%s)\n", c.Name, cmp.Or(c.Type, "stdio"), target, c.Source)
	}
	return nil
}

// resolveMCPTarget turns NAME or URL into a server config.
func resolveMCPTarget(target, home, workspace string) (MCPServerConfig, error) {
	if u, err := url.Parse(target); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return MCPServerConfig{Name: nonNameChars.ReplaceAllString(u.Host, "_"), Type: "http", URL: target}, nil
	}
	var broken []error
	configs := loadMCPConfig(home, workspace, func(err error) { broken = append(broken, err) })
	var names []string
	for _, c := range configs {
		if c.Name == target {
			return c, nil
		}
		names = append(names, c.Name)
	}
	return MCPServerConfig{}, errors.Join(append([]error{fmt.Errorf("no MCP server named %q (configured: %s); give a name from `minicode mcp list` or an http(s) URL",
		target, strings.Join(names, ", "))}, broken...)...)
}

// mcpLogin runs `mcp login`, which logs in to a server anew, and `mcp logout`, which forgets its tokens.
func mcpLogin(ctx context.Context, verb string, args []string, stdout, stderr io.Writer, home, workspace string) error {
	if len(args) != 1 {
		return usageErrorf("usage: minicode mcp %s NAME|URL", verb)
	}
	c, err := resolveMCPTarget(args[0], home, workspace)
	if err != nil {
		return err
	}
	m := newMCPManager(nil, nil, MCPOptions{Workspace: workspace, Home: home})
	var msg string
	if verb == "login" {
		msg, err = m.login(ctx, c, func(s string) { fmt.Fprintln(stderr, s) })
	} else {
		msg, err = m.logout(c.Name)
	}
	if err == nil {
		fmt.Fprintln(stdout, msg)
	}
	return err
}

// connectCLI starts a one-off session with the target's server; a login it asks for says what to do on stderr.
func connectCLI(ctx context.Context, target string, elicitor Elicitor, stderr io.Writer, home, workspace string) (*mcpSession, MCPServerConfig, error) {
	c, err := resolveMCPTarget(target, home, workspace)
	if err != nil {
		return nil, c, err
	}
	m := newMCPManager(nil, nil, MCPOptions{Workspace: workspace, Elicitor: elicitor, Home: home, Login: func(s string) { fmt.Fprintln(stderr, s) }})
	sess := newMCPSession(c.Name, m.transport(c), m.opts)
	if err := sess.connect(ctx, c.startupTimeout()); err != nil {
		return nil, c, err
	}
	return sess, c, nil
}

// mcpTools prints a server's tools with their input schemas.
func mcpTools(ctx context.Context, args []string, stdout, stderr io.Writer, home, workspace string) error {
	if len(args) != 1 {
		return usageErrorf("usage: minicode mcp tools NAME|URL")
	}
	sess, c, err := connectCLI(ctx, args[0], nil, stderr, home, workspace)
	if err != nil {
		return err
	}
	defer sess.close()
	tools, err := sess.listTools(ctx, c.callTimeout())
	if err != nil {
		return err
	}
	info := sess.info.Load()
	fmt.Fprintf(stdout, "%s %s (protocol %s): %d tools\n", info.ServerInfo.Name, info.ServerInfo.Version, info.ProtocolVersion, len(tools))
	for _, t := range tools {
		fmt.Fprintf(stdout, "\n%s\n", t.Name)
		if t.Description != "" {
			fmt.Fprintf(stdout, "  %s\n", strings.ReplaceAll(strings.TrimSpace(t.Description), "\n", "\n  "))
		}
		var schema bytes.Buffer
		if json.Indent(&schema, t.InputSchema, "  ", "  ") == nil {
			fmt.Fprintf(stdout, "  input: %s\n", schema.String())
		}
	}
	return nil
}

// mcpCall runs one tool and prints its result.
func mcpCall(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, home, workspace string) error {
	fs := flag.NewFlagSet("mcp call", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mode := fs.String("mcp-elicitation", "decline", "")
	if err := fs.Parse(args); err != nil {
		return usageErrorf("mcp call: %v", err)
	}
	if fs.NArg() < 2 || fs.NArg() > 3 {
		return usageErrorf("usage: minicode mcp call [--mcp-elicitation decline|defaults|ask] NAME|URL TOOL [JSON-ARGUMENTS]")
	}
	elicitor, err := elicitorFor(*mode, stdin, stderr)
	if err != nil {
		return err
	}
	if arguments := fs.Arg(2); arguments != "" && !json.Valid([]byte(arguments)) {
		return usageErrorf("mcp call: the arguments are not valid JSON: %s", arguments)
	}
	sess, c, err := connectCLI(ctx, fs.Arg(0), elicitor, stderr, home, workspace)
	if err != nil {
		return err
	}
	defer sess.close()
	out, err := sess.callTool(ctx, fs.Arg(1), json.RawMessage(fs.Arg(2)), c.callTimeout(), func(p MCPProgress) {
		fmt.Fprintf(stderr, "progress: %s\n", formatProgress(p))
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, out.Text)
	if out.IsError {
		return errMCPToolFailed
	}
	return nil
}

// elicitorFor picks how `mcp call` answers a server's questions (nil declines them).
func elicitorFor(mode string, stdin io.Reader, stderr io.Writer) (Elicitor, error) {
	switch mode {
	case "decline", "":
		return nil, nil
	case "defaults":
		return elicitDefaults, nil
	case "ask":
		return newLineElicitor(newLineReader(stdin).ReadLine, stderr).Elicit, nil
	}
	return nil, usageErrorf("--mcp-elicitation must be decline, defaults or ask, not %q", mode)
}

// formatProgress describes a progress report in a few words.
func formatProgress(p MCPProgress) string {
	s := fmt.Sprintf("%g", p.Progress)
	if p.Total > 0 {
		s += fmt.Sprintf("/%g", p.Total)
	}
	return strings.TrimSpace(s + " " + p.Message)
}
