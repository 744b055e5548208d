package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// version is the release of this build.
const version = "0.1.0"

// Options are the command-line choices of one run, after flag parsing.
type Options struct {
	Print                  bool   // -p: run one task and exit
	Task                   string // the task for -p ("" = read stdin)
	OutputFormat           string // text, json or stream-json
	InputFormat            string // text, or stream-json: user messages as JSON lines on stdin
	IncludePartialMessages bool   // stream-json: stream_event lines with the deltas
	Verbose                bool   // with json output: every message (JSONArray)
	JSONArray              bool   // stream-json's lines printed as one JSON array at the end
	Debug                  bool   // log what minicode loads and sends, on stderr
	Model                  string
	FallbackModel          string // used when the model is overloaded or unavailable
	Provider               string
	API                    string // the openai provider's protocol: chat (Chat Completions) or responses
	SystemPrompt           string // replaces the built-in system prompt
	AppendSystemPrompt     string // added to the end of the system prompt
	PermissionMode         string
	AllowedTools           []string // one rule each
	DisallowedTools        []string
	AddDirs                []string // more folders the tools may use
	Settings               []string // --settings: files or inline JSON
	MCPConfig              []string // --mcp-config: files or inline JSON
	StrictMCPConfig        bool     // only the servers of --mcp-config
	MaxTurns               int
	Workspace              string
	MockScript             string
	MCPElicitation         string // with -p: how MCP servers' questions are answered (decline or defaults)
	Continue               bool   // -c: continue the newest session of the workspace
	Resume                 string // --resume ID: continue this session
	ResumePick             bool   // --resume alone: list the sessions to pick one
	SessionID              string // --session-id: the id of the new session
	ForkSession            bool   // --fork-session: continue into a new session
	// The flags of a program driving minicode, as the Agent SDK passes them to Claude Code.
	PermissionPromptTool string   // "stdio": ask the program with can_use_tool
	AllowSkipPermissions bool     // set_permission_mode may bypass permissions
	Tools                []string // the built-in tools offered; nil: all
	SettingSources       []string // the settings kinds read (user, project, local); nil: all
	NoSessionPersistence bool     // keep the session in memory only
	JSONSchema           string   // the final answer is JSON matching this schema
	MaxBudgetUSD         float64  // stop once the session cost more; 0: no limit
	Thinking             string   // adaptive, enabled or disabled
	MaxThinkingTokens    int
	Effort               string // low, medium, high, xhigh or max
	Editor               bool   // an editor drives minicode over ACP (acp.go): it shows text as it streams and answers permission questions
}

// App is one running minicode: configuration, model, tools and permissions wired together.
type App struct {
	Opts        Options
	Home        string // $MINICODE_HOME
	Workspace   string // absolute, symlinks resolved
	Settings    Settings
	Demo        bool // the offline demo model answers (the mock provider without a script)
	Registry    *Registry
	Env         *ToolEnv
	Perms       *Permissions
	Sandbox     *Sandbox
	Skills      *SkillSet
	Commands    []*CustomCommand  // custom slash commands, first of a name
	structured  *structuredOutput // the schema of the final answer (--json-schema); nil for plain text
	runOutside  []string          // the workspace's files the hooks, MCP servers and API key helper run
	Subagents   *Subagents        // the agents the task tool starts
	Trusted     bool              // the project's files may run code and widen permissions (config_trust.go)
	MCP         *MCPManager
	Agent       *Agent
	Session     *Session         // the conversation and its journal; its ID is the session id
	Checkpoints *CheckpointStore // the session's snapshots of the workspace, for /rewind

	lines   LineSource  // the input lines, shared by line mode and its questions
	typed   bool        // they come from a terminal, where a person answers
	asker   Asker       // how permission questions are put: line mode's or the terminal UI's
	stdout  *LineWriter // shared by the answers, notices and questions
	stderr  io.Writer
	getenv  func(string) string
	closers []func()
}

