package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestExitPlanMode(t *testing.T) {
	plan := json.RawMessage(`{"plan":"## Plan\n1. Edit a.go"}`)
	for _, tc := range []struct {
		name       string
		mode       PermissionMode
		answer     *Answer // nil: nobody can be asked (-p)
		want       string
		error      bool
		modeAfter  PermissionMode
		isQuestion bool
	}{
		{"outside plan mode", ModeDefault, &Answer{Choice: ChoiceAllowOnce}, "exit_plan_mode is for plan mode, and the session is in default mode", true, ModeDefault, false},
		{"approved", ModePlan, &Answer{Choice: ChoiceAllowOnce}, "approved the plan, and the permission mode is now default", false, ModeDefault, false},
		{"approved, accepting edits", ModePlan, &Answer{Choice: ChoicePlanAcceptEdits}, "now acceptEdits", false, ModeAcceptEdits, false},
		{"feedback", ModePlan, &Answer{Choice: ChoiceDenyGuidance, Guidance: "test it too"}, "keep planning (plan mode stays on). The user said: test it too", false, ModePlan, false},
		{"rejected", ModePlan, &Answer{Choice: ChoiceDenyOnce}, "did not approve the plan: keep planning", false, ModePlan, false},
		{"headless", ModePlan, nil, "The plan is the answer of this task", false, ModePlan, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := &App{Env: &ToolEnv{}}
			var err error
			if app.Perms, err = newPermissions(PermissionConfig{Mode: tc.mode, Workspace: t.TempDir()}); err != nil {
				t.Fatal(err)
			}
			asker := &scriptedAsker{}
			if tc.answer != nil {
				asker.answers, app.asker = []Answer{*tc.answer}, asker
			}
			out := newRegistry(app.exitPlanModeTool()).Execute(context.Background(), app.Env, Block{Type: BlockToolUse, ID: "p1", Name: "exit_plan_mode", Input: plan})
			if !strings.Contains(out.Text, tc.want) || out.IsError != tc.error || app.Perms.Mode() != tc.modeAfter || (out.Question != "") != tc.isQuestion {
				t.Errorf("got %+v in mode %s, want %q (error %v) in mode %s", out, app.Perms.Mode(), tc.want, tc.error, tc.modeAfter)
			}
			if tc.answer != nil && !tc.error && (len(asker.prompts) != 1 || asker.prompts[0].Body != "## Plan\n1. Edit a.go") {
				t.Errorf("the user was asked %+v, want the plan shown", asker.prompts)
			}
		})
	}
}
