package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Streamable HTTP settings.
const (
	mcpDefaultRetry  = time.Second // reconnect delay when the server gave none
	mcpMaxReconnects = 5           // failed reconnects in a row before giving up
)

// mcpHTTP speaks Streamable HTTP, or HTTP+SSE to a server that refuses the initialize POST.
type mcpHTTP struct {
	url        string
	headers    map[string]string
	legacyOnly bool
	auth       *mcpAuth // nil: no OAuth

	deliver func(RPCMessage)
	lost    func(error)
	life    context.Context // ends on close; every stream is bound to it
	stop    context.CancelFunc
	streams sync.WaitGroup         // the goroutines reading streams, started under mu while life lasts; close waits for them
	version atomic.Pointer[string] // the protocol version negotiated, sent with every later request

	mu         sync.Mutex
	sessionID  string
	expired    bool               // the server forgot the session; initialize again
	legacyPost string             // the HTTP+SSE endpoint, once known
	stopListen context.CancelFunc // ends the current GET stream
}

// open remembers where messages go; the first POST makes the connection.
func (t *mcpHTTP) open(ctx context.Context, deliver func(RPCMessage), lost func(error)) error {
	t.deliver, t.lost = deliver, lost
	if t.legacyOnly {
		return t.connectLegacy(ctx)
	}
	return nil
}

// send POSTs one message, to the HTTP+SSE endpoint once there is one.
func (t *mcpHTTP) send(ctx context.Context, msg RPCMessage) error {
	body, _ := json.Marshal(msg) // its raw parts are valid JSON
	t.mu.Lock()
	legacy, expired := t.legacyPost, t.expired
	t.mu.Unlock()
	if expired && msg.Method != "initialize" {
		return errMCPSessionExpired
	}
	// ctx ends a request's exchange until its reply is read, another's until the headers.
	reqCtx, end := context.WithCancel(t.life)
	detach := context.AfterFunc(ctx, end)
	resp, err := t.do(reqCtx, http.MethodPost, cmp.Or(legacy, t.url), bytes.NewReader(body), msg.Method == "initialize" || legacy != "", "")
	if err != nil || !msg.isRequest() {
		detach()
	}
	if err != nil {
		end()
		return err
	}
	if legacy == "" && msg.Method == "initialize" && (resp.StatusCode == 400 || resp.StatusCode == 404 || resp.StatusCode == 405) {
		end() // before the body is closed, so that the connection is not reused
		resp.Body.Close()
		if err := t.connectLegacy(ctx); err != nil {
			return fmt.Errorf("the server refused the initialize POST (%s) and HTTP+SSE failed too: %w", resp.Status, err)
		}
		return t.send(ctx, msg)
	}
	err = t.readReply(reqCtx, end, resp, msg)
	if err == nil && legacy == "" && msg.Method == "notifications/initialized" {
		t.listen(ctx)
	}
	return err
}

// readReply delivers a JSON reply at once, an SSE one on its own goroutine; end releases the exchange.
func (t *mcpHTTP) readReply(ctx context.Context, end context.CancelFunc, resp *http.Response, msg RPCMessage) error {
	if resp.StatusCode/100 != 2 {
		defer end()
		if err := statusError(resp); !t.sessionLost(resp, msg.Method, err) {
			return err
		}
		return errMCPSessionExpired
	}
	if msg.Method == "initialize" {
		t.mu.Lock()
		t.sessionID, t.expired = resp.Header.Get("Mcp-Session-Id"), false
		t.mu.Unlock()
	}
	accepted := resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent
	if mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); !accepted && mediaType == "text/event-stream" {
		return t.goStream(resp.Body, func() { t.follow(ctx, end, resp.Body, idKey(msg.ID)) })
	}
	defer end()
	defer drain(resp)
	if accepted {
		return nil
	}
	return t.deliverJSON(resp.Body)
}

