package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// MCP protocol versions. The client asks for the newest one it speaks and
// accepts a server that answers with any of the older ones it still knows.
const (
	mcpProtocolVersion       = "2025-11-25"
	defaultMCPStartupTimeout = 30 * time.Second
	defaultMCPCallTimeout    = 60 * time.Second
	mcpCancelGrace           = 2 * time.Second // how long sending notifications/cancelled may take
)

// mcpSupportedVersions lists the protocol versions a server may answer with.
func mcpSupportedVersions() []string {
	return []string{"2025-11-25", "2025-06-18", "2025-03-26"}
}

// JSON-RPC error codes used by the client.
const (
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcInternalError  = -32603
	rpcConnectionLost = -32000
)

// rpcMessage is any JSON-RPC 2.0 message: a request (Method and ID), a
// notification (Method, no ID) or a response (ID with Result or Error). IDs
// are kept raw so that 0 and string ids survive the round trip unchanged.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// isRequest reports whether m asks for an answer.
func (m rpcMessage) isRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// isResponse reports whether m answers one of our requests.
func (m rpcMessage) isResponse() bool { return m.Method == "" && len(m.ID) > 0 }

// idKey is the canonical text of a message id, used to match replies.
func idKey(id json.RawMessage) string { return string(bytes.TrimSpace(id)) }

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error describes the error the way a user reads it.
func (e *rpcError) Error() string {
	return fmt.Sprintf("%s (code %d)", e.Message, e.Code)
}

// mcpTransport carries JSON-RPC messages to and from one server. The
// session owns it: open is called once, close once at the end.
type mcpTransport interface {
	// open starts the connection. Incoming messages go to deliver, in the
	// order they arrive; lost is called once if the connection ends by itself.
	open(ctx context.Context, deliver func(rpcMessage), lost func(error)) error
	// send writes one message. errMCPSessionExpired means the server forgot
	// the session and the client must initialize again.
	send(ctx context.Context, msg rpcMessage) error
	// negotiated is told the protocol version the server chose, before
	// notifications/initialized is sent.
	negotiated(version string)
	// established is called once the handshake is done.
	established(ctx context.Context) error
	// close ends the connection and releases everything it holds.
	close() error
	// diagnostics returns what the server last said on the side (stderr),
	// for error messages; "" when there is nothing.
	diagnostics() string
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

// mcpSessionOptions configure what the client offers a server.
type mcpSessionOptions struct {
	ClientVersion string
	// Roots are the directories offered to servers that ask (roots/list).
	Roots []string
	// Elicitor answers the server's elicitation/create requests.
	Elicitor Elicitor
	// OnNotify receives notifications other than progress. It runs on the
	// reading goroutine and must not block.
	OnNotify func(method string, params json.RawMessage)
	// OnLost is called once when the connection ends by itself.
	OnLost func(err error)
}

// mcpServerInfo is what a server said about itself in the handshake.
type mcpServerInfo struct {
	ProtocolVersion string `json:"protocolVersion"`
	ServerInfo      struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	Capabilities struct {
		Tools     *struct{} `json:"tools"`
		Resources *struct{} `json:"resources"`
		Prompts   *struct{} `json:"prompts"`
	} `json:"capabilities"`
	Instructions string `json:"instructions"`
}

// mcpPending is one request waiting for its reply.
type mcpPending struct {
	reply      chan rpcMessage
	progressed chan struct{}
	onProgress func(MCPProgress)
}

// mcpSession is one live connection to an MCP server: it matches replies to
// requests, answers what the server asks of us, runs the handshake and
// cancels what takes too long.
type mcpSession struct {
	server string
	tr     mcpTransport
	opts   mcpSessionOptions

	nextID    atomic.Int64
	mu        sync.Mutex
	pending   map[string]*mcpPending
	incoming  map[string]context.CancelFunc
	info      mcpServerInfo
	handshake sync.Mutex // one (re)initialization at a time

	life      context.Context // ends when the session closes
	end       context.CancelFunc
	closeOnce sync.Once
	closeTr   sync.Once
	err       error // why the session ended; read after life is done
}

// newMCPSession wraps a transport; nothing is sent until connect.
func newMCPSession(server string, tr mcpTransport, opts mcpSessionOptions) *mcpSession {
	life, end := context.WithCancel(context.Background())
	return &mcpSession{
		server: server, tr: tr, opts: opts,
		pending:  map[string]*mcpPending{},
		incoming: map[string]context.CancelFunc{},
		life:     life, end: end,
	}
}

// connect opens the transport and runs the handshake within timeout. On
// failure the session is closed, with whatever the transport had opened.
func (s *mcpSession) connect(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	if err := s.tr.open(ctx, s.receive, s.lost); err != nil {
		err = s.explain(fmt.Errorf("starting MCP server %s: %w", s.server, err))
		s.close()
		return err
	}
	if err := s.initialize(ctx, timeout); err != nil {
		// The startup deadline and the initialize request's own timeout
		// end together; either way the server was too slow.
		if !time.Now().Before(deadline) {
			err = fmt.Errorf("MCP server %s did not answer initialize within %s", s.server, timeout)
		}
		s.close()
		return s.explain(err)
	}
	return nil
}

// initialize runs the MCP handshake: initialize, check the version the
// server chose, then notifications/initialized.
func (s *mcpSession) initialize(ctx context.Context, timeout time.Duration) error {
	s.handshake.Lock()
	defer s.handshake.Unlock()
	caps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	if len(s.opts.Roots) > 0 {
		caps["roots"] = map[string]any{"listChanged": false}
	}
	version := s.opts.ClientVersion
	if version == "" {
		version = "dev"
	}
	params := map[string]any{
		"protocolVersion": mcpProtocolVersion,
		"capabilities":    caps,
		"clientInfo":      map[string]any{"name": "minicode", "version": version},
	}
	raw, err := s.request(ctx, "initialize", params, timeout, nil)
	if err != nil {
		return fmt.Errorf("initializing MCP server %s: %w", s.server, err)
	}
	var info mcpServerInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		return fmt.Errorf("initializing MCP server %s: bad initialize result: %w", s.server, err)
	}
	if !slices.Contains(mcpSupportedVersions(), info.ProtocolVersion) {
		return fmt.Errorf("MCP server %s speaks protocol version %q; minicode supports %v", s.server, info.ProtocolVersion, mcpSupportedVersions())
	}
	s.mu.Lock()
	s.info = info
	s.mu.Unlock()
	s.tr.negotiated(info.ProtocolVersion)
	if err := s.notify(ctx, "notifications/initialized", nil); err != nil {
		return fmt.Errorf("initializing MCP server %s: %w", s.server, err)
	}
	return s.tr.established(ctx)
}

