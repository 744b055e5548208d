package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Rule is one permission rule, written `tool` or `tool(specifier)`:
//
//	read_file                  every call of the tool (inside the workspace)
//	edit_file(src/**)          calls on paths matching a glob; relative globs
//	                           start at the workspace, ** crosses folders
//	read_file(/etc/*)          an absolute glob reaches outside the workspace
//	run_command(go test:*)     commands starting with the words "go test"
//	run_command(go vet ./...)  exactly this command
//	web_fetch(domain:go.dev)   fetches from go.dev or its subdomains
//	mcp__github__*             every tool of one MCP server (so does mcp__github)
//	Edit(src/**)               every tool that writes, on matching paths
//
// A rule names a tool exactly (or with * wildcards); the one alias, Edit,
// stands for every call that writes files, so that one rule covers
// edit_file, write_file and patch_file alike. A rule without a specifier
// covers paths inside the workspace only: reaching outside takes a rule
// whose glob names the outside place.
type Rule struct {
	Tool   string // tool name, wildcard pattern, mcp__server, or Edit
	Spec   string // what is inside the parentheses; "" for the whole tool
	Source string // where the rule came from, for messages and /permissions
}

// editAlias is the rule name that matches every call that writes files.
const editAlias = "Edit"

// String writes the rule back in the form it is parsed from.
func (r Rule) String() string {
	if r.Spec == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}

// ParseRule parses one rule. A malformed rule is an error naming what is
// wrong; source says where it came from.
func ParseRule(text, source string) (Rule, error) {
	text = strings.TrimSpace(text)
	name, spec, hasSpec := strings.Cut(text, "(")
	name = strings.TrimSpace(name)
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return Rule{}, fmt.Errorf("rule %q: missing closing parenthesis", text)
		}
		spec = strings.TrimSpace(strings.TrimSuffix(spec, ")"))
		if spec == "" {
			return Rule{}, fmt.Errorf("rule %q: empty parentheses (write %q for the whole tool)", text, name)
		}
	}
	if name == "" {
		return Rule{}, fmt.Errorf("rule %q: missing tool name", text)
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || r == '.' || r == '*' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return Rule{}, fmt.Errorf("rule %q: tool name %q may hold only letters, digits, _ - . and *", text, name)
		}
	}
	switch {
	case spec == "*" || spec == "**":
		spec = ""
	case spec == ":*":
		return Rule{}, fmt.Errorf("rule %q: empty command prefix before :*", text)
	case spec == "domain:":
		return Rule{}, fmt.Errorf("rule %q: empty domain", text)
	}
	if name == commandTool || strings.HasSuffix(spec, ":*") {
		if _, err := ruleCommand(strings.TrimSuffix(spec, ":*")); spec != "" && err != nil {
			return Rule{}, fmt.Errorf("rule %q: %w", text, err)
		}
	}
	return Rule{Tool: name, Spec: spec, Source: source}, nil
}

// ParseRuleList parses a comma-separated list of rules, as given to
// --allowedTools and --disallowedTools. Commas inside parentheses belong to
// the rule: "run_command(echo a,b),read_file" holds two rules.
func ParseRuleList(list, source string) ([]Rule, error) {
	var rules []Rule
	depth, start := 0, 0
	for i := 0; i <= len(list); i++ {
		if i < len(list) {
			switch list[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if list[i] != ',' || depth > 0 {
				continue
			}
		}
		if item := strings.TrimSpace(list[start:i]); item != "" {
			r, err := ParseRule(item, source)
			if err != nil {
				return nil, err
			}
			rules = append(rules, r)
		}
		start = i + 1
	}
	if depth != 0 {
		return nil, fmt.Errorf("rule list %q: unbalanced parentheses", list)
	}
	return rules, nil
}

// matchesTool reports whether the rule's name covers a request's tool.
func (r Rule) matchesTool(tool string, access Access) bool {
	switch {
	case r.Tool == editAlias:
		return access == AccessWrite
	case r.Tool == tool:
		return true
	case strings.HasPrefix(r.Tool, "mcp__") && strings.Count(r.Tool, "__") == 1:
		return strings.HasPrefix(tool, r.Tool+"__")
	}
	ok, _ := path.Match(r.Tool, tool)
	return ok
}

// matchesPath reports whether the rule's glob covers an absolute path.
// A rule without a specifier covers the workspace only.
func (r Rule) matchesPath(abs, workspace string, inside bool) bool {
	if r.Spec == "" {
		return inside
	}
	if strings.HasPrefix(r.Spec, "domain:") || strings.HasSuffix(r.Spec, ":*") {
		return false
	}
	return matchGlob(absGlob(r.Spec, workspace), abs)
}

// absGlob makes a rule's glob absolute: "~/" is the home folder, and a
// relative glob starts at the workspace.
func absGlob(glob, workspace string) string {
	if strings.HasPrefix(glob, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			glob = filepath.Join(home, glob[2:])
		}
	}
	if !filepath.IsAbs(glob) {
		glob = filepath.Join(workspace, glob)
	}
	return filepath.Clean(glob)
}

