package main

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Custom slash commands are Markdown files in Claude Code's format: the file's path below a commands
// folder is the command (review.md is /review, git/commit.md is /git:commit); optional front matter gives
// description, argument-hint, allowed-tools and model; the body is the prompt, with $ARGUMENTS (all
// arguments), $0, $1… (one each), ${CLAUDE_SKILL_DIR} (the file's folder), ${CLAUDE_SESSION_ID}, @file
// (its contents are attached) and !`command` (replaced by its output, if allowed-tools allows it).

// CustomCommand is one command file.
type CustomCommand struct {
	Name         string // "git:commit"
	Description  string
	ArgumentHint string
	AllowedTools []string
	Model        string
	Body         string
	Path         string
	Problem      string // why the file cannot be used; "" when it can
	project      bool   // a project skill's, which may lie in a folder above the workspace
}

// definitionDirs lists the folders of "commands" or "agents", the project's before the user's.
func definitionDirs(kind, home, userHome, workspace string) []string {
	dirs := []string{filepath.Join(workspace, ".minicode", kind), filepath.Join(workspace, ".claude", kind), filepath.Join(home, kind)}
	if userHome != "" {
		dirs = append(dirs, filepath.Join(userHome, ".claude", kind))
	}
	return dirs
}

// loadCustomCommands reads the command files of the folders, first of a name; a broken one has Problem set.
func loadCustomCommands(dirs []string) []*CustomCommand {
	var cmds []*CustomCommand
	seen := map[string]bool{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
				return nil
			}
			rel, _ := filepath.Rel(dir, strings.TrimSuffix(path, ".md"))
			name := strings.ReplaceAll(filepath.ToSlash(rel), "/", ":")
			if !seen[name] {
				seen[name] = true
				cmds = append(cmds, readCustomCommand(name, path))
			}
			return nil
		})
	}
	return cmds
}

// readCustomCommand reads one command file.
func readCustomCommand(name, path string) *CustomCommand {
	c := &CustomCommand{Name: name, Path: path}
	meta, body, err := readDefinition(path, false)
	if err == nil {
		c.AllowedTools, err = allowedTools(meta["allowed-tools"])
	}
	if err == nil {
		_, err = grantRules(c.AllowedTools)
	}
	if err != nil {
		c.Problem = err.Error()
		return c
	}
	c.Description, _ = meta["description"].(string)
	c.ArgumentHint, _ = meta["argument-hint"].(string)
	if list, ok := meta["argument-hint"].([]any); ok { // "[message]" reads as a list
		words, _ := allowedTools(list)
		c.ArgumentHint = "[" + strings.Join(words, ", ") + "]"
	}
	c.Model, _ = meta["model"].(string)
	c.Body = body
	return c
}

// grantRules turns allowed-tools entries, in minicode's or Claude Code's names, into allow rules.
func grantRules(entries []string) ([]Rule, error) {
	var rules []Rule
	for _, e := range entries {
		r, err := parseRule(e, "allowed-tools")
		if err != nil {
			return nil, fmt.Errorf("allowed-tools: %w", err)
		}
		name, _, _ := strings.Cut(e, "(")
		for _, tool := range minicodeToolNames(strings.TrimSpace(name)) {
			rules = append(rules, Rule{Tool: tool, Spec: r.Spec, Source: r.Source, Claude: r.Claude})
		}
	}
	return rules, nil
}

// Patterns of a command body.
var (
	argumentPattern = regexp.MustCompile(`\$(?:ARGUMENTS\[(\d+)\]|(\d+)\b)`) // $ARGUMENTS[N] or $N
	shellPattern    = regexp.MustCompile("!`([^`\n]+)`")
	filePattern     = regexp.MustCompile(`(?:^|\s)@([^\s@]+)`)
)

// expandBody fills a body's placeholders as Claude Code does: $ARGUMENTS is args as typed, $ARGUMENTS[N]
// and $N the Nth word of args counting from 0 ($0 the first), split as the shell splits words (else at
// blanks). A body that names none gets args appended.
func expandBody(body, args string) string {
	words := strings.Fields(args)
	if cmds, err := parseCommandLine(args); err == nil && len(cmds) == 1 {
		words = cmds[0].Words
	}
	out := argumentPattern.ReplaceAllStringFunc(body, func(m string) string {
		n := argumentPattern.FindStringSubmatch(m)
		if i, _ := strconv.Atoi(n[1] + n[2]); i < len(words) {
			return words[i]
		}
		return ""
	})
	if out = strings.ReplaceAll(out, "$ARGUMENTS", args); out == body && args != "" {
		return strings.TrimRight(body, "\n") + "\n\nARGUMENTS: " + args
	}
	return out
}