// newApp builds an App from options and the environment, one part at a time in the order they depend
// on each other. MCP servers start in the background and live until ctx ends or the app closes.
func newApp(ctx context.Context, opts Options, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (_ *App, err error) {
	in, _ := stdin.(*os.File)
	app := &App{Opts: opts, lines: newLineReader(stdin), stdout: &LineWriter{w: stdout, collect: opts.JSONArray}, stderr: stderr, getenv: getenv, typed: isTerminal(in)}
	defer func() {
		if err != nil {
			app.Close()
		}
	}()
	if app.Home, err = minicodeHome(getenv); err != nil {
		return nil, err
	}
	if app.Workspace, err = resolveWorkspace(opts.Workspace); err != nil {
		return nil, err
	}
	app.Skills = discoverSkills(app.Home, userHome(getenv), app.Workspace, nil) // for the trust question and the permissions
	app.Commands = loadCustomCommands(definitionDirs("commands", app.Home, userHome(getenv), app.Workspace))
	var servers []MCPServerConfig
	if app.Settings, app.Trusted, servers, err = app.loadConfig(ctx); err != nil {
		return nil, err
	}
	if app.getenv, err = withSettingsEnv(getenv, app.Settings.Env); err != nil {
		return nil, err
	}
	provider, model, summaryModel, err := app.newProvider(ctx)
	if err != nil {
		return nil, err
	}
	app.Demo = provider.Name() == "mock" && opts.MockScript == ""
	app.Env = &ToolEnv{Workspace: app.Workspace, Media: providerMedia(provider), Reads: &FileReads{}}
	session, err := app.openSession()
	if err != nil {
		return nil, err
	}
	app.useSession(session)
	dirs, err := app.additionalDirs()
	if err != nil {
		return nil, err
	}
	if app.Sandbox, err = app.newSandbox(dirs, servers); err != nil {
		return nil, err
	}
	app.Env.Wrote = app.Sandbox.Accept
	app.Env.Hooks, app.asker = app.newHooks(), app.newAsker()
	if app.Perms, err = app.newPermissions(dirs); err != nil {
		return nil, err
	}
	app.Env.Perms = app.Perms
	app.Skills = discoverSkills(app.Home, userHome(getenv), app.Workspace, app.Perms.WalkFilter("read_file")) // those the model may see
	app.Env.Memory = loadMemory(app.Home, userHome(app.getenv), app.Workspace, app.Trusted, app.Perms.WalkFilter("read_file"))
	app.Registry = app.newRegistry()
	if app.MCP, err = app.startMCP(ctx, servers); err != nil {
		return nil, err
	}
	if app.Agent, err = app.newAgent(provider, model, summaryModel); err != nil {
		return nil, err
	}
	app.Subagents = app.newSubagents()
	app.startSession(ctx)
	return app, nil
}

// newHooks runs the settings' hooks (none with disableAllHooks) for this session.
func (app *App) newHooks() *Hooks {
	return &Hooks{Config: map[bool]HookSettings{false: app.Settings.Hooks}[app.Settings.DisableAllHooks], SessionID: app.Session.ID, Workspace: app.Workspace,
		Transcript: app.Session.Path, Notice: app.notice, Mode: func() PermissionMode { return app.Perms.Mode() }, Observe: app.observeHook}
}

// newAsker is who answers permission questions: an MCP tool (--permission-prompt-tool), else
// line mode's asker (the terminal UI puts its own in place), and with -p nobody.
func (app *App) newAsker() Asker {
	switch {
	case strings.HasPrefix(app.Opts.PermissionPromptTool, "mcp__"):
		return mcpApprover{app: app, tool: app.Opts.PermissionPromptTool}
	case !app.Opts.Print:
		return &lineAsker{In: app.lines, Out: app.stdout}
	}
	return nil
}

// additionalDirs are the folders of --add-dir and additionalDirectories, absolute.
func (app *App) additionalDirs() ([]string, error) {
	var dirs []string
	for _, dir := range append(slices.Clip(app.Opts.AddDirs), app.Settings.Permissions.AdditionalDirectories...) {
		abs, err := filepath.Abs(expandHome(userHome(app.getenv), dir))
		if err != nil || !isDir(abs) {
			return nil, usageErrorf("additional folder %s is not a folder", dir)
		}
		dirs = append(dirs, abs)
	}
	return dirs, nil
}

// newSandbox builds the sandbox of commands, where the additional folders are writable, and the workspace's
// files that the hooks, the MCP servers and the API key helper run are not.
func (app *App) newSandbox(dirs []string, servers []MCPServerConfig) (*Sandbox, error) {
	settings := app.Settings.Sandbox
	settings.AllowWrite = append(slices.Clip(settings.AllowWrite), dirs...)
	denyRead, matching := denyFolders(app.Settings.ruleSets, app.Opts.DisallowedTools, app.Workspace, userHome(app.getenv), false)
	denyWrite, _ := denyFolders(app.Settings.ruleSets, app.Opts.DisallowedTools, app.Workspace, userHome(app.getenv), true)
	runs := []string{app.Settings.APIKeyHelper}
	for _, matchers := range app.Settings.Hooks {
		for _, m := range matchers {
			for _, h := range m.Hooks {
				runs = append(runs, h.Command)
			}
		}
	}
	for _, s := range servers {
		runs = append(runs, strings.Join(append([]string{s.Command}, s.Args...), " "))
	}
	app.runOutside = runFromWorkspace(app.Workspace, runs)
	denyWrite = append(denyWrite, app.runOutside...)
	settings.DenyRead = append(slices.Clip(settings.DenyRead), denyRead...)
	sandbox, err := newSandbox(SandboxConfig{Workspace: app.Workspace, UserHome: userHome(app.getenv), Home: app.Home, Settings: settings,
		DenyWrite: denyWrite, DenyMatching: matching, Getenv: app.getenv})
	if err != nil {
		return nil, err
	}
	sandbox.Notice = app.notice
	app.closers = append(app.closers, sandbox.Close)
	return sandbox, nil
}

// newRegistry holds the built-in tools --tools keeps, and load_skill when there are skills.
func (app *App) newRegistry() *Registry {
	builtins, procs := newBuiltins(app.Settings.WebSearchURL, app.Sandbox)
	app.closers = append(app.closers, procs.Close)
	registry := newRegistry(keepTools(append(builtins, app.exitPlanModeTool()), app.Opts, app.notice)...)
	registry.Withheld = func(tool string) bool { // a bare --disallowedTools name (Bash, mcp__github) denies the tool whole
		return slices.ContainsFunc(app.Opts.DisallowedTools, func(n string) bool {
			return slices.Contains(minicodeToolNames(n), tool) || strings.HasPrefix(n, "mcp__") && Rule{Tool: n}.matchesTool(tool, AccessRead)
		})
	}
	app.Perms.WarnUnknownTools(append(registry.names(), "task", "load_skill"))
	if len(app.Skills.Skills) > 0 && app.Opts.offersTool("load_skill") {
		registry.Add(app.Skills.Tool())
	}
	return registry
}

// newAgent builds the agent loop, which answers with model (and summarises with summaryModel),
// and with --json-schema adds the structured_output tool its system prompt speaks of.
func (app *App) newAgent(provider Provider, model, summaryModel string) (*Agent, error) {
	if app.Opts.JSONSchema != "" {
		if err := app.useJSONSchema(json.RawMessage(app.Opts.JSONSchema)); err != nil {
			return nil, usageErrorf("--json-schema: %v", err)
		}
	}
	limits, err := contextLimits(model, app.Settings)
	if err != nil {
		return nil, err
	}
	maxTokens, err := maxOutputTokens(app.getenv("CLAUDE_CODE_MAX_OUTPUT_TOKENS"), app.Settings.MaxTokens)
	if err != nil {
		return nil, err
	}
	return &Agent{
		Thinking:     max(app.Opts.thinkingBudget(), 0),
		Provider:     provider,
		Tools:        app.Registry,
		Env:          app.Env,
		Model:        model,
		SummaryModel: summaryModel,
		System:       app.systemPrompt(),
		MaxTokens:    maxTokens,
		MaxSteps:     cmp.Or(app.Opts.MaxTurns, app.Settings.MaxTurns),
		Record:       func(e Event) { app.Session.Event(e) },
		Limits:       limits,
		LimitsFor:    func(model string) ModelLimits { limits, _ := contextLimits(model, app.Settings); return limits },
		Compaction:   app.Settings.Compaction,
	}, nil
}

// newSubagents loads the agents the task tool starts, and adds the tool.
func (app *App) newSubagents() *Subagents {
	s := &Subagents{Parent: app.Agent, MaxDepth: app.Settings.SubagentDepth,
		Agents: loadAgents(definitionDirs("agents", app.Home, userHome(app.getenv), app.Workspace))}
	for _, d := range s.Agents {
		if !app.Trusted && app.projectFile(d.Path) {
			d.Model = "" // gated (trustTable): the parent's model runs it
		}
	}
	s.Checkpoint = func(ctx context.Context, label string) func() {
		c := app.checkpoint(ctx, "", true, label)
		return func() { app.endCheckpoint(ctx, c, nil) }
	}
	if app.Opts.offersTool("task") {
		app.Registry.Add(s.Tool())
	}
	return s
}

// startSession runs the SessionStart hooks (their output joins the system prompt) and leaves the SessionEnd hooks to Close.
func (app *App) startSession(ctx context.Context) {
	source := "startup"
	if view := app.Session.View(); len(view) > 0 {
		source = "resume"
		app.Agent.estimate("", view) // the context's use, before the first request measures it
	}
	v := app.Env.Hooks.Run(ctx, HookInput{HookEventName: HookSessionStart, Source: source})
	if v.Context != "" {
		app.Agent.System += "\n# Session start\n\n" + v.Context + "\n"
	}
	app.closers = append(app.closers, func() { // even after an interrupt, each hook within its timeout
		app.Env.Hooks.Run(context.Background(), HookInput{HookEventName: HookSessionEnd, Reason: "other"})
	})
}

// Close stops what the app started, then closes the session's journal.
func (app *App) Close() {
	for _, close := range slices.Backward(app.closers) {
		close()
	}
	if app.Session != nil {
		app.Session.Close()
	}
}

// startMCP starts the MCP servers in the background; their notices go to stderr with -p, else to line mode's output.
// MCP_TIMEOUT, as in Claude Code, is the startup timeout of the servers that set none.
func (app *App) startMCP(ctx context.Context, servers []MCPServerConfig) (*MCPManager, error) {
	timeout, err := app.envMillis("MCP_TIMEOUT")
	if err != nil {
		return nil, err
	}
	elicitor := Elicitor(newLineElicitor(func(ctx context.Context) (string, error) { return app.lines.ReadLine(ctx) }, app.stdout).Elicit)
	var notices io.Writer = app.stdout
	if app.Opts.Print {
		elicitor, _ = elicitorFor(app.Opts.MCPElicitation, nil, app.stderr) // checked with the flags
		notices = app.stderr
	}
	m := newMCPManager(servers, app.Registry, MCPOptions{
		Workspace:      app.Workspace,
		StartupTimeout: timeout,
		ClientVersion:  version,
		Elicitor:       elicitor,
		Home:           app.Home,
		Program:        app.Opts.InputFormat == "stream-json",
		OnNotice:       func(text string) { fmt.Fprintf(notices, "! %s\n", text) },
		OnProgress: func(p MCPProgress) {
			if !app.Opts.Print {
				fmt.Fprintf(notices, "  … %s: %s\n", p.Server, formatProgress(p))
			}
		},
	})
	m.Start(ctx)
	app.closers = append(app.closers, m.Close)
	return m, nil
}

// keyHelper is the apiKeyHelper setting's command, if set, kept for
// CLAUDE_CODE_API_KEY_HELPER_TTL_MS (5 minutes by default, as in Claude Code).
func (app *App) keyHelper() (*KeyHelper, error) {
	ttl, err := app.envMillis("CLAUDE_CODE_API_KEY_HELPER_TTL_MS")
	if err != nil || app.Settings.APIKeyHelper == "" {
		return nil, err
	}
	return &KeyHelper{command: app.Settings.APIKeyHelper, dir: app.Workspace, ttl: cmp.Or(ttl, 5*time.Minute)}, nil
}

// envMillis reads a duration in milliseconds from an environment variable; 0 when it is unset.
func (app *App) envMillis(name string) (time.Duration, error) {
	v := app.getenv(name)
	ms, err := strconv.Atoi(v)
	if v != "" && (err != nil || ms <= 0) {
		return 0, usageErrorf("%s must be a positive number of milliseconds, not %q", name, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// notice tells the user something, such as a retry, through the loop's events (or stderr before it runs).
func (app *App) notice(msg string) {
	if app.Agent != nil && app.Agent.Emit != nil {
		app.Agent.Emit(Event{Kind: EventNotice, Text: msg})
		return
	}
	fmt.Fprintln(app.stderr, msg)
}

// debugf logs what minicode loads and sends, on stderr, with --debug.
func (app *App) debugf(format string, args ...any) {
	if app.Opts.Debug {
		fmt.Fprintf(app.stderr, "[debug] "+format+"\n", args...)
	}
}

// Ask runs the PermissionRequest hooks, which may answer for the user, then
// the Notification hooks, and puts the question through the interface in use.
func (app *App) Ask(ctx context.Context, p Prompt) (Answer, error) {
	switch v := app.Env.Hooks.Run(ctx, HookInput{HookEventName: HookPermissionRequest, ToolName: p.Request.Tool, ToolInput: p.Request.Input}); {
	case v.Block:
		return Answer{Choice: ChoiceDenyGuidance, Guidance: v.Reason}, nil
	case v.Permission == "allow":
		return Answer{Choice: ChoiceAllowOnce, Input: string(minicodeInput(p.Request.Tool, v.Input))}, nil
	}
	app.Env.Hooks.Run(ctx, HookInput{HookEventName: HookNotification, NotificationType: "permission_prompt", Message: "minicode needs your permission: " + p.Title})
	return app.asker.Ask(ctx, p)
}

// thinkingBudget is the thinking the flags ask for, in tokens: 0 leaves it to the settings, -1 turns it off.
func (o Options) thinkingBudget() int {
	switch {
	case o.Thinking == "disabled":
		return -1
	case o.MaxThinkingTokens > 0:
		return o.MaxThinkingTokens
	case o.Thinking != "" || o.Effort != "":
		return map[string]int{"low": 2_000, "medium": 8_000, "high": 16_000, "xhigh": 32_000, "max": 64_000}[cmp.Or(o.Effort, "medium")]
	}
	return 0
}

// offersTool reports whether --tools (minicode's or Claude Code's names; none: all) offers the built-in tool name.
func (o Options) offersTool(name string) bool {
	return o.Tools == nil || slices.ContainsFunc(o.Tools, func(n string) bool { return n == "default" || slices.Contains(minicodeToolNames(n), name) })
}

// keepTools keeps the tools --tools names and warns of names that are no tool, counting those added later (task, load_skill).
func keepTools(tools []*Tool, opts Options, warn func(string)) []*Tool {
	known := []string{"task", "load_skill"}
	for _, t := range tools {
		known = append(known, t.Name)
	}
	for _, n := range opts.Tools {
		if n != "default" && !slices.ContainsFunc(minicodeToolNames(n), func(name string) bool { return slices.Contains(known, name) }) {
			warn(fmt.Sprintf("--tools: there is no tool %q", n))
		}
	}
	return slices.DeleteFunc(slices.Clone(tools), func(t *Tool) bool { return !opts.offersTool(t.Name) })
}

// newProvider picks the provider, the model and the summary model from flags, environment and settings.
func (app *App) newProvider(ctx context.Context) (provider Provider, model, summaryModel string, err error) {
	env := app.getenv
	name := app.providerName()
	model = cmp.Or(app.Opts.Model, env("MINICODE_MODEL"))
	opts := ProviderOptions{Notify: app.notice, ShowsText: !app.Opts.Print || app.Opts.Editor}
	if opts.Timeout, err = app.envMillis("API_TIMEOUT_MS"); err != nil { // the wait for each piece of a reply
		return nil, "", "", err
	}
	switch name {
	case "anthropic":
		model = resolveModelAlias(cmp.Or(model, env("ANTHROPIC_MODEL"), app.Settings.Model, "default"))
		opts.APIKey, opts.AuthToken = env("ANTHROPIC_API_KEY"), env("ANTHROPIC_AUTH_TOKEN")
		opts.BaseURL = cmp.Or(env("ANTHROPIC_BASE_URL"), app.Settings.BaseURL)
		if opts.KeyHelper, err = app.keyHelper(); err != nil {
			return nil, "", "", err
		}
		if opts.APIKey == "" && opts.AuthToken == "" && opts.KeyHelper == nil {
			return nil, "", "", usageErrorf("the anthropic provider needs ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or the apiKeyHelper setting")
		}
		if opts.Headers, err = parseCustomHeaders(env("ANTHROPIC_CUSTOM_HEADERS")); err != nil {
			return nil, "", "", UsageError{err}
		}
		provider, summaryModel = newAnthropic(opts), resolveModelAlias(env("ANTHROPIC_SMALL_FAST_MODEL"))
	case "openai", "ollama", "lmstudio", "openrouter", "gemini":
		if provider, model, err = app.newOpenAI(ctx, name, model, opts); err != nil {
			return nil, "", "", err
		}
	case "mock":
		model = cmp.Or(model, "mock")
		if provider, err = app.newMockProvider(); err != nil {
			return nil, "", "", err
		}
	default:
		return nil, "", "", usageErrorf("unknown provider %q (use anthropic, openai, ollama, lmstudio, openrouter, gemini or mock)", name)
	}
	if app.Opts.FallbackModel != "" {
		fallback := app.Opts.FallbackModel
		if name == "anthropic" {
			fallback = resolveModelAlias(fallback)
		}
		provider = &FallbackProvider{Provider: provider, fallback: fallback, notify: app.notice}
	}
	return provider, model, summaryModel, nil
}

// providerName is the provider asked for, else the one whose API key is set, else the demo.
func (app *App) providerName() string {
	env, mode := app.getenv, ""
	if strings.EqualFold(env("MINI_CODE_MODEL_MODE"), "mock") {
		mode = "mock"
	}
	switch name := cmp.Or(app.Opts.Provider, env("MINICODE_PROVIDER"), mode, app.Settings.Provider); {
	case name != "":
		return name
	case env("ANTHROPIC_API_KEY") != "" || env("ANTHROPIC_AUTH_TOKEN") != "" || app.Settings.APIKeyHelper != "":
		return "anthropic"
	case env("OPENAI_API_KEY") != "":
		return "openai"
	}
	return "mock"
}

// newMockProvider is the demo model, or the scripted replies of --mock-script.
func (app *App) newMockProvider() (mock *MockProvider, err error) {
	mock = &MockProvider{session: func() *Session { return app.Session }}
	if d := app.getenv("MINICODE_DEMO_DELAY"); d != "" {
		if mock.delay, err = time.ParseDuration(d); err != nil {
			return nil, usageErrorf("MINICODE_DEMO_DELAY %q: %v (use e.g. 20ms)", d, err)
		}
	}
	if app.Opts.MockScript != "" {
		if mock.script, err = loadMockScript(app.Opts.MockScript); err != nil {
			return nil, err
		}
	}
	return mock, nil
}

// newPermissions builds the permission check from the mode, the rules and
// the saved answers; with -p nobody is asked, unless a program answers.
func (app *App) newPermissions(dirs []string) (*Permissions, error) {
	mode, err := parsePermissionMode(cmp.Or(app.Opts.PermissionMode, app.Settings.Permissions.DefaultMode))
	if err != nil {
		return nil, UsageError{err}
	}
	cfg := PermissionConfig{Mode: mode, Workspace: app.Workspace, Home: userHome(app.getenv), TempDir: app.Sandbox.TempDir, HidesDenied: app.Sandbox.Holds,
		ResultsDir: func() string { return app.Env.ResultsDir }, Settings: app.Settings.ruleSets,
		ProjectFile: filepath.Join(app.Workspace, ".minicode", "permissions.json"), UserFile: filepath.Join(app.Home, "permissions.json"),
		AllowedTools: app.Opts.AllowedTools, DisallowedTools: app.Opts.DisallowedTools, AddDirs: dirs, RunOutside: app.runOutside,
		Notice: func(msg string) { fmt.Fprintln(app.stderr, msg) }}
	for _, skill := range app.Skills.Skills {
		cfg.ReadableDirs = append(cfg.ReadableDirs, skill.Dir)
	}
	if !app.Opts.Print || app.Opts.PermissionPromptTool != "" || app.Opts.Editor {
		cfg.Asker = app
	}
	perms, err := newPermissions(cfg)
	if err == nil {
		perms.SetAutoAllow(app.Settings.Sandbox.AutoAllowBashIfSandboxed && app.Sandbox.Holds())
	}
	return perms, err
}
