package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// newWebServer serves the pages the web tool tests fetch.
func newWebServer(t *testing.T) *httptest.Server {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("testdata", "tools", "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/guide/index.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/guide/index.html", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/to-ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://example.test/file", http.StatusFound)
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		line := []byte(strings.Repeat("0123456789", 10) + "\n")
		for range 100_000 {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/image.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/unlabelled", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"name":"<b>not html</b>"}`))
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=ISO-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestWebFetch(t *testing.T) {
	t.Parallel()
	srv := newWebServer(t)
	env := newTestEnv(t, nil)
	tool := webFetchTool(newWebClient(""))
	tests := []struct {
		name    string
		input   string
		wantErr bool
		want    []string
		notWant []string
	}{
		{"html page", `{"url":"%s/guide/index.html"}`, false,
			[]string{"URL: %s/guide/index.html\nTitle: Gophers & Friends\n\n", "# Welcome, gophers", "[Docs](%s/guide/docs/intro.html)", "- Channels <- easy"},
			[]string{"secret", "color: red", "nope", "hidden", "Enable JavaScript"}},
		{"redirect followed", `{"url":"%s/moved"}`, false, []string{"URL: %s/guide/index.html\n"}, nil},
		{"redirect loop", `{"url":"%s/loop"}`, true, []string{"stopped after 5 redirects"}, nil},
		{"redirect to ftp", `{"url":"%s/to-ftp"}`, true, []string{"redirect to unsupported address ftp://example.test/file"}, nil},
		{"huge body", `{"url":"%s/huge","max_chars":1000}`, false,
			[]string{"Note: only the first 5242880 bytes of the page were read.", "[... cut at 1000 characters; 5241880 more not shown ...]"}, nil},
		{"binary content", `{"url":"%s/image.png"}`, true, []string{"/image.png is image/png, not text; web_fetch returns text only"}, nil},
		{"sniffed binary", `{"url":"%s/unlabelled"}`, true, []string{"is image/png, not text"}, nil},
		{"json as it is", `{"url":"%s/data.json"}`, false, []string{`{"name":"<b>not html</b>"}`}, nil},
		{"latin-1", `{"url":"%s/latin1"}`, false, []string{"café"}, nil},
		{"not found", `{"url":"%s/missing"}`, true, []string{"HTTP 404 Not Found"}, nil},
		{"ftp url", `{"url":"ftp://example.test/x"}`, true, []string{"only http and https addresses can be fetched"}, nil},
		{"not a url", `{"url":"just words"}`, true, []string{"only http and https"}, nil},
		{"no host", `{"url":"http:///path"}`, true, []string{"no host"}, nil},
		{"missing url", `{}`, true, []string{`field "url" is required`}, nil},
		{"max_chars too small", `{"url":"%s/huge","max_chars":5}`, true, []string{`field "max_chars" must be at least 100`}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := callTool(t, env, tool, strings.ReplaceAll(tc.input, "%s", srv.URL))
			if out.IsError != tc.wantErr {
				t.Fatalf("IsError = %v, want %v; text %q", out.IsError, tc.wantErr, cutBytes(out.Text, 300, "..."))
			}
			for _, w := range tc.want {
				mustContain(t, out.Text, strings.ReplaceAll(w, "%s", srv.URL))
			}
			for _, nw := range tc.notWant {
				if strings.Contains(out.Text, nw) {
					t.Errorf("output holds %q: %q", nw, out.Text)
				}
			}
		})
	}
}

func TestWebFetchCancelAndPermission(t *testing.T) {
	t.Parallel()
	srv := newWebServer(t)
	env := newTestEnv(t, nil)
	perms := &recordingPerms{}
	env.Perms = perms
	reg := newRegistry(webFetchTool(newWebClient("")))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	out := reg.Execute(ctx, env, Block{Type: BlockToolUse, ID: "c", Name: "web_fetch", Input: []byte(fmt.Sprintf(`{"url":%q}`, srv.URL+"/slow"))})
	if !out.IsError || time.Since(start) > 20*time.Second {
		t.Errorf("cancelled fetch = %q after %s", out.Text, time.Since(start))
	}
	if len(perms.reqs) != 1 || perms.reqs[0].Access != AccessNetwork || perms.reqs[0].URL != srv.URL+"/slow" {
		t.Errorf("requests = %+v, want one network request for %s/slow", perms.reqs, srv.URL)
	}
}

// newSearchServer serves testdata's DuckDuckGo-shaped results page at
// /html/, and a page without results for the query "nothing".
func newSearchServer(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("testdata", "tools", "ddg_results.html"))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		queries []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/html/" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		queries = append(queries, r.URL.Query().Get("q"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Query().Get("q") == "refused" {
			w.WriteHeader(http.StatusAccepted)
			w.Write([]byte(`<html><body><div class="anomaly-modal">Unfortunately, bots use DuckDuckGo too.</div></body></html>`))
			return
		}
		if r.URL.Query().Get("q") == "nothing" {
			w.Write([]byte(`<html><body><div class="no-results">No results.</div></body></html>`))
			return
		}
		w.Write(page)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), queries...)
	}
}

