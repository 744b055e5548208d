package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// minicodeCommand is the binary run with -p in a fresh home and workspace,
// killed if it is still running after a minute.
func minicodeCommand(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, minicodeBinary(t), append(args, "--workspace", t.TempDir())...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MINICODE_HOME=" + t.TempDir()}, env...)
	return cmd
}

// anthropicEnv points minicode at a fake Messages API.
func anthropicEnv(url string) []string {
	return []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + url}
}

func TestHeadlessAnswerContinuedAfterMaxTokensIsWhole(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, sseReply(anthropicTextStream("The first half ", StopMaxTokens)), sseReply(anthropicTextStream("and the second half.", StopEndTurn)))
			r := runMinicode(t, anthropicEnv(api.srv.URL), "", "-p", "explain", "--output-format", format, "--workspace", t.TempDir())
			want := "The first half and the second half."
			if r.code != 0 || !strings.Contains(r.stdout, want) {
				t.Errorf("exit %d, stdout %q; want 0 and %q", r.code, r.stdout, want)
			}
		})
	}
}

func TestHeadlessUnwritableStdoutFails(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json", "stream-json"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
			if err != nil {
				t.Skipf("no /dev/full: %v", err)
			}
			defer full.Close()
			cmd := minicodeCommand(t, nil, "-p", "help", "--output-format", format)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = full, &stderr
			cmd.Run()
			want := "minicode: writing the output: "
			if code := cmd.ProcessState.ExitCode(); code != exitFailed || !strings.Contains(stderr.String(), want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), exitFailed, want)
			}
		})
	}
}

func TestHeadlessModelFailureIsToldOnce(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t, statusReply(400, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}`))
	r := runMinicode(t, anthropicEnv(api.srv.URL), "", "-p", "hello", "--workspace", t.TempDir())
	if n := strings.Count(r.stderr, "prompt is too long"); r.code != exitFailed || n != 1 || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and the API's message once on stderr", r.code, r.stdout, r.stderr)
	}
}

func TestHeadlessRetryDiscardsNothingShown(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t, sseReply(anthropicKit.cut("Half an ans")), sseReply(anthropicTextStream("Whole answer.", StopEndTurn)))
	r := runMinicode(t, anthropicEnv(api.srv.URL), "", "-p", "hello", "--workspace", t.TempDir())
	if r.code != 0 || r.stdout != "Whole answer.\n" {
		t.Fatalf("exit %d, stdout %q; want 0 and the retried answer", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "the stream ended before the reply was complete; retrying") ||
		strings.Contains(r.stderr, "discarded") || strings.Contains(r.stderr, "connection lost") {
		t.Errorf("stderr %q; want the retry and its reason, and no partial reply discarded", r.stderr)
	}
}

func TestHeadlessStallIsRetriedOnceWithinAPITimeout(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t, stallReply(anthropicKit.cutEarly), stallReply(anthropicKit.cutEarly))
	cmd := minicodeCommand(t, append(anthropicEnv(api.srv.URL), "API_TIMEOUT_MS=300"), "-p", "hello")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != exitFailed || !strings.Contains(stderr.String(), "no data for 300ms") {
		t.Errorf("exit %d, stderr %q; want 1 and the stall named", code, stderr.String())
	}
	if n := len(api.requests()); n != 2 {
		t.Errorf("requests = %d, want 2 (one retry of a stall)", n)
	}
}

func TestHeadlessBadAPITimeout(t *testing.T) {
	t.Parallel()
	r := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "API_TIMEOUT_MS=2m"}, "", "-p", "hello", "--workspace", t.TempDir())
	if r.code != exitUsage || !strings.Contains(r.stderr, `API_TIMEOUT_MS must be a positive number of milliseconds, not "2m"`) {
		t.Errorf("exit %d, stderr %q; want a usage error naming the variable", r.code, r.stderr)
	}
}

func TestHeadlessRefusedConnectionNamesAddressAndVariable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	tests := []struct {
		name string
		env  []string
		want string
	}{
		{"anthropic", anthropicEnv(srv.URL), "cannot reach the anthropic API at " + srv.URL + "/v1/messages (connection refused); ANTHROPIC_BASE_URL sets the address"},
		{"openai", []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + srv.URL}, "cannot reach the openai API at " + srv.URL + "/chat/completions (connection refused); OPENAI_BASE_URL sets the address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runMinicode(t, tt.env, "", "-p", "hello", "--workspace", t.TempDir())
			if r.code != exitFailed || strings.Count(r.stderr, tt.want) != 1 || strings.Contains(r.stderr, "dial tcp") {
				t.Errorf("exit %d, stderr %q; want 1 and %q once", r.code, r.stderr, tt.want)
			}
		})
	}
}
