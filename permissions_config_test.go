package main

import (
	"context"
	"strings"
	"testing"
)

// TestPlanModeIsDescribedAsItActs checks that /permissions tells the truth about plan mode: read-only
// commands run, other commands and edits are refused.
func TestPlanModeIsDescribedAsItActs(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	p, err := newPermissions(PermissionConfig{Workspace: tr.ws, Mode: ModePlan, Asker: &scriptedAsker{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"ls", "git status"} {
		if err := p.Authorize(context.Background(), runReq(cmd)); err != nil {
			t.Errorf("plan mode: %s: %v, want it run", cmd, err)
		}
	}
	for _, req := range []PermissionRequest{runReq("make deploy"), editReq("a.txt")} {
		if err := p.Authorize(context.Background(), req); err == nil || !strings.Contains(err.Error(), "plan mode") {
			t.Errorf("plan mode: %s %s: %v, want it refused", req.Tool, req.Command, err)
		}
	}
	text := p.Describe()
	for _, want := range []string{"read-only commands (ls, git status) run", "edits, other commands and MCP calls are refused"} {
		if !strings.Contains(text, want) {
			t.Errorf("Describe() = %q, want it to say %q", text, want)
		}
	}
}
