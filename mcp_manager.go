package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MCPState is where a server is in its life.
type MCPState string

// The states a server can be in.
const (
	MCPStarting   MCPState = "starting"
	MCPReady      MCPState = "ready"
	MCPFailed     MCPState = "failed"
	MCPNeedsLogin MCPState = "needs login" // an HTTP server waits for `mcp login`
)

// ServerStatus is what the UI shows about one server.
type ServerStatus struct {
	Name     string
	State    MCPState
	Tools    int
	Error    string
	Warnings []string // e.g. tool names changed to avoid a collision
}

// MCPOptions configure a manager.
type MCPOptions struct {
	Workspace      string // offered as the servers' root; relative cwd starts here
	ClientVersion  string
	Elicitor       Elicitor          // answers servers' questions; nil declines
	OnNotice       func(string)      // told what the user should know; may be nil; must not block
	OnProgress     func(MCPProgress) // told a tool call's progress; may be nil; must not block
	Program        bool              // a program drives minicode and runs the "sdk" servers
	Home           string            // $MINICODE_HOME, which keeps the OAuth tokens; "" keeps none
	Login          func(string)      // set where a person waits: a server that asks for a login gets one, with what to do told here
	StartupTimeout time.Duration     // of the servers whose config sets none (MCP_TIMEOUT); 0 means defaultMCPStartupTimeout
}

// MCPManager runs the MCP servers, each owned by one goroutine, and keeps their tools in the registry.
type MCPManager struct {
	reg      *Registry
	opts     MCPOptions
	servers  atomic.Pointer[[]*MCPServer] // replaced whole when a server is added
	framings sync.Map                     // server name → whether its stdio process spoke Content-Length framing
	auths    sync.Map                     // server name and URL → its *mcpAuth

	life    context.Context // ends when the manager closes
	stop    context.CancelFunc
	running sync.WaitGroup // the owner goroutines

	mu sync.Mutex // guards launching and adding servers and every registry change
}

// newMCPManager prepares the servers; Start launches them.
func newMCPManager(configs []MCPServerConfig, reg *Registry, opts MCPOptions) *MCPManager {
	m := &MCPManager{reg: reg, opts: opts}
	m.life, m.stop = context.WithCancel(context.Background())
	servers := make([]*MCPServer, len(configs))
	for i, c := range configs {
		servers[i] = newMCPServer(m, c, nil)
	}
	m.servers.Store(&servers)
	return m
}

// newMCPServer prepares one server; a nil tr means the one its config asks for.
func newMCPServer(m *MCPManager, c MCPServerConfig, tr mcpTransport) *MCPServer {
	c.StartupTimeoutMs = cmp.Or(c.StartupTimeoutMs, int(m.opts.StartupTimeout.Milliseconds()))
	srv := &MCPServer{m: m, name: c.Name, cfg: c, tr: tr, restart: make(chan chan<- *mcpView), done: make(chan struct{})}
	srv.view.Store(&mcpView{status: ServerStatus{Name: c.Name, State: MCPStarting}, replaced: make(chan struct{})})
	return srv
}

// list returns the servers, in the order they were configured or added.
func (m *MCPManager) list() []*MCPServer { return *m.servers.Load() }

// Start launches the servers but those a program runs (type "sdk"); they stop with ctx or on Close.
func (m *MCPManager) Start(ctx context.Context) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.life.Err() != nil {
		return
	}
	for _, srv := range m.list() {
		if srv.launched.IsZero() && (!m.opts.Program || srv.cfg.Type != "sdk") {
			m.launch(ctx, srv)
		}
	}
}

// launch starts a server's owner: one session after another until ctx or the manager ends; the caller holds m.mu.
func (m *MCPManager) launch(ctx context.Context, srv *MCPServer) {
	ctx, cancel := context.WithCancel(ctx)
	context.AfterFunc(m.life, cancel)
	srv.launched = time.Now()
	m.running.Go(func() {
		defer close(srv.done)
		for ctx.Err() == nil {
			srv.serve(ctx)
		}
	})
}

// AddServer starts a server over tr: a configured "sdk" server not yet started, or a new name.
func (m *MCPManager) AddServer(ctx context.Context, c MCPServerConfig, tr mcpTransport) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	srv, _ := m.server(c.Name)
	switch {
	case m.life.Err() != nil:
		return errStopped
	case srv == nil:
		srv = newMCPServer(m, c, tr)
		servers := append(slices.Clone(m.list()), srv)
		m.servers.Store(&servers)
	case srv.cfg.Type == "sdk" && srv.launched.IsZero():
		srv.tr = tr
	default:
		return fmt.Errorf("an MCP server named %q is already configured", c.Name)
	}
	m.launch(ctx, srv)
	return nil
}

