package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// capturedRequest is what a fake API saw of one request; it is also the
// shape of the request golden files.
type capturedRequest struct {
	Method string            `json:"method"`
	Path   string            `json:"path"`
	Header map[string]string `json:"header"`
	Body   json.RawMessage   `json:"body"`
}

// goldenHeaders are the request headers recorded in golden files.
var goldenHeaders = []string{"Accept", "Anthropic-Beta", "Anthropic-Version", "Authorization", "Content-Type", "X-Api-Key"}

// fakeAPI is an httptest server that answers the n-th request with the
// n-th scripted reply and records every request. It is closed when the
// test ends.
type fakeAPI struct {
	t       *testing.T
	srv     *httptest.Server
	replies []http.HandlerFunc
	mu      sync.Mutex
	got     []capturedRequest
}

// newFakeAPI starts a fake API with its script of replies.
func newFakeAPI(t *testing.T, replies ...http.HandlerFunc) *fakeAPI {
	f := &fakeAPI{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// serve records the request and plays the next reply.
func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c := capturedRequest{Method: r.Method, Path: r.URL.Path, Header: map[string]string{}, Body: body}
	for _, h := range goldenHeaders {
		if v := r.Header.Get(h); v != "" {
			c.Header[h] = v
		}
	}
	f.mu.Lock()
	f.got = append(f.got, c)
	n := len(f.got)
	f.mu.Unlock()
	if n > len(f.replies) {
		f.t.Errorf("unexpected request number %d", n)
		http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusTeapot)
		return
	}
	f.replies[n-1](w, r)
}

// requests returns the requests seen so far.
func (f *fakeAPI) requests() []capturedRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

// sseReply sends stream as an event stream, flushing after every event.
func sseReply(stream string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, ev := range strings.SplitAfter(stream, "\n\n") {
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}
}

