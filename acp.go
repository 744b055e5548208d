package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
)

// acpProtocolVersion is the ACP version spoken, that of @agentclientprotocol/sdk 2.4.0.
const acpProtocolVersion = 1

// JSON-RPC error codes of ACP besides rpcMethodNotFound and rpcInvalidParams (mcp.go).
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcInternalError  = -32603
)

// acpConn is minicode's end of one connection of the Agent Client Protocol, by which editors (Zed,
// JetBrains IDEs, Neovim) drive it: JSON-RPC 2.0 on stdin and stdout, a message a line, stdout for
// protocol messages only. A session is an App in the editor's folder, its turns sent as session/update
// (acp_session.go), its questions as request_permission (acp_tools.go). The read loop answers requests
// in order, but for prompts, which run on their own goroutines so cancellations and answers get through.
type acpConn struct {
	opts   Options // the command line every session's App starts from
	out    *LineWriter
	stderr io.Writer
	getenv func(string) string
	life   context.Context                            // ends with stdin, cancelling running turns
	calls  PendingCalls[RPCMessage]                   // minicode's requests to the client
	fs     struct{ ReadTextFile, WriteTextFile bool } // what the client's initialize offered

	sessions map[string]*acpSession // the read loop's alone
	turns    sync.WaitGroup         // running prompts
}

// runACP serves one client until stdin ends; then what still runs is cancelled, as a client that left
// sees nothing more, and every session closes with its journal complete.
func runACP(ctx context.Context, opts Options, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) error {
	opts.Print, opts.Editor = true, true
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	life, disconnect := context.WithCancel(ctx)
	c := &acpConn{opts: opts, out: &LineWriter{w: stdout}, stderr: stderr, getenv: getenv, life: life, sessions: map[string]*acpSession{}}
	for in, err := bufio.NewReader(stdin), error(nil); err == nil; {
		var line []byte
		if line, err = in.ReadBytes('\n'); len(bytes.TrimSpace(line)) > 0 {
			c.receive(line)
		}
	}
	disconnect()
	c.calls.end(errors.New("the client disconnected"))
	c.turns.Wait()
	for _, s := range c.sessions {
		s.app.Close()
	}
	return ctx.Err()
}

// receive acts on one message; one not JSON-RPC gets an error response (a null id if it has none), and the connection goes on.
func (c *acpConn) receive(line []byte) {
	var m RPCMessage
	err := json.Unmarshal(line, &m)
	switch {
	case err != nil && !json.Valid(line):
		c.reply(nil, nil, &RPCError{Code: rpcParseError, Message: "parse error: the line is not JSON"})
	case err != nil || m.JSONRPC != "2.0":
		c.reply(m.ID, nil, &RPCError{Code: rpcInvalidRequest, Message: `invalid request: a message is one JSON-RPC object, "jsonrpc":"2.0"`})
	case m.isResponse() && (m.Result != nil || m.Error != nil):
		c.calls.answer(idKey(m.ID), m)
	case m.Method == "":
		c.reply(m.ID, nil, &RPCError{Code: rpcInvalidRequest, Message: "invalid request: a message needs a method, or an id and a result or error"})
	case len(m.ID) == 0 && m.Method == "session/cancel": // other notifications are ignored, as the protocol asks
		if s, err := c.session(m.Params); err == nil {
			s.turn.interrupt()
		}
	case len(m.ID) == 0:
	case m.Method == "session/prompt":
		if s, err := c.session(m.Params); err != nil {
			c.reply(m.ID, nil, err)
		} else {
			c.turns.Go(func() {
				result, err := s.prompt(m.Params)
				c.reply(m.ID, result, err)
			})
		}
	default:
		result, err := c.answer(m)
		if c.reply(m.ID, result, err); err == nil && (m.Method == "session/new" || m.Method == "session/load") {
			result.(*acpSession).announceCommands() // only now does the client know the session
		}
	}
}

// answer handles a request other than session/prompt.
func (c *acpConn) answer(m RPCMessage) (any, error) {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion    int `json:"protocolVersion"`
			ClientCapabilities struct {
				FS struct{ ReadTextFile, WriteTextFile bool }
			}
		}
		if err := acpParams(m.Params, &p, "protocolVersion"); err != nil {
			return nil, err
		}
		c.fs = p.ClientCapabilities.FS
		return map[string]any{"protocolVersion": acpProtocolVersion, "authMethods": []any{}, // ours, whatever the client's: it decides whether to go on
			"agentCapabilities": map[string]any{"loadSession": true, "promptCapabilities": map[string]bool{"image": true, "embeddedContext": true},
				"mcpCapabilities": map[string]bool{"http": true, "sse": true}},
			"agentInfo": map[string]string{"name": "minicode", "title": "minicode", "version": version}}, nil
	case "session/new", "session/load":
		return c.openSession(m.Method == "session/load", m.Params)
	case "session/set_mode":
		s, err := c.session(m.Params)
		if err != nil {
			return nil, err
		}
		return s.setMode(m.Params)
	}
	return nil, &RPCError{Code: rpcMethodNotFound, Message: "method not found: " + m.Method}
}

// session returns the open session a request's params name.
func (c *acpConn) session(params json.RawMessage) (*acpSession, error) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if err := acpParams(params, &p, "sessionId"); err != nil {
		return nil, err
	}
	if s := c.sessions[p.SessionID]; s != nil {
		return s, nil
	}
	return nil, invalidParams("sessionId: no session %q is open on this connection", p.SessionID)
}

// acpParams decodes a request's params into v; a missing or mistyped field is an invalid-params error naming it.
func acpParams(raw json.RawMessage, v any, required ...string) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return invalidParams("params must be an object")
	}
	for _, name := range required {
		if _, ok := fields[name]; !ok {
			return invalidParams("missing field %q", name)
		}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams("%s", jsonError(err, nil, 0))
	}
	return nil
}

// invalidParams is the error of a request whose params are wrong.
func invalidParams(format string, args ...any) *RPCError {
	return &RPCError{Code: rpcInvalidParams, Message: "invalid params: " + fmt.Sprintf(format, args...)}
}

// reply answers request id (nil: unknown) with result, or with err as an error object.
func (c *acpConn) reply(id json.RawMessage, result any, err error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	m := RPCMessage{JSONRPC: "2.0", ID: id}
	switch rerr := (*RPCError)(nil); {
	case errors.As(err, &rerr):
		m.Error = rerr
	case err != nil:
		m.Error = &RPCError{Code: rpcInternalError, Message: err.Error()}
	default:
		m.Result, _ = json.Marshal(result) // maps of plain values, or a session
	}
	c.out.json(m)
}

// notify sends the client a notification.
func (c *acpConn) notify(method string, params any) {
	body, _ := json.Marshal(params) // maps of plain values
	c.out.json(RPCMessage{JSONRPC: "2.0", Method: method, Params: body})
}

// call sends the client a request and decodes its result into out (if not nil); ctx ending first withdraws it ($/cancel_request).
func (c *acpConn) call(ctx context.Context, method string, params, out any) error {
	body, _ := json.Marshal(params) // maps of plain values
	send := func(id string) {
		c.out.json(RPCMessage{JSONRPC: "2.0", ID: json.RawMessage(id), Method: method, Params: body})
	}
	m, err := c.calls.call(ctx, send, func(id string) { c.notify("$/cancel_request", map[string]any{"requestId": json.RawMessage(id)}) })
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", method, err)
	case m.Error != nil:
		return fmt.Errorf("%s: the client answered: %w", method, m.Error)
	case out != nil:
		return json.Unmarshal(m.Result, out)
	}
	return nil
}
