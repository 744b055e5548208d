package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// A model's reply streams back over one HTTP POST as Server-Sent Events: streamClient sends the
// request, with timeouts and retries, SSEReader cuts the bytes into events for the protocol's parser
// (parseAnthropicStream, parseOpenAIStream, parseResponsesStream), which assembles the reply in a
// replyBuilder (after SSEReader) that shows text and thinking as they come. What a failure is, and
// whether it is worth a retry, is in provider_errors.go.

// Defaults of the HTTP providers' retries and timeouts (API_TIMEOUT_MS sets the timeout).
const (
	defaultMaxRetries  = 4
	connectTimeout     = 15 * time.Second
	defaultTimeout     = 2 * time.Minute // for the first byte, and for silence inside a stream
	defaultBackoffBase = time.Second
	defaultBackoffMax  = 30 * time.Second
	maxRetryAfter      = time.Minute // a longer wait asked by a 429 is reported, not waited out
	maxStreamLine      = 16 << 20    // one SSE line or event; tool input can be large
	maxErrorBody       = 64 << 10
)

// partialDiscardedNotice says that streamed text the user saw is thrown away for a retry.
const partialDiscardedNotice = "the partial reply above is discarded"

// streamClient is a Provider over HTTP: it sends a request with timeouts and retries it with
// capped exponential backoff, saying so when a partial reply the user saw is discarded.
type streamClient struct {
	ProviderOptions
	provider                string
	baseURLVar              string // the environment variable that sets the API's address
	url                     string
	header                  http.Header
	client                  *http.Client
	build                   func(ModelRequest) (*wireBody, error)                // the API's request body
	tools                   toolsCache                                           // the newest request's, which build reuses
	rebuild                 func(error) bool                                     // whether to build the request again after an error, once
	parse                   func(*SSEReader, func(Delta)) (ModelResponse, error) // the API's stream
	backoffBase, backoffMax time.Duration
	sleep                   func(ctx context.Context, d time.Duration) error // tests record the waits instead
	media                   MediaLimits                                      // what the API takes in an image or document
	startHint               string                                           // how to start a local server that does not answer
}

// newStreamClient is a client of the API at url, sending header, with the defaults of opts filled in.
func newStreamClient(provider, baseURLVar, url string, header http.Header, opts ProviderOptions) streamClient {
	opts.MaxRetries = max(0, cmp.Or(opts.MaxRetries, defaultMaxRetries)) // negative: never
	opts.Timeout = cmp.Or(opts.Timeout, defaultTimeout)
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = connectTimeout
	header.Set("content-type", "application/json")
	header.Set("accept", "text/event-stream")
	return streamClient{ProviderOptions: opts, provider: provider, baseURLVar: baseURLVar, url: url, header: header, client: &http.Client{Transport: t},
		backoffBase: defaultBackoffBase, backoffMax: defaultBackoffMax, sleep: sleepContext}
}

// Name returns the provider's name.
func (c *streamClient) Name() string { return c.provider }

// Media returns what the API takes in an image or document.
func (c *streamClient) Media() MediaLimits { return c.media }

// Stream POSTs req and parses the streamed reply, retrying what is worth it.
func (c *streamClient) Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error) {
	body, err := c.build(req)
	if err != nil {
		return ModelResponse{}, fmt.Errorf("encoding the %s request: %w", c.provider, err)
	}
	stalls, renewed, rebuilt := 0, false, false
	for attempt := 0; ; attempt++ {
		resp, shown, err := c.attempt(ctx, body, onDelta)
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return ModelResponse{}, ctx.Err()
		}
		if apiErr, ok := errors.AsType[*APIError](err); ok && apiErr.Status == http.StatusUnauthorized && c.KeyHelper != nil && !renewed {
			c.KeyHelper.expire() // the key has been revoked or has expired: ask the helper again, once
			renewed, attempt = true, attempt-1
			continue
		}
		if c.rebuild != nil && !rebuilt && c.rebuild(err) { // the API refused a setting the request can go without
			if body, err = c.build(req); err != nil {
				return ModelResponse{}, fmt.Errorf("encoding the %s request: %w", c.provider, err)
			}
			rebuilt, attempt = true, attempt-1
			continue
		}
		if streamErr, ok := errors.AsType[*streamError](err); ok && streamErr.stalled {
			stalls++
		}
		wait, ok := c.retryWait(err, attempt)
		if !ok || stalls > 1 || (shown && c.Notify == nil) {
			return ModelResponse{}, err
		}
		if c.Notify != nil {
			msg := fmt.Sprintf("%v; retrying in %s (retry %d of %d)", err, wait.Round(time.Millisecond), attempt+1, c.MaxRetries)
			if shown {
				msg += "; " + partialDiscardedNotice
			}
			c.Notify(msg)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return ModelResponse{}, err
		}
	}
}