// statusReply answers with an error status, a JSON body and headers given
// as name, value pairs.
func statusReply(status int, body string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// stallReply sends the beginning of a stream and then nothing, until the
// client goes away.
func stallReply(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, prefix)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// silentReply never sends the response headers, until the client goes away.
func silentReply(w http.ResponseWriter, r *http.Request) {
	<-r.Context().Done()
}

// hangupReply closes the connection without sending a byte.
func hangupReply(w http.ResponseWriter, r *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

// providerKit is what the shared retry tests need to know of a provider:
// how to build it, and its wire format for a short reply.
type providerKit struct {
	name string
	new  func(ProviderOptions) (Provider, *streamClient)
	// reply is a complete stream whose reply is the text.
	reply func(text string) string
	// cut is a stream that streams the text and then ends too early.
	cut func(text string) string
	// cutEarly is a stream that ends before any output.
	cutEarly string
}

// providerKits lists both HTTP providers.
var providerKits = []providerKit{anthropicKit, openAIKit}

// retryLog records the notices and backoff waits of a provider under test.
type retryLog struct {
	mu      sync.Mutex
	notices []string
	waits   []time.Duration
}

// options are ProviderOptions for a test against url: fast timeouts are
// set by the caller, notices go to the log.
func (l *retryLog) options(url string) ProviderOptions {
	return ProviderOptions{BaseURL: url, APIKey: "test-key", ShowsText: true, Notify: func(s string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.notices = append(l.notices, s)
	}}
}

// instrument makes a client's backoff record its waits instead of sleeping.
func (l *retryLog) instrument(c *streamClient) {
	c.sleep = func(ctx context.Context, d time.Duration) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.waits = append(l.waits, d)
		return ctx.Err()
	}
}

// newTestProvider builds kit's provider against the fake API, with short
// timeouts and recorded backoff; edit adjusts the options.
func newTestProvider(kit providerKit, api *fakeAPI, log *retryLog, edit func(*ProviderOptions)) Provider {
	opts := log.options(api.srv.URL)
	opts.Timeout = 10 * time.Second
	if edit != nil {
		edit(&opts)
	}
	p, client := kit.new(opts)
	log.instrument(client)
	return p
}

// collectText streams a request and returns the reply text, the text the
// user saw streamed, and the error.
func collectText(ctx context.Context, p Provider) (reply, streamed string, err error) {
	var seen strings.Builder
	resp, err := p.Stream(ctx, ModelRequest{Model: "test-model", Messages: []Message{userText("hi")}}, func(d Delta) {
		seen.WriteString(d.Text)
	})
	return Message{Content: resp.Content}.Text(), seen.String(), err
}

// TestRetries runs every retry rule against both providers.
func TestRetries(t *testing.T) {
	t.Parallel()
	spend429 := `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`
	anthropicSpend := `{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your specified workspace API usage limits."}}`
	rate429 := `{"error":{"type":"rate_limit_error","message":"slow down"}}`
	tests := []struct {
		name     string
		replies  func(kit providerKit) []http.HandlerFunc
		edit     func(*ProviderOptions)
		wantText string
		wantErr  string // substring; "" means success
		wantReqs int
		wantWait []time.Duration // exact waits; nil means do not check
		notice   string          // substring of some notice
		noNotice string          // substring of no notice
	}{
		{name: "429 retry-after seconds", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(429, rate429, "retry-after", "7"), sseReply(k.reply("ok"))}
		}, wantText: "ok", wantReqs: 2, wantWait: []time.Duration{7 * time.Second}, notice: "slow down"},
		{name: "429 retry-after-ms", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(429, rate429, "retry-after-ms", "1500", "retry-after", "2"), sseReply(k.reply("ok"))}
		}, wantText: "ok", wantReqs: 2, wantWait: []time.Duration{1500 * time.Millisecond}},
		{name: "429 retry-after too long is not waited out", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(429, rate429, "retry-after", "3600")}
		}, wantErr: "retry after 1h0m0s", wantReqs: 1},
		{name: "429 spend limit is not retried", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(429, spend429, "retry-after", "1")}
		}, wantErr: "You exceeded your current quota", wantReqs: 1},
		{name: "429 rate limit that mentions billing is retried", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(429, `{"error":{"message":"Rate limit reached for gpt-4o on requests per min (RPM): Limit 3. Add a payment method at https://platform.openai.com/account/billing.","type":"requests","code":"rate_limit_exceeded"}}`), sseReply(k.reply("ok"))}
		}, wantText: "ok", wantReqs: 2},
		{name: "429 workspace usage limit is not retried", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(429, anthropicSpend)}
		}, wantErr: "usage limits", wantReqs: 1},
		{name: "529 overloaded", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`), sseReply(k.reply("ok"))}
		}, wantText: "ok", wantReqs: 2, notice: "Overloaded (HTTP 529, overloaded_error)"},
		{name: "5xx are retried", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(500, `{}`), statusReply(502, `bad gateway`), statusReply(503, ``), statusReply(504, ``), sseReply(k.reply("ok"))}
		}, wantText: "ok", wantReqs: 5},
		{name: "retries run out", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(500, `{"error":{"message":"boom"}}`), statusReply(500, `{"error":{"message":"boom"}}`), statusReply(500, `{"error":{"message":"boom again"}}`)}
		}, edit: func(o *ProviderOptions) { o.MaxRetries = 2 }, wantErr: "boom again (HTTP 500)", wantReqs: 3},
		{name: "no retries when disabled", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(503, `{"error":{"message":"unavailable"}}`)}
		}, edit: func(o *ProviderOptions) { o.MaxRetries = -1 }, wantErr: "unavailable", wantReqs: 1},
		{name: "400 shows the API message", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}`)}
		}, wantErr: "max_tokens: too large (HTTP 400, invalid_request_error)", wantReqs: 1},
		{name: "401 with a plain-text body", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(401, `invalid key`)}
		}, wantErr: "invalid key (HTTP 401)", wantReqs: 1},
		{name: "404 with a string error", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(404, `{"error":"model 'x' not found"}`)}
		}, wantErr: "model 'x' not found (HTTP 404)", wantReqs: 1},
		{name: "JSON error with status 200", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{statusReply(200, `{"error":{"message":"streaming is not supported by this proxy"}}`)}
		}, wantErr: "streaming is not supported by this proxy (HTTP 200)", wantReqs: 1},
		{name: "hang-up before any byte", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{hangupReply, sseReply(k.reply("ok"))}
		}, wantText: "ok", wantReqs: 2, notice: "connection failed"},
		{name: "truncated before any output", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{sseReply(k.cutEarly), sseReply(k.reply("ok"))}
		}, edit: func(o *ProviderOptions) { o.Notify = nil }, wantText: "ok", wantReqs: 2},
		{name: "truncated after output, user told", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{sseReply(k.cut("partial")), sseReply(k.reply("whole"))}
		}, wantText: "whole", wantReqs: 2, notice: partialDiscardedNotice},
		{name: "truncated after output, nobody to tell", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{sseReply(k.cut("partial"))}
		}, edit: func(o *ProviderOptions) { o.Notify = nil }, wantErr: "the stream ended before the reply was complete", wantReqs: 1},
		{name: "truncated after output nobody saw", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{sseReply(k.cut("partial")), sseReply(k.reply("whole"))}
		}, edit: func(o *ProviderOptions) { o.ShowsText = false }, wantText: "whole", wantReqs: 2, notice: "retrying", noNotice: partialDiscardedNotice},
		{name: "truncated before any output, nothing discarded", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{sseReply(k.cutEarly), sseReply(k.reply("ok"))}
		}, wantText: "ok", wantReqs: 2, notice: "the stream ended before the reply was complete; retrying", noNotice: partialDiscardedNotice},
		{name: "garbage line before any output", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{sseReply(k.cutEarly + "data: {garbage\n\n"), sseReply(k.reply("ok"))}
		}, edit: func(o *ProviderOptions) { o.Notify = nil }, wantText: "ok", wantReqs: 2},
		{name: "garbage line after output, user told", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{sseReply(k.cut("partial") + "data: {garbage\n\n"), sseReply(k.reply("whole"))}
		}, wantText: "whole", wantReqs: 2, notice: "not valid JSON"},
		{name: "garbage line after output, nobody to tell", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{sseReply(k.cut("partial") + "data: {garbage\n\n")}
		}, edit: func(o *ProviderOptions) { o.Notify = nil }, wantErr: "not valid JSON", wantReqs: 1},
		{name: "stalled twice is not retried again", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{stallReply(k.cutEarly), stallReply(k.cutEarly), sseReply(k.reply("ok"))}
		}, edit: func(o *ProviderOptions) { o.Timeout = 200 * time.Millisecond }, wantErr: "no data for 200ms", wantReqs: 2},
		{name: "silent twice is not retried again", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{silentReply, silentReply, sseReply(k.reply("ok"))}
		}, edit: func(o *ProviderOptions) { o.Timeout = 200 * time.Millisecond }, wantErr: "no response from the server within 200ms", wantReqs: 2},
		{name: "stalled stream", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{stallReply(k.cutEarly), sseReply(k.reply("ok"))}
		}, edit: func(o *ProviderOptions) { o.Timeout = 300 * time.Millisecond }, wantText: "ok", wantReqs: 2, notice: "no data for 300ms"},
		{name: "stalled stream, no retries", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{stallReply(k.cutEarly)}
		}, edit: func(o *ProviderOptions) { o.Timeout = 200 * time.Millisecond; o.MaxRetries = -1 }, wantErr: "no data for 200ms", wantReqs: 1},
		{name: "no response headers", replies: func(k providerKit) []http.HandlerFunc {
			return []http.HandlerFunc{silentReply}
		}, edit: func(o *ProviderOptions) { o.Timeout = 200 * time.Millisecond; o.MaxRetries = -1 }, wantErr: "no response from the server within 200ms", wantReqs: 1},
	}
	for _, kit := range providerKits {
		for _, tt := range tests {
			t.Run(kit.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				api := newFakeAPI(t, tt.replies(kit)...)
				log := &retryLog{}
				p := newTestProvider(kit, api, log, tt.edit)
				text, _, err := collectText(context.Background(), p)
				if tt.wantErr == "" && err != nil {
					t.Fatalf("Stream error: %v", err)
				}
				if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
					t.Fatalf("Stream error = %v, want one containing %q", err, tt.wantErr)
				}
				if text != tt.wantText {
					t.Errorf("reply = %q, want %q", text, tt.wantText)
				}
				if n := len(api.requests()); n != tt.wantReqs {
					t.Errorf("requests = %d, want %d", n, tt.wantReqs)
				}
				if tt.wantWait != nil && !slices.Equal(log.waits, tt.wantWait) {
					t.Errorf("waits = %v, want %v", log.waits, tt.wantWait)
				}
				if tt.notice != "" && !slices.ContainsFunc(log.notices, func(s string) bool { return strings.Contains(s, tt.notice) }) {
					t.Errorf("notices = %q, want one containing %q", log.notices, tt.notice)
				}
				if tt.noNotice != "" && slices.ContainsFunc(log.notices, func(s string) bool { return strings.Contains(s, tt.noNotice) }) {
					t.Errorf("notices = %q, want none containing %q", log.notices, tt.noNotice)
				}
			})
		}
	}
}

