package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// MCPState is where a server is in its life.
type MCPState string

// The states a server can be in.
const (
	MCPStarting MCPState = "starting"
	MCPReady    MCPState = "ready"
	MCPFailed   MCPState = "failed"
)

// ServerStatus is what the UI shows about one server.
type ServerStatus struct {
	Name     string
	State    MCPState
	Tools    int
	Error    string
	Warnings []string // e.g. tool names changed to avoid a collision
}

// MCPEvent kinds sent to MCPOptions.OnEvent.
const (
	MCPEventState    = "state"    // a server changed state
	MCPEventProgress = "progress" // a tool call reported progress
	MCPEventNotice   = "notice"   // something the user should know
)

// MCPEvent is something the UI may show: a state change, progress of a
// tool call, or a notice.
type MCPEvent struct {
	Kind     string
	Server   string
	Text     string
	Progress *MCPProgress
}

// MCPOptions configure a manager.
type MCPOptions struct {
	// Workspace is offered to servers as their root and is where relative
	// cwd settings start from.
	Workspace     string
	ClientVersion string
	// Elicitor answers servers' questions; nil declines them.
	Elicitor Elicitor
	// OnEvent receives state changes, progress and notices; it may be nil
	// and must not block.
	OnEvent func(MCPEvent)
}

// MCPManager runs the configured MCP servers and keeps their tools in the
// registry: servers start in parallel in the background, each one's tools
// appear as it becomes ready, a list_changed notification refreshes them,
// and a server that dies is reported and can be restarted.
type MCPManager struct {
	reg     *Registry
	opts    MCPOptions
	servers []*mcpServer

	mu       sync.Mutex
	framings map[string]string // what framing each stdio server spoke
	helpers  map[string]bool   // helper tools currently registered
}

// NewMCPManager prepares the servers; Start launches them.
func NewMCPManager(configs []MCPServerConfig, reg *Registry, opts MCPOptions) *MCPManager {
	m := &MCPManager{reg: reg, opts: opts, framings: map[string]string{}, helpers: map[string]bool{}}
	for _, c := range configs {
		m.servers = append(m.servers, &mcpServer{m: m, name: c.Name, cfg: c, state: MCPStarting, settled: make(chan struct{})})
	}
	return m
}

// StartMCPServers reads the MCP configuration ($MINICODE_HOME/mcp.json and
// the project's .mcp.json) and starts every server in the background; each
// server's tools join reg as it becomes ready. The manager is returned
// even when no server is configured, so that /mcp can say so. The caller
// closes it on exit.
func StartMCPServers(ctx context.Context, home, workspace string, reg *Registry, opts MCPOptions) (*MCPManager, error) {
	configs, err := LoadMCPConfig(home, workspace)
	if err != nil {
		return nil, err
	}
	if opts.Workspace == "" {
		opts.Workspace = workspace
	}
	m := NewMCPManager(configs, reg, opts)
	m.Start(ctx)
	return m, nil
}

// Start launches every server in the background and returns at once.
func (m *MCPManager) Start(ctx context.Context) {
	for _, srv := range m.servers {
		go srv.start(ctx)
	}
}

// Wait blocks until every server is ready or has failed, or ctx ends.
func (m *MCPManager) Wait(ctx context.Context) {
	for _, srv := range m.servers {
		srv.mu.Lock()
		settled := srv.settled
		srv.mu.Unlock()
		select {
		case <-settled:
		case <-ctx.Done():
			return
		}
	}
}

// Status reports every server's state, in configuration order.
func (m *MCPManager) Status() []ServerStatus {
	out := make([]ServerStatus, len(m.servers))
	for i, srv := range m.servers {
		out[i] = srv.status()
	}
	return out
}

// StatusLine summarises the servers in a few words for the status bar,
// e.g. "MCP 2 ready, 1 failed"; "" when there are none.
func (m *MCPManager) StatusLine() string {
	counts := map[MCPState]int{}
	for _, s := range m.Status() {
		counts[s.State]++
	}
	var parts []string
	for _, st := range []MCPState{MCPReady, MCPStarting, MCPFailed} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "MCP " + strings.Join(parts, ", ")
}

// Restart stops a server and starts it again, waiting for the outcome.
func (m *MCPManager) Restart(ctx context.Context, name string) error {
	srv := m.server(name)
	if srv == nil {
		return fmt.Errorf("no MCP server named %q; configured: %s", name, strings.Join(m.names(), ", "))
	}
	srv.stop(false)
	srv.mu.Lock()
	srv.state, srv.err, srv.settled = MCPStarting, "", make(chan struct{})
	srv.mu.Unlock()
	srv.start(ctx)
	if st := srv.status(); st.State != MCPReady {
		return errors.New(st.Error)
	}
	return nil
}

// SlashCommand runs "/mcp" (the status of every server) and
// "/mcp restart NAME", returning the text to show.
func (m *MCPManager) SlashCommand(ctx context.Context, args string) string {
	fields := strings.Fields(args)
	switch {
	case len(fields) == 0 || fields[0] == "list":
		return m.describe()
	case fields[0] == "restart" && len(fields) == 2:
		if err := m.Restart(ctx, fields[1]); err != nil {
			return fmt.Sprintf("MCP server %s failed to restart: %v", fields[1], err)
		}
		st := m.server(fields[1]).status()
		return fmt.Sprintf("MCP server %s restarted: %d tools.", st.Name, st.Tools)
	}
	return "usage: /mcp (list servers) or /mcp restart NAME"
}

