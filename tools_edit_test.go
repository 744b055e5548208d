package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const editSample = "package demo\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"

func TestEditFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		input   string
		wantErr bool
		want    []string // substrings of the result
		after   string   // the file afterwards
	}{
		{"unique replace", `{"path":"d.go","old_string":"a + b","new_string":"b + a"}`, false,
			[]string{"Edited d.go: 1 replacement, +1 -1 lines; the file now has 9 lines"}, strings.Replace(editSample, "a + b", "b + a", 1)},
		{"literal dollar signs", `{"path":"d.go","old_string":"a + b","new_string":"$& ${1} $$"}`, false,
			nil, strings.Replace(editSample, "a + b", "$& ${1} $$", 1)},
		{"delete", `{"path":"d.go","old_string":"\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n","new_string":""}`, false,
			[]string{"+0 -4 lines"}, "package demo\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"},
		{"replace all", `{"path":"d.go","old_string":"a, b int","new_string":"x, y int","replace_all":true}`, false,
			[]string{"2 replacements"}, strings.ReplaceAll(editSample, "a, b int", "x, y int")},
		{"not unique", `{"path":"d.go","old_string":"a, b int","new_string":"x"}`, true,
			[]string{"occurs 2 times (at lines 3, 7)", "replace_all"}, editSample},
		{"whitespace differs", `{"path":"d.go","old_string":"func Add(a, b int) int {\n    return a + b\n}","new_string":"x"}`, true,
			[]string{"lines 3-5 match it when whitespace is ignored"}, editSample},
		{"one line differs", `{"path":"d.go","old_string":"func Sub(a, b int) int {\n\treturn a * b\n}","new_string":"x"}`, true,
			[]string{"closest text is at lines 7-9, where 2 of 3 lines are equal", `first difference at line 8: the file has "\treturn a - b", old_string has "\treturn a * b"`}, editSample},
		{"similar single line", `{"path":"d.go","old_string":"func Ad(a, b int) int {","new_string":"x"}`, true,
			[]string{"the most similar line is 3", `"func Add(a, b int) int {"`}, editSample},
		{"nothing alike", `{"path":"d.go","old_string":"zzzzzzzzzzzzzzzzzzzzzzzzz","new_string":"x"}`, true,
			[]string{"no line of the file is like it"}, editSample},
		{"replace all grows past the limit", `{"path":"d.go","old_string":"a","new_string":"` + strings.Repeat("x", maxEditBytes/4) + `","replace_all":true}`, true,
			[]string{"replacing all 6 occurrences would make the file", "over the limit of 10485760 for edits"}, editSample},
		{"same strings", `{"path":"d.go","old_string":"a + b","new_string":"a + b"}`, true,
			[]string{"old_string and new_string are the same"}, editSample},
		{"missing file", `{"path":"nope.go","old_string":"a","new_string":"b"}`, true,
			[]string{"nope.go: no such file; use write_file to create it"}, editSample},
		{"missing new_string", `{"path":"d.go","old_string":"a"}`, true,
			[]string{`field "new_string" is required`}, editSample},
		{"empty old_string", `{"path":"d.go","old_string":"","new_string":"b"}`, true,
			[]string{`field "old_string" is required`}, editSample},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t, map[string]string{"d.go": editSample})
			out := callTool(t, env, editFileTool(), tc.input)
			if out.IsError != tc.wantErr {
				t.Fatalf("IsError = %v, want %v; text %q", out.IsError, tc.wantErr, out.Text)
			}
			mustContain(t, out.Text, tc.want...)
			got, _ := os.ReadFile(filepath.Join(env.Workspace, "d.go"))
			if string(got) != tc.after {
				t.Errorf("file afterwards = %q, want %q", got, tc.after)
			}
		})
	}
}