// TestCancelDuringStream checks that cancelling the context ends a
// stalled stream at once with the context's error, without a retry.
func TestCancelDuringStream(t *testing.T) {
	t.Parallel()
	for _, kit := range providerKits {
		t.Run(kit.name, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, stallReply(kit.cut("first words")))
			log := &retryLog{}
			p := newTestProvider(kit, api, log, func(o *ProviderOptions) { o.Timeout = time.Minute })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			start := time.Now()
			_, err := p.Stream(ctx, ModelRequest{Model: "m", Messages: []Message{userText("hi")}}, func(Delta) { cancel() })
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Stream error = %v, want %v", err, context.Canceled)
			}
			if elapsed := time.Since(start); elapsed > 20*time.Second {
				t.Errorf("Stream took %s after cancel, want it at once", elapsed)
			}
			if n := len(api.requests()); n != 1 {
				t.Errorf("requests = %d, want 1", n)
			}
		})
	}
}

// TestPartialReplyDiscardedInOrder checks what the user sees when a
// stream breaks after output: the partial text, then the notice that it
// is discarded, and only then the text of the retry.
func TestPartialReplyDiscardedInOrder(t *testing.T) {
	t.Parallel()
	for _, kit := range providerKits {
		t.Run(kit.name, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, sseReply(kit.cut("partial")), sseReply(kit.reply("whole")))
			var seen []string
			opts := ProviderOptions{BaseURL: api.srv.URL, ShowsText: true, Notify: func(s string) { seen = append(seen, "notice: "+s) }}
			p, client := kit.new(opts)
			(&retryLog{}).instrument(client)
			resp, err := p.Stream(context.Background(), ModelRequest{Model: "m", Messages: []Message{userText("hi")}}, func(d Delta) {
				if d.Kind != deltaUsage {
					seen = append(seen, "text: "+d.Text)
				}
			})
			if err != nil {
				t.Fatalf("Stream error: %v", err)
			}
			if got := (Message{Content: resp.Content}).Text(); got != "whole" {
				t.Errorf("reply = %q, want %q", got, "whole")
			}
			want := []string{"text: partial", "; retrying in ", "text: whole"}
			ok := len(seen) == len(want) && strings.HasSuffix(seen[1], partialDiscardedNotice)
			for i := 0; ok && i < len(want); i++ {
				ok = strings.Contains(seen[i], want[i])
			}
			if !ok {
				t.Errorf("the user saw %q, want lines holding %q", seen, want)
			}
		})
	}
}

