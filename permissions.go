package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Access is the kind of action a tool call wants to take.
type Access string

// The kinds of access a permission request can ask for.
const (
	AccessRead     Access = "read"     // reading files or listing folders
	AccessWrite    Access = "write"    // creating or changing files
	AccessExecute  Access = "execute"  // running a command
	AccessNetwork  Access = "network"  // fetching from the web
	AccessExternal Access = "external" // calling an MCP server's tool
)

// PermissionRequest describes one tool call for the permission check.
type PermissionRequest struct {
	Tool    string // filled in by the registry
	Access  Access
	Paths   []string // paths the call touches, as the model gave them
	Command string   // the shell command, for AccessExecute
	URL     string   // the address, for AccessNetwork
	Diff    string   // unified diff of the change, for AccessWrite
	Summary string   // one line saying what the call does
}

// Authorizer decides whether a tool call may run. A nil error allows it;
// an error denies it, and its text goes back to the model as the result.
type Authorizer interface {
	Authorize(ctx context.Context, req PermissionRequest) error
}

// PermissionMode is the user's standing choice of how much to allow.
type PermissionMode string

// The permission modes of SPEC §8.
const (
	ModeDefault     PermissionMode = "default"
	ModeAcceptEdits PermissionMode = "acceptEdits"
	ModePlan        PermissionMode = "plan"
	ModeBypass      PermissionMode = "bypassPermissions"
)

// Permissions is the permission check every tool call passes.
type Permissions struct {
	Mode      PermissionMode
	Workspace string
	// Headless is set when nobody can be asked: what would ask is denied.
	Headless bool
}

// Authorize allows reads inside the workspace, everything in bypass mode,
// and edits in acceptEdits mode; plan mode denies anything that changes
// something, and the rest is denied when nobody can be asked.
func (p *Permissions) Authorize(ctx context.Context, req PermissionRequest) error {
	switch {
	case p.Mode == ModeBypass:
		return nil
	case req.Access == AccessRead && p.inside(req.Paths):
		return nil
	case p.Mode == ModePlan && req.Access != AccessRead:
		return fmt.Errorf("permission denied: %s is not allowed in plan mode", req.Tool)
	case p.Mode == ModeAcceptEdits && req.Access == AccessWrite && p.inside(req.Paths):
		return nil
	}
	return fmt.Errorf("permission denied: %s needs approval and nobody can be asked; rerun with --permission-mode bypassPermissions to allow it", req.Tool)
}

// inside reports whether every path lies within the workspace.
func (p *Permissions) inside(paths []string) bool {
	for _, path := range paths {
		abs := path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(p.Workspace, path)
		}
		rel, err := filepath.Rel(p.Workspace, filepath.Clean(abs))
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return false
		}
	}
	return true
}
