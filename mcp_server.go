package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// mcpServer is one configured server as the manager runs it: its session,
// its state, and the names its tools have in the registry.
type mcpServer struct {
	m    *MCPManager
	name string
	cfg  MCPServerConfig

	mu       sync.Mutex
	state    MCPState
	err      string
	warnings []string
	session  *mcpSession
	closed   bool          // the manager was closed: start nothing more
	tools    []string      // registry names of this server's tools
	settled  chan struct{} // closed when the current start has finished
	// refreshing is set while tools are being listed; dirty asks for one
	// more listing because list_changed arrived meanwhile.
	refreshing, dirty bool
}

// start connects, lists the tools and registers them, and records the
// outcome. It blocks until the server is ready or has failed.
func (srv *mcpServer) start(ctx context.Context) {
	srv.mu.Lock()
	settled := srv.settled
	srv.mu.Unlock()
	defer close(settled)
	srv.m.emit(MCPEvent{Kind: MCPEventState, Server: srv.name, Text: string(MCPStarting)})

	var sess *mcpSession
	opts := srv.m.sessionOptions()
	opts.OnNotify = func(method string, _ json.RawMessage) {
		if method == "notifications/tools/list_changed" && srv.current(sess) {
			srv.scheduleRefresh(sess)
		}
	}
	opts.OnLost = func(err error) { srv.fail(sess, err) }
	sess = newMCPSession(srv.name, srv.m.transport(srv.cfg), opts)
	srv.mu.Lock()
	closed := srv.closed
	if !closed {
		srv.session, srv.refreshing, srv.dirty = sess, true, false
	}
	srv.mu.Unlock()
	if closed {
		return
	}

	if err := sess.connect(ctx, srv.cfg.startupTimeout()); err != nil {
		srv.fail(sess, err)
		return
	}
	if err := srv.refreshLoop(ctx, sess); err != nil {
		sess.close()
		srv.fail(sess, err)
		return
	}
	srv.mu.Lock()
	current := srv.session == sess
	if current {
		srv.state = MCPReady
	}
	srv.mu.Unlock()
	if !current {
		return
	}
	srv.m.refreshHelpers()
	srv.m.emit(MCPEvent{Kind: MCPEventState, Server: srv.name, Text: string(MCPReady)})
}

// current reports whether sess is still this server's session.
func (srv *mcpServer) current(sess *mcpSession) bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return sess != nil && srv.session == sess
}

// fail marks the server failed and tells the user why, once. It does
// nothing when sess is no longer the server's session: a restart or close
// ended it on purpose, and the new start reports its own outcome.
func (srv *mcpServer) fail(sess *mcpSession, err error) {
	srv.mu.Lock()
	if srv.session != sess || srv.state == MCPFailed {
		srv.mu.Unlock()
		return
	}
	srv.state, srv.err = MCPFailed, err.Error()
	srv.mu.Unlock()
	srv.m.refreshHelpers()
	srv.m.emit(MCPEvent{Kind: MCPEventState, Server: srv.name, Text: string(MCPFailed)})
	srv.m.emit(MCPEvent{Kind: MCPEventNotice, Server: srv.name, Text: fmt.Sprintf("MCP server %s failed: %s", srv.name, firstLineOf(err.Error()))})
}

// scheduleRefresh lists the tools again in the background; notifications
// that arrive while a listing runs are folded into one more listing.
func (srv *mcpServer) scheduleRefresh(sess *mcpSession) {
	srv.mu.Lock()
	if srv.refreshing {
		srv.dirty = true
		srv.mu.Unlock()
		return
	}
	srv.refreshing = true
	srv.mu.Unlock()
	go func() {
		if err := srv.refreshLoop(sess.life, sess); err != nil && sess.life.Err() == nil {
			srv.m.emit(MCPEvent{Kind: MCPEventNotice, Server: srv.name, Text: fmt.Sprintf("MCP server %s: refreshing tools failed: %v", srv.name, err)})
		}
	}()
}

