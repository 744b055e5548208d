package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The MCP protocol version the client asks for, its default timeouts, and the JSON-RPC error codes it uses.
const (
	mcpProtocolVersion       = "2025-11-25"
	defaultMCPStartupTimeout = 30 * time.Second
	defaultMCPCallTimeout    = 60 * time.Second
	mcpCancelGrace           = 2 * time.Second // how long sending notifications/cancelled may take

	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcConnectionLost = -32000
)

// RPCMessage is any JSON-RPC 2.0 message, its id kept raw to survive the round trip.
type RPCMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// isRequest reports whether m asks for an answer.
func (m RPCMessage) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// isResponse reports whether m answers one of our requests.
func (m RPCMessage) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// idKey is the canonical text of a message id, used to match replies.
func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Error describes the error the way a user reads it.
func (e *RPCError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// mcpTransport carries JSON-RPC messages to and from one server.
type mcpTransport interface {
	// open connects: messages go to deliver in order; lost is called once if the connection ends by itself.
	open(ctx context.Context, deliver func(RPCMessage), lost func(error)) error
	send(ctx context.Context, msg RPCMessage) error // errMCPSessionExpired: initialize again
	close()                                         // returns once all it started has ended
}

// errMCPSessionExpired reports that a server no longer knows our session.
var errMCPSessionExpired = errors.New("the server ended the MCP session")

// MCPProgress is one progress report of a running tool call.
type MCPProgress struct {
	Server   string
	Tool     string
	Progress float64
	Total    float64 // 0 when unknown
	Message  string
}

// mcpServerInfo is what a server said about itself in the handshake.
type mcpServerInfo struct {
	ProtocolVersion string `json:"protocolVersion"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Capabilities struct {
		Resources *struct{} `json:"resources"`
		Prompts   *struct{} `json:"prompts"`
	} `json:"capabilities"`
}

// mcpPending is one request waiting for its reply.
type mcpPending struct {
	reply      chan RPCMessage
	onProgress func(MCPProgress)
	timer      *time.Timer // ends the request unless progress resets it
	timeout    time.Duration
}

// mcpSession is one connection to an MCP server: handshake, requests both ways and their replies.
type mcpSession struct {
	server   string
	tr       mcpTransport
	opts     MCPOptions      // the client's version, the workspace root and the Elicitor
	onChange func()          // told of notifications/tools/list_changed; must not block
	onLost   func(err error) // told once if the connection ends by itself (an owner ends the session then); must not block

	nextID    atomic.Int64
	pending   sync.Map // our requests' *mcpPending, by id
	incoming  sync.Map // the context.CancelFunc of each server's request, by id
	info      atomic.Pointer[mcpServerInfo]
	handshake sync.Mutex // one (re)initialization at a time

	inboxMu sync.Mutex
	inbox   []RPCMessage // received, in order, not yet routed
	routing bool         // a goroutine is routing the inbox

	life    context.Context // ends when the session ends
	end     context.CancelCauseFunc
	closing sync.Once
}

// newMCPSession wraps a transport; nothing is sent until connect.
func newMCPSession(server string, tr mcpTransport, opts MCPOptions) *mcpSession {
	life, end := context.WithCancelCause(context.Background())
	return &mcpSession{server: server, tr: tr, opts: opts, life: life, end: end, onLost: end}
}

// connect opens the transport and runs the handshake within timeout, or closes the session.
func (s *mcpSession) connect(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	err := s.tr.open(ctx, s.receive, s.lost)
	if err != nil {
		err = fmt.Errorf("starting MCP server %s: %w", s.server, err)
	} else if err = s.initialize(ctx, timeout); err != nil && !time.Now().Before(deadline) { // the context's or the request's timer may tell first
		err = fmt.Errorf("MCP server %s did not answer initialize within %s", s.server, timeout)
	}
	if err != nil {
		err = s.explain(err)
		s.close()
	}
	return err
}

// initialize runs the handshake: initialize, the version check, notifications/initialized.
func (s *mcpSession) initialize(ctx context.Context, timeout time.Duration) error {
	s.handshake.Lock()
	defer s.handshake.Unlock()
	caps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	if s.opts.Workspace != "" {
		caps["roots"] = map[string]any{"listChanged": false}
	}
	params := map[string]any{"protocolVersion": mcpProtocolVersion, "capabilities": caps,
		"clientInfo": map[string]any{"name": "minicode", "version": cmp.Or(s.opts.ClientVersion, "dev")}}
	raw, err := s.request(ctx, "initialize", params, timeout, nil)
	if err != nil {
		return fmt.Errorf("initializing MCP server %s: %w", s.server, err)
	}
	var info mcpServerInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		return fmt.Errorf("initializing MCP server %s: bad initialize result: %w", s.server, err)
	}
	if supported := []string{mcpProtocolVersion, "2025-06-18", "2025-03-26"}; !slices.Contains(supported, info.ProtocolVersion) {
		return fmt.Errorf("MCP server %s speaks protocol version %q; minicode supports %v", s.server, info.ProtocolVersion, supported)
	}
	s.info.Store(&info)
	if web, ok := s.tr.(*mcpHTTP); ok { // HTTP sends the version with each request
		web.version.Store(&info.ProtocolVersion)
	}
	if err := s.notify(ctx, "notifications/initialized", nil); err != nil {
		return fmt.Errorf("initializing MCP server %s: %w", s.server, err)
	}
	return nil
}

// call sends a request and waits for its result, initializing again once if the server lost our session.
func (s *mcpSession) call(ctx context.Context, method string, params map[string]any, timeout time.Duration, onProgress func(MCPProgress)) (json.RawMessage, error) {
	raw, err := s.request(ctx, method, params, timeout, onProgress)
	if errors.Is(err, errMCPSessionExpired) {
		if err := s.initialize(ctx, timeout); err != nil {
			return nil, fmt.Errorf("re-initializing after the session expired: %w", err)
		}
		raw, err = s.request(ctx, method, params, timeout, onProgress)
	}
	return raw, err
}

// request sends one request (with a progress token in params if onProgress is set) and waits for the reply within timeout, which progress resets.
func (s *mcpSession) request(ctx context.Context, method string, params map[string]any, timeout time.Duration, onProgress func(MCPProgress)) (json.RawMessage, error) {
	key := strconv.FormatInt(s.nextID.Add(1), 10)
	if onProgress != nil {
		params["_meta"] = map[string]any{"progressToken": json.RawMessage(key)}
	}
	var body json.RawMessage
	if params != nil {
		body, _ = json.Marshal(params) // plain values, and arguments checked to be JSON
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	defer context.AfterFunc(s.life, func() { stop(nil) })() // the session's end ends the request too
	timedOut := fmt.Errorf("MCP server %s did not answer %s within %s", s.server, method, timeout)
	p := &mcpPending{reply: make(chan RPCMessage, 1), onProgress: onProgress, timeout: timeout, timer: time.AfterFunc(timeout, func() { stop(timedOut) })}
	defer p.timer.Stop()
	s.pending.Store(key, p)
	defer s.pending.Delete(key) // a reply that still comes is ignored

	var reply RPCMessage
	err := s.tr.send(ctx, RPCMessage{JSONRPC: "2.0", ID: json.RawMessage(key), Method: method, Params: body})
	if err == nil {
		select {
		case reply = <-p.reply:
		case <-ctx.Done():
		}
	}
	switch {
	case reply.Error != nil:
		return nil, reply.Error
	case reply.ID != nil:
		return reply.Result, nil
	case s.life.Err() != nil:
		return nil, context.Cause(s.life)
	case context.Cause(ctx) == timedOut:
		s.cancelRequest(method, key, "timed out")
		return nil, timedOut
	case ctx.Err() != nil:
		s.cancelRequest(method, key, "cancelled by the user")
		return nil, context.Cause(ctx)
	}
	return nil, err
}

// cancelRequest tells the server we no longer want an answer (initialize may not be cancelled).
func (s *mcpSession) cancelRequest(method, key, reason string) {
	if method == "initialize" || s.life.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.life, mcpCancelGrace)
	defer cancel()
	_ = s.notify(ctx, "notifications/cancelled", map[string]any{"requestId": json.RawMessage(key), "reason": reason})
}

// notify sends a notification.
func (s *mcpSession) notify(ctx context.Context, method string, params any) error {
	msg := RPCMessage{JSONRPC: "2.0", Method: method}
	if params != nil {
		msg.Params, _ = json.Marshal(params) // maps of plain values
	}
	return s.tr.send(ctx, msg)
}

// receive takes one incoming message from the transport and routes it on a goroutine that lives
// while the inbox has messages: a progress callback that blocks holds up later messages, in order,
// but never the transport's reader, which close waits for.
func (s *mcpSession) receive(m RPCMessage) {
	s.inboxMu.Lock()
	defer s.inboxMu.Unlock()
	if m.ID == nil && len(s.inbox) >= maxInbox {
		return // a server flooding notifications while the callback is held up loses them, not minicode its memory
	}
	s.inbox = append(s.inbox, m)
	if !s.routing {
		s.routing = true
		go s.routeInbox()
	}
}

// maxInbox bounds the notifications waiting to be routed; replies and requests always wait.
const maxInbox = 1024

// routeInbox routes the inbox's messages until it is empty.
func (s *mcpSession) routeInbox() {
	for {
		s.inboxMu.Lock()
		if len(s.inbox) == 0 {
			s.routing = false
			s.inboxMu.Unlock()
			return
		}
		m := s.inbox[0]
		s.inbox = s.inbox[1:]
		s.inboxMu.Unlock()
		s.route(m)
	}
}

// route acts on one incoming message: a reply, a server request or a notification.
func (s *mcpSession) route(m RPCMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Token     json.RawMessage `json:"progressToken"`
		MCPProgress
	}
	switch {
	case m.isResponse():
		if pend := s.lookup(m.ID); pend != nil {
			select {
			case pend.reply <- m:
			default: // a second reply to the same request
			}
		}
	case m.isRequest():
		s.serve(m)
	case m.Method == "notifications/progress" && json.Unmarshal(m.Params, &p) == nil:
		if pend := s.lookup(p.Token); pend != nil {
			pend.timer.Reset(pend.timeout)
			if pend.onProgress != nil {
				p.Server = s.server
				pend.onProgress(p.MCPProgress)
			}
		}
	case m.Method == "notifications/cancelled" && json.Unmarshal(m.Params, &p) == nil:
		if stop, ok := s.incoming.Load(idKey(p.RequestID)); ok {
			stop.(context.CancelFunc)()
		}
	case m.Method == "notifications/tools/list_changed" && s.onChange != nil:
		s.onChange()
	}
}

// lookup returns the pending request with the given id, or nil.
func (s *mcpSession) lookup(id json.RawMessage) *mcpPending {
	pend, _ := s.pending.Load(idKey(id))
	p, _ := pend.(*mcpPending)
	return p
}

// serve answers a server's request on its own goroutine, so a slow answer stalls nothing.
func (s *mcpSession) serve(m RPCMessage) {
	ctx, stop := context.WithCancel(s.life)
	s.incoming.Store(idKey(m.ID), stop)
	go func() {
		defer s.incoming.Delete(idKey(m.ID))
		defer stop()
		result, rerr := s.answer(ctx, m)
		if ctx.Err() != nil {
			return
		}
		reply := RPCMessage{JSONRPC: "2.0", ID: m.ID, Error: rerr}
		if rerr == nil {
			reply.Result, _ = json.Marshal(result)
		}
		sendCtx, cancel := context.WithTimeout(s.life, defaultMCPCallTimeout)
		defer cancel()
		_ = s.tr.send(sendCtx, reply)
	}()
}

// answer computes the result of a server's ping, roots/list or elicitation/create.
func (s *mcpSession) answer(ctx context.Context, m RPCMessage) (any, *RPCError) {
	switch {
	case m.Method == "ping":
		return struct{}{}, nil
	case m.Method == "roots/list" && s.opts.Workspace != "":
		root := url.URL{Scheme: "file", Path: filepath.ToSlash(s.opts.Workspace)}
		return map[string]any{"roots": []map[string]string{{"uri": root.String(), "name": filepath.Base(s.opts.Workspace)}}}, nil
	case m.Method == "elicitation/create":
		return s.elicit(ctx, m.Params)
	}
	return nil, &RPCError{Code: rpcMethodNotFound, Message: "method not found: " + m.Method}
}

// lost reports that the transport ended: by default it ends the session, an owner records the loss first.
func (s *mcpSession) lost(err error) {
	s.onLost(s.explain(fmt.Errorf("MCP server %s is not connected: %w", s.server, err)))
}

// explain adds the server's recent stderr to an error.
func (s *mcpSession) explain(err error) error {
	if stdio, ok := s.tr.(*mcpStdio); ok && stdio.stderr.String() != "" {
		return fmt.Errorf("%w\nserver stderr (last lines):\n%s", err, stdio.stderr.String())
	}
	return err
}

// close ends the session and the transport once, and returns when the transport let go.
func (s *mcpSession) close() {
	s.closing.Do(func() {
		s.end(fmt.Errorf("MCP server %s is not connected: the session was closed", s.server))
		s.tr.close()
	})
}
