package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeHTTPServer is a Streamable HTTP MCP server for tests. It checks the
// headers the client must send, answers in JSON or SSE, sends server
// requests before a reply, forgets sessions on demand, serves the GET
// stream (closing it once to test resumption) and resumes a tool call's
// dropped stream on GET with Last-Event-ID.
type fakeHTTPServer struct {
	t      *testing.T
	useSSE bool

	mu          sync.Mutex
	sessions    map[string]bool
	inits       int
	deleted     []string
	replies     map[string]RPCMessage // the client's answers to our requests
	lastEventID []string              // Last-Event-ID headers of GETs
	problems    []string              // headers the client got wrong
	pendingCall json.RawMessage       // a call whose stream was dropped
	getsServed  int
}

// newFakeHTTPServer starts the server; it stops when the test ends.
func newFakeHTTPServer(t *testing.T, useSSE bool) (*fakeHTTPServer, *httptest.Server) {
	f := &fakeHTTPServer{t: t, useSSE: useSSE, sessions: map[string]bool{}, replies: map[string]RPCMessage{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// ServeHTTP dispatches on the method.
func (f *fakeHTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if auth := r.Header.Get("Authorization"); auth != "Bearer secret-token" {
		f.problem("Authorization header %q", auth)
	}
	switch r.Method {
	case http.MethodPost:
		f.post(w, r)
	case http.MethodGet:
		f.get(w, r)
	case http.MethodDelete:
		f.mu.Lock()
		f.deleted = append(f.deleted, r.Header.Get("Mcp-Session-Id"))
		f.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}
}

// problem records something the client did wrong.
func (f *fakeHTTPServer) problem(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
}

// post handles one client message.
func (f *fakeHTTPServer) post(w http.ResponseWriter, r *http.Request) {
	if a := r.Header.Get("Accept"); !strings.Contains(a, "application/json") || !strings.Contains(a, "text/event-stream") {
		http.Error(w, "both content types must be accepted", http.StatusNotAcceptable)
		return
	}
	var m RPCMessage
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if m.Method == "initialize" {
		f.mu.Lock()
		f.inits++
		id := fmt.Sprintf("session-%d", f.inits)
		f.sessions[id] = true
		f.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", id)
		f.reply(w, m, false, `{"protocolVersion":"2025-11-25","serverInfo":{"name":"fake-http","version":"1"},"capabilities":{"tools":{}}}`)
		return
	}
	f.mu.Lock()
	known := f.sessions[r.Header.Get("Mcp-Session-Id")]
	f.mu.Unlock()
	if !known {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "2025-11-25" {
		f.problem("MCP-Protocol-Version %q on %s", v, m.Method)
	}
	switch {
	case m.isResponse():
		f.mu.Lock()
		f.replies[idKey(m.ID)] = m
		f.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	case m.Method == "tools/list":
		f.reply(w, m, true, `{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"dropped","inputSchema":{"type":"object"}}]}`)
	case m.Method == "tools/call" && strings.Contains(string(m.Params), `"dropped"`):
		f.dropStream(w, m)
	case m.Method == "tools/call":
		f.reply(w, m, true, `{"content":[{"type":"text","text":"echoed"}]}`)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// reply answers a request in JSON or in SSE. After the handshake, an SSE
// reply starts with two requests of our own (ping, which the client must
// answer, and sampling, which it must refuse) and a notification.
func (f *fakeHTTPServer) reply(w http.ResponseWriter, m RPCMessage, asks bool, result string) {
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
	if !f.useSSE {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "id: p1\ndata:\n\n")
	if !asks {
		fmt.Fprintf(w, "event: message\nid: p2\ndata: %s\n\n", body)
		return
	}
	fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-ping\",\"method\":\"ping\"}\n\n")
	fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"sampling/createMessage\",\"params\":{}}\n\n")
	fmt.Fprint(w, ": a comment\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"hi\"}}\n\n")
	fmt.Fprintf(w, "event: message\nid: p2\ndata: %s\n\n", body)
}

// dropStream starts an SSE reply, then closes it before the result; the
// result is sent when the client resumes with GET.
func (f *fakeHTTPServer) dropStream(w http.ResponseWriter, m RPCMessage) {
	f.mu.Lock()
	f.pendingCall = m.ID
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "id: drop-1\nretry: 50\ndata:\n\n")
}

// get serves the GET stream: the first one says retry 50 ms and ends at
// once; later ones stay open. A pending dropped call is answered on it.
func (f *fakeHTTPServer) get(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	known := f.sessions[r.Header.Get("Mcp-Session-Id")]
	f.lastEventID = append(f.lastEventID, r.Header.Get("Last-Event-ID"))
	f.getsServed++
	first := f.getsServed == 1
	pending := f.pendingCall
	f.pendingCall = nil
	f.mu.Unlock()
	if !known {
		http.Error(w, "unknown session", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "id: g1\nretry: 50\ndata:\n\n")
	if pending != nil {
		fmt.Fprintf(w, "event: message\nid: g2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"resumed\"}]}}\n\n", pending)
	}
	w.(http.Flusher).Flush()
	if first {
		return
	}
	<-r.Context().Done()
}

// expire forgets every session, as a restarted server would.
func (f *fakeHTTPServer) expire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sessions = map[string]bool{}
}

// snapshot returns a copy of what the server recorded.
func (f *fakeHTTPServer) snapshot() (inits int, deleted, lastIDs, problems []string, replies map[string]RPCMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	replies = map[string]RPCMessage{}
	for k, v := range f.replies {
		replies[k] = v
	}
	return f.inits, append([]string(nil), f.deleted...), append([]string(nil), f.lastEventID...), append([]string(nil), f.problems...), replies
}

func TestMCPStreamableHTTP(t *testing.T) {
	t.Setenv("MCP_TEST_TOKEN", "secret-token")
	for _, useSSE := range []bool{false, true} {
		t.Run(fmt.Sprintf("sse=%v", useSSE), func(t *testing.T) {
			fake, srv := newFakeHTTPServer(t, useSSE)
			cfg := MCPServerConfig{Name: "web", Type: "http", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${MCP_TEST_TOKEN}"}}
			m := newMCPManager(nil, nil, MCPOptions{})
			sess := newMCPSession(cfg.Name, m.transport(cfg), m.opts)
			ctx := context.Background()
			if err := sess.connect(ctx, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sess.close() })
			tools, err := sess.listTools(ctx, 5*time.Second)
			if err != nil || len(tools) != 2 {
				t.Fatalf("tools = %v, %v", tools, err)
			}
			call := func(tool string) string {
				out, err := sess.callTool(ctx, tool, nil, 5*time.Second, nil)
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				return out.Text
			}
			if got := call("echo"); got != "echoed" {
				t.Errorf("echo = %q", got)
			}
			fake.expire()
			if got := call("echo"); got != "echoed" {
				t.Errorf("echo after the session expired = %q", got)
			}
			if got := call("dropped"); got != "resumed" {
				t.Errorf("a call whose stream dropped = %q, want the result from the resumed GET", got)
			}
			sess.close()

			inits, deleted, lastIDs, problems, replies := fake.snapshot()
			if inits != 2 {
				t.Errorf("initialize was sent %d times, want 2 (once more after the session expired)", inits)
			}
			if len(deleted) != 1 || deleted[0] != "session-2" {
				t.Errorf("DELETE for %q, want [session-2]", deleted)
			}
			if !slices.Contains(lastIDs, "drop-1") {
				t.Errorf("GET Last-Event-IDs = %q, want drop-1 (the dropped call's stream resumed)", lastIDs)
			}
			if len(problems) > 0 {
				t.Errorf("header problems: %q", problems)
			}
			if useSSE {
				if r, ok := replies[`"srv-ping"`]; !ok || string(r.Result) != "{}" {
					t.Errorf("ping reply = %+v, want an empty result", r)
				}
				if r, ok := replies["0"]; !ok || r.Error == nil || r.Error.Code != rpcMethodNotFound {
					t.Errorf("sampling reply = %+v, want -32601", r)
				}
			}
		})
	}
}

func TestMCPHTTPGetStreamResumes(t *testing.T) {
	t.Setenv("MCP_TEST_TOKEN", "secret-token")
	fake, srv := newFakeHTTPServer(t, false)
	cfg := MCPServerConfig{Name: "web", Type: "http", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${MCP_TEST_TOKEN}"}}
	connectTestSession(t, cfg)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, _, lastIDs, _, _ := fake.snapshot()
		if len(lastIDs) >= 2 {
			if lastIDs[0] != "" || lastIDs[1] != "g1" {
				t.Errorf("GET Last-Event-IDs = %q, want [\"\" g1]", lastIDs)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the GET stream was not resumed; GETs: %q", lastIDs)
		}
	}
}

// legacySSEServer is an HTTP+SSE (2024-11-05) server: POST to the main URL
// is refused, GET opens the event stream that names the POST endpoint and
// carries every reply.
func legacySSEServer(t *testing.T) *httptest.Server {
	events := make(chan string, 16)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "use GET", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: endpoint\ndata: /messages?session=7\n\n")
		w.(http.Flusher).Flush()
		for {
			select {
			case e := <-events:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", e)
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("/messages", func(w http.ResponseWriter, r *http.Request) {
		var m RPCMessage
		json.NewDecoder(r.Body).Decode(&m)
		w.WriteHeader(http.StatusAccepted)
		switch m.Method {
		case "initialize":
			events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-03-26","serverInfo":{"name":"old","version":"0"},"capabilities":{}}}`, m.ID)
		case "tools/list":
			events <- fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"legacy-echo","inputSchema":{"type":"object"}}]}}`, m.ID)
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestMCPLegacySSEFallback(t *testing.T) {
	t.Parallel()
	srv := legacySSEServer(t)
	sess := connectTestSession(t, MCPServerConfig{Name: "old", Type: "http", URL: srv.URL + "/mcp"})
	tools, err := sess.listTools(context.Background(), 5*time.Second)
	if err != nil || len(tools) != 1 || tools[0].Name != "legacy-echo" {
		t.Fatalf("tools = %+v, %v", tools, err)
	}
	if v := sess.info.Load().ProtocolVersion; v != "2025-03-26" {
		t.Errorf("version = %q", v)
	}
}

// stallingHTTPServer answers the handshake in JSON and holds every other
// request open without an answer until the client gives up on it. It
// records the requests the client abandoned and the notifications it sent.
type stallingHTTPServer struct {
	mu        sync.Mutex
	abandoned []string // methods whose POST the client closed
	notes     []string // notification methods received
}

// ServeHTTP answers initialize, accepts notifications, refuses GET and
// stalls requests.
func (s *stallingHTTPServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	// Reading the body to its end lets the server notice when the client
	// closes the connection, which is what ends a stalled request.
	var m RPCMessage
	data, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(data, &m)
	switch {
	case m.Method == "initialize":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"stall","version":"1"},"capabilities":{"tools":{}}}}`, m.ID)
	case !m.isRequest():
		s.mu.Lock()
		s.notes = append(s.notes, m.Method)
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	default:
		<-r.Context().Done()
		s.mu.Lock()
		s.abandoned = append(s.abandoned, m.Method)
		s.mu.Unlock()
	}
}

// seen returns copies of what the server recorded.
func (s *stallingHTTPServer) seen() (abandoned, notes []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.abandoned...), append([]string(nil), s.notes...)
}

func TestMCPHTTPTimeoutWhileWaitingForHeaders(t *testing.T) {
	t.Parallel()
	stall := &stallingHTTPServer{}
	srv := httptest.NewServer(stall)
	t.Cleanup(srv.Close)
	sess := connectTestSession(t, MCPServerConfig{Name: "stall", Type: "http", URL: srv.URL})
	// A server that answers in JSON sends no headers until it has the
	// result: the call timeout must cover that wait too.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err := sess.listTools(ctx, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not answer tools/list within 300ms") {
		t.Fatalf("err = %v, want the call timeout", err)
	}
	ok := func() bool {
		abandoned, notes := stall.seen()
		return slices.Contains(abandoned, "tools/list") && slices.Contains(notes, "notifications/cancelled")
	}
	for deadline := time.Now().Add(10 * time.Second); !ok() && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if abandoned, notes := stall.seen(); !ok() {
		t.Errorf("server saw abandoned requests %q and notifications %q; want tools/list abandoned and notifications/cancelled sent", abandoned, notes)
	}
}

func TestMCPLegacyStartupTimeoutClosesStream(t *testing.T) {
	t.Parallel()
	// An HTTP+SSE server that opens its event stream but never names the
	// endpoint: connecting fails, and the stream must not stay open.
	closed, stop := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			close(closed)
		case <-stop:
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	c := MCPServerConfig{Name: "old", Type: "sse", URL: srv.URL}
	sess := newMCPSession(c.Name, newMCPManager(nil, nil, MCPOptions{}).transport(c), MCPOptions{})
	err := sess.connect(t.Context(), 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "waiting for the endpoint event") {
		t.Fatalf("err = %v, want the endpoint wait to fail", err)
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream stayed open after connecting failed")
	}
}

// endlessSpaces is a reply body that never ends.
type endlessSpaces struct{}

func (endlessSpaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestMCPHTTPJSONReplyIsBounded(t *testing.T) {
	t.Parallel()
	tr := &mcpHTTP{deliver: func(RPCMessage) { t.Error("an oversized reply was delivered") }}
	err := tr.deliverJSON(endlessSpaces{})
	if err == nil || !strings.Contains(err.Error(), "larger than 64 MB") {
		t.Errorf("deliverJSON(endless body) = %v, want a size error", err)
	}
}

// mcpHTTPGoroutines returns the stacks of the goroutines labelled with the
// test's name that are running the HTTP transport's code.
func mcpHTTPGoroutines(t *testing.T) []string {
	var profile strings.Builder
	if err := pprof.Lookup("goroutine").WriteTo(&profile, 1); err != nil {
		t.Fatal(err)
	}
	var running []string
	for _, g := range strings.Split(profile.String(), "\n\n") {
		if strings.Contains(g, `"test":"`+t.Name()+`"`) && strings.Contains(g, "minicode.(*mcpHTTP).") {
			running = append(running, g)
		}
	}
	return running
}

func TestMCPHTTPCloseWaitsForStreams(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		url  func(t *testing.T) string
		kind string
	}{
		{"HTTP+SSE event stream", func(t *testing.T) string { return legacySSEServer(t).URL + "/mcp" }, "sse"},
		{"Streamable HTTP GET stream", func(t *testing.T) string { _, srv := newFakeHTTPServer(t, false); return srv.URL }, "http"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// The goroutines the session starts carry the label, so that
			// other tests' goroutines are not counted.
			pprof.Do(t.Context(), pprof.Labels("test", t.Name()), func(context.Context) {
				sess := connectTestSession(t, MCPServerConfig{Name: "s", Type: c.kind, URL: c.url(t)})
				sess.close()
				if running := mcpHTTPGoroutines(t); len(running) > 0 {
					t.Errorf("after close returned, the transport still runs:\n%s", strings.Join(running, "\n\n"))
				}
			})
		})
	}
}