func TestEditFilePermissionCarriesDiff(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"d.go": editSample})
	perms := &recordingPerms{}
	env.Perms = perms
	callTool(t, env, editFileTool(), `{"path":"d.go","old_string":"a - b","new_string":"b - a"}`)
	if len(perms.reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(perms.reqs))
	}
	req := perms.reqs[0]
	if req.Access != AccessWrite || req.Paths[0] != filepath.Join(env.Workspace, "d.go") || req.Summary != "edit d.go (+1 -1 lines)" {
		t.Errorf("request = %+v", req)
	}
	mustContain(t, req.Diff, "--- a/d.go", "-\treturn a - b\n", "+\treturn b - a\n")
	env.Perms = denyAll{}
	out := callTool(t, env, editFileTool(), `{"path":"d.go","old_string":"b - a","new_string":"zzz"}`)
	got, _ := os.ReadFile(filepath.Join(env.Workspace, "d.go"))
	if !out.IsError || strings.Contains(string(got), "zzz") {
		t.Errorf("denied edit: result %q, file %q", out.Text, got)
	}
}

func TestPatchFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		input   string
		wantErr bool
		want    string
		after   string
	}{
		{"edits in sequence", `{"path":"d.go","edits":[{"old_string":"Add","new_string":"Plus"},{"old_string":"Plus(a, b","new_string":"Plus(x, y"},{"old_string":"Sub","new_string":"Minus"}]}`, false,
			"Edited d.go: 3 replacements, +2 -2 lines; the file now has 9 lines",
			strings.NewReplacer("Add(a, b", "Plus(x, y", "Sub", "Minus").Replace(editSample)},
		{"failing edit writes nothing", `{"path":"d.go","edits":[{"old_string":"Add","new_string":"Plus"},{"old_string":"Add","new_string":"Again"}]}`, true,
			"d.go: edit 2 of 2 (edits[1]) failed, nothing was written: old_string was not found", editSample},
		{"no edits", `{"path":"d.go","edits":[]}`, true, `invalid input: field "edits" must be at least 1`, editSample},
		{"edit missing field", `{"path":"d.go","edits":[{"old_string":"Add","new_string":"x"},{"new_string":"y"}]}`, true,
			`invalid input: field "edits[1].old_string" is required`, editSample},
		{"edits wrong type", `{"path":"d.go","edits":"Add->Plus"}`, true, `invalid input: field "edits" must be an array, got string`, editSample},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t, map[string]string{"d.go": editSample})
			out := callTool(t, env, patchFileTool(), tc.input)
			if out.IsError != tc.wantErr || !strings.HasPrefix(out.Text, tc.want) {
				t.Errorf("got %q (error %v), want prefix %q (error %v)", out.Text, out.IsError, tc.want, tc.wantErr)
			}
			got, _ := os.ReadFile(filepath.Join(env.Workspace, "d.go"))
			if string(got) != tc.after {
				t.Errorf("file afterwards = %q, want %q", got, tc.after)
			}
		})
	}
}