// TestSlowStreamIsNotStalled checks that the idle timeout measures the
// gap between pieces of data, not the length of the whole reply.
func TestSlowStreamIsNotStalled(t *testing.T) {
	t.Parallel()
	for _, kit := range providerKits {
		t.Run(kit.name, func(t *testing.T) {
			t.Parallel()
			const idle = time.Second
			api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				stream := kit.reply(strings.Repeat("x", 300))
				for i := 0; i < len(stream); i += 3 {
					time.Sleep(10 * time.Millisecond)
					io.WriteString(w, stream[i:min(i+3, len(stream))])
					w.(http.Flusher).Flush()
				}
			})
			p := newTestProvider(kit, api, &retryLog{}, func(o *ProviderOptions) { o.Timeout = idle; o.MaxRetries = -1 })
			start := time.Now()
			if _, _, err := collectText(context.Background(), p); err != nil {
				t.Fatalf("Stream error after %s: %v", time.Since(start), err)
			}
			if elapsed := time.Since(start); elapsed < idle*3/2 {
				t.Fatalf("the reply took %s, not much longer than the idle timeout %s: the test checks nothing", elapsed, idle)
			}
		})
	}
}

// TestSlowConsumerIsNotStalled checks that the time the caller spends on
// a delta does not count as silence of the server: the rest of the reply
// arrives while the caller is busy, and the stream goes on.
func TestSlowConsumerIsNotStalled(t *testing.T) {
	t.Parallel()
	for _, kit := range providerKits {
		t.Run(kit.name, func(t *testing.T) {
			t.Parallel()
			const idle = 500 * time.Millisecond
			prefix := kit.cut("first")
			rest := strings.TrimPrefix(kit.reply("first"), prefix)
			shown := make(chan struct{})
			api := newFakeAPI(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, prefix)
				w.(http.Flusher).Flush()
				select {
				case <-shown:
					io.WriteString(w, rest)
				case <-r.Context().Done():
				}
			})
			p := newTestProvider(kit, api, &retryLog{}, func(o *ProviderOptions) { o.Timeout = idle; o.MaxRetries = -1 })
			var once sync.Once
			resp, err := p.Stream(context.Background(), ModelRequest{Model: "m", Messages: []Message{userText("hi")}}, func(Delta) {
				once.Do(func() {
					close(shown)
					time.Sleep(3 * idle)
				})
			})
			if got := (Message{Content: resp.Content}).Text(); err != nil || got != "first" {
				t.Fatalf("Stream = %q, %v; want %q", got, err, "first")
			}
		})
	}
}

