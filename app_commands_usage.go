package main

import (
	"context"
	"fmt"
	"strings"
)

// usageCommands are the slash commands that say what the session has used: tokens, money, the context window.
func usageCommands() []SlashCommand {
	return []SlashCommand{
		{name: "cost", help: "show the session's cost, tokens by kind, cache hit rate and API time", run: describeWith(func(app *App) string { return costSummary(app.Session.Usage(), app.Agent.Model) })},
		{name: "context", help: "show what fills the context window: system prompt, tools, memory files, messages, tool results", run: cmdContext},
	}
}

// costSummary is what /cost shows: the session's price, the time its model calls took, its tokens.
func costSummary(u SessionUsage, model string) string {
	t, unpriced := u.Tokens, ""
	if costUSD(model, Usage{InputTokens: 1e6}) == 0 {
		unpriced = " (no price is known for " + model + ")"
	}
	input := t.InputTokens + t.CacheReadInputTokens + t.CacheCreationInputTokens
	return fmt.Sprintf("Total cost:            $%.4f%s\nTotal duration (API):  %s\nTokens:                %s input, %s output, %s cache read, %s cache write\nCache hit rate:        %.0f%% of %s input tokens",
		u.CostUSD, unpriced, formatDuration(u.API), countTokens(t.InputTokens), countTokens(t.OutputTokens), countTokens(t.CacheReadInputTokens),
		countTokens(t.CacheCreationInputTokens), 100*float64(t.CacheReadInputTokens)/float64(max(input, 1)), countTokens(input))
}

// cmdContext shows what fills the context window, part by part as estimated, in a bar and in tokens.
func cmdContext(_ context.Context, app *App, _ string, history *[]Message) (string, bool, error) {
	u, memory := app.Agent.ContextUsage(), len(app.Env.Memory.PromptSection())/charsPerTextToken
	parts := []struct {
		name, glyph string
		tokens      int
	}{{"system prompt", "█", len(app.Agent.System)/charsPerTextToken - memory}, {"tools", "▓", 0}, {"memory files", "▒", memory},
		{"messages", "░", 0}, {"tool results", "▚", 0}, {"free space", "·", 0}, {"kept for the reply", "×", u.Reserve}}
	for _, spec := range app.Agent.Tools.Specs() {
		parts[1].tokens += (len(spec.Name) + len(spec.Description) + len(spec.InputSchema)) / charsPerTextToken
	}
	for _, m := range *history {
		for _, b := range m.ToolResults() {
			parts[4].tokens += blockTokens + len(b.Content)/charsPerCodeToken
		}
		parts[3].tokens += messageTokenCount(m)
	}
	parts[3].tokens -= parts[4].tokens
	parts[5].tokens = max(0, u.Window-u.Reserve-u.Tokens)
	var bar, legend strings.Builder
	for _, p := range parts { // 50 cells, each a fiftieth of the window
		cells := min((p.tokens*50+u.Window/2)/max(u.Window, 1), 50-displayWidth(bar.String()))
		bar.WriteString(strings.Repeat(p.glyph, max(cells, min(p.tokens, 1))))
		fmt.Fprintf(&legend, "\n%s %-19s %7s tokens (%.1f%%)", p.glyph, p.name, countTokens(p.tokens), 100*float64(p.tokens)/float64(max(u.Window, 1)))
	}
	return fmt.Sprintf("Context: %s · %s of %s tokens (%.0f%% of what requests may use)\n%s\nestimated by part:%s",
		app.Agent.Model, countTokens(u.Tokens), countTokens(u.Window), u.Percent, bar.String(), legend.String()), false, nil
}
