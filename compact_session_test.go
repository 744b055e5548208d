package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// longSession is a scripted model behind an httptest server speaking the
// Anthropic Messages stream: it asks for read_file of file<N>.txt, one
// file per step, for steps steps, then answers; with files set, step N
// reads file<N mod files>.txt, so later steps read files again. It counts
// each request's tokens as a quarter of its body's bytes, prices them as
// the prompt cache would (promptCache) and reports that as the usage,
// answers summary requests with a summary, and remembers the largest
// request and the CPU time of the client process at each step.
type longSession struct {
	srv   *httptest.Server
	steps int
	files int
	cache promptCache

	mu        sync.Mutex
	step      int
	summaries int
	maxTokens int
	tooLongAt map[int]bool // steps that first answer "prompt is too long"
	pid       int          // the client, once started
	cpuAtStep []time.Duration
}

// newLongSession starts the scripted server.
func newLongSession(t testing.TB, steps int) *longSession {
	s := &longSession{steps: steps, tooLongAt: map[int]bool{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// serve answers one request.
func (s *longSession) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		System []struct{ Text string } `json:"system"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad body"}}`, http.StatusBadRequest)
		return
	}
	tokens := len(body) / 4
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxTokens = max(s.maxTokens, tokens)
	summary := len(req.System) > 0 && req.System[0].Text == summarySystemPrompt
	usage := s.cache.price(body, !summary)
	if summary {
		s.summaries++
		writeLongSessionReply(w, usage, "text", fmt.Sprintf("<summary>\nRequest: read the files.\nCurrent state: summary %d.\n</summary>", s.summaries))
		return
	}
	if s.tooLongAt[s.step] {
		delete(s.tooLongAt, s.step)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: %d tokens > 1000 maximum"}}`, tokens)
		return
	}
	if s.pid != 0 {
		s.cpuAtStep = append(s.cpuAtStep, processCPU(s.pid))
	}

	if s.step < s.steps {
		writeLongSessionReply(w, usage, "tool_use", fmt.Sprintf(`{"path":"file%d.txt"}`, s.step%cmp.Or(s.files, s.steps)))
	} else {
		writeLongSessionReply(w, usage, "text", fmt.Sprintf("Read %d files.", s.step))
	}
	s.step++
}

// writeLongSessionReply streams one reply with the usage given: a text
// block, or a read_file call whose input is given.
func writeLongSessionReply(w http.ResponseWriter, usage Usage, kind, content string) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(data string) {
		var ev struct{ Type string }
		json.Unmarshal([]byte(data), &ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Type, data)
	}
	quoted, _ := json.Marshal(content)
	event(fmt.Sprintf(`{"type":"message_start","message":{"id":"msg","role":"assistant","content":[],"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":1}}}`,
		usage.InputTokens, usage.CacheCreationInputTokens, usage.CacheReadInputTokens))
	stop := "end_turn"
	if kind == "tool_use" {
		stop = "tool_use"
		id := usage.InputTokens + usage.CacheCreationInputTokens + usage.CacheReadInputTokens
		event(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_` + strconv.Itoa(id) + `","name":"read_file","input":{}}}`)
		event(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":` + string(quoted) + `}}`)
	} else {
		event(`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		event(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":` + string(quoted) + `}}`)
	}
	event(`{"type":"content_block_stop","index":0}`)
	event(`{"type":"message_delta","delta":{"stop_reason":"` + stop + `"},"usage":{"output_tokens":20}}`)
	event(`{"type":"message_stop"}`)
}

// promptCache prices requests as Anthropic's prompt cache does, to count what a session costs: a
// request's blocks (tools, system, then messages) form a prefix; a block ending in a cache breakpoint
// writes the prefix up to it to the cache, and a later request whose prefix matches one written, at a
// breakpoint or at most 20 blocks before one, reads that part from the cache. Read tokens cost 0.1 of
// an input token, written ones 1.25 and the rest 1 (the published prices of the 5-minute cache). A
// rewrite is a request of the conversation that reads less than the one before it wrote.
type promptCache struct {
	written  map[uint64]bool // prefix hashes at breakpoints
	seed     maphash.Seed
	last     int // tokens up to the newest breakpoint of the conversation's previous request
	bytes    int
	tokens   int     // all input tokens, as if there were no cache
	weighted float64 // input tokens at their cache prices
	rewrites int
}

// price counts one request, part of the conversation or not (a summary), and returns its usage.
func (c *promptCache) price(body []byte, conversation bool) Usage {
	var req struct {
		Tools    []json.RawMessage `json:"tools"`
		System   []json.RawMessage `json:"system"`
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	blocks := append(req.Tools, req.System...)
	for _, m := range req.Messages {
		blocks = append(append(blocks, json.RawMessage(m.Role)), m.Content...)
	}
	if c.written == nil {
		c.written, c.seed = map[uint64]bool{}, maphash.MakeSeed()
	}
	var h maphash.Hash
	h.SetSeed(c.seed)
	hashes, ends := make([]uint64, len(blocks)), make([]int, len(blocks)) // of each prefix; its tokens
	read, total, marks := 0, 0, []int{}
	for i, b := range blocks {
		plain, marked := bytes.CutSuffix(b, []byte(cacheBreakpoint)) // the mark is not part of the prefix
		if marked {
			plain, marks = append(plain[:len(plain):len(plain)], '}'), append(marks, i)
		}
		h.Write(plain)
		hashes[i], total = h.Sum64(), total+len(plain)/4
		ends[i] = total
	}
	for _, i := range marks {
		for j := i; j >= max(0, i-20); j-- {
			if c.written[hashes[j]] {
				read = max(read, ends[j])
				break
			}
		}
	}
	mark := -1
	for _, mark = range marks {
		c.written[hashes[mark]] = true
	}
	u := Usage{InputTokens: total}
	if mark >= 0 {
		u = Usage{InputTokens: total - ends[mark], CacheCreationInputTokens: ends[mark] - read, CacheReadInputTokens: read}
		if conversation && read < c.last {
			c.rewrites++
		}
		if conversation {
			c.last = ends[mark]
		}
	}
	c.bytes += len(body)
	c.tokens += total
	c.weighted += 0.1*float64(u.CacheReadInputTokens) + 1.25*float64(u.CacheCreationInputTokens) + float64(u.InputTokens)
	return u
}

// processCPU is the CPU time a process (or, when it is /usr/bin/time, its
// child) has used so far, summed over its threads from the scheduler's
// nanosecond counters (0 where unknown).
func processCPU(pid int) time.Duration {
	if children, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid)); err == nil && len(strings.Fields(string(children))) > 0 {
		pid, _ = strconv.Atoi(strings.Fields(string(children))[0])
	}
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total time.Duration
	for _, task := range tasks {
		data, err := os.ReadFile(task)
		if err != nil {
			continue
		}
		ns, _ := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
		total += time.Duration(ns)
	}
	return total
}

