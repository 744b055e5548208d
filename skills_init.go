package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// /init looks at a project and writes a starter AGENTS.md: the languages
// it is written in, the commands that build and test it, and a few
// conventions, so that every later session starts knowing them. The file
// is written through the permission check, like any edit, and an existing
// AGENTS.md is never overwritten.

// maxInitScanFiles bounds how many files /init looks at to count languages.
const maxInitScanFiles = 5000

// projectFacts is what /init learned about a project.
type projectFacts struct {
	Languages []string // e.g. "Go (12 files)", most files first
	Module    string   // the Go module path, when there is one
	Commands  []string // "Build: `go build ./...`" and the like
	Layout    []string // top-level folders
	Notes     []string // other things worth knowing
}

// languageByExt names the language of a file extension.
func languageByExt(ext string) string {
	switch ext {
	case ".go":
		return "Go"
	case ".ts", ".tsx":
		return "TypeScript"
	case ".js", ".jsx", ".mjs", ".cjs":
		return "JavaScript"
	case ".py":
		return "Python"
	case ".rs":
		return "Rust"
	case ".java":
		return "Java"
	case ".kt", ".kts":
		return "Kotlin"
	case ".rb":
		return "Ruby"
	case ".c", ".h":
		return "C"
	case ".cc", ".cpp", ".cxx", ".hpp":
		return "C++"
	case ".cs":
		return "C#"
	case ".swift":
		return "Swift"
	case ".php":
		return "PHP"
	case ".sh", ".bash":
		return "Shell"
	case ".lua":
		return "Lua"
	case ".zig":
		return "Zig"
	}
	return ""
}

// inspectProject gathers the facts /init writes down.
func inspectProject(ctx context.Context, workspace string) projectFacts {
	var f projectFacts
	f.Languages = countLanguages(ctx, workspace)
	f.Layout = topFolders(workspace)
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(workspace, name))
		return err == nil
	}
	if exists("go.mod") {
		f.Module = goModule(filepath.Join(workspace, "go.mod"))
		f.Commands = append(f.Commands, "Build: `go build ./...`", "Test: `go test ./...`", "Vet: `go vet ./...`", "Format: `gofmt -w .`")
	}
	if exists("package.json") {
		f.Commands = append(f.Commands, npmCommands(workspace, exists)...)
	}
	if exists("Cargo.toml") {
		f.Commands = append(f.Commands, "Build: `cargo build`", "Test: `cargo test`", "Lint: `cargo clippy`")
	}
	if exists("pyproject.toml") || exists("setup.py") || exists("requirements.txt") {
		f.Commands = append(f.Commands, pythonCommands(exists)...)
	}
	if exists("pom.xml") {
		f.Commands = append(f.Commands, "Build: `mvn -q package`", "Test: `mvn test`")
	}
	if exists("build.gradle") || exists("build.gradle.kts") {
		gradle := "gradle"
		if exists("gradlew") {
			gradle = "./gradlew"
		}
		f.Commands = append(f.Commands, "Build: `"+gradle+" build`", "Test: `"+gradle+" test`")
	}
	if exists("CMakeLists.txt") {
		f.Commands = append(f.Commands, "Build: `cmake -B build && cmake --build build`", "Test: `ctest --test-dir build`")
	}
	if targets := makeTargets(filepath.Join(workspace, "Makefile")); len(targets) > 0 {
		f.Commands = append(f.Commands, "Make targets: "+strings.Join(targets, ", ")+" (run as `make <target>`)")
	}
	if exists(".github/workflows") {
		f.Notes = append(f.Notes, "CI is configured in .github/workflows; keep it passing.")
	}
	return f
}

// countLanguages counts source files by language, skipping hidden,
// dependency and build folders and those it cannot read, and returns
// "Language (n files)" entries, most files first.
func countLanguages(ctx context.Context, workspace string) []string {
	counts := map[string]int{}
	seen := 0
	filepath.WalkDir(workspace, func(path string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil || seen >= maxInitScanFiles {
			return filepath.SkipAll
		}
		if err != nil {
			return nil // an unreadable folder is passed over; the walk goes on
		}
		name := d.Name()
		if d.IsDir() {
			if path != workspace && (strings.HasPrefix(name, ".") || skippedFolder(name)) {
				return filepath.SkipDir
			}
			return nil
		}
		seen++
		if lang := languageByExt(filepath.Ext(name)); lang != "" {
			counts[lang]++
		}
		return nil
	})
	langs := make([]string, 0, len(counts))
	for lang := range counts {
		langs = append(langs, lang)
	}
	sort.Slice(langs, func(a, b int) bool {
		if counts[langs[a]] != counts[langs[b]] {
			return counts[langs[a]] > counts[langs[b]]
		}
		return langs[a] < langs[b]
	})
	out := make([]string, len(langs))
	for i, lang := range langs {
		out[i] = fmt.Sprintf("%s (%d files)", lang, counts[lang])
		if counts[lang] == 1 {
			out[i] = lang + " (1 file)"
		}
	}
	return out
}

// skippedFolder reports whether a folder holds dependencies or build
// output rather than the project's own code.
func skippedFolder(name string) bool {
	switch name {
	case "node_modules", "vendor", "target", "dist", "build", "__pycache__", "venv":
		return true
	}
	return false
}

