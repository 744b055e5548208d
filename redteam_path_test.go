package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWebFetchUnicodeHostsReachNoLoopback fetches addresses whose host the
// HTTP client maps to a loopback address (IDNA folds ① to 1, fullwidth
// letters to ASCII, 。 to a dot): a rule allowing public hosts covers none.
func TestWebFetchUnicodeHostsReachNoLoopback(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, "http://⓪.⓪.⓪.⓪:"+r.URL.Port()+"/inside", http.StatusFound)
			return
		}
		io.WriteString(w, "internal page")
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	env := newTestEnv(t, nil)
	perms, err := NewPermissions(PermissionConfig{Workspace: env.Workspace, AllowedTools: []string{"web_fetch", "web_fetch(domain:127.0.0.1)"}})
	if err != nil {
		t.Fatal(err)
	}
	env.Perms = perms
	tool := webFetchTool(newWebClient(""))
	for _, u := range []string{"http://①②⑦.0.0.1:" + port + "/", "http://ｌｏｃａｌｈｏｓｔ:" + port + "/", "http://127。0。0。1:" + port + "/",
		"http://⓪.⓪.⓪.⓪:" + port + "/", "http://127.0.0.1:" + port + "/hop"} {
		if out := callTool(t, env, tool, fmt.Sprintf(`{"url":%q}`, u)); !out.IsError || strings.Contains(out.Text, "internal page") {
			t.Errorf("fetch %s = %q, want it refused", u, out.Text)
		}
	}
}