func TestWebSearch(t *testing.T) {
	t.Parallel()
	srv, queries := newSearchServer(t)
	env := newTestEnv(t, nil)
	tool := webSearchTool(newWebClient(srv.URL + "/html/"))
	const tutorial = "1. Tutorial: Getting started with generics - The Go Programming Language\n   https://go.dev/doc/tutorial/generics\n   This tutorial introduces the basics of generics in Go. With generics, you can declare & use functions or types.\n"
	tests := []struct {
		name    string
		input   string
		wantErr bool
		want    string
	}{
		{"all results, ads dropped", `{"query":"golang generics"}`, false, tutorial +
			"2. An Introduction To Generics\n   https://blog.golang.org/intro-generics\n   Generics are a way of writing code that is independent of the specific types being used.\n" +
			"3. Go generics - Stack Overflow\n   https://stackoverflow.com/questions/1/go-generics\n   How do I use type parameters?\n"},
		{"max results", `{"query":"golang generics","max_results":1}`, false, tutorial},
		{"allowed domains", `{"query":"golang generics","allowed_domains":["golang.org"]}`, false,
			"1. An Introduction To Generics\n   https://blog.golang.org/intro-generics\n   Generics are a way of writing code that is independent of the specific types being used.\n"},
		{"blocked domains", `{"query":"golang generics","blocked_domains":["golang.org","stackoverflow.com"]}`, false, tutorial},
		{"no results", `{"query":"nothing"}`, false, `No results for "nothing".`},
		{"refused", `{"query":"refused"}`, true, "web search failed: the search engine refused the request (rate limit or bot check); try again later"},
		{"missing query", `{}`, true, `invalid input: field "query" is required`},
		{"too many results", `{"query":"x","max_results":50}`, true, `invalid input: field "max_results" must be at most 20`},
		{"domains wrong type", `{"query":"x","allowed_domains":"go.dev"}`, true, `invalid input: field "allowed_domains" must be an array, got string`},
	}
	for _, tc := range tests {
		out := callTool(t, env, tool, tc.input)
		if out.IsError != tc.wantErr || out.Text != tc.want {
			t.Errorf("%s: web_search %s = %q (error %v), want %q (error %v)", tc.name, tc.input, out.Text, out.IsError, tc.want, tc.wantErr)
		}
	}
	if seen := queries(); len(seen) == 0 || seen[0] != "golang generics" {
		t.Errorf("server saw queries %q, want the first to be %q", seen, "golang generics")
	}
	broken := webSearchTool(newWebClient(srv.URL + "/elsewhere/"))
	if out := callTool(t, env, broken, `{"query":"x"}`); !out.IsError || !strings.Contains(out.Text, "web search failed") {
		t.Errorf("search against a missing endpoint = %q, want an error", out.Text)
	}
}

func TestUnwrapRedirect(t *testing.T) {
	t.Parallel()
	tests := []struct{ href, want string }{
		{"//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2F%3Fa%3D1%26b%3D2&rut=x", "https://go.dev/?a=1&b=2"},
		{"https://example.com/page", "https://example.com/page"},
		{"/relative", "https://html.duckduckgo.com/relative"},
	}
	base, _ := checkWebURL(defaultSearchEndpoint)
	for _, tc := range tests {
		if got := unwrapRedirect(tc.href, base); got != tc.want {
			t.Errorf("unwrapRedirect(%q) = %q, want %q", tc.href, got, tc.want)
		}
	}
}

// TestWebFetchRedirectsAreChecked follows redirects under the real
// permission check: a rule for the first host does not cover a redirect
// to another, whose hop is judged (and, headless, denied) on its own.
func TestWebFetchRedirectsAreChecked(t *testing.T) {
	t.Parallel()
	var hits []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits = append(hits, r.URL.Path)
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, "http://elsewhere.invalid/secret", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, strings.Replace("http://"+r.Host+"/ok", "127.0.0.1", "[::ffff:127.0.0.1]", 1), http.StatusFound)
		default:
			io.WriteString(w, "fine")
		}
	}))
	defer srv.Close()
	env := newTestEnv(t, nil)
	perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace, AllowedTools: []string{"web_fetch(domain:127.0.0.1)"}})
	if err != nil {
		t.Fatal(err)
	}
	env.Perms = perms
	tool := webFetchTool(newWebClient(""))
	out := callTool(t, env, tool, fmt.Sprintf(`{"url":%q}`, srv.URL+"/away"))
	if !out.IsError || !strings.Contains(out.Text, "elsewhere.invalid") || !strings.Contains(out.Text, "permission denied") {
		t.Errorf("redirect to another host = %q, want a permission denial naming it", out.Text)
	}
	out = callTool(t, env, tool, fmt.Sprintf(`{"url":%q}`, srv.URL+"/loop"))
	if out.IsError || !strings.Contains(out.Text, "fine") {
		t.Errorf("redirect to the same address in another form = %q, want it followed", out.Text)
	}
	if d := perms.Denials(); len(d) != 1 || !strings.Contains(d[0].Reason, "elsewhere.invalid") {
		t.Errorf("denials = %+v, want the redirect hop", d)
	}
}

func TestWebFetchJudgesTheAddressANameResolvesTo(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "internal page") }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	cases := []struct {
		allow []string
		want  string
	}{
		{[]string{"web_fetch(domain:intranet.test)"}, "permission denied"},
		{[]string{"web_fetch"}, "permission denied"},
		{[]string{"web_fetch(domain:intranet.test)", "web_fetch(domain:127.0.0.1)"}, "internal page"},
	}
	for _, tc := range cases {
		env := newTestEnv(t, nil)
		perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace, AllowedTools: tc.allow})
		if err != nil {
			t.Fatal(err)
		}
		env.Perms = perms
		w := newWebClient("")
		w.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			if host != "intranet.test" {
				return nil, fmt.Errorf("no such host %q", host)
			}
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		out := callTool(t, env, webFetchTool(w), `{"url":"http://intranet.test:`+port+`/"}`)
		if !strings.Contains(out.Text, tc.want) || tc.want == "permission denied" && !strings.Contains(out.Text, "127.0.0.1") {
			t.Errorf("allow %q: fetch = %q, want %q", tc.allow, out.Text, tc.want)
		}
	}
}