// topFolders lists the workspace's visible top-level folders.
func topFolders(workspace string) []string {
	entries, err := os.ReadDir(workspace)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !skippedFolder(e.Name()) {
			dirs = append(dirs, e.Name()+"/")
		}
	}
	return dirs
}

// goModule reads the module path from a go.mod file.
func goModule(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// npmCommands reads package.json's scripts and names the commands to run
// them with the package manager the lock file shows.
func npmCommands(workspace string, exists func(string) bool) []string {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	data, err := os.ReadFile(filepath.Join(workspace, "package.json"))
	if err != nil || json.Unmarshal(data, &pkg) != nil {
		return []string{"package.json could not be read; check its scripts by hand"}
	}
	run := "npm run"
	for _, lock := range [][2]string{{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"bun.lock", "bun run"}, {"bun.lockb", "bun run"}} {
		if exists(lock[0]) {
			run = lock[1]
			break
		}
	}
	var cmds, others []string
	labels := map[string]string{"build": "Build", "test": "Test", "lint": "Lint", "typecheck": "Type check", "format": "Format"}
	names := make([]string, 0, len(pkg.Scripts))
	for name := range pkg.Scripts {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "test" && strings.Contains(pkg.Scripts[name], "no test specified") {
			continue
		}
		if label, ok := labels[name]; ok {
			cmds = append(cmds, fmt.Sprintf("%s: `%s %s`", label, run, name))
		} else {
			others = append(others, name)
		}
	}
	if len(others) > 0 {
		cmds = append(cmds, fmt.Sprintf("Other scripts (`%s <name>`): %s", run, strings.Join(others, ", ")))
	}
	return cmds
}

// pythonCommands names the test command of a Python project, run through
// the environment manager its lock file shows.
func pythonCommands(exists func(string) bool) []string {
	prefix := ""
	switch {
	case exists("uv.lock"):
		prefix = "uv run "
	case exists("poetry.lock"):
		prefix = "poetry run "
	}
	return []string{"Test: `" + prefix + "pytest`"}
}

// makeTarget matches a Makefile rule line such as "test: build".
var makeTarget = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:([^=]|$)`)

// makeTargets lists the explicit targets of a Makefile, in file order,
// leaving out file rules such as "main.o: main.c".
func makeTargets(path string) []string {
	file, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer file.Close()
	var targets []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		if m := makeTarget.FindStringSubmatch(sc.Text()); m != nil && !seen[m[1]] && !strings.Contains(m[1], ".") {
			seen[m[1]] = true
			targets = append(targets, m[1])
		}
	}
	return targets
}

// starterAgents writes the AGENTS.md text for the facts found.
func starterAgents(f projectFacts) string {
	var b strings.Builder
	b.WriteString("# AGENTS.md\n\nInstructions for coding agents working in this project. Keep it short and current: it is read at the start of every session.\n\n## Project\n\n")
	if len(f.Languages) == 0 {
		b.WriteString("- No source files or build files were found when this file was written. Describe what the project is and how it is built here.\n")
	} else {
		fmt.Fprintf(&b, "- Languages: %s\n", strings.Join(f.Languages, ", "))
	}
	if f.Module != "" {
		fmt.Fprintf(&b, "- Go module: %s\n", f.Module)
	}
	if len(f.Layout) > 0 {
		fmt.Fprintf(&b, "- Top-level folders: %s\n", strings.Join(f.Layout, ", "))
	}
	if len(f.Commands) > 0 {
		b.WriteString("\n## Commands\n\n")
		for _, c := range f.Commands {
			fmt.Fprintf(&b, "- %s\n", c)
		}
	}
	b.WriteString("\n## Conventions\n\n")
	for _, n := range f.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	if len(f.Commands) > 0 {
		b.WriteString("- Run the tests after each change, and before calling a task done.\n")
	}
	b.WriteString("- Follow the style of the code around a change; keep changes small and focused.\n")
	return b.String()
}

// initAgentsFile writes a starter AGENTS.md into workspace and returns its
// content. It asks env.Perms first, showing the whole file as a diff; an
// existing AGENTS.md is left alone and reported as an error.
func initAgentsFile(ctx context.Context, env *ToolEnv, workspace string) (string, error) {
	path := filepath.Join(workspace, "AGENTS.md")
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("%s already exists; /init never overwrites it", path)
	}
	content := starterAgents(inspectProject(ctx, workspace))
	req := PermissionRequest{
		Tool:    "init",
		Access:  AccessWrite,
		Paths:   []string{path},
		Diff:    unifiedDiff("AGENTS.md", "", content),
		Summary: fmt.Sprintf("write a starter AGENTS.md (%d lines)", strings.Count(content, "\n")),
	}
	if env != nil && env.Perms != nil {
		if err := env.Perms.Authorize(ctx, req); err != nil {
			return "", err
		}
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("%s already exists; /init never overwrites it", path)
	}
	if err != nil {
		return "", fmt.Errorf("writing AGENTS.md: %w", err)
	}
	_, err = file.WriteString(content)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path) // a half-written file would stop the next /init
		return "", fmt.Errorf("writing AGENTS.md: %w", err)
	}
	return content, nil
}
