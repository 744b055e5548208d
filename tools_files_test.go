package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// numberedLines builds n lines "line 1" .. "line n", each ending in a newline.
func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{
		"a.txt":         "alpha\nbeta\ngamma\n",
		"noeol.txt":     "one\ntwo",
		"crlf.txt":      "one\r\ntwo\r\n",
		"five.txt":      numberedLines(5),
		"many.txt":      numberedLines(3000),
		"empty.txt":     "",
		"long.txt":      "short\n" + strings.Repeat("x", 5000) + "\nafter\n",
		"latin1.txt":    "caf\xe9\n",
		"euros.txt":     "a" + strings.Repeat("€", 1500) + "\n",
		"bin.dat":       "PK\x03\x04\x00\x00binary",
		"textbin.log":   numberedLines(1500) + strings.Repeat("\x00", 5000) + "tail\n",
		"midline.log":   numberedLines(1500) + "half\x00",
		"dir/inner.txt": "inner\n",
		"wide.txt":      strings.Repeat(strings.Repeat("w", 1500)+"\n", 100),
	})
	tests := []struct {
		name    string
		input   string
		wantErr bool
		want    []string
		notWant []string
	}{
		{"whole file", `{"path":"a.txt"}`, false, []string{"a.txt: 3 lines\n", "\n1\talpha\n", "\n3\tgamma\n"}, []string{"offset="}},
		{"no final newline", `{"path":"noeol.txt"}`, false, []string{"noeol.txt: 2 lines", "\n2\ttwo\n"}, nil},
		{"crlf endings", `{"path":"crlf.txt"}`, false, []string{"\n1\tone\n", "\n2\ttwo\n"}, []string{"\r"}},
		{"offset and limit", `{"path":"five.txt","offset":2,"limit":2}`, false, []string{"lines 2-3 of 5; more follows, continue with offset=4", "\n2\tline 2\n", "\n3\tline 3\n"}, []string{"line 1\n", "line 4"}},
		{"the last lines", `{"path":"five.txt","offset":-2}`, false, []string{"lines -2 to -1, numbered from the end (-1 is the last line)\n-2\tline 4\n-1\tline 5\n"}, []string{"line 3", "continue"}},
		{"more last lines than the file has", `{"path":"noeol.txt","offset":-9}`, false, []string{"noeol.txt: 2 lines\n1\tone\n2\ttwo\n"}, nil},
		{"offset to the end", `{"path":"five.txt","offset":4}`, false, []string{"lines 4-5 of 5\n", "\n5\tline 5\n"}, []string{"continue"}},
		{"default limit", `{"path":"many.txt"}`, false, []string{"lines 1-2000 of 3000; more follows, continue with offset=2001", "\n2000\tline 2000\n"}, []string{"line 2001\n"}},
		{"empty file", `{"path":"empty.txt"}`, false, []string{"empty.txt: empty file (0 lines)"}, nil},
		{"long line cut", `{"path":"long.txt"}`, false, []string{"1 long line cut at 2000 characters", "[... line cut: 5000 characters in all]", "\n3\tafter\n"}, []string{strings.Repeat("x", 2001)}},
		{"long line cut between runes", `{"path":"euros.txt"}`, false, []string{"\n1\ta" + strings.Repeat("€", 666) + " [... line cut: 4501 characters in all]"}, []string{"UTF-8", "\uFFFD"}},
		{"not utf-8", `{"path":"latin1.txt"}`, false, []string{"not valid UTF-8", "caf\uFFFD"}, nil},
		{"over budget keeps head and tail", `{"path":"wide.txt"}`, false, []string{"\n1\t", "\n100\t", "omitted to keep this result short; read them with offset="}, []string{"\n50\t"}},
		{"absolute path", fmt.Sprintf(`{"path":%q}`, filepath.Join(env.Workspace, "a.txt")), false, []string{"a.txt: 3 lines"}, nil},
		{"binary", `{"path":"bin.dat"}`, true, []string{"binary file"}, nil},
		{"text then binary", `{"path":"textbin.log"}`, false, []string{"textbin.log: 1500 lines; binary data from byte 13893 on is not shown", "\n1500\tline 1500\n"}, []string{"\x00", "tail"}},
		{"text then binary mid-line", `{"path":"midline.log","offset":1500}`, false, []string{"lines 1500-1501 of 1501; binary data from byte 13897 on is not shown", "\n1501\thalf\n"}, []string{"\x00"}},
		{"folder", `{"path":"dir"}`, true, []string{"is a folder", "list_files"}, nil},
		{"missing file", `{"path":"nope.txt"}`, true, []string{"nope.txt: no such file"}, nil},
		{"offset past end", `{"path":"five.txt","offset":9}`, true, []string{"offset 9 is past the end of the file (5 lines)"}, nil},
		{"negative limit", `{"path":"a.txt","limit":-1}`, true, []string{`"limit" must be at least 1`}, nil},
		{"zero offset", `{"path":"a.txt","offset":0}`, false, []string{"a.txt: 3 lines\n1\talpha\n"}, nil},
		{"missing path", `{}`, true, []string{`"path" is required`}, nil},
		{"wrong type", `{"path":5}`, true, []string{`"path" must be a string`}, nil},
		{"not json", `{"path":`, true, []string{"not valid JSON"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := callTool(t, env, readFileTool(), tc.input)
			if out.IsError != tc.wantErr {
				t.Fatalf("IsError = %v, want %v; text %q", out.IsError, tc.wantErr, out.Text)
			}
			mustContain(t, out.Text, tc.want...)
			for _, nw := range tc.notWant {
				if strings.Contains(out.Text, nw) {
					t.Errorf("output holds %q; got %q", nw, out.Text)
				}
			}
			if len(out.Text) > readBudgetChars+2_000 {
				t.Errorf("output is %d characters, over the budget %d", len(out.Text), readBudgetChars)
			}
		})
	}
}