// deliverJSON decodes a JSON reply: one message or a batch.
func (t *mcpHTTP) deliverJSON(body io.Reader) error {
	data, err := io.ReadAll(io.LimitReader(body, maxMCPMessage+1))
	if err != nil {
		return fmt.Errorf("reading the reply: %w", err)
	}
	if len(data) > maxMCPMessage {
		return fmt.Errorf("the reply is larger than %d MB", maxMCPMessage>>20)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil
	}
	if data[0] != '[' {
		data = append(append([]byte{'['}, data...), ']')
	}
	var batch []RPCMessage
	if err := json.Unmarshal(data, &batch); err != nil {
		return fmt.Errorf("bad JSON reply: %w", err)
	}
	for _, m := range batch {
		t.deliver(m)
	}
	return nil
}

// follow reads an SSE stream, resuming it with Last-Event-ID, then calls done; a request's stream ends with its reply.
func (t *mcpHTTP) follow(ctx context.Context, done func(), body io.ReadCloser, wantID string) {
	defer done()
	lastID, retry, failures := "", mcpDefaultRetry, 0
	for {
		if body != nil {
			answered, id, delay := t.readEvents(body, wantID, nil)
			body.Close()
			if answered || ctx.Err() != nil {
				return
			}
			if id != "" {
				lastID, failures = id, 0
			}
			retry = cmp.Or(delay, retry)
		}
		if wantID != "" && lastID == "" || failures >= mcpMaxReconnects {
			if wantID != "" {
				t.deliver(RPCMessage{JSONRPC: "2.0", ID: json.RawMessage(wantID),
					Error: &RPCError{Code: rpcConnectionLost, Message: "the server closed the stream before answering"}})
			}
			return
		}
		if sleepContext(ctx, retry) != nil {
			return
		}
		resp, err := t.do(ctx, http.MethodGet, t.url, nil, false, lastID)
		body = nil
		switch {
		case err != nil:
			failures++
		case resp.StatusCode != http.StatusOK:
			drain(resp)
			if wantID == "" {
				return
			}
			failures++
		default:
			body = resp.Body
		}
	}
}

// readEvents delivers an SSE body's messages (an HTTP+SSE endpoint event to endpoint) and reports whether wantID was answered, the last event id and the retry asked for.
func (t *mcpHTTP) readEvents(body io.Reader, wantID string, endpoint chan<- string) (answered bool, lastID string, retry time.Duration) {
	events := newSSEReader(body, maxMCPMessage)
	for !answered {
		ev, err := events.Next()
		if err != nil {
			break
		}
		lastID, retry = ev.ID, ev.Retry
		var m RPCMessage
		switch {
		case ev.Event == "endpoint" && endpoint != nil:
			select {
			case endpoint <- ev.Data:
			default: // only the first one counts
			}
		case ev.Event == "message" && json.Unmarshal([]byte(ev.Data), &m) == nil:
			t.deliver(m)
			answered = wantID != "" && m.isResponse() && idKey(m.ID) == wantID
		}
	}
	return answered, lastID, retry
}

// listen opens the optional GET stream, on which the server may send at any time, in place of an earlier one.
func (t *mcpHTTP) listen(ctx context.Context) {
	listenCtx, stop := context.WithCancel(t.life)
	t.mu.Lock()
	if t.stopListen != nil {
		t.stopListen()
	}
	t.stopListen = stop
	t.mu.Unlock()
	defer context.AfterFunc(ctx, stop)() // only until the stream is open
	switch resp, err := t.do(listenCtx, http.MethodGet, t.url, nil, false, ""); {
	case err != nil:
	case resp.StatusCode != http.StatusOK:
		drain(resp)
	default:
		_ = t.goStream(resp.Body, func() { t.follow(listenCtx, stop, resp.Body, "") })
	}
}

