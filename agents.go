package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A subagent is a second agent loop started by the task tool: its own conversation, prompt and tools; only its answer goes back.

// Defaults of subagents.
const (
	defaultSubagentParallel = 3  // task calls of one reply running at once
	defaultSubagentDepth    = 1  // subagents may not start subagents
	defaultSubagentSteps    = 30 // model steps of one subagent
	taskTimeout             = 30 * time.Minute
)

// AgentDef is one subagent definition.
type AgentDef struct {
	Name        string
	Description string
	Tools       []string // minicode tool names; nil means every tool
	Model       string   // "" or "inherit": the parent's model
	Prompt      string   // the system prompt
	Path        string   // "" for the built-in agent
	Problem     string   // why the file cannot be used; "" when it can
}

// loadAgents reads the folders' agent definitions, then the built-in one; the first of a name wins.
func loadAgents(dirs []string) []*AgentDef {
	var defs []*AgentDef
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		for _, path := range files {
			defs = append(defs, readAgentDef(path))
		}
	}
	defs = append(defs, &AgentDef{Name: "general-purpose", Description: "General agent for researching questions, searching code and doing multi-step tasks.",
		Prompt: "You are a subagent of minicode, a coding agent. Do the task you are given with the tools you have, then reply with a concise final answer holding everything the requester needs: it sees only that answer, not your tool calls."})
	seen := map[string]bool{}
	return slices.DeleteFunc(defs, func(d *AgentDef) bool {
		dup := seen[d.Name]
		seen[d.Name] = true
		return dup
	})
}

// readAgentDef reads one definition file.
func readAgentDef(path string) *AgentDef {
	def := &AgentDef{Name: strings.TrimSuffix(filepath.Base(path), ".md"), Path: path}
	meta, body, err := readDefinition(path, true)
	if err == nil {
		def.Name = cmp.Or(metaString(meta, "name"), def.Name)
		def.Description, def.Model, def.Prompt = metaString(meta, "description"), metaString(meta, "model"), strings.TrimSpace(body)
		var tools []string
		tools, err = allowedTools(meta["tools"])
		for _, t := range tools {
			def.Tools = append(def.Tools, minicodeToolNames(t)...)
		}
	}
	if err == nil && def.Prompt == "" {
		err = errors.New("the body (the agent's system prompt) is empty")
	}
	if err != nil {
		def.Problem = err.Error()
	}
	return def
}

// metaString returns a front matter value as a string ("" if it is not).
func metaString(meta map[string]any, key string) string {
	s, _ := meta[key].(string)
	return strings.TrimSpace(s)
}

// Subagents starts subagents for a parent agent.
type Subagents struct {
	Parent   *Agent // its provider, tools, environment and Emit are shared
	Agents   []*AgentDef
	MaxDepth int // how deep subagents may nest; 0 means defaultSubagentDepth
	MaxSteps int // model steps of each subagent; 0 means defaultSubagentSteps
	// Checkpoint records the workspace before a subagent's turn, and end what it changed; nil records nothing.
	Checkpoint func(ctx context.Context, label string) (end func())
	slots      chan struct{}
}

// taskInput is the input of the task tool.
type taskInput struct {
	Description  string `json:"description" validate:"required" desc:"A short (3-5 word) description of the task."`
	Prompt       string `json:"prompt" validate:"required" desc:"The task for the agent: everything it needs to know, since it does not see this conversation."`
	SubagentType string `json:"subagent_type,omitempty" desc:"The agent to use (default general-purpose)."`
}

// Tool is the task tool, whose calls run at most defaultSubagentParallel at once.
func (s *Subagents) Tool() *Tool {
	s.slots = make(chan struct{}, defaultSubagentParallel)
	var list strings.Builder
	for _, d := range s.Agents {
		if d.Problem == "" {
			fmt.Fprintf(&list, "\n- %s: %s", d.Name, oneLine(d.Description, 200))
		}
	}
	return ToolDef[taskInput]{
		Name: "task",
		Description: "Start a subagent that does a task on its own, with a fresh context, and returns only its final answer. " +
			"Use it for searches and research whose details would crowd this conversation; give it a complete prompt. " +
			"Several task calls in one reply run in parallel. Agents:" + list.String(),
		Timeout:    taskTimeout,
		Concurrent: true,
		// Starting a subagent touches nothing (each of its calls is checked
		// on its own), so only a deny rule stops it.
		Permission: func(env *ToolEnv, in taskInput) (PermissionRequest, error) {
			return PermissionRequest{Access: AccessRead, Summary: "start a subagent: " + in.Description}, nil
		},
		Run: func(ctx context.Context, env *ToolEnv, in taskInput) (ToolOutput, error) {
			return s.run(ctx, env, cmp.Or(in.SubagentType, "general-purpose"), in.Prompt)
		},
	}.Tool()
}