// serverInfo returns what the server said in the handshake.
func (s *mcpSession) serverInfo() mcpServerInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// call sends a request and waits for its result. If the server lost our
// session (HTTP), it initializes again and retries once.
func (s *mcpSession) call(ctx context.Context, method string, params any, timeout time.Duration, onProgress func(MCPProgress)) (json.RawMessage, error) {
	raw, err := s.request(ctx, method, params, timeout, onProgress)
	if errors.Is(err, errMCPSessionExpired) {
		if err := s.initialize(ctx, timeout); err != nil {
			return nil, fmt.Errorf("re-initializing after the session expired: %w", err)
		}
		raw, err = s.request(ctx, method, params, timeout, onProgress)
	}
	return raw, err
}

// request sends one request and waits for the reply. The timeout covers
// the send as well (an HTTP server answering in JSON sends nothing until it
// has the result); progress reports reset it. A timeout or a cancelled ctx
// sends notifications/cancelled and forgets the request, so a late reply
// is ignored. Whatever the transport opened for the request (an HTTP
// stream, a write still in progress) ends when it returns.
func (s *mcpSession) request(ctx context.Context, method string, params any, timeout time.Duration, onProgress func(MCPProgress)) (json.RawMessage, error) {
	ctx, done := context.WithCancel(ctx)
	defer done()
	id := s.nextID.Add(1)
	key := strconv.FormatInt(id, 10)
	body, err := requestParams(params, key, onProgress != nil)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", method, err)
	}
	p := &mcpPending{reply: make(chan rpcMessage, 1), progressed: make(chan struct{}, 1), onProgress: onProgress}
	s.mu.Lock()
	s.pending[key] = p
	s.mu.Unlock()
	defer s.forget(key)

	msg := rpcMessage{JSONRPC: "2.0", ID: json.RawMessage(key), Method: method, Params: body}
	sent := make(chan error, 1)
	go func() { sent <- s.tr.send(ctx, msg) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case err := <-sent:
			if err != nil && s.life.Err() != nil {
				return nil, s.ended()
			}
			if err != nil {
				return nil, err
			}
			sent = nil
		case r := <-p.reply:
			if r.Error != nil {
				return nil, r.Error
			}
			return r.Result, nil
		case <-p.progressed:
			timer.Reset(timeout)
		case <-timer.C:
			s.cancelRequest(method, key, "timed out")
			return nil, fmt.Errorf("MCP server %s did not answer %s within %s", s.server, method, timeout)
		case <-ctx.Done():
			s.cancelRequest(method, key, "cancelled by the user")
			return nil, ctx.Err()
		case <-s.life.Done():
			return nil, s.ended()
		}
	}
}

