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
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// /init looks at a project and writes a starter AGENTS.md: its languages, build and test commands, conventions.

// maxInitScanFiles bounds how many files /init looks at to count languages.
const maxInitScanFiles = 5000

// projectCommands lists the commands the project's build files name.
func projectCommands(workspace string) []string {
	has := func(names ...string) bool {
		return slices.ContainsFunc(names, func(name string) bool {
			_, err := os.Stat(filepath.Join(workspace, name))
			return err == nil
		})
	}
	first := func(otherwise string, markerThenValue ...string) string {
		for i := 0; i < len(markerThenValue); i += 2 {
			if has(markerThenValue[i]) {
				return markerThenValue[i+1]
			}
		}
		return otherwise
	}
	var cmds []string
	add := func(marked bool, lines ...string) {
		if marked {
			cmds = append(cmds, lines...)
		}
	}
	add(has("go.mod"), "Build: `go build ./...`", "Test: `go test ./...`", "Vet: `go vet ./...`", "Format: `gofmt -w .`")
	add(has("package.json"), npmCommands(workspace, first("npm run", "pnpm-lock.yaml", "pnpm", "yarn.lock", "yarn", "bun.lock", "bun run", "bun.lockb", "bun run"))...)
	add(has("Cargo.toml"), "Build: `cargo build`", "Test: `cargo test`", "Lint: `cargo clippy`")
	add(has("pyproject.toml", "setup.py", "requirements.txt"), "Test: `"+first("", "uv.lock", "uv run ", "poetry.lock", "poetry run ")+"pytest`")
	add(has("pom.xml"), "Build: `mvn -q package`", "Test: `mvn test`")
	gradle := first("gradle", "gradlew", "./gradlew")
	add(has("build.gradle", "build.gradle.kts"), "Build: `"+gradle+" build`", "Test: `"+gradle+" test`")
	add(has("CMakeLists.txt"), "Build: `cmake -B build && cmake --build build`", "Test: `ctest --test-dir build`")
	var targets []string // of rules like "test: build", not file rules like "main.o: main.c"
	makefile, _ := os.ReadFile(filepath.Join(workspace, "Makefile"))
	for _, m := range regexp.MustCompile(`(?m)^([A-Za-z0-9][A-Za-z0-9_-]*)[ \t]*:([^=]|$)`).FindAllSubmatch(makefile, -1) {
		targets = appendNew(targets, string(m[1]))
	}
	add(len(targets) > 0, "Make targets: "+strings.Join(targets, ", ")+" (run as `make <target>`)")
	return cmds
}

// countLanguages counts the project's own source files by language, most first.
func countLanguages(ctx context.Context, workspace string) []string {
	language := map[string]string{".go": "Go", ".ts": "TypeScript", ".tsx": "TypeScript", ".js": "JavaScript", ".jsx": "JavaScript",
		".mjs": "JavaScript", ".cjs": "JavaScript", ".py": "Python", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin",
		".rb": "Ruby", ".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".hpp": "C++", ".cs": "C#",
		".swift": "Swift", ".php": "PHP", ".sh": "Shell", ".bash": "Shell", ".lua": "Lua", ".zig": "Zig"}
	counts, seen := map[string]int{}, 0
	walkTree(ctx, workspace, workspace, nil, func(rel string, d fs.DirEntry) error {
		switch {
		case seen >= maxInitScanFiles:
			return fs.SkipAll
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") || skippedFolder(d.Name())):
			return fs.SkipDir
		case !d.IsDir():
			seen++
			counts[language[path.Ext(rel)]]++
		}
		return nil
	})
	delete(counts, "") // files of no language
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

// starterAgents writes the AGENTS.md text for the project in workspace.
func starterAgents(ctx context.Context, workspace string) string {
	var b strings.Builder
	b.WriteString("# AGENTS.md\n\nInstructions for coding agents working in this project. Keep it short and current: it is read at the start of every session.\n\n## Project\n\n")
	if langs := countLanguages(ctx, workspace); len(langs) == 0 {
		b.WriteString("- No source files or build files were found when this file was written. Describe what the project is and how it is built here.\n")
	} else {
		fmt.Fprintf(&b, "- Languages: %s\n", strings.Join(langs, ", "))
	}
	gomod, _ := os.ReadFile(filepath.Join(workspace, "go.mod")) // no go.mod, no module
	if m := regexp.MustCompile(`(?m)^\s*module\s+"?([^"\s]+)`).FindSubmatch(gomod); m != nil {
		fmt.Fprintf(&b, "- Go module: %s\n", m[1])
	}
	var dirs []string // the visible top-level folders
	entries, _ := os.ReadDir(workspace)
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !skippedFolder(e.Name()) {
			dirs = append(dirs, e.Name()+"/")
		}
	}
	if len(dirs) > 0 {
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

// initAgentsFile writes a starter AGENTS.md through the permission check, never over an existing one.
func initAgentsFile(ctx context.Context, env *ToolEnv, workspace string) (string, error) {
	path := filepath.Join(workspace, "AGENTS.md")
	exists := fmt.Errorf("%s already exists; /init never overwrites it", path)
	if _, err := os.Lstat(path); err == nil {
		return "", exists
	}
	content := starterAgents(ctx, workspace)
	req := PermissionRequest{Tool: "init", Access: AccessWrite, Paths: []string{path}, Diff: unifiedDiff("AGENTS.md", "", content),
		Summary: fmt.Sprintf("write a starter AGENTS.md (%d lines)", strings.Count(content, "\n")), ByUser: true}
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