// Describe lists the agent definitions: the text of /agents.
func (s *Subagents) Describe() string {
	var b strings.Builder
	b.WriteString("Agents:\n")
	for _, d := range s.Agents {
		about := oneLine(d.Description, 80)
		if d.Problem != "" {
			about = "(broken: " + d.Problem + ")"
		}
		fmt.Fprintf(&b, "  %-20s %s %s\n", d.Name, about, d.Path)
	}
	return strings.TrimRight(b.String(), "\n")
}

// usable names the agents whose definitions can be used.
func (s *Subagents) usable() (names []string) {
	for _, d := range s.Agents {
		if d.Problem == "" {
			names = append(names, d.Name)
		}
	}
	return names
}

// run runs one subagent to its end, its calls in env, and returns its answer and usage.
func (s *Subagents) run(ctx context.Context, env *ToolEnv, name, prompt string) (ToolOutput, error) {
	i := slices.IndexFunc(s.Agents, func(d *AgentDef) bool { return d.Name == name })
	if i < 0 {
		return ToolOutput{}, fmt.Errorf("no agent named %q; the agents are: %s", name, strings.Join(s.usable(), ", "))
	}
	def := s.Agents[i]
	if def.Problem != "" {
		return ToolOutput{}, fmt.Errorf("agent %q cannot be used: %s: %s", name, def.Path, def.Problem)
	}
	depth := contextValue[int](ctx, keySubagentDepth) + 1
	if depth == 1 {
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
		case <-ctx.Done():
			return ToolOutput{}, ctx.Err()
		}
	}
	child := s.child(ctx, env, def, depth)
	if s.Checkpoint != nil {
		defer s.Checkpoint(ctx, def.Name+": "+prompt)()
	}
	if v := child.hooks().Run(ctx, HookInput{HookEventName: HookSubagentStart, AgentID: child.AgentID, AgentType: def.Name}); v.Context != "" {
		prompt += "\n\n" + v.Context
	}
	res := child.RunTurn(context.WithValue(ctx, keySubagentDepth, depth), nil, TurnInput{Text: prompt})
	usage := fmt.Sprintf("[subagent %s: %d steps, %d input and %d output tokens]", def.Name, res.Steps, res.Usage.InputTokens, res.Usage.OutputTokens)
	switch res.End {
	case EndCancelled:
		return ToolOutput{}, ctx.Err()
	case EndMaxSteps:
		return ToolOutput{Text: lastAnswer(res.Messages) + "\n\n(The subagent reached its limit of " +
			fmt.Sprint(child.MaxSteps) + " steps before it finished; the text above is what it had.)\n" + usage}, nil
	}
	return ToolOutput{Text: res.Text + "\n\n" + usage, IsError: res.End != EndFinal}, nil
}

// child builds the agent loop of one subagent, whose calls run in env.
func (s *Subagents) child(ctx context.Context, env *ToolEnv, def *AgentDef, depth int) *Agent {
	parent, parentCall := s.Parent, contextValue[string](ctx, keyToolUseID)
	tools := newRegistry()
	for _, t := range parent.Tools.Tools() {
		switch {
		case t.Name == "ask_user", t.Name == "exit_plan_mode", t.Name == "task" && depth >= cmp.Or(s.MaxDepth, defaultSubagentDepth):
		case def.Tools == nil || slices.Contains(def.Tools, t.Name) || slices.ContainsFunc(def.Tools, func(n string) bool { return strings.HasPrefix(t.Name, n+"__") }):
			tools.Add(t)
		}
	}
	system := def.Prompt + "\n\nToday: " + time.Now().Format("2006-01-02") + "\n"
	turnModel := ""
	if env != nil {
		system, turnModel = system+"Workspace: "+env.Workspace+"\n", env.Model
	}
	model, limits := parent.CurrentModel()
	if m := cmp.Or(resolveModelAlias(strings.TrimPrefix(def.Model, "inherit")), turnModel, model); m != model {
		model, limits = m, ModelLimits{} // the parent's LimitsFor gives them
	}
	return &Agent{
		Provider: parent.Provider, Tools: tools, Env: env, MaxTokens: parent.MaxTokens,
		Limits: limits, LimitsFor: parent.LimitsFor, Compaction: parent.Compaction, SummaryModel: parent.SummaryModel,
		Model:    model,
		System:   system,
		MaxSteps: cmp.Or(s.MaxSteps, defaultSubagentSteps), Depth: depth, AgentID: parentCall, AgentType: def.Name,
		Emit:   tagged(parent.Emit, parentCall),
		Record: tagged(parent.Record, parentCall),
	}
}

// tagged passes events on to listen, marked with the task call's id.
func tagged(listen func(Event), parentCall string) func(Event) {
	return func(e Event) {
		if listen != nil {
			e.ParentToolUseID = cmp.Or(e.ParentToolUseID, parentCall)
			listen(e)
		}
	}
}

// lastAnswer returns the text of the last assistant message that has any.
func lastAnswer(messages []Message) string {
	for i := len(messages) - 1; i >= 0; i-- {
		if text := strings.TrimSpace(messages[i].Text()); messages[i].Role == RoleAssistant && text != "" {
			return text
		}
	}
	return "(no text yet)"
}
