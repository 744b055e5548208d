package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// SlashCommand is a command typed at the prompt: a built-in one runs, a custom command or a skill becomes a prompt.
type SlashCommand struct {
	name string
	help string
	// run returns the text to show; quit ends the session.
	run func(ctx context.Context, app *App, args string, history *[]Message) (out string, quit bool, err error)
	// prompt is the prompt of a custom command or a skill, for the model.
	prompt func(ctx context.Context, args string) (SlashPrompt, error)
}

// slashCommands lists the built-in commands of an interactive session.
func slashCommands() []SlashCommand {
	return slices.Concat([]SlashCommand{
		{name: "help", help: "list commands (and what the demo model understands)", run: cmdHelp},
		{name: "tools", help: "list the tools the model can use", run: cmdTools},
		{name: "status", help: "show the model, workspace and permission mode", run: cmdStatus},
		{name: "permissions", help: "show the permission mode and rules; /permissions MODE switches the mode", run: cmdPermissions},
		{name: "sandbox", help: "show the sandbox's layers and guarantees; /sandbox auto or /sandbox regular sets how its commands are approved", run: cmdSandbox},
		{name: "skills", help: "list the skills found, what they shadow, and invalid ones", run: describeWith(func(app *App) string { return app.Skills.Describe() })},
		{name: "memory", help: "list the memory files loaded (AGENTS.md, CLAUDE.md, MINI.md) and what was cut", run: describeWith(func(app *App) string { return app.Env.Memory.Describe() })},
		{name: "mcp", help: "show the MCP servers and their state; /mcp restart NAME restarts one", run: func(ctx context.Context, app *App, args string, _ *[]Message) (string, bool, error) {
			out := app.MCP.SlashCommand(ctx, args)
			if _, err := os.Lstat(filepath.Join(app.Workspace, projectMCPFile)); args == "" && err == nil && !app.Trusted {
				out += "\nThe servers of " + projectMCPFile + " are off: this workspace is not trusted (minicode trust turns them on)."
			}
			return out, false, nil
		}},
		{name: "agents", help: "list the subagents the task tool can start", run: describeWith(func(app *App) string { return app.Subagents.Describe() })},
		{name: "hooks", help: "list the hooks in force, by event", run: describeWith(func(app *App) string { return app.Env.Hooks.Describe() })},
		{name: "init", help: "inspect the project and write a starter AGENTS.md (asks first)", run: cmdInit},
		{name: "model", help: "show the model; /model NAME switches to another (aliases such as sonnet work)", run: cmdModel},
		{name: "rewind", help: "go back to a checkpoint taken before a prompt: the code, the conversation or both", run: cmdRewind},
		{name: "compact", help: "summarise the conversation to free context; /compact FOCUS says what the summary should keep", run: cmdCompact(LayerCompact)},
		{name: "snip", help: "drop the largest old run of messages that is safe to drop", run: cmdCompact(LayerSnip)},
		{name: "collapse", help: "summarise up to two old spans of the conversation", run: cmdCompact(LayerCollapse)},
		{name: "clear", help: "start over with an empty conversation (the session file keeps the history)", run: func(_ context.Context, _ *App, _ string, h *[]Message) (string, bool, error) {
			*h = nil
			return "Conversation cleared.", false, nil
		}},
		{name: "exit", help: "leave minicode", run: func(context.Context, *App, string, *[]Message) (string, bool, error) { return "", true, nil }},
	}, sessionCommands(), []SlashCommand{
		{name: "cost", help: "show the session's cost, tokens by kind, cache hit rate and API time", run: describeWith(func(app *App) string { return costSummary(app.Session.Usage(), app.Agent.ModelName()) })},
		{name: "context", help: "show what fills the context window: system prompt, tools, memory files, messages, tool results", run: cmdContext},
	})
}

// describeWith is a command that shows what text returns.
func describeWith(text func(*App) string) func(context.Context, *App, string, *[]Message) (string, bool, error) {
	return func(_ context.Context, app *App, _ string, _ *[]Message) (string, bool, error) {
		return text(app), false, nil
	}
}

// slashCommandList lists the built-in commands, then the custom commands and skills of names not yet taken.
func (app *App) slashCommandList() []SlashCommand {
	var out []SlashCommand
	for _, c := range append(slashCommands(), app.customSlashCommands()...) {
		if findSlashCommand(out, c.name) == nil {
			out = append(out, c)
		}
	}
	return out
}

