package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The project's and the user's ($MINICODE_HOME) files of {"mcpServers": {...}}.
const (
	projectMCPFile = ".mcp.json"
	userMCPFile    = "mcp.json"
)

// mcpFile is the format of .mcp.json and mcp.json: each server by name, an MCPServerConfig.
type mcpFile struct {
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
}

// MCPServerConfig is a stdio Command, an HTTP URL (Type "http" or legacy "sse"), or Type "sdk".
type MCPServerConfig struct {
	Type             string            `json:"type,omitempty"`
	Command          string            `json:"command,omitempty"`
	Args             []string          `json:"args,omitempty"`
	Env              map[string]string `json:"env,omitempty"`
	Cwd              string            `json:"cwd,omitempty"`
	URL              string            `json:"url,omitempty"`
	Headers          map[string]string `json:"headers,omitempty"`
	StartupTimeoutMs int               `json:"startupTimeoutMs,omitempty"`
	TimeoutMs        int               `json:"timeoutMs,omitempty"`
	OAuth            *mcpOAuthConfig   `json:"oauth,omitempty"`

	Name     string           `json:"-"`
	Source   string           `json:"-"` // the file it came from
	Shadowed *MCPServerConfig `json:"-"` // the user's entry a project entry replaced
}

// isHTTP reports whether the server is reached over HTTP.
func (c MCPServerConfig) isHTTP() bool {
	return c.Type == "http" || c.Type == "sse" || c.Type == "streamable-http" || c.Command == "" && c.URL != ""
}

// startupTimeout is how long connecting and the handshake may take.
func (c MCPServerConfig) startupTimeout() time.Duration {
	return cmp.Or(time.Duration(max(c.StartupTimeoutMs, 0))*time.Millisecond, defaultMCPStartupTimeout)
}

// callTimeout is how long one request may go without an answer or progress.
func (c MCPServerConfig) callTimeout() time.Duration {
	return cmp.Or(time.Duration(max(c.TimeoutMs, 0))*time.Millisecond, defaultMCPCallTimeout)
}

// validate checks that the config describes a server that can be reached.
func (c MCPServerConfig) validate() error {
	switch {
	case c.isHTTP() && c.URL == "":
		return fmt.Errorf("MCP server %q: type %q needs a url", c.Name, c.Type)
	case c.Type == "sdk":
		return nil
	case !c.isHTTP() && c.Command == "":
		return fmt.Errorf("MCP server %q: needs a command (stdio) or a url (http)", c.Name)
	case c.Type != "" && c.Type != "stdio" && !c.isHTTP():
		return fmt.Errorf("MCP server %q: unknown type %q (use stdio, http or sse)", c.Name, c.Type)
	}
	return nil
}

// loadMCPConfig reads the user's servers, then the project's, which replace those of their name; a broken file or entry goes to skip, left out.
func loadMCPConfig(home, workspace string, skip func(error)) []MCPServerConfig {
	byName := map[string]MCPServerConfig{}
	for _, project := range []bool{false, true} {
		path := mcpConfigFile(home, workspace, project)
		data, err := readConfigFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			skip(err)
			continue
		}
		servers, broken := parseMCPServers(data, path)
		for _, err := range broken {
			skip(err)
		}
		for _, c := range servers {
			if old, ok := byName[c.Name]; ok {
				c.Shadowed = &old
			}
			byName[c.Name] = c
		}
	}
	return slices.SortedFunc(maps.Values(byName), func(a, b MCPServerConfig) int { return cmp.Compare(a.Name, b.Name) })
}

// parseMCPServers reads the mcpServers of a document from path, sorted by name, and what is broken: the document, or entries left out.
func parseMCPServers(data []byte, path string) (servers []MCPServerConfig, broken []error) {
	var file mcpFile
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, []error{fmt.Errorf("%s: %s", path, jsonError(err, data, 0))}
	}
	for _, name := range slices.Sorted(maps.Keys(file.MCPServers)) {
		raw := file.MCPServers[name]
		c, at := MCPServerConfig{Name: name, Source: path}, int64(bytes.Index(data, raw))
		if err := json.Unmarshal(raw, &c); err != nil {
			broken = append(broken, fmt.Errorf("%s: server %q: %s", path, name, jsonError(err, data, at)))
		} else if err := c.validate(); err != nil {
			broken = append(broken, fmt.Errorf("%s: line %d: %w", path, lineOf(data, at), err))
		} else {
			servers = append(servers, c)
		}
	}
	return servers, broken
}

// loadRunMCPServers returns the configured MCP servers (unless strict), then each --mcp-config value's, a later one
// replacing one of its name; only a broken --mcp-config value is an error.
func loadRunMCPServers(home, workspace string, flagValues []string, strict bool, skip func(error)) ([]MCPServerConfig, error) {
	var servers []MCPServerConfig
	if !strict {
		servers = loadMCPConfig(home, workspace, skip)
	}
	for _, v := range flagValues {
		data, path := []byte(v), "--mcp-config"
		if !strings.HasPrefix(strings.TrimSpace(v), "{") {
			var err error
			if data, err = os.ReadFile(v); err != nil {
				return nil, usageErrorf("--mcp-config: %v", err)
			}
			path = "--mcp-config " + v
		}
		given, broken := parseMCPServers(data, path)
		if len(broken) > 0 {
			return nil, UsageError{broken[0]}
		}
		for _, c := range given {
			c.Source = "--mcp-config"
			servers = slices.DeleteFunc(servers, func(old MCPServerConfig) bool { return old.Name == c.Name })
			servers = append(servers, c)
		}
	}
	return servers, nil
}

// mcpConfigFile picks the file `mcp add|remove` edits.
func mcpConfigFile(home, workspace string, project bool) string {
	if project {
		return filepath.Join(workspace, projectMCPFile)
	}
	return filepath.Join(home, userMCPFile)
}

// editMCPFile saves c as server name in a config file (replacing one only with force), or removes
// the server when c is nil, and the file with it when nothing else is left in it.
func editMCPFile(path, name string, c *MCPServerConfig, force bool) (found bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("reading %s: %w", path, err)
	}
	var entry json.RawMessage // nil removes the server
	if c != nil {
		entry, _ = encodeJSON(c, 0)
	}
	edited, old, err := editJSON(data, entry, "mcpServers", name)
	switch {
	case err != nil:
		return false, fmt.Errorf("%s: %s", path, jsonError(err, data, 0))
	case old != nil && c != nil && !force:
		compact, _ := encodeJSON(old, 0) // valid JSON
		return true, fmt.Errorf("an MCP server named %q is already in %s: %s; add --force to replace it, or remove it first with minicode mcp remove %s", name, path, compact, name)
	case old == nil && c == nil:
		return false, nil
	case c == nil && string(edited) == "{\n  \"mcpServers\": {}\n}\n":
		return true, os.Remove(path)
	}
	return old != nil, writeFileAtomic(path, edited, 0o600)
}

// varRef matches a ${VAR} or ${VAR:-default} reference.
var varRef = regexp.MustCompile(`\$\{[^}]*\}`)

// expandVars replaces ${VAR} with its value, and ${VAR:-default} with default if that is empty.
func expandVars(s string, lookup func(string) string) string {
	return varRef.ReplaceAllStringFunc(s, func(ref string) string {
		name, fallback, _ := strings.Cut(ref[2:len(ref)-1], ":-")
		return cmp.Or(lookup(name), fallback)
	})
}
