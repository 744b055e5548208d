package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
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
	perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace, AllowedTools: []string{"web_fetch", "web_fetch(domain:127.0.0.1)"}})
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

// TestDenyRulesNamingALinkHold checks deny rules that name a symbolic link,
// as a bare name or a folder, against calls naming the link or where it leads.
func TestDenyRulesNamingALinkHold(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"config/dev.env": "DBPASS=hunter2\n", "keys/id.txt": "KEY=1\n", "a.txt": "hello\n"})
	for link, to := range map[string]string{".env": "config/dev.env", "cfglink": "keys"} {
		if err := os.Symlink(to, filepath.Join(env.Workspace, link)); err != nil {
			t.Fatal(err)
		}
	}
	perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace, Mode: ModeAcceptEdits,
		DisallowedTools: []string{"Read(.env)", "Edit(.env)", "Read(./cfglink/**)", "Edit(./cfglink/**)"}})
	if err != nil {
		t.Fatal(err)
	}
	env.Perms = perms
	calls := []struct {
		tool  *Tool
		input string
	}{
		{readFileTool(), `{"path":".env"}`},
		{readFileTool(), `{"path":"cfglink/id.txt"}`},
		{readFileTool(), `{"path":"keys/id.txt"}`},
		{grepFilesTool(), `{"pattern":"=","path":".env"}`},
		{readFileTool(), `{"path":"config/dev.env"}`},
		{writeFileTool(), `{"path":".env","content":"x\n"}`},
		{writeFileTool(), `{"path":"keys/id.txt","content":"x\n"}`},
		{editFileTool(), `{"path":".env","old_string":"DBPASS","new_string":"X"}`},
		{editFileTool(), `{"path":".env","old_string":"no such text","new_string":"X"}`},
		{patchFileTool(), `{"path":"cfglink/id.txt","edits":[{"old_string":"KEY","new_string":"X"}]}`},
	}
	for _, c := range calls {
		out := callTool(t, env, c.tool, c.input)
		if !out.IsError || !strings.Contains(out.Text, "denied") || strings.Contains(out.Text, "DBPASS") || strings.Contains(out.Text, "KEY") {
			t.Errorf("%s %s = %q, want a denial", c.tool.Name, c.input, out.Text)
		}
	}
	for _, input := range []string{`{"pattern":"="}`, `{"pattern":"=","path":"keys"}`, `{"pattern":"=","path":"cfglink"}`} { // the walk passes over where the links lead
		checkWalkPassesOver(t, env, grepFilesTool(), input, "DBPASS", "KEY")
	}
	checkWalkPassesOver(t, env, listFilesTool(), `{"path":"keys"}`, "id.txt")
	checkWalkPassesOver(t, env, globFilesTool(), `{"pattern":"*","path":"keys"}`, "id.txt")
	for name, want := range map[string]string{"config/dev.env": "DBPASS=hunter2\n", "keys/id.txt": "KEY=1\n"} {
		if got, _ := os.ReadFile(filepath.Join(env.Workspace, name)); string(got) != want {
			t.Errorf("%s = %q after the calls, want %q", name, got, want)
		}
	}
	if out := callTool(t, env, readFileTool(), `{"path":"a.txt"}`); out.IsError {
		t.Errorf("read a.txt = %q, want it allowed", out.Text)
	}
}

// checkWalkPassesOver runs a call that walks a folder holding files deny rules cover: it works,
// says how many entries it passed over, and shows nothing of them.
func checkWalkPassesOver(t *testing.T, env *ToolEnv, tool *Tool, input string, hidden ...string) {
	t.Helper()
	out := callTool(t, env, tool, input)
	if out.IsError || !strings.Contains(out.Text, "not shown, as permission rules deny or ask for reading: ") {
		t.Errorf("%s %s = %q, want a result that passes over what the rules deny", tool.Name, input, out.Text)
	}
	for _, h := range hidden {
		if strings.Contains(out.Text, h) {
			t.Errorf("%s %s = %q, which shows %q", tool.Name, input, out.Text, h)
		}
	}
}

