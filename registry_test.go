package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// schemaSample exercises every kind of field the schema generator handles.
type schemaSample struct {
	Path    string            `json:"path" validate:"required" desc:"file to read"`
	Limit   *int              `json:"limit,omitempty" validate:"omitempty,min=1,max=100"`
	Mode    string            `json:"mode,omitempty" validate:"omitempty,oneof=fast slow"`
	Verbose bool              `json:"verbose,omitempty"`
	Ratio   float64           `json:"ratio,omitempty"`
	Tags    []string          `json:"tags,omitempty" validate:"max=3"`
	Edits   []schemaEdit      `json:"edits" validate:"required,min=1,dive"`
	Env     map[string]string `json:"env,omitempty"`
	Raw     json.RawMessage   `json:"raw,omitempty"`
	Skipped string            `json:"-"`
	hidden  string
}

type schemaEdit struct {
	Old string `json:"old_string" validate:"required"`
	New string `json:"new_string"`
}

func TestSchemaFromStruct(t *testing.T) {
	got, err := json.Marshal(schemaFor(reflectTypeOf[schemaSample]()))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additionalProperties":false,"properties":{` +
		`"edits":{"items":{"additionalProperties":false,"properties":{"new_string":{"type":"string"},"old_string":{"type":"string"}},"required":["old_string"],"type":"object"},"minItems":1,"type":"array"},` +
		`"env":{"additionalProperties":{"type":"string"},"type":"object"},` +
		`"limit":{"maximum":100,"minimum":1,"type":"integer"},` +
		`"mode":{"enum":["fast","slow"],"type":"string"},` +
		`"path":{"description":"file to read","type":"string"},` +
		`"ratio":{"type":"number"},` +
		`"raw":{},` +
		`"tags":{"items":{"type":"string"},"maxItems":3,"type":"array"},` +
		`"verbose":{"type":"boolean"}},` +
		`"required":["path","edits"],"type":"object"}`
	if string(got) != want {
		t.Errorf("schema:\n got %s\nwant %s", got, want)
	}
	_ = schemaSample{}.hidden
}

func TestDecodeInputErrors(t *testing.T) {
	cases := []struct{ input, want string }{
		{``, `invalid input: field "path" is required; field "edits" is required`},
		{`null`, `invalid input: field "path" is required; field "edits" is required`},
		{`{"path":"a","edits":[{"new_string":"x"}]}`, `invalid input: field "edits[0].old_string" is required`},
		{`{"path":"a","edits":[{"old_string":"x"}],"limit":0}`, `invalid input: field "limit" must be at least 1`},
		{`{"path":"a","edits":[{"old_string":"x"}],"mode":"medium"}`, `invalid input: field "mode" must be one of: fast slow`},
		{`{"path":"a","edits":[{"old_string":"x"}],"limit":"ten"}`, `invalid input: field "limit" must be an integer, got string`},
		{`[1]`, `invalid input: field "" must be an object, got array`},
		{`{"path":"a","edits":[{"old_string":"x"}]}`, ``},
	}
	for _, tc := range cases {
		var in schemaSample
		err := decodeInput(json.RawMessage(tc.input), &in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("decodeInput(%q) = %q, want %q", tc.input, got, tc.want)
		}
	}
}

// recordingDenier refuses every request and records it.
type recordingDenier struct{ seen []PermissionRequest }

// Authorize records req and refuses it.
func (d *recordingDenier) Authorize(_ context.Context, req PermissionRequest) error {
	d.seen = append(d.seen, req)
	return errors.New("permission denied: " + req.Tool)
}

func TestExecuteChecksPermissionBeforeRunning(t *testing.T) {
	ran := false
	reg := newRegistry(ToolDef[echoInput]{Name: "touch", Description: "changes things",
		Permission: func(env *ToolEnv, in echoInput) (PermissionRequest, error) {
			return PermissionRequest{Access: AccessWrite, Paths: []string{in.Text}}, nil
		},
		Run: func(context.Context, *ToolEnv, echoInput) (ToolOutput, error) {
			ran = true
			return ToolOutput{Text: "done"}, nil
		}}.Tool())
	perms := &recordingDenier{}
	out := reg.Execute(context.Background(), &ToolEnv{Perms: perms}, call("1", "touch", `{"text":"a.go"}`))
	if ran || !out.IsError || out.Text != "permission denied: touch" {
		t.Errorf("Execute = %+v (ran %v), want a denial and no run", out, ran)
	}
	if len(perms.seen) != 1 || perms.seen[0].Tool != "touch" || perms.seen[0].Paths[0] != "a.go" {
		t.Errorf("permission request = %+v, want tool and path filled in", perms.seen)
	}
}

func TestResolvePath(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{ws + "/sub", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "sub"), filepath.Join(ws, "inner")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path       string
		wantAbs    string
		wantInside bool
	}{
		{"", ws, true},
		{"sub/new.txt", ws + "/sub/new.txt", true},
		{"../outside/x", outside + "/x", false},
		{outside, outside, false},
		{"escape/new/file.txt", outside + "/new/file.txt", false},
		{"inner/a.go", ws + "/sub/a.go", true},
		{"sub/../../ws/sub", ws + "/sub", true},
	}
	for _, tc := range cases {
		abs, err := resolveInput(&ToolEnv{Workspace: ws}, tc.path)
		if inside := within(ws, abs); err != nil || abs != tc.wantAbs || inside != tc.wantInside {
			t.Errorf("resolveInput(%q) = %q, %v, %v; want %q, %v", tc.path, abs, inside, err, tc.wantAbs, tc.wantInside)
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	got := unifiedDiff("a.txt", "one\ntwo\nthree\n", "one\n2\nthree\n")
	want := "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
	if got != want {
		t.Errorf("unifiedDiff:\n%s\nwant:\n%s", got, want)
	}
	if d := unifiedDiff("a", "same", "same"); d != "" {
		t.Errorf("diff of equal texts = %q, want empty", d)
	}
	if !strings.HasPrefix(unifiedDiff("new.txt", "", "hello\n"), "--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1 @@") {
		t.Errorf("diff of a new file has the wrong header")
	}
}

// reflectTypeOf is the reflect.Type of T.
func reflectTypeOf[T any]() reflect.Type {
	var zero T
	return reflect.TypeOf(zero)
}

// WalkFilter hides nothing.
func (*recordingDenier) WalkFilter(string) func(string) bool { return nil }