// findSlashCommand returns the first command of cmds named name, or nil.
func findSlashCommand(cmds []SlashCommand, name string) *SlashCommand {
	if i := slices.IndexFunc(cmds, func(c SlashCommand) bool { return c.name == name }); i >= 0 {
		return &cmds[i]
	}
	return nil
}

// slashInput runs a built-in command, returning what to show, or returns a custom command's or skill's prompt.
func (app *App) slashInput(ctx context.Context, input string, history *[]Message) (sp *SlashPrompt, out string, quit bool, err error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	args = strings.TrimSpace(args)
	defer func() { app.Session.Sync(*history) }()
	c := findSlashCommand(app.slashCommandList(), name)
	switch {
	case c == nil:
		return nil, "", false, fmt.Errorf("unknown command /%s; /help lists the commands", name)
	case c.prompt != nil:
		p, err := c.prompt(ctx, args)
		p.Input = input // a forked skill's history shows what was typed
		return &p, "", false, err
	}
	out, quit, err = c.run(ctx, app, args, history)
	return nil, out, quit, err
}

// cmdHelp lists the commands.
func cmdHelp(_ context.Context, app *App, _ string, _ *[]Message) (string, bool, error) {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range app.slashCommandList() {
		fmt.Fprintf(&b, "  /%-12s %s\n", c.name, c.help)
	}
	b.WriteString("End a line with \\ to continue on the next line.")
	if app.Demo {
		b.WriteString("\n\n" + demoHelpText())
	}
	return b.String(), false, nil
}

// cmdTools lists the registered tools.
func cmdTools(_ context.Context, app *App, _ string, _ *[]Message) (string, bool, error) {
	var lines []string
	for _, t := range app.Registry.Tools() {
		desc, _, _ := strings.Cut(t.Description, "\n")
		lines = append(lines, fmt.Sprintf("  %-20s %s", t.Name, cutRunes(desc, 90)))
	}
	slices.Sort(lines)
	return fmt.Sprintf("%d tools:\n%s", len(lines), strings.Join(lines, "\n")), false, nil
}

// cmdStatus shows the session's settings.
func cmdStatus(_ context.Context, app *App, _ string, h *[]Message) (string, bool, error) {
	mcp, u := cmp.Or(app.MCP.StatusLine(), "no servers configured"), app.Agent.ContextUsage()
	status := fmt.Sprintf("model: %s (%s)\nworkspace: %s\npermission mode: %s\nsandbox: %s\nmessages: %d\nsession: %s\nMCP: %s\n%s",
		u.Model, app.Agent.Provider.Name(), app.Workspace, app.Perms.Mode(), app.Sandbox.Status(), len(*h), app.Session.ID, mcp,
		costSummary(app.Session.Usage(), u.Model)+"\ncontext: "+u.String())
	status += "\n" + windowNote(u.Model, app.Settings)
	if len(app.Settings.Unknown) > 0 {
		status += "\nsettings minicode does not use: " + strings.Join(app.Settings.Unknown, ", ")
	}
	if len(app.Settings.Ignored) > 0 {
		status += "\nnot applied, the workspace is not trusted (minicode trust): " + strings.Join(app.Settings.Ignored, ", ")
	}
	return status, false, nil
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
		u.Model, countTokens(u.Tokens), countTokens(u.Window), u.Percent, bar.String(), legend.String()), false, nil
}

// cmdInit writes a starter AGENTS.md after showing it for approval.
func cmdInit(ctx context.Context, app *App, _ string, _ *[]Message) (string, bool, error) {
	defer app.Perms.EndTurn()
	content, err := initAgentsFile(ctx, app.Env, app.Workspace)
	if err != nil {
		return "", false, err
	}
	return fmt.Sprintf("Wrote AGENTS.md (%d lines). It is read at the next start.", strings.Count(content, "\n")), false, nil
}

// cmdPermissions shows the permission mode and rules, or switches the mode.
func cmdPermissions(_ context.Context, app *App, args string, _ *[]Message) (string, bool, error) {
	if args != "" {
		if err := app.Perms.SetMode(PermissionMode(args)); err != nil {
			return "", false, err
		}
	}
	return app.Perms.Describe(), false, nil
}

