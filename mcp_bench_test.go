package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// BenchmarkMCPConnectEverything measures starting server-everything over
// stdio, the handshake and tools/list: what a user waits for before the
// server's tools appear. Run with -bench MCPConnect -benchtime 5x.
func BenchmarkMCPConnectEverything(b *testing.B) {
	c := everythingStdio(b)
	for b.Loop() {
		m := newMCPManager(nil, nil, MCPOptions{})
		sess := newMCPSession(c.Name, m.transport(c), m.opts)
		if err := sess.connect(context.Background(), c.startupTimeout()); err != nil {
			b.Fatal(err)
		}
		if _, err := sess.listTools(context.Background(), c.callTimeout()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		sess.close()
		b.StartTimer()
	}
}

// BenchmarkMCPCallCLI measures `minicode mcp call everything echo`
// end to end (config, process start, handshake, call, shutdown).
func BenchmarkMCPCallCLI(b *testing.B) {
	c := everythingStdio(b)
	home, ws := b.TempDir(), b.TempDir()
	args := append([]string{"add", "everything", "--", c.Command}, c.Args...)
	if err := runMCPCommand(context.Background(), args, nil, io.Discard, io.Discard, home, ws); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var out bytes.Buffer
		err := runMCPCommand(context.Background(), []string{"call", "everything", "echo", `{"message":"x"}`}, nil, &out, io.Discard, home, ws)
		if err != nil || out.String() != "Echo: x\n" {
			b.Fatalf("%q, %v", out.String(), err)
		}
	}
}

// BenchmarkMCPCallByHand is the same exchange written out by hand: start
// the process, write initialize, initialized and tools/call, read until
// the call's reply, close stdin and wait. It is the floor for the above.
func BenchmarkMCPCallByHand(b *testing.B) {
	c := everythingStdio(b)
	for b.Loop() {
		cmd := exec.Command(c.Command, c.Args...)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		fmt.Fprint(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n")
		r := bufio.NewReader(stdout)
		readUntil(b, r, `"id":1`)
		fmt.Fprint(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		fmt.Fprint(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`+"\n")
		readUntil(b, r, `"id":2`)
		stdin.Close()
		cmd.Wait()
	}
}

// readUntil reads lines until one contains want.
func readUntil(b *testing.B, r *bufio.Reader, want string) {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if strings.Contains(line, want) {
			return
		}
	}
}

func TestMCPConformanceSuite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the whole conformance suite")
	}
	dir := mcpPeersDir(t)
	if _, err := os.Stat(filepath.Join(dir, "node22")); err != nil {
		t.Skip("the conformance suite is not installed; run: bash scripts/install-mcp-peers.sh")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "scripts/mcp-conformance.sh", "env", cliMainEnv+"=1", exe)
	cmd.Env = append(os.Environ(), "MCP_TOOLS_DIR="+dir, "MCP_RESULTS_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("conformance run failed: %v\n%s", err, out)
	}
	// Each scenario line carries the suite's own count of checks.
	scenario := regexp.MustCompile(`(?m)^(PASS|FAIL) +(\S+) .*Passed: (\d+)/(\d+), (\d+) failed`)
	lines := scenario.FindAllStringSubmatch(string(out), -1)
	if len(lines) == 0 {
		t.Fatalf("no scenario results in the output:\n%s", out)
	}
	for _, l := range lines {
		if l[1] != "PASS" || l[3] != l[4] || l[5] != "0" {
			t.Errorf("scenario %s: %s with %s/%s checks passed and %s failed", l[2], l[1], l[3], l[4], l[5])
		}
	}
	if want := fmt.Sprintf("%d passed, 0 failed", len(lines)); !strings.Contains(string(out), want) {
		t.Errorf("the summary does not say %q:\n%s", want, out)
	}
	t.Logf("conformance: %d scenarios passed", len(lines))
}