// longSessionWorkspace writes steps files of size bytes each, all
// different.
func longSessionWorkspace(t testing.TB, steps, size int) string {
	ws := t.TempDir()
	for i := 0; i < steps; i++ {
		line := fmt.Sprintf("file %d holds line number %%06d of its text\n", i)
		var b strings.Builder
		for n := 0; b.Len() < size; n++ {
			fmt.Fprintf(&b, line, n)
		}
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("file%d.txt", i)), []byte(b.String()[:size]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// longSessionCommand is the minicode command that runs the session, with
// settings in its own home.
func longSessionCommand(t testing.TB, s *longSession, ws, settings string, args ...string) *exec.Cmd {
	home := t.TempDir()
	if settings != "" {
		if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(minicodeBinary(t), append([]string{"-p", "read the files", "--workspace", ws, "--max-turns", "1000"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "MINICODE_HOME=" + home,
		"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=" + s.srv.URL}
	return cmd
}

// TestLongSessionStaysInWindow runs the real binary through 64 steps that
// each add a 40 KB result, with a 60,000-token window: every request the
// server sees fits, the session ends with the answer, and stream-json
// shows the compactions.
func TestLongSessionStaysInWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 64-step session")
	}
	t.Parallel()
	const steps, window = 64, 60_000
	s := newLongSession(t, steps)
	s.tooLongAt[30] = true
	cmd := longSessionCommand(t, s, longSessionWorkspace(t, steps, 40_000), `{"contextWindow": 60000}`,
		"--output-format", "stream-json")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("session failed: %v\n%s", err, tail(string(out), 2000))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var res resultRecord
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Result != fmt.Sprintf("Read %d files.", steps) {
		t.Fatalf("last line = %q (%v), want the result %q", lines[len(lines)-1], err, fmt.Sprintf("Read %d files.", steps))
	}
	boundaries := 0
	for _, line := range lines {
		if strings.Contains(line, `"subtype":"compact_boundary"`) {
			var rec struct {
				SessionID string `json:"session_id"`
				Meta      struct {
					Trigger   string `json:"trigger"`
					PreTokens int    `json:"pre_tokens"`
				} `json:"compact_metadata"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.SessionID != res.SessionID || rec.Meta.Trigger != "auto" || rec.Meta.PreTokens <= 0 {
				t.Errorf("compact_boundary line %q: want session_id %q, trigger auto, pre_tokens > 0", line, res.SessionID)
			}
			boundaries++
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.Logf("max %d tokens, %d summaries, %d boundaries", s.maxTokens, s.summaries, boundaries)
	if s.maxTokens > window {
		t.Errorf("largest request = %d tokens, want at most the window of %d", s.maxTokens, window)
	}
	if boundaries == 0 || s.summaries == 0 {
		t.Errorf("%d compact_boundary lines and %d summary requests; want at least one of each", boundaries, s.summaries)
	}
	if len(s.tooLongAt) != 0 {
		t.Errorf("the too-long error at step 30 was never sent")
	}
}

// TestStreamJSONBoundaryWithoutSummary runs the real binary through a
// session that only micro compact needs to keep in its window: stream-json
// prints a compact_boundary for that compaction too.
func TestStreamJSONBoundaryWithoutSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 12-step session")
	}
	t.Parallel()
	const steps = 12
	s := newLongSession(t, steps)
	cmd := longSessionCommand(t, s, longSessionWorkspace(t, steps, 40_000), `{"contextWindow": 200000}`,
		"--output-format", "stream-json")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("session failed: %v\n%s", err, tail(string(out), 2000))
	}
	boundaries := strings.Count(string(out), `"subtype":"compact_boundary"`)
	s.mu.Lock()
	defer s.mu.Unlock()
	if boundaries == 0 || s.summaries != 0 {
		t.Errorf("%d compact_boundary lines and %d summary requests; want a boundary for the micro compaction and no summary", boundaries, s.summaries)
	}
}

// tail returns the end of s.
func tail(s string, n int) string {
	return s[max(0, len(s)-n):]
}

// BenchmarkLongSession runs the built binary through sessions against the
// scripted server, each step reading a 20 KB file, with a window of 200,000
// tokens (that of most models; compaction starts at half of it): 200 steps that each read a different file, and 10 and 50
// steps that read half as many files twice each. It reports the CPU time
// and peak RSS of the minicode process, what it sent (MB-sent), its input
// at the prompt cache's prices against the same input uncached
// (cache-ratio), the requests that rewrote the cache (rewrites), and, for
// 200 steps, its CPU per step around step 10 and around step 200.
func BenchmarkLongSession(b *testing.B) {
	for _, steps := range []int{10, 50, 200} {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) { benchLongSession(b, steps) })
	}
}

// benchLongSession is BenchmarkLongSession of a number of steps.
func benchLongSession(b *testing.B, steps int) {
	files := steps
	if steps < 200 {
		files = steps / 2
	}
	ws := longSessionWorkspace(b, files, 20_000)
	var cpu, early, late time.Duration
	var peak int64
	var cache promptCache
	for i := 0; i < b.N; i++ {
		s := newLongSession(b, steps)
		s.files = files
		home := b.TempDir()
		if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"contextWindow": 200000}`), 0o644); err != nil {
			b.Fatal(err)
		}
		cmd, rss := measured(b, minicodeBinary(b), "-p", "read the files", "--workspace", ws, "--max-turns", "1000", "--output-format", "json")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "MINICODE_HOME=" + home,
			"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=" + s.srv.URL}
		var stdout strings.Builder
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		s.mu.Lock()
		s.pid = cmd.Process.Pid
		s.mu.Unlock()
		if err := cmd.Wait(); err != nil || !strings.Contains(stdout.String(), fmt.Sprintf("Read %d files.", steps)) {
			b.Fatalf("session failed: %v\n%s", err, stdout.String())
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		peak = max(peak, rss())
		s.mu.Lock()
		if at := s.cpuAtStep; steps >= 200 {
			early += (at[15] - at[5]) / 10
			late += (at[len(at)-1] - at[len(at)-11]) / 10
		}
		cache.bytes, cache.tokens, cache.weighted, cache.rewrites = cache.bytes+s.cache.bytes, cache.tokens+s.cache.tokens, cache.weighted+s.cache.weighted, cache.rewrites+s.cache.rewrites
		s.mu.Unlock()
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	b.ReportMetric(float64(cache.bytes)/1e6/float64(b.N), "MB-sent")
	b.ReportMetric(cache.weighted/float64(cache.tokens), "cache-ratio")
	b.ReportMetric(float64(cache.rewrites)/float64(b.N), "rewrites")
	if steps >= 200 {
		b.ReportMetric(float64(early.Microseconds())/float64(b.N), "step10-cpu-us")
		b.ReportMetric(float64(late.Microseconds())/float64(b.N), "step200-cpu-us")
	}
}