// expandCommand turns a command into its prompt: the body filled in, each
// !`command` replaced by its output and each @file attached, through the
// registry so that permissions (with the command's grants) and hooks apply.
func (app *App) expandCommand(ctx context.Context, c *CustomCommand, args string) (SlashPrompt, error) {
	grants, err := grantRules(c.AllowedTools)
	if c.Problem != "" || err != nil {
		return SlashPrompt{}, fmt.Errorf("/%s cannot be used: %s: %s", c.Name, c.Path, cmp.Or(c.Problem, fmt.Sprint(err)))
	}
	why, model := "its allowed-tools do not include Bash", c.Model
	if !app.Trusted && (c.project || app.projectFile(c.Path)) { // allowed-tools and model are gated (trustTable)
		grants, model, why = nil, "", "this workspace is not trusted, so its commands run nothing ('minicode trust' allows it)"
	}
	env := app.Env.forTurn("", grants)
	body := expandBody(strings.NewReplacer("${CLAUDE_SESSION_ID}", app.Session.ID, "${CLAUDE_SKILL_DIR}", filepath.Dir(c.Path)).Replace(c.Body), args)
	var failed error
	body = shellPattern.ReplaceAllStringFunc(body, func(m string) string {
		command := shellPattern.FindStringSubmatch(m)[1]
		if !slices.ContainsFunc(grants, func(r Rule) bool { return r.Tool == "run_command" }) {
			failed = fmt.Errorf("/%s runs `%s`, but %s", c.Name, command, why)
			return m
		}
		out := app.runTool(ctx, env, "run_command", map[string]string{"command": command})
		status, printed, ran := commandPrinted(out.Text)
		if !ran {
			failed = fmt.Errorf("/%s: `%s`: %s", c.Name, command, out.Text)
		} else if status != "0" {
			printed += "\n(exit status " + status + ")"
		}
		return printed
	})
	if failed != nil {
		return SlashPrompt{}, failed
	}
	p := SlashPrompt{Prompt: body, Grants: grants, Model: model}
	if err := app.attachFiles(ctx, env, &p, nil); err != nil {
		return SlashPrompt{}, fmt.Errorf("/%s: %w", c.Name, err)
	}
	return p, nil
}

// commandPrinted reads a run_command result: the exit status and what the command printed, its
// stdout, then its stderr and any note; ran is false for a call that did not run (a denial).
func commandPrinted(result string) (status, printed string, ran bool) {
	_, rest, ran := strings.Cut(result, "Exit code: ")
	status, rest, _ = strings.Cut(rest, "\n\nstdout:\n")
	stdout, stderr, _ := strings.Cut(rest, "\n\nstderr:\n")
	parts := slices.DeleteFunc([]string{strings.TrimRight(stdout, "\n"), strings.TrimSpace(stderr)}, func(s string) bool { return s == "(empty)" })
	return status, strings.Join(parts, "\n"), ran
}

// attachFiles appends to the prompt the contents of each file it mentions as @path, read with read_file
// in env so that permissions and hooks apply (an image or PDF joins the prompt's images), and tells note
// (if any) what it attached; a mention of no file stays as it is written.
func (app *App) attachFiles(ctx context.Context, env *ToolEnv, p *SlashPrompt, note func(string)) error {
	var attached strings.Builder
	for _, m := range filePattern.FindAllStringSubmatch(p.Prompt, -1) {
		path := strings.TrimRight(m[1], ".,;:)?!")
		abs, err := resolveInput(env, path)
		if info, statErr := os.Stat(abs); err != nil || statErr != nil || info.IsDir() {
			continue
		}
		out := app.runTool(ctx, env, "read_file", map[string]string{"path": path})
		if out.IsError {
			return fmt.Errorf("@%s: %s", path, out.Text)
		}
		fmt.Fprintf(&attached, "\n\nContents of %s:\n%s", path, out.Text)
		p.Images = append(p.Images, out.Media...)
		if note != nil {
			note("attached " + path)
		}
	}
	p.Prompt += attached.String()
	return nil
}

// runTool runs one tool call in env for a command, outside any turn.
func (app *App) runTool(ctx context.Context, env *ToolEnv, name string, input any) ToolOutput {
	raw, _ := encodeJSON(input, 0)
	return app.Registry.Execute(ctx, env, Block{Type: BlockToolUse, ID: "command_" + name, Name: name, Input: raw})
}

// customSlashCommands lists the custom commands, then the skills (read afresh), which expand as commands do.
func (app *App) customSlashCommands() []SlashCommand {
	var out []SlashCommand
	for _, c := range app.Commands {
		help := cmp.Or(strings.TrimSpace(c.Description+" "+c.ArgumentHint), "custom command from "+c.Path)
		if c.Problem != "" {
			help = "(broken: " + c.Problem + ")"
		}
		out = append(out, SlashCommand{name: c.Name, help: help, prompt: func(ctx context.Context, args string) (SlashPrompt, error) {
			return app.expandCommand(ctx, c, args)
		}})
	}
	for _, s := range app.Skills.Skills {
		out = append(out, SlashCommand{name: s.Name, help: "skill: " + oneLine(s.Description, 80), prompt: func(ctx context.Context, args string) (SlashPrompt, error) {
			s := app.Skills.read(s.Dir, s.Source)
			model, _ := s.Meta["model"].(string)
			p, err := app.expandCommand(ctx, &CustomCommand{Name: s.Name, Path: s.Path, AllowedTools: s.AllowedTools, Model: model, Problem: s.Problem, project: s.Source == "project",
				Body: fmt.Sprintf("Follow the skill %q. Its folder is %s; paths in it are relative to that folder.\n\n%s", s.Name, s.Dir, s.Body)}, args)
			p.Fork = s.Meta["context"] == "fork"
			return p, err
		}})
	}
	return out
}