func TestSimilarity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"abc", "abc", 1},
		{"abc", "", 0},
		{"abcd", "abce", 0.75},
	}
	for _, tc := range tests {
		if got := similarity(tc.a, tc.b); got != tc.want {
			t.Errorf("similarity(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestFileToolsNeverLeak tries to learn an outside file's text through the
// errors of edit_file, patch_file and write_file under the real permission
// check: the check comes first, and an error that would quote the file is
// replaced while the file may not be read.
func TestFileToolsNeverLeak(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"inside.txt": "inside text\n"})
	secret := filepath.Join(t.TempDir(), "id_rsa")
	writeTree(t, filepath.Dir(secret), map[string]string{"id_rsa": "BEGIN PRIVATE KEY\nline two\n"})
	tools := map[string]*Tool{"edit_file": editFileTool(), "patch_file": patchFileTool(), "write_file": writeFileTool()}
	inputs := map[string]string{
		"edit_file":  fmt.Sprintf(`{"path":%q,"old_string":"BEGIN PRIVATE KEX","new_string":"x"}`, secret),
		"patch_file": fmt.Sprintf(`{"path":%q,"edits":[{"old_string":"line tw0","new_string":"x"}]}`, secret),
		"write_file": fmt.Sprintf(`{"path":%q,"content":"x"}`, secret),
	}
	for _, mode := range []PermissionMode{ModePlan, ModeDefault, ModeAcceptEdits} {
		for name, tool := range tools {
			for _, allow := range [][]string{nil, {"Edit(/" + secret + ")"}} {
				if name == "write_file" && allow != nil {
					continue // allowed to write it, the write itself is no leak
				}
				perms, err := newPermissions(PermissionConfig{Mode: mode, Workspace: env.Workspace, AllowedTools: allow})
				if err != nil {
					t.Fatal(err)
				}
				env := &ToolEnv{Workspace: env.Workspace, Perms: perms}
				out := callTool(t, env, tool, inputs[name])
				if strings.Contains(out.Text, "PRIVATE") || strings.Contains(out.Text, "line two") || strings.Contains(out.Text, "similar") {
					t.Errorf("%s in %s with %q: the result quotes the file: %q", name, mode, allow, out.Text)
				}
				if data, _ := os.ReadFile(secret); string(data) != "BEGIN PRIVATE KEY\nline two\n" {
					t.Fatalf("%s in %s changed the file", name, mode)
				}
			}
		}
	}
	perms, err := newPermissions(PermissionConfig{Mode: ModeAcceptEdits, Workspace: env.Workspace})
	if err != nil {
		t.Fatal(err)
	}
	out := callTool(t, &ToolEnv{Workspace: env.Workspace, Perms: perms}, editFileTool(), `{"path":"inside.txt","old_string":"inside texx","new_string":"y"}`)
	mustContain(t, out.Text, "inside text") // a file the model may read still gets the helpful error
}

// TestEditsKeepCRLF checks that a file whose lines end in "\r\n" keeps them when the model,
// which read_file shows no "\r", writes "\n" in edit_file, patch_file and write_file.
func TestEditsKeepCRLF(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		tool   *Tool
		input  string
		after  string
		before string // the file before; "" for three CRLF lines
	}{
		{"edit across lines", editFileTool(), `{"path":"w.txt","old_string":"one\ntwo\n","new_string":"1\n2\n"}`, "1\r\n2\r\nthree\r\n", ""},
		{"edit adds a line", editFileTool(), `{"path":"w.txt","old_string":"two","new_string":"2\nzwei"}`, "one\r\n2\r\nzwei\r\nthree\r\n", ""},
		{"edit written with CRLF", editFileTool(), `{"path":"w.txt","old_string":"one\r\ntwo","new_string":"1\r\n2"}`, "1\r\n2\r\nthree\r\n", ""},
		{"patch", patchFileTool(), `{"path":"w.txt","edits":[{"old_string":"one\ntwo","new_string":"1"},{"old_string":"1\nthree\n","new_string":"x\ny\n"}]}`, "x\r\ny\r\n", ""},
		{"write", writeFileTool(), `{"path":"w.txt","content":"a\nb\n"}`, "a\r\nb\r\n", ""},
		{"mixed endings", editFileTool(), `{"path":"w.txt","old_string":"two\nthree","new_string":"2\n3"}`, "one\r\n2\r\n3\n", "one\r\ntwo\nthree\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t, map[string]string{"w.txt": cmp.Or(tc.before, "one\r\ntwo\r\nthree\r\n")})
			if out := callTool(t, env, tc.tool, tc.input); out.IsError {
				t.Fatalf("error %q", out.Text)
			}
			if got, _ := os.ReadFile(filepath.Join(env.Workspace, "w.txt")); string(got) != tc.after {
				t.Errorf("file afterwards = %q, want %q", got, tc.after)
			}
		})
	}
}