// retryWait decides whether err is worth retrying after attempt (from 0), and
// how long to wait: what a 429 asks, else doubling from base to max, its upper half random.
func (c *streamClient) retryWait(err error, attempt int) (time.Duration, bool) {
	apiErr, isAPI := errors.AsType[*APIError](err)
	_, isStream := errors.AsType[*streamError](err)
	switch {
	case attempt >= c.MaxRetries, !isAPI && !isStream:
		return 0, false
	case isAPI && (!apiErr.Retryable || apiErr.RetryAfter > maxRetryAfter):
		return 0, false
	case isAPI && apiErr.RetryAfter > 0:
		return apiErr.RetryAfter, true
	}
	d := c.backoffMax
	if attempt < 30 && c.backoffBase<<attempt < c.backoffMax {
		d = c.backoffBase << attempt
	}
	return d/2 + rand.N(d/2+1), true
}

// attempt sends the request once and parses the reply, reporting whether text was shown;
// one timer stops a server silent for the timeout, before the response or inside the stream.
func (c *streamClient) attempt(ctx context.Context, body *wireBody, onDelta func(Delta)) (resp ModelResponse, shown bool, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer func() { // a stall detected by the timer is the real reason of the failure
		if _, stalled := errors.AsType[*streamError](context.Cause(actx)); stalled && err != nil {
			err = context.Cause(actx)
		}
	}()
	var responded atomic.Bool
	timer := time.AfterFunc(c.Timeout, func() {
		msg := fmt.Sprintf("no response from the server within %s", c.Timeout)
		if responded.Load() {
			msg = fmt.Sprintf("no data for %s", c.Timeout)
		}
		cancel(&streamError{errors.New(msg), true})
	})
	defer timer.Stop()
	r, err := http.NewRequestWithContext(actx, http.MethodPost, c.url, body.buffers())
	if err != nil {
		return ModelResponse{}, false, fmt.Errorf("building the %s request: %w", c.provider, err)
	}
	r.ContentLength, r.Header = int64(body.Len()+body.refBytes), c.header.Clone()
	if c.KeyHelper != nil {
		key, err := c.KeyHelper.Key(ctx)
		if err != nil {
			return ModelResponse{}, false, err
		}
		r.Header.Set("x-api-key", key)
		r.Header.Set("Authorization", "Bearer "+key)
	}
	for name, values := range body.header {
		r.Header[name] = append(r.Header[name], values...)
	}
	httpResp, err := c.client.Do(r)
	if err != nil {
		return ModelResponse{}, false, c.connectionError(err)
	}
	defer httpResp.Body.Close()
	if httpResp.StatusCode != http.StatusOK || strings.HasPrefix(httpResp.Header.Get("Content-Type"), "application/json") {
		// A JSON body instead of a stream is an error even with 200: some proxies answer that way.
		return ModelResponse{}, false, readAPIError(c.provider, httpResp)
	}
	responded.Store(true)
	events := newSSEReader(idleReader{httpResp.Body, timer, c.Timeout}, maxStreamLine)
	resp, err = c.parse(events, func(d Delta) {
		shown = shown || (c.ShowsText && d.Kind == BlockText)
		if onDelta != nil {
			onDelta(d)
		}
	})
	return resp, shown, err
}

// idleReader runs the idle timer only while a Read waits for the server.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	idle  time.Duration
}

// Read implements io.Reader.
func (ir idleReader) Read(p []byte) (int, error) {
	ir.timer.Reset(ir.idle)
	n, err := ir.r.Read(p)
	ir.timer.Stop()
	return n, err
}

// SSEEvent is one event of a Server-Sent Events stream, as the HTML standard defines it.
type SSEEvent struct {
	Event string        // the event type; "message" when the stream gave none
	Data  string        // the data lines joined with "\n"
	ID    string        // the last event ID seen so far in the stream
	Retry time.Duration // the latest valid retry field, or 0
}

// SSEReader reads the events of a Server-Sent Events stream, each as soon as its blank line comes.
type SSEReader struct {
	lines   *bufio.Scanner
	maxLine int
	skipLF  bool  // the last line ended in CR: a following LF belongs to it
	started bool  // the first line (which may carry a byte-order mark) is done
	err     error // the sticky error, once reading has failed

	data      []byte // the data lines of the event being built, each ending in "\n"
	eventType string
	lastID    string
	retry     time.Duration
}

// errSSETooLong reports a line or an event past the reader's limit.
var errSSETooLong = errors.New("event stream: a line or event is too long")

// newSSEReader returns a reader of the events in r, lines and events at most maxLine bytes.
func newSSEReader(r io.Reader, maxLine int) *SSEReader {
	s := &SSEReader{lines: bufio.NewScanner(r), maxLine: maxLine}
	s.lines.Buffer(make([]byte, min(4096, maxLine+2)), maxLine+2) // a skipped LF, the line, its end
	s.lines.Split(s.splitLine)
	return s
}

