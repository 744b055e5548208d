package main

import (
	"context"
	"encoding/json"
	"fmt"
)

// planInput is exit_plan_mode's input, Claude Code's ExitPlanMode shape.
type planInput struct {
	Plan string `json:"plan" validate:"required" desc:"the plan, in Markdown: the steps, and the files each changes"`
}

// ChoicePlanAcceptEdits approves a plan and leaves plan mode for acceptEdits.
const ChoicePlanAcceptEdits ChoiceID = "approve_accept_edits"

// exitPlanModeTool presents the plan of plan mode to the user, who approves it (leaving plan
// mode) or sends feedback; with nobody to ask (-p), the plan ends the turn as its answer.
func (app *App) exitPlanModeTool() *Tool {
	return ToolDef[planInput]{
		Name:        "exit_plan_mode",
		Description: "In plan mode, present your plan to the user for approval once it is complete. The user approves it (and you carry it out) or tells you what to change.",
		Run: func(ctx context.Context, _ *ToolEnv, in planInput) (ToolOutput, error) {
			if mode := app.Perms.Mode(); mode != ModePlan {
				return ToolOutput{}, fmt.Errorf("exit_plan_mode is for plan mode, and the session is in %s mode: carry out the task directly", mode)
			}
			if app.asker == nil {
				return ToolOutput{Text: "The plan is the answer of this task; plan mode stays on.", Question: in.Plan}, nil
			}
			input, _ := json.Marshal(in)
			request := PermissionRequest{Tool: "exit_plan_mode", ToolUseID: contextValue[string](ctx, keyToolUseID), Input: input}
			a, err := app.Ask(ctx, Prompt{Request: request, Heading: "Plan", Title: "carry out this plan?", Body: in.Plan, Choices: []Choice{
				{ChoiceAllowOnce, "y", "approve", "leave plan mode; edits and commands ask as usual"},
				{ChoicePlanAcceptEdits, "a", "approve, accept edits", "leave plan mode; edits in the workspace need no approval"},
				{ChoiceDenyGuidance, "g", "keep planning", "stay in plan mode and tell the model what to change"},
			}})
			switch {
			case err != nil:
				return ToolOutput{}, err
			case a.Choice == ChoiceAllowOnce || a.Choice == ChoicePlanAcceptEdits:
				mode := map[ChoiceID]PermissionMode{ChoiceAllowOnce: ModeDefault, ChoicePlanAcceptEdits: ModeAcceptEdits}[a.Choice]
				return ToolOutput{Text: fmt.Sprintf("The user approved the plan, and the permission mode is now %s: carry it out.", mode)}, app.Perms.SetMode(mode)
			}
			if a.Guidance == "" {
				return ToolOutput{Text: "The user did not approve the plan: keep planning (plan mode stays on) and ask what to change."}, nil
			}
			return ToolOutput{Text: "The user did not approve the plan: keep planning (plan mode stays on). The user said: " + a.Guidance}, nil
		},
	}.Tool()
}
