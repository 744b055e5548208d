package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Rule is one permission rule such as Read(src/**) or run_command(go test:*).
type Rule struct {
	Tool   string // tool name, wildcard pattern, mcp__server, Read or Edit
	Spec   string // what is inside the parentheses
	Source string // where the rule came from
	Root   string // the project relative paths start at; "" for the workspace
	Claude bool   // written with a Claude Code tool name, for / paths
}

// The aliases a rule can name instead of one tool.
const (
	editAlias = "Edit" // every call that writes files
	readAlias = "Read" // every reading tool
)

// String writes the rule back in the form it is parsed from.
func (r Rule) String() string {
	if r.Spec == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}

// parseRule parses one rule; a malformed one is an error saying why.
func parseRule(text, source string) (Rule, error) {
	text = strings.TrimSpace(text)
	name, spec, hasSpec := strings.Cut(text, "(")
	name, spec = strings.TrimSpace(name), strings.TrimSpace(strings.TrimSuffix(spec, ")"))
	r := Rule{Tool: name, Spec: spec, Source: source}
	if c, ok := claudeTools()[name]; ok {
		r.Tool, r.Claude = c.rule, true
	}
	if spec == "*" || spec == "**" {
		r.Spec = ""
	}
	_, _, err := r.command()
	switch {
	case hasSpec && !strings.HasSuffix(text, ")"):
		err = errors.New("missing closing parenthesis")
	case hasSpec && spec == "":
		err = fmt.Errorf("empty parentheses (write %q for the whole tool)", name)
	case name == "" || strings.Trim(name, "_-.*abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "":
		err = fmt.Errorf("tool name %q may hold only letters, digits, _ - . and *", name)
	case spec == ":*" || spec == "domain:":
		err = errors.New("empty command prefix or domain")
	case r.Tool != "run_command" || r.Spec == "" || r.Spec == unsandboxedRule:
		err = nil // only a command rule's specifier is a command
	}
	if err != nil {
		return Rule{}, fmt.Errorf("rule %q: %w", text, err)
	}
	return r, nil
}

// splitRuleList splits rules at commas and spaces outside parentheses: "Read Bash(go test:*),Edit" is three.
func splitRuleList(s string) []string {
	var rules []string
	depth, start := 0, 0
	for i, c := range s + "," {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0 && (c == ',' || unicode.IsSpace(c)) || i == len(s):
			if r := strings.TrimSpace(s[start:min(i, len(s))]); r != "" {
				rules = append(rules, r)
			}
			start = i + 1
		}
	}
	return rules
}

// command parses a rule's command: its words, and whether they are a prefix.
func (r Rule) command() ([]string, bool, error) {
	spec := strings.TrimSuffix(strings.TrimSuffix(r.Spec, ":*"), " *")
	cmds, err := parseCommandLine(spec)
	switch {
	case r.Spec == "" || r.Spec == unsandboxedRule:
		return nil, false, errors.New("no command")
	case err != nil:
		return nil, false, fmt.Errorf("the command cannot be judged: %w", err)
	case len(cmds) != 1 || len(cmds[0].Redirects) > 0:
		return nil, false, errors.New("a rule names one command without redirections (each part of a chained command is judged on its own)")
	}
	return cmds[0].Words, spec != r.Spec, nil
}

// matchesTool reports whether the rule's name covers a request's tool.
func (r Rule) matchesTool(tool string, access Access) bool {
	switch {
	case r.Tool == editAlias:
		return access == AccessWrite
	case r.Tool == readAlias:
		return slices.Contains([]string{"read_file", "grep_files", "glob_files", "list_files"}, tool)
	case strings.HasPrefix(r.Tool, "mcp__") && strings.Count(r.Tool, "__") == 1:
		return strings.HasPrefix(tool, r.Tool+"__")
	}
	ok, _ := path.Match(r.Tool, tool) // a name without * matches only itself
	return ok
}

// matchesCommand reports whether an allow rule covers a simple command.
func (r Rule) matchesCommand(cmd simpleCommand) bool {
	want, prefix, err := r.command()
	if r.Spec == "" || err != nil || !prefix {
		return r.Spec == "" || err == nil && slices.Equal(cmd.Words, want)
	}
	return len(cmd.Words) >= len(want) && slices.Equal(cmd.Words[:len(want)], want) && riskyFlag(cmd.Words, flagSet{}) == ""
}

// namesProgram reports whether a deny or ask rule names a command's program: all its words are the command's.
func (r Rule) namesProgram(cmd simpleCommand) bool {
	want, _, err := r.command()
	if r.Spec == "" || err != nil {
		return r.Spec == ""
	}
	var tokens []string // the base names of every word and piece of a word (`bash -c 'curl x'`)
	for _, w := range cmd.Words {
		for _, t := range strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()<>`$'\"{},=", r) }) {
			tokens = append(tokens, filepath.Base(t))
		}
	}
	return slices.Contains(tokens, filepath.Base(want[0])) && !slices.ContainsFunc(want[1:], func(w string) bool { return !slices.Contains(tokens, w) })
}

// parseRules parses lists of rules (split as splitRuleList splits them) with paths from root.
func parseRules(lists []string, source, root string) ([]Rule, error) {
	var rules []Rule
	for _, list := range lists {
		for _, item := range splitRuleList(list) {
			r, err := parseRule(item, source)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", source, err)
			}
			r.Root = root
			rules = append(rules, r)
		}
		if strings.Count(list, "(") != strings.Count(list, ")") {
			return nil, fmt.Errorf("%s: rule list %q: unbalanced parentheses", source, list)
		}
	}
	return rules, nil
}

// coversHost reports whether a domain: rule names the host or a domain above it.
func (r Rule) coversHost(host string) bool {
	domain, ok := strings.CutPrefix(r.Spec, "domain:")
	domain = normalHost(strings.TrimPrefix(domain, "*."))
	return ok && (host == domain || strings.HasSuffix(host, "."+domain))
}

// normalHost writes a host, localhost and IP literals too, one way only.
func normalHost(host string) string {
	host = strings.TrimSuffix(strings.Trim(strings.ToLower(host), "[]"), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "127.0.0.1"
	}
	if ip, ok := parseIPv4Literal(host); ok {
		return ip.String()
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap().WithZone("").String()
	}
	return host
}

// parseIPv4Literal reads an IPv4 address in any form inet_aton accepts.
func parseIPv4Literal(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	var value uint64
	for i, part := range parts {
		n, err := strconv.ParseUint(part, 0, 32)
		bits := 8 // a byte each, the last part the rest
		if i == len(parts)-1 {
			bits = 8 * (5 - len(parts))
		}
		if err != nil || len(parts) > 4 || n >= 1<<bits {
			return netip.Addr{}, false
		}
		value = value<<bits | n
	}
	return netip.AddrFrom4([4]byte(binary.BigEndian.AppendUint32(nil, uint32(value)))), true
}

// privateHost reports whether a host is a loopback, private (also 100.64/10, shared by NAT and VPNs) or link-local address.
func privateHost(host string) bool {
	ip, err := netip.ParseAddr(host)
	return err == nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(ip))
}

// claudeTool is what one of Claude Code's tool names stands for. Programs
// that drive minicode (hooks, SDK applications, stream-json readers) see these
// names and keys; the model sees minicode's, which say what each tool does.
type claudeTool struct {
	tools []string    // what the name stands for in hook matchers, tool lists and --tools; programs see the first by it
	rule  string      // what a permission rule with the name covers: one tool, or the Read or Edit alias
	keys  [][2]string // minicode's input keys and Claude Code's ("!": the boolean turned around)
}

// claudeTools maps Claude Code's tool names to minicode's, the one table of the translation both ways.
func claudeTools() map[string]claudeTool {
	path, id := [][2]string{{"path", "file_path"}}, [][2]string{{"id", "task_id"}}
	return map[string]claudeTool{
		"Bash":             {[]string{"run_command", "command_output", "command_kill"}, "run_command", [][2]string{{"timeout_ms", "timeout"}, {"sandbox", "!dangerouslyDisableSandbox"}}},
		"TaskOutput":       {[]string{"command_output"}, "command_output", id},
		"TaskStop":         {[]string{"command_kill"}, "command_kill", id},
		"Read":             {[]string{"read_file"}, readAlias, path},
		"Write":            {[]string{"write_file"}, editAlias, path},
		"Edit":             {[]string{"edit_file", "patch_file"}, editAlias, path},
		"MultiEdit":        {[]string{"patch_file"}, editAlias, path},
		"NotebookEdit":     {nil, editAlias, nil},
		"Glob":             {[]string{"glob_files"}, "glob_files", nil},
		"Grep":             {[]string{"grep_files"}, "grep_files", [][2]string{{"ignore_case", "-i"}, {"limit", "head_limit"}}},
		"LS":               {[]string{"list_files"}, "list_files", nil},
		"WebFetch":         {[]string{"web_fetch"}, "web_fetch", nil},
		"WebSearch":        {[]string{"web_search"}, "web_search", nil},
		"Task":             {[]string{"task"}, "task", nil},
		"Skill":            {[]string{"load_skill"}, "Skill", [][2]string{{"name", "skill"}}},
		"TodoWrite":        {[]string{"todo_write"}, "todo_write", nil},
		"ExitPlanMode":     {[]string{"exit_plan_mode"}, "exit_plan_mode", nil},
		"StructuredOutput": {[]string{"structured_output"}, "structured_output", nil},
	}
}

// minicodeToolNames returns the minicode tools a minicode or Claude Code name stands for.
func minicodeToolNames(name string) []string {
	if ours := claudeTools()[name].tools; ours != nil {
		return ours
	}
	return []string{name}
}

// toolNamesFor returns a minicode tool's names: its own and Claude Code's.
func toolNamesFor(tool string) []string {
	names := []string{tool}
	for claude, c := range claudeTools() {
		if slices.Contains(c.tools, tool) {
			names = append(names, claude)
		}
	}
	return names
}

// claudeName is the name programs see for a minicode tool.
func claudeName(tool string) string {
	for claude, c := range claudeTools() {
		if len(c.tools) > 0 && c.tools[0] == tool {
			return claude
		}
	}
	return tool
}

// claudeCall is a minicode call in Claude Code's tool name and input keys, a relative file_path made absolute.
func claudeCall(tool string, input json.RawMessage, workspace string) (string, json.RawMessage) {
	name := claudeName(tool)
	fields, ok := renamedKeys(input, claudeTools()[name].keys, 0)
	if !ok {
		return name, input
	}
	var path string
	if json.Unmarshal(fields["file_path"], &path) == nil && path != "" && !filepath.IsAbs(path) {
		fields["file_path"], _ = json.Marshal(inputPath(&ToolEnv{Workspace: workspace}, path))
	}
	input, _ = json.Marshal(fields) // decoded JSON always encodes
	return name, input
}

// minicodeInput is a minicode tool's input from one a program wrote in Claude Code's keys (an updatedInput).
func minicodeInput(tool string, input json.RawMessage) json.RawMessage {
	if fields, ok := renamedKeys(input, claudeTools()[claudeName(tool)].keys, 1); ok {
		input, _ = json.Marshal(fields)
	}
	return input
}

// renamedKeys decodes a JSON object and renames its keys by the pairs, from
// the pair's key at index from to the other; false if it is not an object.
func renamedKeys(raw json.RawMessage, pairs [][2]string, from int) (map[string]json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if len(pairs) == 0 || json.Unmarshal(raw, &fields) != nil || fields == nil {
		return nil, false
	}
	for _, p := range pairs {
		old, name := strings.TrimPrefix(p[from], "!"), strings.TrimPrefix(p[1-from], "!")
		v, ok := fields[old]
		if b, err := strconv.ParseBool(string(v)); err == nil && strings.HasPrefix(p[1], "!") {
			v = strconv.AppendBool(nil, !b)
		}
		if ok {
			delete(fields, old)
			fields[name] = v
		}
	}
	return fields, true
}