// splitLine splits lines at CR, LF or CRLF, returning a line at its CR at once
// and skipping an LF after it when it comes; an unterminated last line is dropped.
func (s *SSEReader) splitLine(data []byte, atEOF bool) (int, []byte, error) {
	skip := 0
	if s.skipLF && len(data) > 0 && data[0] == '\n' {
		skip = 1 // the scanner stops at the end of input on an advance without a token
	}
	line := data[skip:]
	i, end := bytes.IndexByte(line, '\n'), line // two IndexByte scans are faster than one IndexAny
	if i >= 0 {
		end = line[:i]
	}
	if j := bytes.IndexByte(end, '\r'); j >= 0 {
		i = j
	}
	switch {
	case i > s.maxLine || (i < 0 && len(line) > s.maxLine):
		return 0, nil, fmt.Errorf("%w (over %d bytes)", errSSETooLong, s.maxLine)
	case i < 0:
		return 0, nil, nil
	}
	s.skipLF = line[i] == '\r'
	return skip + i + 1, line[:i], nil
}

// Next returns the next event, or io.EOF at the end (an unfinished event is
// dropped); a read error is returned by this and every later call.
func (s *SSEReader) Next() (SSEEvent, error) {
	for s.err == nil {
		if !s.lines.Scan() {
			s.err = io.EOF
			if err := s.lines.Err(); errors.Is(err, errSSETooLong) {
				s.err = err
			} else if err != nil {
				s.err = fmt.Errorf("reading event stream: %w", err)
			}
			break
		}
		line := s.lines.Bytes()
		if !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a byte-order mark
		}
		if len(line) > 0 {
			s.err = s.processField(line)
			continue
		}
		// A blank line ends the event; one without data is dropped.
		if len(s.data) == 0 {
			s.eventType = ""
			continue
		}
		ev := SSEEvent{Event: cmp.Or(s.eventType, "message"), Data: string(s.data[:len(s.data)-1]), ID: s.lastID, Retry: s.retry}
		s.data, s.eventType = s.data[:0], ""
		return ev, nil
	}
	return SSEEvent{}, s.err
}

// processField applies one field line (or comment) to the event being built.
func (s *SSEReader) processField(line []byte) error {
	if line[0] == ':' {
		return nil // a comment
	}
	field, value, found := bytes.Cut(line, []byte(":"))
	if found {
		value = bytes.TrimPrefix(value, []byte(" "))
	}
	switch string(field) {
	case "event":
		s.eventType = string(value)
	case "data":
		if len(s.data)+len(value)+1 > s.maxLine {
			return fmt.Errorf("%w (over %d bytes)", errSSETooLong, s.maxLine)
		}
		s.data = append(append(s.data, value...), '\n')
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.lastID = string(value)
		}
	case "retry":
		if ms, err := strconv.ParseInt(string(value), 10, 32); err == nil && value[0] != '+' && value[0] != '-' {
			s.retry = time.Duration(ms) * time.Millisecond
		}
	}
	return nil
}

// replyBuilder assembles a reply from streamed pieces, showing text and thinking as they come.
type replyBuilder struct {
	resp  ModelResponse
	parts []strings.Builder // per block: its text, thinking or tool input so far
	at    map[int]int       // the stream's key for a block → its position
	emit  func(Delta)
}

// newReplyBuilder returns an empty reply whose text and thinking go to emit as they come.
func newReplyBuilder(emit func(Delta)) replyBuilder {
	return replyBuilder{at: map[int]int{}, emit: emit}
}

// open starts block b under key (in place of the block the key named before) and returns its position.
func (r *replyBuilder) open(key int, b Block) int {
	r.resp.Content = append(r.resp.Content, b)
	r.parts = append(r.parts, strings.Builder{})
	r.at[key] = len(r.parts) - 1
	return len(r.parts) - 1
}

// add appends a streamed piece to the block under key if it is open and of type kind.
func (r *replyBuilder) add(key int, kind, piece string) {
	i, ok := r.at[key]
	if piece == "" || !ok || r.resp.Content[i].Type != kind {
		return
	}
	r.parts[i].WriteString(piece)
	if kind != BlockToolUse {
		r.emit(Delta{Kind: kind, Text: piece})
	}
}

// addOpening adds a piece to the block of kind under key, opening it first.
func (r *replyBuilder) addOpening(key int, kind, piece string) {
	if _, ok := r.at[key]; !ok && piece != "" {
		r.open(key, Block{Type: kind})
	}
	r.add(key, kind, piece)
}

// finish sets every block's text, thinking or tool input from what was streamed.
func (r *replyBuilder) finish() ModelResponse {
	for i := range r.resp.Content {
		switch b := &r.resp.Content[i]; b.Type {
		case BlockText:
			b.Text = r.parts[i].String()
		case BlockThinking:
			b.Thinking = r.parts[i].String()
		case BlockToolUse:
			b.Input = toolInput(r.parts[i].String())
		}
	}
	return r.resp
}

// toolInput turns streamed tool arguments into an input: empty is {}, invalid JSON a JSON string.
func toolInput(raw string) json.RawMessage {
	trimmed := strings.TrimSpace(raw)
	switch {
	case trimmed == "":
		return json.RawMessage("{}")
	case json.Valid([]byte(trimmed)):
		return json.RawMessage(trimmed)
	}
	quoted, _ := json.Marshal(raw)
	return quoted
}

// sleepContext waits d, or until ctx is cancelled.
func sleepContext(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
