package main

import (
	"context"
	"strings"
)

// AskUserInput is the input of ask_user.
type AskUserInput struct {
	Question string `json:"question" validate:"required" desc:"The question, complete in itself: the user sees only this text."`
}

// askUserTool lets the model ask the user; the answer is the next message.
func askUserTool() *Tool {
	return ToolDef[AskUserInput]{
		Name: "ask_user",
		Description: "Ask the user a question when you cannot go on without their decision or information. " +
			"The turn pauses after this batch of tool calls; the answer comes as the user's next message. Ask one clear question.",
		ReadOnly: true,
		Run: func(ctx context.Context, env *ToolEnv, in AskUserInput) (ToolOutput, error) {
			q := strings.TrimSpace(in.Question)
			if q == "" {
				return ToolOutput{Text: "the question is empty; write the question you want to ask", IsError: true}, nil
			}
			return ToolOutput{
				Text:     "The question was put to the user; their answer will come as the next message.",
				Question: q,
			}, nil
		},
	}.Tool()
}