// requestParams encodes params, adding _meta.progressToken when asked.
func requestParams(params any, token string, wantProgress bool) (json.RawMessage, error) {
	if params == nil && !wantProgress {
		return nil, nil
	}
	body, err := json.Marshal(params)
	if err != nil || !wantProgress {
		return body, err
	}
	fields := map[string]json.RawMessage{}
	if string(body) != "null" {
		if err := json.Unmarshal(body, &fields); err != nil {
			return nil, err
		}
	}
	fields["_meta"] = json.RawMessage(`{"progressToken":` + token + `}`)
	return json.Marshal(fields)
}

// forget drops a pending request; a reply that still comes is ignored.
func (s *mcpSession) forget(key string) {
	s.mu.Lock()
	delete(s.pending, key)
	s.mu.Unlock()
}

// cancelRequest tells the server we no longer want an answer (never for
// initialize, which the protocol forbids cancelling).
func (s *mcpSession) cancelRequest(method, key, reason string) {
	s.forget(key)
	if method == "initialize" || s.life.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.life, mcpCancelGrace)
	defer cancel()
	_ = s.notify(ctx, "notifications/cancelled", map[string]any{"requestId": json.RawMessage(key), "reason": reason})
}

// notify sends a notification.
func (s *mcpSession) notify(ctx context.Context, method string, params any) error {
	msg := rpcMessage{JSONRPC: "2.0", Method: method}
	if params != nil {
		body, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("encoding %s: %w", method, err)
		}
		msg.Params = body
	}
	return s.tr.send(ctx, msg)
}

// receive handles one incoming message: a reply goes to its waiting
// request, a request from the server is answered, a notification is
// dispatched.
func (s *mcpSession) receive(m rpcMessage) {
	switch {
	case m.isResponse():
		s.mu.Lock()
		p := s.pending[idKey(m.ID)]
		s.mu.Unlock()
		if p != nil {
			select {
			case p.reply <- m:
			default:
			}
		}
	case m.isRequest():
		s.serve(m)
	case m.Method == "notifications/progress":
		s.progress(m.Params)
	case m.Method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			s.mu.Lock()
			stop := s.incoming[idKey(p.RequestID)]
			s.mu.Unlock()
			if stop != nil {
				stop()
			}
		}
	case m.Method != "" && s.opts.OnNotify != nil:
		s.opts.OnNotify(m.Method, m.Params)
	}
}

// lost records that the transport ended by itself: the owner hears of it
// first (so its state is already "failed" when a waiting request returns),
// then every waiting request fails with the reason.
func (s *mcpSession) lost(err error) {
	if s.opts.OnLost != nil {
		s.opts.OnLost(s.explain(fmt.Errorf("MCP server %s is not connected: %w", s.server, err)))
	}
	s.shutdown(err)
}

// shutdown ends the session once, remembering why.
func (s *mcpSession) shutdown(err error) {
	s.closeOnce.Do(func() {
		if err == nil {
			err = errors.New("the connection was closed")
		}
		s.err = err
		s.end()
	})
}

// ended is the error a request gets once the session is over, with the
// server's last words.
func (s *mcpSession) ended() error {
	return s.explain(fmt.Errorf("MCP server %s is not connected: %w", s.server, s.err))
}

// explain adds the server's recent stderr to an error.
func (s *mcpSession) explain(err error) error {
	if d := s.tr.diagnostics(); d != "" {
		return fmt.Errorf("%w\nserver stderr (last lines):\n%s", err, d)
	}
	return err
}

// close ends the session and the transport; later calls do nothing.
func (s *mcpSession) close() error {
	s.shutdown(errors.New("the session was closed"))
	var err error
	s.closeTr.Do(func() { err = s.tr.close() })
	return err
}