// cmdSandbox shows the sandbox and how its commands are approved; /sandbox auto or /sandbox regular
// switches, saving sandbox.autoAllowBashIfSandboxed in .claude/settings.local.json as Claude Code does.
func cmdSandbox(_ context.Context, app *App, args string, _ *[]Message) (string, bool, error) {
	if args != "" && args != "auto" && args != "regular" {
		return "", false, usageErrorf("/sandbox takes auto or regular, not %q", args)
	}
	if args != "" {
		path := filepath.Join(app.Workspace, ".claude", "settings.local.json")
		if err := saveAutoAllow(path, args == "auto"); err != nil {
			return "", false, fmt.Errorf("saving the sandbox mode: %w", err)
		}
		app.Settings.Sandbox.AutoAllowBashIfSandboxed = args == "auto"
		app.Perms.SetAutoAllow(args == "auto" && app.Sandbox.Holds())
	}
	mode := "regular permissions: sandboxed commands ask as the rules and the mode say (/sandbox auto runs them without asking)"
	switch auto := app.Settings.Sandbox.AutoAllowBashIfSandboxed; {
	case auto && !app.Sandbox.Holds():
		mode = "auto-allow is set but off, because the sandbox lost guarantees: commands ask as the rules and the mode say"
	case auto:
		mode = "auto-allow: sandboxed commands run without asking, but those that destroy work, leave the sandbox, " +
			"name protected paths or meet an ask rule (/sandbox regular asks again)"
	}
	return app.Sandbox.Describe() + "Mode: " + mode, false, nil
}

// saveAutoAllow sets sandbox.autoAllowBashIfSandboxed in the JSON file path (made if missing); the rest stays.
func saveAutoAllow(path string, auto bool) error {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // not replaced by a file of this one setting
		return err
	}
	edited, _, err := editJSON(data, strconv.AppendBool(nil, auto), "sandbox", "autoAllowBashIfSandboxed")
	if err != nil {
		return fmt.Errorf("%s: %s", path, jsonError(err, data, 0))
	}
	return cmp.Or(os.MkdirAll(filepath.Dir(path), 0o755), writeFileAtomic(path, edited, 0o644))
}

// cmdCompact runs one context layer now and says what it saved.
func cmdCompact(layer string) func(context.Context, *App, string, *[]Message) (string, bool, error) {
	return func(ctx context.Context, app *App, focus string, h *[]Message) (string, bool, error) {
		msgs, c, err := app.Agent.Compact(ctx, *h, layer, focus)
		if err != nil {
			return "", false, fmt.Errorf("/%s failed, the conversation is unchanged: %w", layer, err)
		}
		*h = msgs
		if len(c.Splices) == 0 {
			return fmt.Sprintf("Nothing to %s: the conversation has nothing it can remove yet. (context: %s)", layer, app.Agent.ContextUsage()), false, nil
		}
		text := fmt.Sprintf("%s. (context: %s)", c, app.Agent.ContextUsage())
		if lines := strings.Split(c.Summary(), "\n"); len(lines) > summaryShownLines {
			text += fmt.Sprintf("\n%s\n… %d more lines (/export writes the whole summary)", strings.Join(lines[:summaryShownLines], "\n"), len(lines)-summaryShownLines)
		} else if c.Summary() != "" {
			text += "\n" + c.Summary()
		}
		return text, false, nil
	}
}

// summaryShownLines is how much of what a compaction wrote /compact shows.
const summaryShownLines = 20

// useModel switches the agent to model from its next turn on, with the model's limits and the contextWindow setting.
func (app *App) useModel(model string) error {
	limits, err := contextLimits(model, app.Settings)
	if err == nil {
		app.Agent.SetModel(model, limits)
	}
	return err
}

// cmdModel shows the model in use and those the provider offers, or switches to the one named.
func cmdModel(ctx context.Context, app *App, args string, _ *[]Message) (string, bool, error) {
	if args != "" {
		if err := app.useModel(resolveModelAlias(args)); err != nil {
			return "", false, err
		}
	}
	text := fmt.Sprintf("model: %s (%s)", app.Agent.ModelName(), app.Agent.Provider.Name())
	if lister, ok := app.Agent.Provider.(interface {
		ListModels(context.Context) ([]string, error)
	}); ok && args == "" {
		models, err := lister.ListModels(ctx)
		if len(models) > 40 {
			models = append(models[:40], fmt.Sprintf("and %d more", len(models)-40))
		}
		if text += "\noffered: " + strings.Join(models, ", "); err != nil {
			text += "(the list is not available: " + err.Error() + ")"
		}
	}
	return text, false, nil
}
