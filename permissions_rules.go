package main

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Rule is one permission rule, `tool` or `tool(specifier)` in minicode's
// or Claude Code's tool names: Read(src/**), edit_file(…), Edit(…),
// run_command(go test:*), Bash(go vet ./...), run_command(sandbox:false),
// WebFetch(domain:go.dev), mcp__github. Paths follow gitignore (see
// pathGlob); a rule without a specifier covers the workspace only.
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

// readingTools are the tools the Read alias covers.
var readingTools = []string{"read_file", "grep_files", "glob_files", "list_files"}

// String writes the rule back in the form it is parsed from.
func (r Rule) String() string {
	if r.Spec == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}

// ParseRule parses one rule from source; a malformed rule is an error
// naming what is wrong.
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
	if name == "" || strings.Trim(name, "_-.*abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "" {
		return Rule{}, fmt.Errorf("rule %q: tool name %q may hold only letters, digits, _ - . and *", text, name)
	}
	r := Rule{Tool: name, Spec: spec, Source: source}
	if c := claudeTools()[name]; c.rule != "" {
		r.Tool, r.Claude = c.rule, true
	}
	switch {
	case spec == "*" || spec == "**":
		r.Spec = ""
	case spec == ":*" || spec == "domain:":
		return Rule{}, fmt.Errorf("rule %q: empty command prefix or domain", text)
	case r.Tool == commandTool && r.Spec != "" && spec != unsandboxedRule:
		if _, _, err := commandSpec(spec); err != nil {
			return Rule{}, fmt.Errorf("rule %q: %w", text, err)
		}
	}
	return r, nil
}

// commandSpec parses the command a rule names: its words, and whether
// they are a prefix ("go test:*", or "go test *" as Claude Code writes it).
func commandSpec(spec string) ([]string, bool, error) {
	prefix := false
	for _, suffix := range []string{":*", " *"} {
		if s, ok := strings.CutSuffix(spec, suffix); ok {
			spec, prefix = s, true
		}
	}
	cmds, err := parseCommandLine(spec)
	if err != nil {
		return nil, false, fmt.Errorf("the command cannot be judged: %w", err)
	}
	if len(cmds) != 1 || len(cmds[0].Redirects) > 0 || len(cmds[0].Words) == 0 {
		return nil, false, errors.New("a rule names one command without redirections (each part of a chained command is judged on its own)")
	}
	return cmds[0].Words, prefix, nil
}

// ParseRuleList parses a comma-separated list of rules, as --allowedTools
// takes; commas inside parentheses belong to the rule.
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
	case r.Tool == readAlias:
		return slices.Contains(readingTools, tool)
	case r.Tool == tool:
		return true
	case strings.HasPrefix(r.Tool, "mcp__") && strings.Count(r.Tool, "__") == 1:
		return strings.HasPrefix(tool, r.Tool+"__")
	}
	ok, _ := path.Match(r.Tool, tool)
	return ok
}

// knownTool reports whether a rule's name can match a tool of known, an
// alias or an MCP tool.
func (r Rule) knownTool(known []string) bool {
	if r.Tool == editAlias || r.Tool == readAlias || strings.HasPrefix(r.Tool, "mcp__") {
		return true
	}
	return slices.ContainsFunc(known, func(t string) bool { ok, _ := path.Match(r.Tool, t); return ok })
}

// matchesPath reports whether the rule's glob covers an absolute path or
// a folder holding it.
func (r Rule) matchesPath(abs, workspace, home string, inside bool) bool {
	if r.Spec == "" {
		return inside
	}
	if strings.HasPrefix(r.Spec, "domain:") || r.Spec == unsandboxedRule {
		return false
	}
	glob := r.pathGlob(workspace, home)
	for p := abs; ; p = filepath.Dir(p) {
		if matchGlob(glob, p) {
			return true
		}
		if p == filepath.Dir(p) {
			return false
		}
	}
}

