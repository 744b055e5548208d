package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// loadRunMCPServers returns the MCP servers of this run: those of the
// user's and the project's files (unless strict), then those of each
// --mcp-config value, a file or inline JSON; a later entry replaces an
// earlier one of the same name.
func loadRunMCPServers(home, workspace string, flagValues []string, strict bool) ([]MCPServerConfig, error) {
	var servers []MCPServerConfig
	if !strict {
		var err error
		if servers, err = LoadMCPConfig(home, workspace); err != nil {
			return nil, err
		}
	}
	for _, v := range flagValues {
		var (
			byName map[string]MCPServerConfig
			err    error
		)
		if strings.HasPrefix(strings.TrimSpace(v), "{") {
			byName, err = parseMCPServers([]byte(v), "--mcp-config")
		} else {
			byName, err = readMCPFile(v)
			if err == nil && byName == nil {
				err = fmt.Errorf("--mcp-config: %s does not exist", v)
			}
		}
		if err != nil {
			return nil, usageError{err.Error()}
		}
		for _, name := range slices.Sorted(maps.Keys(byName)) {
			c := byName[name]
			c.Name, c.Source = name, "--mcp-config"
			if err := c.validate(); err != nil {
				return nil, usageErrorf("--mcp-config: %v", err)
			}
			servers = slices.DeleteFunc(servers, func(old MCPServerConfig) bool { return old.Name == name })
			servers = append(servers, c)
		}
	}
	return servers, nil
}

// selectProjectServers applies the settings' lists to the servers of the
// project's .mcp.json: disabledMcpjsonServers are skipped; when
// enabledMcpjsonServers names some and enableAllProjectMcpServers is off,
// only those start. In an untrusted workspace every project server is
// skipped: a stdio one would run the project's code, an HTTP one would
// receive the user's ${VAR} values. A skipped project server gives way
// to the user's server of the same name, if any.
func selectProjectServers(servers []MCPServerConfig, s Settings, workspace string, trusted bool) []MCPServerConfig {
	projectFile := filepath.Join(workspace, projectMCPFile)
	onlyListed := len(s.EnabledMCPJSONServers) > 0 && !s.EnableAllProjectMCPServers
	var out []MCPServerConfig
	for _, c := range servers {
		skip := c.Source == projectFile && (!trusted ||
			slices.Contains(s.DisabledMCPJSONServers, c.Name) ||
			onlyListed && !slices.Contains(s.EnabledMCPJSONServers, c.Name))
		switch {
		case !skip:
			out = append(out, c)
		case c.Shadowed != nil:
			out = append(out, *c.Shadowed)
		}
	}
	return out
}