// TestGrepFolderSkipsHardLinkedFiles searches a folder holding a hard link
// to a file outside the workspace: reading it by name asks, so must a search.
func TestGrepFolderSkipsHardLinkedFiles(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"a.txt": "SECRET in the workspace\n"})
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("SECRET from outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(env.Workspace, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace})
	if err != nil {
		t.Fatal(err)
	}
	env.Perms = perms
	out := callTool(t, env, grepFilesTool(), `{"pattern":"SECRET"}`)
	if out.IsError || !strings.Contains(out.Text, "in the workspace") || strings.Contains(out.Text, "from outside") {
		t.Errorf("grep = %q, want the workspace's file only", out.Text)
	}
	if out := callTool(t, env, grepFilesTool(), `{"pattern":"SECRET","path":"hard.txt"}`); !strings.Contains(out.Text, "hard links") {
		t.Errorf("grep hard.txt = %q, want it to ask", out.Text)
	}
}

// TestDenyRulesWithPatternsCoverFolderSearches searches, lists and globs
// folders below which a deny rule with patterns matches files: a bare name
// (any depth) or a * between folders.
func TestDenyRulesWithPatternsCoverFolderSearches(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"config/.env": "ENVPASS=1\n", "src/a/secret/k.txt": "APIKEY=2\n", "docs/a.md": "fine\n"})
	perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace, DisallowedTools: []string{"Read(.env)", "Read(./src/*/secret/**)"}})
	if err != nil {
		t.Fatal(err)
	}
	env.Perms = perms
	checkWalkPassesOver(t, env, grepFilesTool(), `{"pattern":"=","path":"config"}`, "ENVPASS")
	checkWalkPassesOver(t, env, grepFilesTool(), `{"pattern":"=","path":"src/a"}`, "APIKEY")
	checkWalkPassesOver(t, env, listFilesTool(), `{"path":"src/a","recursive":true}`, "k.txt")
	checkWalkPassesOver(t, env, globFilesTool(), `{"pattern":"**","path":"src/a"}`, "k.txt")
	for _, input := range []string{`{"path":"config/.env"}`, `{"path":"src/a/secret/k.txt"}`} {
		if out := callTool(t, env, readFileTool(), input); !out.IsError || !strings.Contains(out.Text, "denied") {
			t.Errorf("read_file %s = %q, want a denial", input, out.Text)
		}
	}
	if env.Perms, err = newPermissions(PermissionConfig{Workspace: env.Workspace, DisallowedTools: []string{"Read(./src/*/secret/**)"}}); err != nil {
		t.Fatal(err)
	}
	if out := callTool(t, env, grepFilesTool(), `{"pattern":"fine","path":"docs"}`); out.IsError {
		t.Errorf("grep docs = %q, want it allowed", out.Text)
	}
}

// TestShellStartupFilesInHomeAsk writes, from a workspace that is home, the
// start-up files bash, zsh, csh and ksh read: each asks, in acceptEdits too.
func TestShellStartupFilesInHomeAsk(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace, Home: env.Workspace, Mode: ModeAcceptEdits})
	if err != nil {
		t.Fatal(err)
	}
	env.Perms = perms
	for _, name := range []string{".bash_aliases", ".zlogout", ".cshrc", ".tcshrc", ".login", ".kshrc", ".mkshrc"} {
		if out := callTool(t, env, writeFileTool(), fmt.Sprintf(`{"path":%q,"content":"x\n"}`, name)); !strings.Contains(out.Text, "every new shell") {
			t.Errorf("write %s = %q, want it to ask", name, out.Text)
		}
	}
}

