package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// sdkConn is minicode's end of the program interface: user messages become turns, control requests go both ways.
type sdkConn struct {
	app     *App
	model   string             // the session's model at the start, which set_model "default" goes back to
	started bool               // initialize was received or a user message came: the setup is fixed, control requests are answered (read's goroutine only)
	mcp     map[string]*MCPSDK // the MCP servers the program runs (read's goroutine only)

	calls   PendingCalls[controlAnswer] // our requests awaiting an answer
	turn    turnControl                 // the running turn, which interrupt cancels
	mu      sync.Mutex
	queue   []SlashPrompt // user messages waiting for their turn
	closed  bool          // stdin has ended
	arrived *sync.Cond    // signalled when the queue or closed changes
}

// controlAnswer is the response part of a control_response line.
type controlAnswer struct {
	Subtype   string          `json:"subtype"` // success or error
	RequestID string          `json:"request_id"`
	Response  json.RawMessage `json:"response,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// runStreamInput runs the turns that arrive on stdin until it ends; only a failed write or an interrupt is an error.
func (app *App) runStreamInput(ctx context.Context, meter *MeteredProvider) error {
	c := &sdkConn{app: app, model: app.Agent.ModelName(), calls: PendingCalls[controlAnswer]{prefix: "minicode-"}, mcp: map[string]*MCPSDK{}}
	c.arrived = sync.NewCond(&c.mu)
	if app.Opts.PermissionPromptTool == "stdio" {
		app.asker = c
	}
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	go c.read(readCtx)
	for n := 0; ; n++ {
		p, ok := c.nextTurn()
		if !ok {
			return ctx.Err()
		}
		turnCtx, done, _ := c.turn.start(ctx) // none runs: turns run one after another
		if n == 0 {
			app.MCP.Wait(ctx)                 // the program's servers (started by initialize) and the others
			app.stdout.json(app.initRecord()) // after initialize, so it shows the program's setup
		}
		err := app.runHeadlessTask(turnCtx, p, meter)
		done()
		if ctx.Err() != nil || app.stdout.failed() != nil {
			return cmp.Or(ctx.Err(), err)
		}
	}
}

// read handles the lines of stdin until it ends.
func (c *sdkConn) read(ctx context.Context) {
	defer c.end()
	for n := 1; ; n++ {
		line, err := c.app.lines.ReadLine(ctx)
		if err != nil {
			if !errors.Is(err, io.EOF) && ctx.Err() == nil {
				c.app.notice(fmt.Sprintf("reading stdin: %v", err))
			}
			return
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := c.handle(ctx, line); err != nil {
			c.app.notice(fmt.Sprintf("stdin line %d: %v", n, err))
		}
	}
}

// handle acts on one line of stdin.
func (c *sdkConn) handle(ctx context.Context, line string) error {
	var in struct {
		Type      string          `json:"type"`
		RequestID string          `json:"request_id"`
		Request   json.RawMessage `json:"request"`
		Response  *controlAnswer  `json:"response"`
		Message   json.RawMessage `json:"message"`
		UUID      string          `json:"uuid"` // names the checkpoint taken before the message's turn
	}
	if err := json.Unmarshal([]byte(line), &in); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	switch in.Type {
	case "user":
		p, err := streamInputPrompt(in.Message)
		if err != nil {
			return err
		}
		p.ID, c.started = in.UUID, true
		c.mu.Lock()
		c.queue = append(c.queue, p)
		c.mu.Unlock()
		c.arrived.Signal()
	case "control_request":
		a := controlAnswer{Subtype: "success", RequestID: in.RequestID}
		resp, err := c.control(ctx, in.Request)
		if err == nil {
			a.Response, err = json.Marshal(resp)
		}
		if err != nil {
			a.Subtype, a.Error = "error", err.Error()
		}
		c.app.stdout.json(map[string]any{"type": "control_response", "response": a})
	case "control_response": // the answer to a request of ours
		if in.Response == nil {
			return errors.New("control_response without a response")
		}
		c.calls.answer(in.Response.RequestID, *in.Response)
	case "control_cancel_request", "keep_alive":
		// Nothing of ours to withdraw: minicode's requests end with their turn.
	default:
		return fmt.Errorf("unknown line type %q", in.Type)
	}
	return nil
}

// nextTurn waits for the next user message; false: stdin has ended.
func (c *sdkConn) nextTurn() (SlashPrompt, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.queue) == 0 && !c.closed {
		c.arrived.Wait()
	}
	if len(c.queue) == 0 {
		return SlashPrompt{}, false
	}
	p := c.queue[0]
	c.queue = c.queue[1:]
	return p, true
}

// end marks stdin as ended: queued turns still run, our requests fail.
func (c *sdkConn) end() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.calls.end(errors.New("stdin has ended: nobody can answer"))
	c.arrived.Broadcast()
}

// turnControl is the running turn of a program or client, which another goroutine (an interrupt request,
// session/cancel) may cancel as Esc does: the model request, the tools, open questions.
type turnControl struct {
	mu     sync.Mutex
	cancel context.CancelFunc // nil between turns
}

// start begins a turn, its context a child of ctx, which done ends; false: a turn is running.
func (t *turnControl) start(ctx context.Context) (turnCtx context.Context, done func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel != nil {
		return nil, nil, false
	}
	turnCtx, t.cancel = context.WithCancel(ctx)
	return turnCtx, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.cancel()
		t.cancel = nil
	}, true
}

// interrupt cancels the running turn, if one is.
func (t *turnControl) interrupt() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cancel != nil {
		t.cancel()
	}
}

// request sends a control request of minicode's and waits for its answer.
func (c *sdkConn) request(ctx context.Context, body map[string]any) (json.RawMessage, error) {
	a, err := c.calls.call(ctx, func(id string) {
		c.app.stdout.json(map[string]any{"type": "control_request", "request_id": id, "request": body})
	}, func(id string) {
		c.app.stdout.json(map[string]any{"type": "control_cancel_request", "request_id": id})
	})
	if err == nil && a.Subtype == "error" {
		err = errors.New(a.Error)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", body["subtype"], err)
	}
	return a.Response, nil
}

// PendingCalls are the requests minicode sent to the program at the other end of stdin and stdout (an SDK
// application, an ACP client), waiting for their answers, by id.
type PendingCalls[T any] struct {
	prefix  string // of the ids, which are numbers
	mu      sync.Mutex
	next    int
	ended   error // once set, nothing waits and nothing is sent
	waiting map[string]chan T
}

// call registers a request, sends it with send(id) and waits for its answer; if ctx ends first, withdraw(id) tells the program.
func (p *PendingCalls[T]) call(ctx context.Context, send, withdraw func(id string)) (T, error) {
	var zero T
	p.mu.Lock()
	if p.ended != nil {
		p.mu.Unlock()
		return zero, p.ended
	}
	p.next++
	id, ch := p.prefix+strconv.Itoa(p.next), make(chan T, 1)
	if p.waiting == nil {
		p.waiting = map[string]chan T{}
	}
	p.waiting[id] = ch
	p.mu.Unlock()
	send(id)
	select {
	case v, ok := <-ch:
		if !ok {
			return zero, p.ended
		}
		return v, nil
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.waiting, id)
		p.mu.Unlock()
		withdraw(id)
		return zero, ctx.Err()
	}
}

// answer hands v to the request id; an answer nobody waits for is dropped.
func (p *PendingCalls[T]) answer(id string, v T) {
	p.mu.Lock()
	ch := p.waiting[id]
	delete(p.waiting, id)
	p.mu.Unlock()
	if ch != nil {
		ch <- v
	}
}

// end fails every waiting request with err, and every later one.
func (p *PendingCalls[T]) end(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = err
	for _, ch := range p.waiting {
		close(ch)
	}
	clear(p.waiting)
}

// MCPSDK reaches a server the driving program runs through mcp_message control requests.
type MCPSDK struct {
	conn    *sdkConn // nil when no program drives minicode
	server  string
	deliver atomic.Pointer[func(RPCMessage)] // nil while closed
}

// open starts taking the server's messages.
func (t *MCPSDK) open(_ context.Context, deliver func(RPCMessage), _ func(error)) error {
	if t.conn == nil {
		return errors.New(`a server of type "sdk" is run by the program driving minicode, and none does (--input-format stream-json)`)
	}
	t.deliver.Store(&deliver)
	return nil
}

// send passes one message to the program and delivers the reply to a request.
func (t *MCPSDK) send(ctx context.Context, msg RPCMessage) error {
	raw, err := t.conn.request(ctx, map[string]any{"subtype": "mcp_message", "server_name": t.server, "message": msg})
	if err != nil || !msg.isRequest() {
		return err
	}
	var r struct {
		Reply *RPCMessage `json:"mcp_response"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Reply == nil {
		return fmt.Errorf("the program's answer to %s has no mcp_response", msg.Method)
	}
	t.receive(*r.Reply)
	return nil
}