// refreshLoop lists and registers the tools until no list_changed
// notification arrived during the last listing. The caller has set
// refreshing; refreshLoop clears it.
func (srv *mcpServer) refreshLoop(ctx context.Context, sess *mcpSession) error {
	for {
		srv.mu.Lock()
		srv.dirty = false
		srv.mu.Unlock()
		tools, err := sess.listTools(ctx, srv.cfg.callTimeout())
		if err == nil && srv.current(sess) {
			srv.register(tools)
		}
		srv.mu.Lock()
		again := srv.dirty && err == nil
		srv.refreshing = again
		srv.mu.Unlock()
		if !again {
			return err
		}
	}
}

// register replaces this server's tools in the registry. A name that is
// already taken gets a numeric suffix, and the change is reported.
func (srv *mcpServer) register(tools []mcpToolInfo) {
	m := srv.m
	m.mu.Lock()
	defer m.mu.Unlock()
	srv.mu.Lock()
	old := map[string]bool{}
	for _, name := range srv.tools {
		old[name] = true
	}
	srv.mu.Unlock()
	m.reg.Remove(func(name string) bool { return old[name] })

	chosen := map[string]bool{}
	taken := func(name string) bool {
		_, used := m.reg.Get(name)
		return used || chosen[name]
	}
	var names, warnings []string
	var entries []*Tool
	for _, info := range tools {
		base := mcpToolName(srv.name, info.Name)
		name := uniqueToolName(base, taken)
		if name != base {
			warnings = append(warnings, fmt.Sprintf("tool %q is registered as %s because %s was taken", info.Name, name, base))
		}
		chosen[name] = true
		names = append(names, name)
		entries = append(entries, newMCPTool(srv, name, info))
	}
	for _, t := range entries {
		m.reg.Add(t)
	}
	srv.mu.Lock()
	srv.tools, srv.warnings = names, warnings
	srv.mu.Unlock()
	for _, w := range warnings {
		m.emit(MCPEvent{Kind: MCPEventNotice, Server: srv.name, Text: fmt.Sprintf("MCP server %s: %s", srv.name, w)})
	}
}

// callTool runs a tool if the server is up, or explains why it cannot.
func (srv *mcpServer) callTool(ctx context.Context, tool string, args json.RawMessage) (ToolOutput, error) {
	sess, err := srv.ready()
	if err != nil {
		return ToolOutput{}, err
	}
	return sess.callTool(ctx, tool, args, srv.cfg.callTimeout(), func(p MCPProgress) {
		srv.m.emit(MCPEvent{Kind: MCPEventProgress, Server: srv.name, Text: p.Message, Progress: &p})
	})
}

// ready returns the session of a ready server, or an error saying why the
// server cannot be used and how to bring it back.
func (srv *mcpServer) ready() (*mcpSession, error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	switch srv.state {
	case MCPReady:
		return srv.session, nil
	case MCPStarting:
		return nil, fmt.Errorf("MCP server %s is still starting; try again in a moment", srv.name)
	}
	return nil, fmt.Errorf("MCP server %s is not available (%s); restart it with /mcp restart %s", srv.name, firstLineOf(srv.err), srv.name)
}

// readyInfo returns the handshake info of a ready server.
func (srv *mcpServer) readyInfo() (mcpServerInfo, bool) {
	srv.mu.Lock()
	sess, state := srv.session, srv.state
	srv.mu.Unlock()
	if state != MCPReady || sess == nil {
		return mcpServerInfo{}, false
	}
	return sess.serverInfo(), true
}

// status is a snapshot for the UI.
func (srv *mcpServer) status() ServerStatus {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return ServerStatus{Name: srv.name, State: srv.state, Tools: len(srv.tools), Error: srv.err,
		Warnings: append([]string(nil), srv.warnings...)}
}

// callTimeout is how long a call may wait without an answer or progress.
func (srv *mcpServer) callTimeout() time.Duration { return srv.cfg.callTimeout() }

// stop closes the session, if any; final also keeps a start that has not
// yet begun its session from beginning one.
func (srv *mcpServer) stop(final bool) {
	srv.mu.Lock()
	srv.closed = srv.closed || final
	sess := srv.session
	srv.session = nil
	srv.mu.Unlock()
	if sess != nil {
		sess.close()
	}
}
