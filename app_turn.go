package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
)

// SlashPrompt is the input of every turn: what the user typed, or what a custom command or skill turned it into, with what it may do.
type SlashPrompt struct {
	Prompt string
	Grants []Rule  // calls these rules cover run without asking (deny rules still hold)
	Model  string  // the model for this turn; "" keeps the session's
	Fork   bool    // run in a subagent (a skill with context: fork)
	Input  string  // what the user typed for a command or skill ("" for a plain prompt)
	Images []Block // image blocks sent after the prompt's text
	ID     string  // the user message's uuid a program gave, which names its checkpoint
}

// runPrompt runs a turn for a prompt, with its grants and model, recording
// it in the session; on every path (even a panic) it clears the turn's
// grants, gives every tool call exactly one result and flushes the session.
func (app *App) runPrompt(ctx context.Context, history []Message, sp SlashPrompt) (res TurnResult) {
	if sp.Fork {
		return app.runForked(ctx, history, sp)
	}
	if err := app.Agent.promptFits(resolveModelAlias(sp.Model), userPrompt(sp.Prompt, sp.Images)); err != nil { // refused before it joins the history
		res = app.Agent.end(EndError, "Not sent: "+err.Error())
		res.Messages, res.Err = history, err
		return res
	}
	app.Session.RecordSettings(app.Agent.ModelName(), app.Perms.Mode())
	app.Session.Sync(history)
	checkpoint := app.checkpoint(ctx, sp.ID, false, cmp.Or(sp.Input, sp.Prompt))
	app.Session.AddUser(userPrompt(sp.Prompt, sp.Images))
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("internal error: %v", p)
			fmt.Fprintf(app.stderr, "%s\n%s", msg, debug.Stack())
			res = TurnResult{Messages: app.Session.View(), End: EndError, Text: msg, Err: errors.New(msg)}
		}
		app.Perms.EndTurn()
		app.endCheckpoint(ctx, checkpoint, res.Messages[min(len(checkpoint.view), len(res.Messages)):])
		res.Messages = closeToolCalls(res.Messages)
		app.Session.Sync(res.Messages)
		app.Session.Flush()
	}()
	return app.Agent.RunTurn(ctx, history, TurnInput{Text: sp.Prompt, Images: sp.Images, Model: resolveModelAlias(sp.Model), Grants: sp.Grants})
}

// runForked runs a skill in a subagent; only the input and the answer join the conversation.
func (app *App) runForked(ctx context.Context, history []Message, sp SlashPrompt) TurnResult {
	defer app.Perms.EndTurn()
	out, err := app.Subagents.run(context.WithValue(ctx, keyToolUseID, "fork_"+newSessionID()), app.Env.forTurn(resolveModelAlias(sp.Model), sp.Grants), "general-purpose", sp.Prompt)
	switch {
	case ctx.Err() != nil:
		return TurnResult{Messages: history, End: EndCancelled, Text: "interrupted", Err: ctx.Err()}
	case err != nil:
		app.Agent.emit(Event{Kind: EventNotice, Text: err.Error()})
		return TurnResult{Messages: history, End: EndError, Text: err.Error(), Err: err}
	}
	answer := assistantText(out.Text)
	app.Agent.emit(Event{Kind: EventAssistant, Message: &answer})
	return TurnResult{Messages: append(slices.Clone(history), userText(sp.Input), answer), End: EndFinal, Text: out.Text}
}
