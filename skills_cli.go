package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// skillsUsage is the help text of `minicode skills`.
const skillsUsage = `Usage:
  minicode skills list                     list the skills in use, what they shadow, and invalid ones
  minicode skills add <path> [--project]   install the skill folder at <path>
  minicode skills remove <name> [--project] [--force]
                                           delete an installed skill

Skills are installed into $MINICODE_HOME/skills, or with --project into
.minicode/skills in the workspace. A skill that skills add did not install
is removed only with --force.
`

// runSkillsCommand runs `minicode skills ...`; home is $MINICODE_HOME.
func runSkillsCommand(args []string, stdout, stderr io.Writer, home, userHome, workspace string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, skillsUsage)
		return usageErrorf("minicode skills needs a subcommand: list, add or remove")
	}
	positional, set, err := commandArgs(args[1:], map[bool][]string{false: {"project"}, true: {"project", "force"}}[args[0] == "remove"]...)
	if err != nil {
		return err
	}
	project := set["project"]
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, skillsUsage)
		return nil
	case "list":
		if len(positional) > 0 || project {
			return usageErrorf("minicode skills list takes no arguments")
		}
		hidden, err := readHidden(home, userHome, workspace, stderr)
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, discoverSkills(home, userHome, workspace, hidden).Describe())
		return nil
	case "add", "remove":
		root := filepath.Join(workspace, ".minicode", "skills")
		switch {
		case len(positional) != 1:
			return usageErrorf("minicode skills %s needs exactly one argument, got %d", args[0], len(positional))
		case !project && home == "":
			return errors.New("no minicode home folder is known; set MINICODE_HOME or use --project")
		case !project:
			root = filepath.Join(home, "skills")
		}
		if args[0] == "add" {
			return addSkill(stdout, positional[0], root)
		}
		return removeSkill(stdout, positional[0], root, set["force"], discoverSkills(home, userHome, workspace, nil))
	}
	return usageErrorf("unknown skills subcommand %q; use list, add or remove", args[0])
}

// readHidden is what the model may not read here by the permission rules of the settings files, as the agent
// reads them: the project's deny and ask rules hold whether or not it is trusted. A broken file is told of.
func readHidden(home, userHome, workspace string, stderr io.Writer) (func(abs string) bool, error) {
	layers, _ := loadSettings(home, userHome, workspace, nil, nil, func(err error) { fmt.Fprintf(stderr, "minicode: %v; running without it\n", err) })
	perms, err := newPermissions(PermissionConfig{Workspace: workspace, Home: userHome, Settings: mergeSettings(layers, workspace, false).ruleSets})
	if err != nil {
		return nil, err
	}
	return perms.WalkFilter("read_file"), nil
}

// commandArgs separates a subcommand's boolean flags, --name for each of names, from its other arguments.
func commandArgs(args []string, names ...string) (positional []string, set map[string]bool, err error) {
	set = map[string]bool{}
	for _, a := range args {
		switch name := strings.TrimLeft(a, "-"); {
		case a != name && slices.Contains(names, name):
			set[name] = true
		case strings.HasPrefix(a, "-") && a != "-":
			return nil, nil, usageErrorf("unknown flag %s; the flags it takes: --%s", a, strings.Join(names, ", --"))
		default:
			positional = append(positional, a)
		}
	}
	return positional, set, nil
}

// installedMark is the file skills add leaves in a skill it installs, naming where it came from.
const installedMark = ".installed-by-minicode"

// addSkill copies the skill folder at src into root, staged beside its place and renamed in.
func addSkill(stdout io.Writer, src, root string) error {
	src, err := filepath.Abs(src)
	info, statErr := os.Stat(src)
	if err = cmp.Or(err, statErr); err != nil {
		return fmt.Errorf("cannot add %s: %w", src, err)
	}
	if !info.IsDir() {
		src = filepath.Dir(src)
	}
	skill := readSkill(src, "source")
	if skill.Problem != "" {
		return fmt.Errorf("%s is not a valid skill: %s", skill.Path, skill.Problem)
	}
	if holdsFolder(src, root) {
		return fmt.Errorf("cannot add %s: the skills folder %s is inside it", src, root)
	}
	dest := filepath.Join(root, skill.Name)
	if _, err := os.Lstat(dest); err == nil {
		return fmt.Errorf("a skill named %q is already installed at %s; remove it first with `minicode skills remove %s`", skill.Name, dest, skill.Name)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", root, err)
	}
	tmp, err := os.MkdirTemp(root, ".adding-")
	if err != nil {
		return fmt.Errorf("creating a folder in %s: %w", root, err)
	}
	defer os.RemoveAll(tmp)
	staged := filepath.Join(tmp, skill.Name)
	err = os.CopyFS(staged, os.DirFS(src))
	if err = cmp.Or(err, os.WriteFile(filepath.Join(staged, installedMark), []byte(src+"\n"), 0o644)); err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if err := os.Rename(staged, dest); err != nil {
		return fmt.Errorf("installing into %s: %w", dest, err)
	}
	fmt.Fprintf(stdout, "Added skill %q to %s\n", skill.Name, dest)
	for _, w := range readSkill(dest, "installed").Warnings { // of the copy that loads, which is named after the skill
		fmt.Fprintf(stdout, "warning: %s\n", w)
	}
	return nil
}

// holdsFolder reports whether dir, symlinks resolved, is path or holds it.
func holdsFolder(dir, path string) bool {
	realDir, dirErr := filepath.EvalSymlinks(dir)
	absPath, absErr := filepath.Abs(path)
	realPath, err := resolveExisting(absPath)
	return cmp.Or(dirErr, absErr, err) == nil && within(realDir, realPath)
}

// removeSkill deletes the skill called name, by folder name or by SKILL.md name, from root; one that
// skills add did not install (someone's own work, maybe) goes only with force. found names where it is instead.
func removeSkill(stdout io.Writer, name, root string, force bool, found *SkillSet) error {
	dir := ""
	if _, err := os.Stat(filepath.Join(root, name, "SKILL.md")); err == nil && filepath.Base(name) == name && name != "." && name != ".." {
		dir = filepath.Join(root, name)
	} else if s := skillNamed(new(SkillSet).scanRoot(root, ""), name); s != nil {
		dir = s.Dir
	}
	if _, err := os.Stat(filepath.Join(dir, installedMark)); dir != "" && err != nil && !force {
		return fmt.Errorf("%s was not installed by `minicode skills add`, so it may be the only copy of someone's work; add --force to delete it", dir)
	}
	if s := found.find(name); dir == "" && s != nil {
		return fmt.Errorf("no skill named %q is installed in %s; the %s skill %s is at %s", name, root, s.Source, name, s.Dir)
	} else if dir == "" {
		return fmt.Errorf("no skill named %q is installed in %s", name, root)
	}
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", dir, err)
	}
	fmt.Fprintf(stdout, "Removed skill %q from %s\n", name, dir)
	return nil
}