// receive passes a message from the server to the session, if it is open.
func (t *MCPSDK) receive(m RPCMessage) {
	if deliver := t.deliver.Load(); deliver != nil {
		(*deliver)(m)
	}
}

// close stops delivering: the server itself lives in the program.
func (t *MCPSDK) close() {
	t.deliver.Store(nil)
}

// serveMCP starts the servers the program runs (named in initialize, or of type "sdk").
func (c *sdkConn) serveMCP(ctx context.Context, named []string) {
	for _, srv := range c.app.MCP.list() {
		if srv.cfg.Type == "sdk" {
			named = append(named, srv.name)
		}
	}
	for _, name := range named {
		if c.mcp[name] != nil {
			continue
		}
		tr := &MCPSDK{conn: c, server: name}
		c.mcp[name] = tr
		if err := c.app.MCP.AddServer(ctx, MCPServerConfig{Name: name, Type: "sdk", Source: "the program"}, tr); err != nil {
			c.app.notice(fmt.Sprintf("MCP server %s from the program: %v", name, err))
		}
	}
}

// mcpMessage takes a message one of the program's servers sends on its own.
func (c *sdkConn) mcpMessage(server string, msg *RPCMessage) error {
	tr := c.mcp[server]
	switch {
	case tr == nil:
		return fmt.Errorf("no SDK MCP server named %q", server)
	case msg == nil:
		return errors.New("mcp_message without a message")
	}
	tr.receive(*msg)
	return nil
}