// do sends one HTTP request with the transport's headers and OAuth's token; a bare one has no session headers.
func (t *mcpHTTP) do(ctx context.Context, method, target string, body io.Reader, bare bool, lastEventID string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, fmt.Errorf("bad MCP server URL: %w", err)
	}
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept", "text/event-stream")
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	t.mu.Lock()
	if t.sessionID != "" && !bare {
		req.Header.Set("Mcp-Session-Id", t.sessionID)
	}
	if v := t.version.Load(); v != nil && !bare {
		req.Header.Set("MCP-Protocol-Version", *v)
	}
	t.mu.Unlock()
	resp, err := t.auth.do(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, target, err)
	}
	return resp, nil
}

// sessionLost reports whether the server forgot the request's session (404, or 400 naming it).
func (t *mcpHTTP) sessionLost(resp *http.Response, method string, failure error) bool {
	named := resp.StatusCode == 400 && strings.Contains(strings.ToLower(failure.Error()), "session")
	if method == "initialize" || resp.StatusCode != 404 && !named {
		return false
	}
	sent := resp.Request.Header.Get("Mcp-Session-Id")
	t.mu.Lock()
	defer t.mu.Unlock()
	if sent == "" {
		return t.expired
	}
	if t.sessionID == sent {
		t.sessionID, t.expired = "", true
	}
	return true
}

// statusError describes a failed HTTP exchange with the start of its body.
func statusError(resp *http.Response) error {
	text, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
	drain(resp)
	if msg := strings.TrimSpace(string(text)); msg != "" {
		return fmt.Errorf("the server answered %s: %s", resp.Status, msg)
	}
	return fmt.Errorf("the server answered %s", resp.Status)
}

// drain reads what is left of a body and closes it, so the connection can be reused.
func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64*1024))
	resp.Body.Close()
}

// connectLegacy opens an HTTP+SSE stream and waits for the endpoint event naming where to POST.
func (t *mcpHTTP) connectLegacy(ctx context.Context) error {
	streamCtx, end := context.WithCancel(t.life)
	resp, err := t.do(streamCtx, http.MethodGet, t.url, nil, true, "")
	if err == nil && resp.StatusCode != http.StatusOK {
		err = statusError(resp)
	}
	if err != nil {
		end()
		return err
	}
	endpoint := make(chan string, 1)
	err = t.goStream(resp.Body, func() {
		defer end()
		t.readEvents(resp.Body, "", endpoint)
		resp.Body.Close()
		if t.life.Err() == nil {
			t.lost(errors.New("the server closed its event stream"))
		}
	})
	if err != nil {
		return err
	}
	select {
	case ref := <-endpoint:
		post, err := resp.Request.URL.Parse(strings.TrimSpace(ref))
		if err != nil {
			end()
			return fmt.Errorf("bad endpoint %q: %w", ref, err)
		}
		t.mu.Lock()
		t.legacyPost = post.String()
		t.mu.Unlock()
		return nil
	case <-ctx.Done():
		end()
		return fmt.Errorf("waiting for the endpoint event: %w", ctx.Err())
	}
}

// goStream reads a stream's body on a goroutine that close waits for; after close, it closes the body instead.
func (t *mcpHTTP) goStream(body io.Closer, read func()) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.life.Err() != nil {
		body.Close()
		return errors.New("the connection to the MCP server is closed")
	}
	t.streams.Go(read)
	return nil
}

// close DELETEs the session if there is one, ends the streams and returns once their goroutines have.
func (t *mcpHTTP) close() {
	t.mu.Lock()
	id := t.sessionID
	t.mu.Unlock()
	if id != "" {
		ctx, cancel := context.WithTimeout(context.Background(), mcpCancelGrace)
		if resp, err := t.do(ctx, http.MethodDelete, t.url, nil, false, ""); err == nil {
			drain(resp)
		}
		cancel()
	}
	t.mu.Lock()
	t.stop()
	t.mu.Unlock()
	t.streams.Wait()
}