// matchesCommand reports whether the rule covers one simple command:
// "prefix:*" matches the command's leading words, anything else must equal
// all of its words. Both sides are compared word by word after quote
// removal, so `go  test` and `go test` are the same command, while
// `go testx` does not start with `go test`.
func (r Rule) matchesCommand(cmd shellCommand) bool {
	switch r.Spec {
	case "":
		return true
	case unsandboxedRule:
		return false
	}
	prefix, isPrefix := strings.CutSuffix(r.Spec, ":*")
	want, err := ruleCommand(prefix)
	if err != nil {
		return false
	}
	if isPrefix {
		return len(cmd.Words) >= len(want.Words) && slices.Equal(cmd.Words[:len(want.Words)], want.Words)
	}
	return slices.Equal(cmd.Words, want.Words) && slices.Equal(cmd.Redirects, want.Redirects)
}

// commandTool is the built-in tool that runs shell commands; its rules
// must name exactly one command.
const commandTool = "run_command"

// ruleCommand parses the command a rule names. It must be one command:
// a chained command is never matched as a whole, since each part of it is
// judged on its own.
func ruleCommand(spec string) (shellCommand, error) {
	cmds, err := splitCommands(spec)
	if err != nil {
		return shellCommand{}, fmt.Errorf("command cannot be parsed: %w", err)
	}
	var top []shellCommand
	for _, c := range cmds {
		if !c.Nested {
			top = append(top, c)
		}
	}
	if len(top) != 1 {
		return shellCommand{}, fmt.Errorf("a rule names one command, not %d (each part of a chained command is judged on its own)", len(top))
	}
	return top[0], nil
}

// matchesHost reports whether a "domain:" rule covers a host name: the
// domain itself or any of its subdomains. A rule without a specifier
// covers every host.
func (r Rule) matchesHost(host string) bool {
	if r.Spec == "" {
		return true
	}
	domain, ok := strings.CutPrefix(r.Spec, "domain:")
	if !ok {
		return false
	}
	domain = strings.ToLower(domain)
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// urlHost returns the lower-case host name of an address.
func urlHost(address string) (string, error) {
	u, err := url.Parse(address)
	if err != nil {
		return "", fmt.Errorf("parsing address %q: %w", address, err)
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("address %q has no host", address)
	}
	return strings.ToLower(u.Hostname()), nil
}

// escapeGlob quotes the glob characters of a literal path, so that a rule
// saved for one file matches that file only.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ruleFile is the format of permissions.json, where "always" answers are
// saved: {"allow": [rules], "deny": [rules]}.
type ruleFile struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
}

// loadRuleFile reads a permissions.json. A missing file holds no rules; a
// malformed one is an error naming the file and the line or the rule (the
// strict decoding is the settings files', decodeStrict).
func loadRuleFile(file string) (allow, deny []Rule, err error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", file, err)
	}
	var rf ruleFile
	if strings.TrimSpace(string(data)) == "" {
		return nil, nil, nil
	}
	if err := decodeStrict(data, &rf); err != nil {
		return nil, nil, fmt.Errorf("permissions file %s: %w", file, err)
	}
	if allow, err = parseRules(rf.Allow, file); err == nil {
		deny, err = parseRules(rf.Deny, file)
	}
	return allow, deny, err
}

// parseRules parses a list of rules that came from source.
func parseRules(texts []string, source string) ([]Rule, error) {
	rules := make([]Rule, 0, len(texts))
	for _, text := range texts {
		r, err := ParseRule(text, source)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// addToRuleFile saves a rule into a permissions.json, creating it (and
// its folder) when needed and leaving its other rules as they are. The
// file is replaced in one step, so a crash never leaves half of it.
func addToRuleFile(file string, r Rule, allow bool) error {
	var rf ruleFile
	data, err := os.ReadFile(file)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &rf); err != nil {
			return fmt.Errorf("reading %s: %w", file, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("reading %s: %w", file, err)
	}
	list := &rf.Deny
	if allow {
		list = &rf.Allow
	}
	if slices.Contains(*list, r.String()) {
		return nil
	}
	*list = append(*list, r.String())
	rf.Allow, rf.Deny = nonNil(rf.Allow), nonNil(rf.Deny)
	out, err := json.MarshalIndent(rf, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", file, err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("saving %s: %w", file, err)
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving %s: %w", file, err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return fmt.Errorf("saving %s: %w", file, err)
	}
	return nil
}

// nonNil returns list, or an empty list for nil, so that JSON shows [].
func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