// errStopped is the error of asking for a server once the manager closed.
var errStopped = errors.New("the MCP servers have been stopped")

// Close stops every server and returns once every server process has ended.
func (m *MCPManager) Close() {
	m.mu.Lock()
	m.stop()
	m.mu.Unlock()
	m.running.Wait()
}

// Wait blocks until each launched (or named) server is ready, failed or waits for a login, or ctx ends, for none past its
// startup timeout and a second: a task's first request offers what starts in time, and none joins to rewrite the cache.
func (m *MCPManager) Wait(ctx context.Context, names ...string) {
	for _, srv := range m.list() {
		m.mu.Lock()
		launched := srv.launched
		m.mu.Unlock()
		if !launched.IsZero() && (len(names) == 0 || slices.Contains(names, srv.name)) {
			bounded, cancel := context.WithDeadline(ctx, launched.Add(srv.cfg.startupTimeout()+time.Second))
			_ = srv.outcome(bounded, srv.view.Load())
			cancel()
		}
	}
}

// Status reports every server's state, in configuration order.
func (m *MCPManager) Status() []ServerStatus {
	var out []ServerStatus
	for _, srv := range m.list() {
		out = append(out, srv.view.Load().status)
	}
	return out
}

// StatusLine summarises the servers for the status bar, e.g. "MCP 2 ready, 1 failed", or "".
func (m *MCPManager) StatusLine() string {
	var parts []string
	for _, st := range []MCPState{MCPReady, MCPStarting, MCPNeedsLogin, MCPFailed} {
		if n := len(slices.DeleteFunc(m.Status(), func(s ServerStatus) bool { return s.State != st })); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "MCP " + strings.Join(parts, ", ")
}

// restart asks a server's owner to start its session again and waits for the outcome.
func (m *MCPManager) restart(ctx context.Context, name string) error {
	srv, err := m.server(name)
	if err != nil {
		return err
	}
	started := make(chan *mcpView, 1)
	select {
	case srv.restart <- started:
		return srv.outcome(ctx, <-started)
	case <-srv.done:
	case <-m.life.Done():
	case <-ctx.Done():
		return ctx.Err()
	}
	return errStopped
}

// SlashCommand runs "/mcp", "/mcp restart NAME" and "/mcp login NAME", returning the text to show.
func (m *MCPManager) SlashCommand(ctx context.Context, args string) string {
	fields := strings.Fields(args)
	switch {
	case len(fields) == 0 || fields[0] == "list":
		return m.describe()
	case fields[0] == "login" && len(fields) == 2:
		return m.loginCommand(ctx, fields[1])
	case fields[0] == "restart" && len(fields) == 2:
		if err := m.restart(ctx, fields[1]); err != nil {
			return fmt.Sprintf("MCP server %s failed to restart: %v", fields[1], err)
		}
		srv, _ := m.server(fields[1])
		return fmt.Sprintf("MCP server %s restarted: %d tools.", srv.name, srv.view.Load().status.Tools)
	}
	return "usage: /mcp (list servers), /mcp restart NAME or /mcp login NAME"
}

// describe lists the servers with their state, tools and errors.
func (m *MCPManager) describe() string {
	if len(m.list()) == 0 {
		return fmt.Sprintf("No MCP servers configured. Add one with `minicode mcp add NAME -- COMMAND ARGS` or in %s.", projectMCPFile)
	}
	var b strings.Builder
	for _, s := range m.Status() {
		fmt.Fprintf(&b, "%-20s %-11s %3d tools", s.Name, s.State, s.Tools)
		if s.Error != "" {
			fmt.Fprintf(&b, "  %s", errorSummary(s.Error))
		}
		b.WriteByte('\n')
		for _, w := range s.Warnings {
			fmt.Fprintf(&b, "  warning: %s\n", w)
		}
	}
	b.WriteString("Restart a server with /mcp restart NAME, log in to one with /mcp login NAME.")
	return b.String()
}

// server finds a server by name, or says which names there are.
func (m *MCPManager) server(name string) (*MCPServer, error) {
	var names []string
	for _, srv := range m.list() {
		if srv.name == name {
			return srv, nil
		}
		names = append(names, srv.name)
	}
	return nil, fmt.Errorf("no MCP server named %q; configured: %s", name, strings.Join(names, ", "))
}

// notice tells the user something about a server.
func (m *MCPManager) notice(format string, args ...any) {
	if m.opts.OnNotice != nil {
		m.opts.OnNotice(fmt.Sprintf(format, args...))
	}
}

// register replaces a server's tools in the registry (a taken name gets a suffix and a warning).
func (m *MCPManager) register(srv *MCPServer, old []string, tools []mcpToolInfo) (names, warnings []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	taken := func(name string) bool {
		_, used := m.reg.Get(name)
		return used && !slices.Contains(old, name) || slices.Contains(names, name)
	}
	for _, info := range tools {
		base := mcpToolName(srv.name, info.Name)
		name := uniqueToolName(base, taken)
		if name != base {
			warnings = append(warnings, fmt.Sprintf("tool %q is registered as %s because %s was taken", info.Name, name, base))
		}
		m.reg.Add(newMCPTool(srv, name, info))
		names = append(names, name)
	}
	m.reg.Remove(func(name string) bool { return slices.Contains(old, name) && !slices.Contains(names, name) })
	return names, warnings
}

// errorSummary shortens a server error to its first line and the server's last stderr line.
func errorSummary(err string) string {
	lines := strings.Split(strings.TrimSpace(err), "\n")
	if len(lines) > 2 && strings.HasPrefix(lines[1], "server stderr") {
		return lines[0] + " — " + strings.TrimSpace(lines[len(lines)-1])
	}
	return lines[0]
}

// MCPServer is one server: its owner (see launch) runs its session, others read the views it publishes.
type MCPServer struct {
	m        *MCPManager
	name     string
	cfg      MCPServerConfig
	tr       mcpTransport // given by AddServer; nil: built from cfg per session
	launched time.Time    // when its owner was started; zero before (guarded by the manager's mu)
	view     atomic.Pointer[mcpView]
	restart  chan chan<- *mcpView // a restart request, answered with the new start's view
	done     chan struct{}        // closed when its owner returns
}

// mcpView is what others may read of a server, replaced whole by its owner.
type mcpView struct {
	status   ServerStatus
	session  *mcpSession   // set while the server is ready
	replaced chan struct{} // closed when a newer view takes this one's place
}

// session returns the server's session while it is ready, or explains why it is not.
func (srv *MCPServer) session() (*mcpSession, error) {
	v := srv.view.Load()
	switch {
	case v.session != nil:
		return v.session, nil
	case v.status.State == MCPStarting:
		return nil, fmt.Errorf("MCP server %s is still starting; try again in a moment", srv.name)
	case v.status.State == MCPNeedsLogin:
		return nil, errors.New(v.status.Error)
	}
	return nil, fmt.Errorf("MCP server %s is not available (%s); restart it with /mcp restart %s", srv.name, firstLine(v.status.Error, 200), srv.name)
}

// outcome follows the server's views from v until a start is over: nil when ready, or the failure.
func (srv *MCPServer) outcome(ctx context.Context, v *mcpView) error {
	for v.status.State == MCPStarting {
		select {
		case <-v.replaced:
			v = srv.view.Load()
		case <-srv.done:
			return errStopped
		case <-srv.m.life.Done():
			return errStopped
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if v.status.State != MCPReady {
		return errors.New(v.status.Error)
	}
	return nil
}

// mcpListing is the outcome of listing a server's tools.
type mcpListing struct {
	tools []mcpToolInfo
	err   error
}

// mcpRun is one session as its owner sees it, while a worker connects and lists the tools.
type mcpRun struct {
	srv      *MCPServer
	ctx      context.Context // the worker's; ends with the session
	cancel   context.CancelFunc
	sess     *mcpSession
	worked   chan struct{} // closed when the worker returns
	tools    []string
	warnings []string
}

// serve runs one session until a restart request (answered with a view the next start replaces) or ctx ends.
func (srv *MCPServer) serve(ctx context.Context) {
	tr := srv.tr
	if tr == nil {
		tr = srv.m.transport(srv.cfg)
	}
	changed, lost, listed := make(chan struct{}, 1), make(chan error, 1), make(chan mcpListing)
	r := &mcpRun{srv: srv, sess: newMCPSession(srv.name, tr, srv.m.opts), worked: make(chan struct{})}
	r.sess.onChange = func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	r.sess.onLost = func(err error) { lost <- err } // buffered; called once
	r.ctx, r.cancel = context.WithCancel(ctx)
	defer r.end()
	srv.publish(r, MCPStarting, "")
	go r.list(listed, changed)
	for {
		select {
		case l := <-listed:
			r.onListed(l)
		case err := <-lost: // recorded before any request learns of it
			r.fail(err)
			r.sess.end(err)
			r.cancel()
		case started := <-srv.restart:
			started <- srv.publish(r, MCPStarting, "") // buffered
			return
		case <-ctx.Done():
			return
		}
	}
}

// transport builds the transport a config asks for, ${VAR} filled in, with the framing last spoken.
func (m *MCPManager) transport(c MCPServerConfig) mcpTransport {
	expand := func(s string) string { return expandVars(s, os.Getenv) }
	switch {
	case c.Type == "sdk":
		return &MCPSDK{server: c.Name} // no program serves it
	case c.isHTTP():
		headers := maps.Clone(c.Headers)
		for k, v := range headers {
			headers[k] = expand(v)
		}
		t := &mcpHTTP{url: expand(c.URL), headers: headers, legacyOnly: c.Type == "sse", auth: m.oauthFor(c)}
		t.life, t.stop = context.WithCancel(context.Background())
		return t
	}
	return newMCPStdio(c, m.opts.Workspace, expand, &m.framings)
}

// list is the worker: connect and list the tools, again after each list_changed, until a first failure.
func (r *mcpRun) list(listed chan<- mcpListing, changed <-chan struct{}) {
	defer close(r.worked)
	err := r.sess.connect(r.ctx, r.srv.cfg.startupTimeout())
	for first := true; ; first = false {
		var tools []mcpToolInfo
		if err == nil {
			tools, err = r.sess.listTools(r.ctx, r.srv.cfg.callTimeout())
		}
		select {
		case listed <- mcpListing{tools, err}:
		case <-r.ctx.Done():
			return
		}
		if err != nil && first {
			return
		}
		err = nil
		select {
		case <-changed:
		case <-r.ctx.Done():
			return
		}
	}
}

// onListed takes the outcome of connecting or listing.
func (r *mcpRun) onListed(l mcpListing) {
	state := r.srv.view.Load().status.State
	switch {
	case state == MCPFailed || state == MCPNeedsLogin || r.ctx.Err() != nil:
	case l.err != nil && state == MCPStarting:
		<-r.worked // it returns after a first failure
		r.sess.close()
		r.fail(l.err)
	case l.err != nil:
		r.srv.m.notice("MCP server %s: refreshing tools failed: %v", r.srv.name, l.err)
	default:
		r.tools, r.warnings = r.srv.m.register(r.srv, r.tools, l.tools)
		for _, w := range r.warnings {
			r.srv.m.notice("MCP server %s: %s", r.srv.name, w)
		}
		r.srv.publish(r, MCPReady, "")
	}
}

// fail records a failed or lost session once, or one that waits for a login; its tools stay, so that a call explains what to do.
func (r *mcpRun) fail(err error) {
	if state := r.srv.view.Load().status.State; state == MCPFailed || state == MCPNeedsLogin || r.ctx.Err() != nil {
		return
	}
	if need := (*mcpLoginNeeded)(nil); errors.As(err, &need) {
		r.srv.m.notice("%s", need.Error())
		r.srv.publish(r, MCPNeedsLogin, need.Error())
		return
	}
	r.srv.m.notice("MCP server %s failed: %s", r.srv.name, firstLine(err.Error(), 200))
	r.srv.publish(r, MCPFailed, err.Error())
}

// end stops the worker, closes the session and unregisters its tools.
func (r *mcpRun) end() {
	r.cancel()
	<-r.worked
	r.sess.close()
	r.srv.m.register(r.srv, r.tools, nil)
	r.srv.m.refreshHelpers()
}

// publish replaces the server's view.
func (srv *MCPServer) publish(r *mcpRun, state MCPState, errText string) *mcpView {
	v := &mcpView{status: ServerStatus{Name: srv.name, State: state, Tools: len(r.tools), Error: errText, Warnings: r.warnings}, replaced: make(chan struct{})}
	if state == MCPReady {
		v.session = r.sess
	}
	old := srv.view.Swap(v)
	srv.m.refreshHelpers()
	close(old.replaced) // after the helper tools follow the new state
	return v
}