func TestReadFilePermissionRequest(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"src/a.go": "package a\n"})
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"secret.txt": "s\n"})
	if err := os.Symlink(outside, filepath.Join(env.Workspace, "link")); err != nil {
		t.Fatal(err)
	}
	realOutside, _ := filepath.EvalSymlinks(outside)
	tests := []struct{ path, want string }{
		{"src/a.go", filepath.Join(env.Workspace, "src/a.go")},
		{"src/../src/a.go", filepath.Join(env.Workspace, "src/a.go")},
		{"link/secret.txt", filepath.Join(realOutside, "secret.txt")},
	}
	for _, tc := range tests {
		perms := &recordingPerms{}
		env := *env
		env.Perms = perms
		out := callTool(t, &env, readFileTool(), fmt.Sprintf(`{"path":%q}`, tc.path))
		if out.IsError {
			t.Fatalf("read %s failed: %q", tc.path, out.Text)
		}
		if len(perms.reqs) != 1 {
			t.Fatalf("read %s: %d permission requests, want 1", tc.path, len(perms.reqs))
		}
		req := perms.reqs[0]
		if req.Access != AccessRead || len(req.Paths) != 1 || req.Paths[0] != tc.want || req.Tool != "read_file" {
			t.Errorf("read %s: request %+v, want read of %q", tc.path, req, tc.want)
		}
	}
}

func TestReadFileRelativeToWorkspaceNotCwd(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"go.mod": "module elsewhere\n"})
	out := callTool(t, env, readFileTool(), `{"path":"go.mod"}`)
	mustContain(t, out.Text, "module elsewhere")
}

// rerunUnprivileged runs the calling test again as uid 65534 when the tests run as root, and reports
// whether it did (the caller then returns): root reads files and folders of mode 000,
// so what minicode does with an unreadable one shows only as another user.
func rerunUnprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	if os.Getenv("MINICODE_TEST_UID") != "" {
		t.Fatal("still root in the run as uid 65534")
	}
	dir := t.TempDir()
	if err := errors.Join(os.Chmod(filepath.Dir(dir), 0o755), os.Chmod(dir, 0o755)); err != nil {
		t.Fatal(err)
	}
	// /proc/self/exe is the test binary without walking the private build folder's path;
	// a copy instead races other tests' forks, which may hold it open for writing (text file busy).
	cmd := exec.Command("/proc/self/exe", "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "MINICODE_TEST_UID=65534", "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("as uid 65534: %v\n%s", err, out)
	}
	return true
}