// describe lists the servers with their state, tools and errors.
func (m *MCPManager) describe() string {
	if len(m.servers) == 0 {
		return fmt.Sprintf("No MCP servers configured. Add one with `minicode mcp add NAME -- COMMAND ARGS` or in %s.", projectMCPFile)
	}
	var b strings.Builder
	for _, s := range m.Status() {
		fmt.Fprintf(&b, "%-20s %-9s %3d tools", s.Name, s.State, s.Tools)
		if s.Error != "" {
			fmt.Fprintf(&b, "  %s", errorSummary(s.Error))
		}
		b.WriteByte('\n')
		for _, w := range s.Warnings {
			fmt.Fprintf(&b, "  warning: %s\n", w)
		}
	}
	b.WriteString("Restart a server with /mcp restart NAME.")
	return b.String()
}

// Close stops every server, in parallel, including those still starting.
func (m *MCPManager) Close() {
	var wg sync.WaitGroup
	for _, srv := range m.servers {
		wg.Add(1)
		go func() { defer wg.Done(); srv.stop(true) }()
	}
	wg.Wait()
}

// server finds a server by name.
func (m *MCPManager) server(name string) *mcpServer {
	for _, srv := range m.servers {
		if srv.name == name {
			return srv
		}
	}
	return nil
}

// names lists the configured server names.
func (m *MCPManager) names() []string {
	var names []string
	for _, srv := range m.servers {
		names = append(names, srv.name)
	}
	return names
}

// emit passes an event to the UI.
func (m *MCPManager) emit(e MCPEvent) {
	if m.opts.OnEvent != nil {
		m.opts.OnEvent(e)
	}
}

// rememberFraming records the framing a stdio server spoke, so a restart
// uses it from the first message.
func (m *MCPManager) rememberFraming(name string) func(string) {
	return func(framing string) {
		m.mu.Lock()
		m.framings[name] = framing
		m.mu.Unlock()
	}
}

// transport builds the transport a server's config asks for. ${VAR} in
// the URL, headers, command, arguments, env and cwd is filled from the
// environment.
func (m *MCPManager) transport(c MCPServerConfig) mcpTransport {
	expand := func(s string) string { return expandVars(s, os.Getenv) }
	if c.isHTTP() {
		return newMCPHTTP(expand(c.URL), expandedMap(c.Headers), c.Type == "sse")
	}
	dir := expand(c.Cwd)
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(m.opts.Workspace, dir)
	}
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = expand(a)
	}
	m.mu.Lock()
	framing := m.framings[c.Name]
	m.mu.Unlock()
	return newMCPStdio(expand(c.Command), args, envList(expandedMap(c.Env)), dir, framing, m.rememberFraming(c.Name))
}

// sessionOptions are the options every session of this manager gets.
func (m *MCPManager) sessionOptions() mcpSessionOptions {
	opts := mcpSessionOptions{ClientVersion: m.opts.ClientVersion, Elicitor: m.opts.Elicitor}
	if m.opts.Workspace != "" {
		opts.Roots = []string{m.opts.Workspace}
	}
	return opts
}

// refreshHelpers registers the resource and prompt helper tools while some
// ready server offers resources or prompts, and removes them otherwise.
func (m *MCPManager) refreshHelpers() {
	var resources, prompts bool
	for _, srv := range m.servers {
		info, ok := srv.readyInfo()
		resources = resources || ok && info.Capabilities.Resources != nil
		prompts = prompts || ok && info.Capabilities.Prompts != nil
	}
	resourceTools, promptTools := mcpHelperTools(m)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.offerHelpers(resourceTools, resources)
	m.offerHelpers(promptTools, prompts)
}

// offerHelpers adds or removes helper tools so that they are registered
// exactly when wanted. Callers hold m.mu.
func (m *MCPManager) offerHelpers(tools []*Tool, want bool) {
	for _, t := range tools {
		switch {
		case want && !m.helpers[t.Name]:
			m.reg.Add(t)
		case !want && m.helpers[t.Name]:
			m.reg.Remove(func(name string) bool { return name == t.Name })
		}
		m.helpers[t.Name] = want
	}
}

// readyServers returns the ready servers, optionally only the named one.
func (m *MCPManager) readyServers(name string) ([]*mcpServer, error) {
	var out []*mcpServer
	for _, srv := range m.servers {
		if name != "" && srv.name != name {
			continue
		}
		if _, ok := srv.readyInfo(); ok {
			out = append(out, srv)
		}
	}
	if name != "" && len(out) == 0 {
		if m.server(name) == nil {
			return nil, fmt.Errorf("no MCP server named %q; configured: %s", name, strings.Join(m.names(), ", "))
		}
		return nil, fmt.Errorf("MCP server %s is not ready", name)
	}
	return out, nil
}

// errorSummary shortens a server error to one line: its first line and,
// when the server's stderr follows, the last thing the server said.
func errorSummary(err string) string {
	lines := strings.Split(strings.TrimSpace(err), "\n")
	if len(lines) > 2 && strings.HasPrefix(lines[1], "server stderr") {
		return lines[0] + " — " + strings.TrimSpace(lines[len(lines)-1])
	}
	return lines[0]
}

// firstLineOf returns the first line of s.
func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