// TestRefusedConnectionIsNotRetried checks that a server that is not
// there fails at once instead of being retried, with the address tried
// and the variable that sets it instead of Go's own words.
func TestRefusedConnectionIsNotRetried(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	log := &retryLog{}
	p, client := anthropicKit.new(log.options(srv.URL))
	log.instrument(client)
	_, err := p.Stream(context.Background(), ModelRequest{Model: "m"}, nil)
	want := "cannot reach the anthropic API at " + srv.URL + "/v1/messages (connection refused); ANTHROPIC_BASE_URL sets the address"
	if err == nil || err.Error() != want {
		t.Fatalf("Stream error = %q, want %q", err, want)
	}
	if len(log.waits) != 0 {
		t.Errorf("waits = %v, want no retry", log.waits)
	}
}

// TestCancelDuringBackoff checks that a cancel while waiting to retry ends
// the call with the context's error.
func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t, statusReply(503, `{"error":{"message":"busy"}}`))
	p, client := anthropicKit.new(ProviderOptions{BaseURL: api.srv.URL})
	client.backoffBase, client.backoffMax = time.Hour, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	client.Notify = func(string) { cancel() }
	if _, err := p.Stream(ctx, ModelRequest{Model: "m"}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Stream error = %v, want %v", err, context.Canceled)
	}
	if n := len(api.requests()); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

// TestBackoffDelay checks the doubling, the cap and the jitter range.
func TestBackoffDelay(t *testing.T) {
	t.Parallel()
	c := newStreamClient("x", "X_BASE_URL", "http://x", http.Header{}, ProviderOptions{MaxRetries: 200})
	c.backoffBase, c.backoffMax = 100*time.Millisecond, time.Second
	busy := &streamError{error: errors.New("connection failed")}
	for attempt, full := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		full *= time.Millisecond
		for range 50 {
			if d, ok := c.retryWait(busy, attempt); !ok || d < full/2 || d > full {
				t.Fatalf("retryWait(%d) = %s, %v; want within [%s, %s]", attempt, d, ok, full/2, full)
			}
		}
	}
	if d, _ := c.retryWait(busy, 100); d > time.Second {
		t.Errorf("retryWait(100) = %s, want at most the cap", d)
	}
}

// TestRetryAfter checks the forms of the retry headers.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		header []string
		want   time.Duration
	}{
		{nil, 0},
		{[]string{"retry-after", "3"}, 3 * time.Second},
		{[]string{"retry-after", "0.5"}, 500 * time.Millisecond},
		{[]string{"retry-after", now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{[]string{"retry-after", now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{[]string{"retry-after", "soon"}, 0},
		{[]string{"retry-after-ms", "250", "retry-after", "1"}, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		h := http.Header{}
		for i := 0; i+1 < len(tt.header); i += 2 {
			h.Set(tt.header[i], tt.header[i+1])
		}
		if got := retryAfter(h, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %s, want %s", tt.header, got, tt.want)
		}
	}
}

// TestNewStreamClientDefaults checks the defaults of zero options.
func TestNewStreamClientDefaults(t *testing.T) {
	t.Parallel()
	c := newStreamClient("x", "X_BASE_URL", "http://x", http.Header{}, ProviderOptions{})
	got := fmt.Sprint(c.MaxRetries, c.Timeout, c.backoffBase, c.backoffMax, c.client != nil)
	want := fmt.Sprint(defaultMaxRetries, defaultTimeout, defaultBackoffBase, defaultBackoffMax, true)
	if got != want {
		t.Errorf("defaults = %q, want %q", got, want)
	}
}

// checkRequestGolden compares a captured request with a golden file,
// rewriting the file under -update.
func checkRequestGolden(t *testing.T, path string, got capturedRequest) {
	t.Helper()
	if *update {
		writeGoldenJSON(t, path, got)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(got); err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(want) {
		t.Errorf("request differs from %s (run with -update to accept):\n got %s\nwant %s", path, buf.String(), want)
	}
}

// TestReadAPIErrorLongBody checks that a long plain-text error body is
// shortened on a character boundary.
func TestReadAPIErrorLongBody(t *testing.T) {
	t.Parallel()
	body := "x" + strings.Repeat("é", 400)
	resp := &http.Response{StatusCode: http.StatusBadGateway, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body))}
	got := readAPIError("openai", resp).Message
	if want := body[:499] + "..."; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}