func TestReadFileUnreadable(t *testing.T) {
	t.Parallel()
	if rerunUnprivileged(t) {
		return
	}
	env := newTestEnv(t, map[string]string{"locked.txt": "x\n"})
	if err := os.Chmod(filepath.Join(env.Workspace, "locked.txt"), 0); err != nil {
		t.Fatal(err)
	}
	out := callTool(t, env, readFileTool(), `{"path":"locked.txt"}`)
	if !out.IsError || !strings.Contains(out.Text, "permission denied") {
		t.Errorf("got %q, want a permission error", out.Text)
	}
}

// TestDescribeOpenError checks the sentences of open failures directly,
// since TestReadFileUnreadable cannot make a file unreadable for root.
func TestDescribeOpenError(t *testing.T) {
	t.Parallel()
	other := errors.New("disk on fire")
	tests := []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, "no such file"},
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}, "permission denied by the file system"},
		{other, "disk on fire"},
	}
	for _, tc := range tests {
		if got := describeOpenError(tc.err).Error(); got != tc.want {
			t.Errorf("describeOpenError(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// writeLargeFile writes about size bytes of numbered lines to path.
func writeLargeFile(tb testing.TB, path string, size int) (lines int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 0, 1<<20)
	written := 0
	for written < size {
		lines++
		buf = fmt.Appendf(buf, "%09d the quick brown fox jumps over the lazy dog\n", lines)
		if len(buf) > 1<<20-100 {
			n, err := f.Write(buf)
			if err != nil {
				tb.Fatal(err)
			}
			written += n
			buf = buf[:0]
		}
	}
	if _, err := f.Write(buf); err != nil {
		tb.Fatal(err)
	}
	return lines
}

// TestReadFileBoundedMemory reads a window from the middle of a 16 MB file
// and checks that far less than the file's size was allocated: the file is
// streamed, not loaded.
func TestReadFileBoundedMemory(t *testing.T) {
	env := newTestEnv(t, nil)
	const size = 16 << 20
	lines := writeLargeFile(t, filepath.Join(env.Workspace, "big.txt"), size)
	in := readFileInput{Path: "big.txt", Offset: lines / 2, Limit: 100}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := runReadFile(context.Background(), env, in)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out.Text, fmt.Sprintf("%09d the quick", lines/2))
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/8 {
		t.Errorf("reading 100 lines of a %d-byte file allocated %d bytes, want under %d", size, alloc, size/8)
	}
}

// TestReadFileHugeFileCostsWhatItReads reads the head and the tail of a
// 24 MB file: the head's count of the lines after it stops after
// readCountBytes ("at least"), and the tail is found from the end, its
// lines numbered from there.
func TestReadFileHugeFileCostsWhatItReads(t *testing.T) {
	env := newTestEnv(t, nil)
	lines := writeLargeFile(t, filepath.Join(env.Workspace, "big.txt"), 24<<20)
	head := callTool(t, env, readFileTool(), `{"path":"big.txt","limit":20}`)
	var counted int
	fmt.Sscanf(head.Text, "big.txt: lines 1-20 of at least %d;", &counted)
	if counted < readCountBytes/len("000000001 the quick brown fox jumps over the lazy dog\n") || counted >= lines/2 {
		t.Errorf("head read counted %d of %d lines; want the lines in about readCountBytes: %q", counted, lines, cutBytes(head.Text, 200, "..."))
	}
	mustContain(t, head.Text, "; more follows, continue with offset=21\n1\t000000001 the quick")
	tail := callTool(t, env, readFileTool(), `{"path":"big.txt","offset":-3}`)
	want := fmt.Sprintf("big.txt: lines -3 to -1, numbered from the end (-1 is the last line)\n-3\t%09d the quick brown fox jumps over the lazy dog\n-2\t%09d", lines-2, lines-1)
	mustContain(t, tail.Text, want, fmt.Sprintf("-1\t%09d the quick brown fox jumps over the lazy dog\n", lines))
	middle := callTool(t, env, readFileTool(), `{"path":"big.txt","offset":-5,"limit":2}`)
	mustContain(t, middle.Text, "lines -5 to -4, numbered from the end (-1 is the last line); more follows, continue with offset=-3\n")
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"old.txt": "one\ntwo\n", "dir/x": "x"})
	script := filepath.Join(env.Workspace, "run.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, input string
		wantErr     bool
		want        string
		file, body  string
	}{
		{"create", `{"path":"new.txt","content":"a\nb\nc\n"}`, false, "Created new.txt (3 lines)", "new.txt", "a\nb\nc\n"},
		{"create in new folders", `{"path":"deep/er/f.go","content":"package f"}`, false, "Created deep/er/f.go (1 line)", "deep/er/f.go", "package f"},
		{"create empty", `{"path":"empty","content":""}`, false, "Created empty (0 lines)", "empty", ""},
		{"change", `{"path":"old.txt","content":"one\n"}`, false, "Changed old.txt: now 1 line (was 2)", "old.txt", "one\n"},
		{"unchanged", `{"path":"dir/x","content":"x"}`, false, "dir/x unchanged: it already has this content (1 line)", "dir/x", "x"},
		{"keeps mode", `{"path":"run.sh","content":"#!/bin/sh\necho hi\n"}`, false, "Changed run.sh: now 2 lines (was 1)", "run.sh", "#!/bin/sh\necho hi\n"},
		{"folder", `{"path":"dir","content":"x"}`, true, "dir: is a folder, not a file; use list_files to see its contents", "", ""},
		{"path of a folder", `{"path":"newdir/","content":"x"}`, true, `invalid input: path "newdir/" ends in /, so it names a folder; give the path of a file`, "", ""},
		{"missing content", `{"path":"a.txt"}`, true, `invalid input: field "content" is required`, "", ""},
		{"content wrong type", `{"path":"a.txt","content":["x"]}`, true, `invalid input: field "content" must be a string, got array`, "", ""},
	}
	for _, tc := range tests {
		out := callTool(t, env, writeFileTool(), tc.input)
		if out.IsError != tc.wantErr || out.Text != tc.want {
			t.Errorf("%s: write_file %s = %q (error %v), want %q (error %v)", tc.name, tc.input, out.Text, out.IsError, tc.want, tc.wantErr)
		}
		if tc.file == "" {
			continue
		}
		got, err := os.ReadFile(filepath.Join(env.Workspace, tc.file))
		if err != nil || string(got) != tc.body {
			t.Errorf("%s: file holds %q (%v), want %q", tc.name, got, err, tc.body)
		}
	}
	if info, err := os.Stat(script); err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode after write = %v (%v), want 0755", info.Mode().Perm(), err)
	}
	entries, _ := os.ReadDir(env.Workspace)
	for _, e := range entries {
		if e.Name() == "newdir" {
			t.Errorf("write_file newdir/ wrote %v newdir", e.Type())
		}
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %q left behind", e.Name())
		}
	}
}

