package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// slashCommand is a command typed at the prompt, such as /help.
type slashCommand struct {
	name string
	help string
	// run returns the text to show; quit ends the session.
	run func(ctx context.Context, app *App, args string, history *[]Message) (out string, quit bool, err error)
}

// slashCommands lists the commands of an interactive session.
func slashCommands() []slashCommand {
	return []slashCommand{
		{"help", "list commands (and what the demo model understands)", cmdHelp},
		{"tools", "list the tools the model can use", cmdTools},
		{"status", "show the model, workspace and permission mode", cmdStatus},
		{"clear", "start over with an empty conversation", func(_ context.Context, _ *App, _ string, h *[]Message) (string, bool, error) {
			*h = nil
			return "Conversation cleared.", false, nil
		}},
		{"exit", "leave minicode", func(context.Context, *App, string, *[]Message) (string, bool, error) { return "", true, nil }},
	}
}

// runSlashCommand runs the command named by input ("/name args").
func (app *App) runSlashCommand(ctx context.Context, input string, history *[]Message) (string, bool, error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	for _, c := range slashCommands() {
		if c.name == name {
			return c.run(ctx, app, strings.TrimSpace(args), history)
		}
	}
	return "", false, fmt.Errorf("unknown command /%s; /help lists the commands", name)
}

// cmdHelp lists the commands.
func cmdHelp(_ context.Context, app *App, _ string, _ *[]Message) (string, bool, error) {
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, c := range slashCommands() {
		fmt.Fprintf(&b, "  /%-12s %s\n", c.name, c.help)
	}
	b.WriteString("End a line with \\ to continue on the next line.")
	if app.Provider.Name() == "mock" {
		b.WriteString("\n\n" + demoHelp)
	}
	return b.String(), false, nil
}

// cmdTools lists the registered tools.
func cmdTools(_ context.Context, app *App, _ string, _ *[]Message) (string, bool, error) {
	var lines []string
	for _, t := range app.Registry.Tools() {
		desc, _, _ := strings.Cut(t.Description, "\n")
		lines = append(lines, fmt.Sprintf("  %-20s %s", t.Name, cut(desc, 90)))
	}
	sort.Strings(lines)
	return fmt.Sprintf("%d tools:\n%s", len(lines), strings.Join(lines, "\n")), false, nil
}

// cmdStatus shows the session's settings.
func cmdStatus(_ context.Context, app *App, _ string, h *[]Message) (string, bool, error) {
	return fmt.Sprintf("model: %s (%s)\nworkspace: %s\npermission mode: %s\nmessages: %d\nsession: %s",
		app.Model, app.Provider.Name(), app.Workspace, app.permissionMode(), len(*h), app.SessionID), false, nil
}