// TestWebFetchThroughAProxyJudgesTheName fetches through an HTTP proxy,
// which connects by name: a name that resolves to a loopback address here
// needs a rule naming that address, as without a proxy.
func TestWebFetchThroughAProxyJudgesTheName(t *testing.T) {
	t.Parallel()
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "internal page") }))
	defer proxy.Close()
	env := newTestEnv(t, nil)
	perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace, AllowedTools: []string{"web_fetch"}})
	if err != nil {
		t.Fatal(err)
	}
	env.Perms = perms
	w := newWebClient("")
	w.proxy = func(*http.Request) (*url.URL, error) { return url.Parse(proxy.URL) }
	w.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		if host == "intranet.test" {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
	}
	if out := callTool(t, env, webFetchTool(w), `{"url":"http://intranet.test/"}`); !out.IsError || !strings.Contains(out.Text, "127.0.0.1") {
		t.Errorf("fetch through the proxy = %q, want a denial naming 127.0.0.1", out.Text)
	}
	if out := callTool(t, env, webFetchTool(w), `{"url":"http://public.test/"}`); out.IsError || !strings.Contains(out.Text, "internal page") {
		t.Errorf("fetch of a public name through the proxy = %q, want it fetched", out.Text)
	}
}

// TestSharedAddressSpaceNeedsARule fetches from 100.64.0.0/10, the address
// space carrier-grade NAT and VPN overlays such as Tailscale give machines
// of one's own network: like a private address, it needs a rule naming it.
func TestSharedAddressSpaceNeedsARule(t *testing.T) {
	t.Parallel()
	perms, err := newPermissions(PermissionConfig{Workspace: t.TempDir(), AllowedTools: []string{"web_fetch"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://100.64.0.1/", "http://100.100.100.100/", "http://[::ffff:100.127.255.254]/"} {
		if d := perms.decide(PermissionRequest{Tool: "web_fetch", Access: AccessNetwork, URL: u}); d.Verdict != verdictAsk {
			t.Errorf("fetch %s: verdict %d (%s), want it to ask", u, d.Verdict, d.Reason)
		}
	}
	if d := perms.decide(PermissionRequest{Tool: "web_fetch", Access: AccessNetwork, URL: "http://100.128.0.1/"}); d.Verdict != verdictAllow {
		t.Errorf("fetch 100.128.0.1: verdict %d (%s), want it allowed", d.Verdict, d.Reason)
	}
}

// TestStoredResultsFolderIsNotListed lists and searches the tool-results
// folder, which holds every session's stored results: the model may read a
// result it was told the path of, but finding others' asks.
func TestStoredResultsFolderIsNotListed(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	results := filepath.Join(t.TempDir(), "tool-results")
	writeTree(t, results, map[string]string{"other-session/toolu_1.txt": "SECRET of another project\n", "this-session/toolu_2.txt": "this result\n"})
	perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace, ReadableDirs: []string{results}})
	if err != nil {
		t.Fatal(err)
	}
	env.Perms = perms
	for _, c := range []struct {
		tool  *Tool
		input string
	}{
		{listFilesTool(), fmt.Sprintf(`{"path":%q}`, results)},
		{grepFilesTool(), fmt.Sprintf(`{"pattern":"SECRET","path":%q}`, results)},
		{globFilesTool(), fmt.Sprintf(`{"pattern":"**","path":%q}`, results)},
	} {
		if out := callTool(t, env, c.tool, c.input); !out.IsError || strings.Contains(out.Text, "other-session") {
			t.Errorf("%s %s = %q, want it to ask", c.tool.Name, c.input, out.Text)
		}
	}
	path := filepath.Join(results, "this-session", "toolu_2.txt")
	if out := callTool(t, env, readFileTool(), fmt.Sprintf(`{"path":%q}`, path)); out.IsError {
		t.Errorf("read %s = %q, want it allowed", path, out.Text)
	}
	if out := callTool(t, env, grepFilesTool(), fmt.Sprintf(`{"pattern":"this","path":%q}`, path)); out.IsError {
		t.Errorf("grep %s = %q, want it allowed", path, out.Text)
	}
}
