package main

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// loadRunMCPServers returns the configured MCP servers (unless strict), then
// each --mcp-config value's, a later one replacing one of its name.
func loadRunMCPServers(home, workspace string, flagValues []string, strict bool) ([]MCPServerConfig, error) {
	var servers []MCPServerConfig
	var err error
	if !strict {
		if servers, err = LoadMCPConfig(home, workspace); err != nil {
			return nil, err
		}
	}
	for _, v := range flagValues {
		var byName map[string]MCPServerConfig
		if strings.HasPrefix(strings.TrimSpace(v), "{") {
			byName, err = parseMCPServers([]byte(v), "--mcp-config")
		} else if byName, err = readMCPFile(v); err == nil && byName == nil {
			err = fmt.Errorf("--mcp-config: %s does not exist", v)
		}
		if err != nil {
			return nil, usageError{err}
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

// selectProjectServers applies the enabled and disabled lists to the project's
// .mcp.json servers (all skipped unless trusted), the user's taking their place.
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
