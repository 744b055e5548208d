package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"
)

// progressHTTPServer is a Streamable HTTP MCP server whose tools/call reply is an SSE stream that
// reports progress once and then stays open without an answer, until the client goes away.
func progressHTTPServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m RPCMessage
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&m) != nil || !m.isRequest() {
			w.WriteHeader(http.StatusAccepted) // notifications, the DELETE; and no GET stream
			return
		}
		if m.Method == "initialize" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"p","version":"1"},"capabilities":{}}}`, m.ID)
			return
		}
		var p struct {
			Meta struct {
				Token json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		json.Unmarshal(m.Params, &p)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%s,\"progress\":1,\"total\":3,\"message\":\"step 1\"}}\n\n", p.Meta.Token)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestMCPCloseWhileProgressBlocks closes a session while the callback that reports a tool call's
// progress is blocked (as a UI that is busy would block it): close returns all the same, the
// report reached the callback, the transport leaves nothing running, and the call ends.
func TestMCPCloseWhileProgressBlocks(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cfg  func(t *testing.T) MCPServerConfig
	}{
		{"stdio", func(t *testing.T) MCPServerConfig { return fakeStdioConfig(t, "fake", "ndjson") }},
		{"http", func(t *testing.T) MCPServerConfig {
			return MCPServerConfig{Name: "p", Type: "http", URL: progressHTTPServer(t).URL}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pprof.Do(t.Context(), pprof.Labels("test", t.Name()), func(context.Context) {
				sess := connectTestSession(t, c.cfg(t))
				reported, release, called := make(chan MCPProgress, 1), make(chan struct{}), make(chan error, 1)
				go func() {
					_, err := sess.callTool(context.Background(), "slow", nil, time.Minute, func(p MCPProgress) {
						select {
						case reported <- p:
						default:
						}
						<-release
					})
					called <- err
				}()
				deadline := time.After(20 * time.Second)
				select {
				case p := <-reported:
					if p.Message != "step 1" {
						t.Errorf("the first progress report = %+v, want step 1", p)
					}
				case <-deadline:
					t.Fatal("no progress report reached the callback")
				}
				closed := make(chan struct{})
				go func() { sess.close(); close(closed) }()
				select {
				case <-closed:
				case <-deadline:
					close(release) // lets the test end
					t.Fatal("close did not return while the progress callback was blocked")
				}
				if running := mcpHTTPGoroutines(t); len(running) > 0 {
					t.Errorf("after close returned, the transport still runs:\n%s", strings.Join(running, "\n\n"))
				}
				close(release)
				select {
				case <-called:
				case <-deadline:
					t.Fatal("the tool call did not end after the session closed")
				}
			})
		})
	}
}

// TestMCPInboxIsBounded floods a session with notifications while the routing of the first is held up:
// past the bound they are dropped, a reply still waits its turn.
func TestMCPInboxIsBounded(t *testing.T) {
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s := &mcpSession{onChange: func() { once.Do(func() { held <- struct{}{}; <-release }) }}
	note := RPCMessage{JSONRPC: "2.0", Method: "notifications/tools/list_changed"}
	s.receive(note)
	<-held
	for range 10 * maxInbox {
		s.receive(note)
	}
	s.receive(RPCMessage{JSONRPC: "2.0", ID: json.RawMessage(`7`), Result: json.RawMessage(`{}`)})
	s.inboxMu.Lock()
	n, last := len(s.inbox), s.inbox[len(s.inbox)-1]
	s.inboxMu.Unlock()
	close(release)
	if n != maxInbox+1 || string(last.ID) != "7" {
		t.Errorf("inbox holds %d, last %s; want %d notifications and the reply", n, last.ID, maxInbox)
	}
}