// pathGlob makes a rule's path an absolute glob: `x` or `./x` starts at
// the project (a name without a slash at any depth), `~/x` at home, `//x`
// is absolute, and `/x` absolute in minicode's names but at the project
// in Claude Code's.
func (r Rule) pathGlob(workspace, home string) string {
	spec, root := r.Spec, cmp.Or(r.Root, workspace)
	switch {
	case strings.HasPrefix(spec, "//"):
		spec = spec[1:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		spec = home + spec[1:]
	case strings.HasPrefix(spec, "/") && r.Claude:
		spec = root + spec
	case !strings.HasPrefix(spec, "/"):
		rel := strings.TrimPrefix(spec, "./")
		if !strings.Contains(strings.TrimSuffix(rel, "/"), "/") {
			rel = "**/" + rel
		}
		spec = root + "/" + rel
	}
	if strings.HasSuffix(spec, "/") {
		spec += "**"
	}
	return filepath.Clean(spec)
}

// matchesCommand reports whether an allow rule covers a simple command:
// "prefix:*" its leading words (without a risky flag), else all words.
func (r Rule) matchesCommand(cmd simpleCommand) bool {
	if r.Spec == "" {
		return true
	}
	want, prefix, err := commandSpec(r.Spec)
	if err != nil || r.Spec == unsandboxedRule {
		return false
	}
	if !prefix {
		return slices.Equal(cmd.Words, want)
	}
	return len(cmd.Words) >= len(want) && slices.Equal(cmd.Words[:len(want)], want) && riskyFlag(cmd.Words) == ""
}

// namesProgram reports whether a deny or ask rule covers a command: its
// first word is any of the command's programTokens, and the rest follow.
func (r Rule) namesProgram(cmd simpleCommand) bool {
	if r.Spec == "" {
		return true
	}
	want, _, err := commandSpec(r.Spec)
	if err != nil || r.Spec == unsandboxedRule {
		return false
	}
	tokens := programTokens(cmd)
	for i, t := range tokens {
		if t != filepath.Base(want[0]) {
			continue
		}
		rest := want[1:]
		for _, u := range tokens[i+1:] {
			if len(rest) > 0 && u == rest[0] {
				rest = rest[1:]
			}
		}
		if len(rest) == 0 {
			return true
		}
	}
	return false
}

// commandTool is the built-in tool that runs shell commands.
const commandTool = "run_command"

// matchesHost reports whether a rule covers a host: "domain:" the domain
// and its subdomains, no specifier every public host.
func (r Rule) matchesHost(host string) bool {
	if r.Spec == "" {
		return !privateHost(host)
	}
	domain, ok := strings.CutPrefix(r.Spec, "domain:")
	if !ok {
		return false
	}
	domain = normalHost(strings.TrimPrefix(domain, "*."))
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// escapeGlob quotes the glob characters of a literal path.
func escapeGlob(p string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`, `\`, `\\`).Replace(p)
}

// ruleFile is the format of permissions.json, where "always" answers are
// saved.
type ruleFile struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
}

// loadRuleFile reads a permissions.json; a missing file holds no rules, a
// malformed one is an error naming the file and the line or rule.
func loadRuleFile(file string) (allow, deny []Rule, err error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) || err == nil && strings.TrimSpace(string(data)) == "" {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", file, err)
	}
	var rf ruleFile
	if err := decodeStrict(data, &rf); err != nil {
		return nil, nil, fmt.Errorf("permissions file %s: %w", file, err)
	}
	if allow, err = parseRules(rf.Allow, file, ""); err == nil {
		deny, err = parseRules(rf.Deny, file, "")
	}
	return allow, deny, err
}

// parseRules parses lists of rules from source whose paths start at root.
func parseRules(lists []string, source, root string) ([]Rule, error) {
	var all []Rule
	for _, list := range lists {
		rules, err := ParseRuleList(list, source)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		for _, r := range rules {
			r.Root = root
			all = append(all, r)
		}
	}
	return all, nil
}

// addToRuleFile adds a rule to a permissions.json, creating it when
// needed; the file is replaced in one step.
func addToRuleFile(file string, r Rule, allow bool) error {
	rf := ruleFile{Allow: []string{}, Deny: []string{}} // shown as [] when empty
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
	out, err := json.MarshalIndent(rf, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", file, err)
	}
	if err := writeFileAtomic(file, append(out, '\n'), 0o644); err != nil {
		return fmt.Errorf("saving %s: %w", file, err)
	}
	return nil
}

// urlHost returns the normalised host of an address (see normalHost).
func urlHost(address string) (string, error) {
	u, err := url.Parse(address)
	if err != nil {
		return "", fmt.Errorf("parsing address %q: %w", address, err)
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("address %q has no host", address)
	}
	return normalHost(u.Hostname()), nil
}

// normalHost writes a host the one way rules compare it: lower case,
// localhost as 127.0.0.1, any literal IP address in its plain form.
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

// parseIPv4Literal reads an IPv4 address in any form inet_aton accepts:
// up to four parts, the last filling the remaining bytes.
func parseIPv4Literal(host string) (netip.Addr, bool) {
	parts := strings.Split(host, ".")
	var value uint64
	for i, part := range parts {
		n, err := strconv.ParseUint(part, 0, 32)
		limit, shift := uint64(255), 8*(3-i)
		if i == len(parts)-1 {
			limit, shift = 1<<(8*(5-len(parts)))-1, 0
		}
		if err != nil || part == "" || len(parts) > 4 || n > limit {
			return netip.Addr{}, false
		}
		value |= n << shift
	}
	return netip.AddrFrom4([4]byte(binary.BigEndian.AppendUint32(nil, uint32(value)))), true
}

// privateHost reports whether a normalised host is a loopback, private,
// link-local or unspecified address.
func privateHost(host string) bool {
	ip, err := netip.ParseAddr(host)
	return err == nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified())
}

// ReadDenyFolders are the folders Read deny rules name, for the sandbox
// to refuse too; one at or above the workspace is left to the check.
func ReadDenyFolders(sets []RuleSet, disallowed []string, workspace, home string) []string {
	var out []string
	for _, set := range withFlagRules(sets, nil, disallowed) {
		rules, _ := parseRules(set.Deny, set.Source, set.Project)
		for _, r := range rules {
			if folder := globFolder(r.pathGlob(workspace, home)); r.Spec != "" && (r.Tool == readAlias || r.Tool == "read_file") && !within(folder, workspace) {
				out = append(out, folder)
			}
		}
	}
	return out
}