func TestWriteFilePermissionRequest(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"a.txt": "one\ntwo\n"})
	perms := &recordingPerms{}
	env.Perms = perms
	callTool(t, env, writeFileTool(), `{"path":"a.txt","content":"one\nTWO\n"}`)
	callTool(t, env, writeFileTool(), `{"path":"b.txt","content":"new\n"}`)
	if len(perms.reqs) != 2 {
		t.Fatalf("got %d permission requests, want 2", len(perms.reqs))
	}
	change, create := perms.reqs[0], perms.reqs[1]
	if change.Access != AccessWrite || change.Paths[0] != filepath.Join(env.Workspace, "a.txt") || change.Summary != "overwrite a.txt (2 lines)" {
		t.Errorf("change request = %+v", change)
	}
	mustContain(t, change.Diff, "--- a/a.txt", "+++ b/a.txt", "-two\n", "+TWO\n")
	if create.Summary != "create b.txt (1 line)" || !strings.Contains(create.Diff, "+new\n") {
		t.Errorf("create request = %+v", create)
	}
}

// denyAll is an Authorizer that refuses every request.
type denyAll struct{}

// Authorize refuses req.
func (denyAll) Authorize(ctx context.Context, req PermissionRequest) error {
	return fmt.Errorf("permission denied: %s", req.Summary)
}

