package main

import (
	"cmp"
	"context"
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
)

// /init looks at a project and writes a starter AGENTS.md: its languages,
// build and test commands, conventions.

// maxInitScanFiles bounds how many files /init looks at to count languages.
const maxInitScanFiles = 5000

// languageByExt names the language of a file extension, "" for none.
func languageByExt(ext string) string {
	for _, l := range []struct{ name, exts string }{
		{"Go", ".go"}, {"TypeScript", ".ts .tsx"}, {"JavaScript", ".js .jsx .mjs .cjs"}, {"Python", ".py"},
		{"Rust", ".rs"}, {"Java", ".java"}, {"Kotlin", ".kt .kts"}, {"Ruby", ".rb"}, {"C", ".c .h"},
		{"C++", ".cc .cpp .cxx .hpp"}, {"C#", ".cs"}, {"Swift", ".swift"}, {"PHP", ".php"},
		{"Shell", ".sh .bash"}, {"Lua", ".lua"}, {"Zig", ".zig"},
	} {
		if slices.Contains(strings.Fields(l.exts), ext) {
			return l.name
		}
	}
	return ""
}

// projectCommands lists the commands the project's build files name.
func projectCommands(workspace string) []string {
	exists := func(names ...string) bool {
		return slices.ContainsFunc(names, func(name string) bool {
			_, err := os.Stat(filepath.Join(workspace, name))
			return err == nil
		})
	}
	pick := func(otherwise string, markerThenValue ...string) string {
		for i := 0; i < len(markerThenValue); i += 2 {
			if exists(markerThenValue[i]) {
				return markerThenValue[i+1]
			}
		}
		return otherwise
	}
	var cmds []string
	if exists("go.mod") {
		cmds = append(cmds, "Build: `go build ./...`", "Test: `go test ./...`", "Vet: `go vet ./...`", "Format: `gofmt -w .`")
	}
	if exists("package.json") {
		cmds = append(cmds, npmCommands(workspace, pick("npm run", "pnpm-lock.yaml", "pnpm", "yarn.lock", "yarn", "bun.lock", "bun run", "bun.lockb", "bun run"))...)
	}
	if exists("Cargo.toml") {
		cmds = append(cmds, "Build: `cargo build`", "Test: `cargo test`", "Lint: `cargo clippy`")
	}
	if exists("pyproject.toml", "setup.py", "requirements.txt") {
		cmds = append(cmds, "Test: `"+pick("", "uv.lock", "uv run ", "poetry.lock", "poetry run ")+"pytest`")
	}
	if exists("pom.xml") {
		cmds = append(cmds, "Build: `mvn -q package`", "Test: `mvn test`")
	}
	if gradle := pick("gradle", "gradlew", "./gradlew"); exists("build.gradle", "build.gradle.kts") {
		cmds = append(cmds, "Build: `"+gradle+" build`", "Test: `"+gradle+" test`")
	}
	if exists("CMakeLists.txt") {
		cmds = append(cmds, "Build: `cmake -B build && cmake --build build`", "Test: `ctest --test-dir build`")
	}
	if targets := makeTargets(filepath.Join(workspace, "Makefile")); len(targets) > 0 {
		cmds = append(cmds, "Make targets: "+strings.Join(targets, ", ")+" (run as `make <target>`)")
	}
	return cmds
}

// countLanguages counts the project's own source files by language, most
// first.
func countLanguages(ctx context.Context, workspace string) []string {
	counts := map[string]int{}
	seen := 0
	filepath.WalkDir(workspace, func(path string, d fs.DirEntry, err error) error {
		switch {
		case ctx.Err() != nil || seen >= maxInitScanFiles:
			return filepath.SkipAll
		case err != nil:
			return nil // an unreadable folder is passed over; the walk goes on
		case d.IsDir() && path != workspace && (strings.HasPrefix(d.Name(), ".") || skippedFolder(d.Name())):
			return filepath.SkipDir
		case !d.IsDir():
			seen++
			if lang := languageByExt(filepath.Ext(d.Name())); lang != "" {
				counts[lang]++
			}
		}
		return nil
	})
	langs := slices.SortedFunc(maps.Keys(counts), func(a, b string) int {
		return cmp.Or(counts[b]-counts[a], strings.Compare(a, b))
	})
	for i, lang := range langs {
		langs[i] = fmt.Sprintf("%s (%s)", lang, plural(counts[lang], "file", "files"))
	}
	return langs
}