func TestWriteFileDeniedWritesNothing(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	env.Perms = denyAll{}
	out := callTool(t, env, writeFileTool(), `{"path":"a.txt","content":"x"}`)
	if !out.IsError || out.Text != "permission denied: create a.txt (1 line)" {
		t.Errorf("got %q", out.Text)
	}
	if _, err := os.Stat(filepath.Join(env.Workspace, "a.txt")); err == nil {
		t.Error("a.txt was written despite the denial")
	}
}

func TestReadFileSpecialFiles(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, nil)
	if err := syscall.Mkfifo(filepath.Join(env.Workspace, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool        *Tool
		input, want string
	}{
		{readFileTool(), `{"path":"pipe"}`, "read_file pipe: is a named pipe, not a regular file; only files can be read"},
		{readFileTool(), `{"path":"/dev/zero"}`, "read_file /dev/zero: is a device, not a regular file; only files can be read"},
		{editFileTool(), `{"path":"pipe","old_string":"a","new_string":"b"}`, "pipe: is a named pipe, not a regular file; only files can be read"},
		{grepFilesTool(), `{"pattern":"a","path":"pipe"}`, "grep_files pipe: is a named pipe, not a regular file; only files can be read"},
	}
	for _, tc := range tests {
		out := callTool(t, env, tc.tool, tc.input)
		if !out.IsError || out.Text != tc.want {
			t.Errorf("%s %s = %q, want error %q", tc.tool.Name, tc.input, out.Text, tc.want)
		}
	}
}

// TestReplaceFileKeepsOldFileOnFailure fails a write midway, as a full
// disk would: the old file must survive whole, and no temporary file may
// be left behind. A write that succeeds keeps the file's mode.
func TestReplaceFileKeepsOldFileOnFailure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	old := `{"mcpServers": {"a": {"command": "x"}}}` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	full := errors.New("no space left on device")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	err = replaceIn(root, "mcp.json", 0o644, func(w io.Writer) error {
		io.WriteString(w, `{"mcpServers": {"a": `)
		return full
	})
	if !errors.Is(err, full) {
		t.Fatalf("replaceIn error = %v, want %v", err, full)
	}
	if got, _ := os.ReadFile(path); string(got) != old {
		t.Errorf("after the failed write the file holds %q, want %q", got, old)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only the file", len(entries))
	}
	if err := writeFileAtomic(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if got, _ := os.ReadFile(path); err != nil || string(got) != "{}\n" || info.Mode().Perm() != 0o600 {
		t.Errorf("after the write: %q, mode %v; want %q, mode 0600", got, info.Mode().Perm(), "{}\n")
	}
}

// WalkFilter hides nothing.
func (denyAll) WalkFilter(string) func(string) bool { return nil }

// TestReadFileOfAFolderSaysUseListFiles reads folders under deny and ask rules for paths inside
// them: read_file reads nothing in a folder, so only a rule covering the folder itself denies it;
// elsewhere the model learns it named a folder and that list_files shows what it holds.
func TestReadFileOfAFolderSaysUseListFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		deny, ask  []string
		path, want string
	}{
		{path: "src", want: "is a folder"},
		{deny: []string{"Read(secrets/**)"}, path: "secrets", want: "is a folder"},
		{deny: []string{"Read(secrets/**)"}, path: ".", want: "is a folder"},
		{deny: []string{"Read(**/*.pem)"}, path: "src", want: "is a folder"},
		{ask: []string{"Read(./src/*.pem)"}, path: "src", want: "is a folder"},
		{deny: []string{"Read(secrets)"}, path: "secrets", want: "denied by the rule Read(secrets)"},
	} {
		env := newTestEnv(t, map[string]string{"src/main.go": "package main\n", "secrets/api.txt": "API_KEY=1\n"})
		perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace, Settings: []RuleSet{{Deny: tc.deny, Ask: tc.ask, Source: "test"}}})
		if err != nil {
			t.Fatal(err)
		}
		env.Perms = perms
		if out := callTool(t, env, readFileTool(), fmt.Sprintf(`{"path":%q}`, tc.path)); !out.IsError || !strings.Contains(out.Text, tc.want) {
			t.Errorf("deny %q, ask %q: read_file %s = %q, want an error saying %q", tc.deny, tc.ask, tc.path, out.Text, tc.want)
		}
	}
}