// skippedFolder reports whether a folder holds dependencies or build output.
func skippedFolder(name string) bool {
	return slices.Contains([]string{"node_modules", "vendor", "target", "dist", "build", "__pycache__", "venv"}, name)
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
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// npmCommands names the commands that run package.json's scripts with run.
func npmCommands(workspace, run string) []string {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	data, err := os.ReadFile(filepath.Join(workspace, "package.json"))
	if err != nil || json.Unmarshal(data, &pkg) != nil {
		return []string{"package.json could not be read; check its scripts by hand"}
	}
	var cmds, others []string
	labels := map[string]string{"build": "Build", "test": "Test", "lint": "Lint", "typecheck": "Type check", "format": "Format"}
	for _, name := range slices.Sorted(maps.Keys(pkg.Scripts)) {
		if label, ok := labels[name]; ok && !(name == "test" && strings.Contains(pkg.Scripts[name], "no test specified")) {
			cmds = append(cmds, fmt.Sprintf("%s: `%s %s`", label, run, name))
		} else if !ok {
			others = append(others, name)
		}
	}
	if len(others) > 0 {
		cmds = append(cmds, fmt.Sprintf("Other scripts (`%s <name>`): %s", run, strings.Join(others, ", ")))
	}
	return cmds
}

// makeTarget matches a Makefile rule "test: build", not a file rule "main.o:
// main.c".
var makeTarget = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_-]*)\s*:([^=]|$)`)

// makeTargets lists the explicit targets of a Makefile, in file order.
func makeTargets(path string) []string {
	data, _ := os.ReadFile(path) // no Makefile, no targets
	var targets []string
	for line := range strings.Lines(string(data)) {
		if m := makeTarget.FindStringSubmatch(line); m != nil && !slices.Contains(targets, m[1]) {
			targets = append(targets, m[1])
		}
	}
	return targets
}

// starterAgents writes the AGENTS.md text for the project in workspace.
func starterAgents(ctx context.Context, workspace string) string {
	var b strings.Builder
	b.WriteString("# AGENTS.md\n\nInstructions for coding agents working in this project. Keep it short and current: it is read at the start of every session.\n\n## Project\n\n")
	if langs := countLanguages(ctx, workspace); len(langs) == 0 {
		b.WriteString("- No source files or build files were found when this file was written. Describe what the project is and how it is built here.\n")
	} else {
		fmt.Fprintf(&b, "- Languages: %s\n", strings.Join(langs, ", "))
	}
	if module := goModule(filepath.Join(workspace, "go.mod")); module != "" {
		fmt.Fprintf(&b, "- Go module: %s\n", module)
	}
	if dirs := topFolders(workspace); len(dirs) > 0 {
		fmt.Fprintf(&b, "- Top-level folders: %s\n", strings.Join(dirs, ", "))
	}
	cmds := projectCommands(workspace)
	if len(cmds) > 0 {
		fmt.Fprintf(&b, "\n## Commands\n\n- %s\n", strings.Join(cmds, "\n- "))
	}
	b.WriteString("\n## Conventions\n\n")
	if _, err := os.Stat(filepath.Join(workspace, ".github", "workflows")); err == nil {
		b.WriteString("- CI is configured in .github/workflows; keep it passing.\n")
	}
	if len(cmds) > 0 {
		b.WriteString("- Run the tests after each change, and before calling a task done.\n")
	}
	b.WriteString("- Follow the style of the code around a change; keep changes small and focused.\n")
	return b.String()
}

// initAgentsFile writes a starter AGENTS.md through the permission check,
// never over an existing one.
func initAgentsFile(ctx context.Context, env *ToolEnv, workspace string) (string, error) {
	path := filepath.Join(workspace, "AGENTS.md")
	exists := fmt.Errorf("%s already exists; /init never overwrites it", path)
	if _, err := os.Lstat(path); err == nil {
		return "", exists
	}
	content := starterAgents(ctx, workspace)
	req := PermissionRequest{
		Tool:    "init",
		Access:  AccessWrite,
		Paths:   []string{path},
		Diff:    unifiedDiff("AGENTS.md", "", content),
		Summary: fmt.Sprintf("write a starter AGENTS.md (%d lines)", strings.Count(content, "\n")),
	}
	if err := env.Perms.Authorize(ctx, req); err != nil {
		return "", err
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return "", exists
	}
	if err == nil {
		_, err = file.WriteString(content)
		if err = cmp.Or(err, file.Close()); err != nil {
			os.Remove(path) // a half-written file would stop the next /init
		}
	}
	if err != nil {
		return "", fmt.Errorf("writing AGENTS.md: %w", err)
	}
	return content, nil
}
