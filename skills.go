package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// A skill is a folder: a SKILL.md (front matter, instructions) and its files; the prompt lists skills and load_skill reads one.

// Limits of the skill format and of what skills may add to the prompt.
const (
	maxSkillNameLen        = 64
	maxSkillDescriptionLen = 1024
	maxSkillPromptBytes    = 8 * 1024 // the skills list in the system prompt
	maxSkillListedFiles    = 200      // files load_skill lists from a folder
)

// Skill is one SKILL.md as found on disk.
type Skill struct {
	Name         string
	Description  string
	AllowedTools []string
	Meta         map[string]any // every front matter key, as parsed
	Body         string
	Dir          string   // the skill's folder
	Path         string   // the SKILL.md file
	Source       string   // "project" or "user": which skills folder it came from
	Problem      string   // why the skill cannot be used; "" when it is valid
	Warnings     []string // things worth fixing that do not stop it loading
	passed       bool     // Problem is why the model may not see it (SkillSet.read), not a fault of the skill
}

// readSkill reads the SKILL.md in dir; a skill that cannot be used has Problem set.
func readSkill(dir, source string) *Skill {
	s := &Skill{Dir: dir, Path: filepath.Join(dir, "SKILL.md"), Source: source, Name: filepath.Base(dir)}
	data, err := readConfigFile(s.Path)
	if err != nil {
		s.Problem = fmt.Sprintf("reading SKILL.md: %v", err)
		return s
	}
	header, body, err := splitFrontMatter(data)
	if err == nil {
		s.Meta, s.Warnings = parseFrontMatter(header)
		err = s.applyFrontMatter(body)
	}
	if err != nil {
		s.Problem = err.Error()
		return s
	}
	s.Body = strings.TrimLeft(body, "\n")
	if folder := filepath.Base(dir); folder != s.Name {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the name %q does not match the folder name %q", s.Name, folder))
	}
	return s
}

// applyFrontMatter fills the skill's fields from Meta, lenient as Claude Code: broken rules are warnings.
func (s *Skill) applyFrontMatter(body string) error {
	if name, ok := s.Meta["name"].(string); ok && name != "" {
		s.Name = name
	}
	if err := checkSkillName(s.Name); err != nil {
		s.Warnings = append(s.Warnings, err.Error())
	}
	desc, _ := s.Meta["description"].(string)
	missing, fix := "the front matter has no description", "add one saying what the skill does and when to use it"
	if _, isList := s.Meta["description"].([]any); isList {
		missing, fix = "the description in "+s.Path+" is a list, not text", "write it on one line, or as a | or > block"
	}
	if desc = strings.TrimSpace(desc); desc == "" {
		desc = strings.TrimSpace(strings.TrimLeft(strings.SplitN(strings.TrimSpace(body), "\n", 2)[0], "# "))
		s.Warnings = append(s.Warnings, missing+": "+fix)
	}
	if desc == "" {
		return errors.New(missing + ", and the body no text to take one from")
	}
	if n := utf8.RuneCountInString(desc); n > maxSkillDescriptionLen {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the description is %d characters long; the limit is %d", n, maxSkillDescriptionLen))
	}
	if when, _ := s.Meta["when_to_use"].(string); strings.TrimSpace(when) != "" {
		desc += " When to use: " + strings.TrimSpace(when)
	}
	tools, err := allowedTools(s.Meta["allowed-tools"])
	s.Description, s.AllowedTools = desc, tools
	return err
}

// checkSkillName wants 1 to 64 lowercase letters, digits and single hyphens inside.
func checkSkillName(name string) error {
	if len(name) > maxSkillNameLen {
		return fmt.Errorf("the name %q is %d characters long; the limit is %d", name, len(name), maxSkillNameLen)
	}
	if strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return fmt.Errorf("the name %q may use only lowercase letters, digits and hyphens", name)
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") || strings.Contains(name, "--") {
		return fmt.Errorf("the name %q must not start or end with a hyphen or contain two in a row", name)
	}
	return nil
}

// allowedTools reads allowed-tools: a list, or names separated by spaces or commas.
func allowedTools(v any) ([]string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return splitRuleList(v), nil
	case []any:
		out := make([]string, len(v))
		for i, item := range v {
			out[i] = fmt.Sprint(item) // the front matter's list items are strings
		}
		return out, nil
	}
	return nil, errors.New("allowed-tools must be a list of tool names")
}

// SkillSet is every skill found: in use, shadowed by an earlier one of its name, or invalid.
type SkillSet struct {
	Skills   []*Skill            // in use, in discovery order
	Shadowed map[string][]*Skill // by name: skills hidden by the one in use
	Invalid  []*Skill            // Problem says why
	Passed   []*Skill            // passed over, as the model may not see them: Problem says why
	Searched []string            // the folders searched, in order

	hidden    func(abs string) bool // the files the permission rules keep from the model; nil: none
	workspace string                // where a file with more than one hard link is kept from it too
	project   string                // the folder a project skill must stay in: the repository root, else the workspace
}

// discoverSkills finds the skills for a workspace, first match winning: .minicode/skills and
// .claude/skills from the workspace up to the repository root, then the user's (home and userHome may be "").
// Like memory, it passes over the SKILL.md files the model may not see (SkillSet.read). A folder that is
// both the project's and the user's (the workspace is the home folder) is the user's.
func discoverSkills(home, userHome, workspace string, hidden func(abs string) bool) *SkillSet {
	workspace = filepath.Clean(workspace)
	realDir := func(dir string) string { real, _ := resolveExisting(dir); return cmp.Or(real, dir) }
	root, inRepo := findRepoRoot(workspace)
	set := &SkillSet{Shadowed: map[string][]*Skill{}, hidden: hidden, workspace: workspace, project: realDir(cmp.Or(root, workspace))}
	users := slices.DeleteFunc([]string{filepath.Join(home, "skills"), filepath.Join(userHome, ".claude", "skills")}, func(dir string) bool { return !filepath.IsAbs(dir) })
	scan := func(source string, dirs ...string) {
		for _, dir := range dirs {
			dir, real := filepath.Clean(dir), realDir(dir)
			same := func(d string) bool { return realDir(d) == real }
			if slices.ContainsFunc(set.Searched, same) {
				continue
			}
			set.Searched = append(set.Searched, dir)
			for _, s := range set.scanRoot(dir, map[bool]string{false: source, true: "user"}[slices.ContainsFunc(users, same)]) {
				switch {
				case s.passed:
					set.Passed = append(set.Passed, s)
				case s.Problem != "":
					set.Invalid = append(set.Invalid, s)
				case skillNamed(set.Skills, s.Name) != nil:
					set.Shadowed[s.Name] = append(set.Shadowed[s.Name], s)
				default:
					set.Skills = append(set.Skills, s)
				}
			}
		}
	}
	for d := workspace; ; d = filepath.Dir(d) {
		scan("project", filepath.Join(d, ".minicode", "skills"), filepath.Join(d, ".claude", "skills"))
		if !inRepo || d == root || d == filepath.Dir(d) {
			break
		}
	}
	scan("user", users...)
	return set
}

// scanRoot reads every skill folder directly inside root, in name order.
func (set *SkillSet) scanRoot(root, source string) []*Skill {
	entries, _ := os.ReadDir(root) // a missing folder holds no skills
	var skills []*Skill
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if strings.HasPrefix(e.Name(), ".") || !isDir(dir) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); !errors.Is(err, fs.ErrNotExist) {
			skills = append(skills, set.read(dir, source))
		}
	}
	return skills
}

// read reads the skill in dir, unless the model may not see it: Problem then says why. Its SKILL.md is a file
// the permission rules hide (hiddenReason), or a project skill's folder or SKILL.md links outside its project.
// Such a link is not followed, as the permissions let the model read a skill's real folder without asking:
// a repository's link to a folder of the user's would open all of it. A skill shared by projects belongs in
// the user's skills folder.
func (set *SkillSet) read(dir, source string) *Skill {
	path := filepath.Join(dir, "SKILL.md")
	real, _ := filepath.EvalSymlinks(path)
	realDir, _ := filepath.EvalSymlinks(dir)
	why := hiddenReason(set.hidden, set.workspace, path, real)
	if why == "" && source == "project" && real != "" && !(within(set.project, real) && within(set.project, realDir)) {
		why = "its folder or SKILL.md links outside the project"
	}
	if why != "" {
		return &Skill{Dir: dir, Path: path, Source: source, Name: filepath.Base(dir), Problem: why, passed: true}
	}
	return readSkill(dir, source)
}

// find returns the skill in use with the given name, else the invalid or passed over one, or nil.
func (set *SkillSet) find(name string) *Skill {
	return cmp.Or(skillNamed(set.Skills, name), skillNamed(set.Invalid, name), skillNamed(set.Passed, name))
}

// skillNamed returns the first of skills with the given name, or nil.
func skillNamed(skills []*Skill, name string) *Skill {
	if i := slices.IndexFunc(skills, func(s *Skill) bool { return s.Name == name }); i >= 0 {
		return skills[i]
	}
	return nil
}

// Names lists the names of the skills in use.
func (set *SkillSet) Names() []string {
	names := make([]string, len(set.Skills))
	for i, s := range set.Skills {
		names[i] = s.Name
	}
	return names
}

// Describe is the text of /skills and `minicode skills list`.
func (set *SkillSet) Describe() string {
	var b strings.Builder
	if len(set.Skills) == 0 {
		b.WriteString("No skills found.\n")
	} else {
		fmt.Fprintf(&b, "Skills (%d):\n", len(set.Skills))
	}
	for _, s := range set.Skills {
		fmt.Fprintf(&b, "  %s (%s) %s\n      %s\n", s.Name, s.Source, s.Dir, oneLine(s.Description, 100))
		for _, w := range s.Warnings {
			fmt.Fprintf(&b, "      warning: %s\n", w)
		}
		for _, hidden := range set.Shadowed[s.Name] {
			fmt.Fprintf(&b, "      shadows %s (%s)\n", hidden.Dir, hidden.Source)
		}
	}
	list := func(head string, skills []*Skill) {
		if len(skills) > 0 {
			fmt.Fprintf(&b, head, len(skills))
		}
		for _, s := range skills {
			fmt.Fprintf(&b, "  %s: %s\n", s.Path, s.Problem)
		}
	}
	list("Invalid skills (%d), not loaded:\n", set.Invalid)
	list("Passed over (%d), as the model may not see them:\n", set.Passed)
	if len(set.Skills) == 0 {
		fmt.Fprintf(&b, "Searched: %s\nA skill is a folder <name>/SKILL.md in one of these; add one with `minicode skills add <path>`.\n", strings.Join(set.Searched, ", "))
	}
	return b.String()
}

// PromptSection is the system prompt's list of skills, "" when there are none.
func (set *SkillSet) PromptSection() string {
	if len(set.Skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Skills\n\nSkills are folders of instructions for particular tasks. When a task matches a skill's description, call load_skill with its name first and follow what it says.\n\n")
	for i, s := range set.Skills {
		line := fmt.Sprintf("- %s: %s\n", s.Name, oneLine(s.Description, maxSkillDescriptionLen))
		if b.Len()+len(line) > maxSkillPromptBytes-100 {
			fmt.Fprintf(&b, "\n(%d more skills were left out of this list to save space.)\n", len(set.Skills)-i)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// loadSkillInput is the input of the load_skill tool.
type loadSkillInput struct {
	Name string `json:"name" validate:"required" desc:"The skill's name, as listed under Skills in the system prompt."`
}

// Tool is the load_skill tool, which reads the skill again on each call.
func (set *SkillSet) Tool() *Tool {
	return ToolDef[loadSkillInput]{
		Name:        "load_skill",
		Description: "Load a skill: its full instructions, its folder, and the files in that folder. Call it before doing a task that matches a skill listed in the system prompt.",
		ReadOnly:    true,
		Run:         set.load,
	}.Tool()
}

// load is the work of load_skill.
func (set *SkillSet) load(ctx context.Context, _ *ToolEnv, in loadSkillInput) (ToolOutput, error) {
	name := in.Name
	found := set.find(name)
	if found == nil {
		return ToolOutput{}, fmt.Errorf("no skill named %q; the skills are: %s", name, strings.Join(set.Names(), ", "))
	}
	s := set.read(found.Dir, found.Source)
	if s.Problem != "" {
		return ToolOutput{}, fmt.Errorf("skill %q cannot be loaded: %s", name, s.Problem)
	}
	files, err := set.listFiles(ctx, s.Dir)
	if err != nil {
		return ToolOutput{}, fmt.Errorf("listing the files of skill %q: %w", name, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skill: %s\nFolder: %s\n", s.Name, s.Dir)
	b.WriteString("Paths in the instructions are relative to that folder; read or run them by their full path.\n\nFiles:\n")
	for _, f := range files {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	fmt.Fprintf(&b, "\n---\n\n%s", s.Body)
	return ToolOutput{Text: b.String()}, nil
}

// listFiles lists the files under the skill folder dir, relative to it, up to maxSkillListedFiles, passing
// over dot files and what the permission rules hide, by its path through dir or where that leads.
func (set *SkillSet) listFiles(ctx context.Context, dir string) ([]string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	err = filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(real, path)
		passed := rel != "." && (strings.HasPrefix(d.Name(), ".") || set.hidden != nil && (set.hidden(path) || set.hidden(filepath.Join(dir, rel))))
		switch {
		case err != nil:
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		case passed && d.IsDir():
			return filepath.SkipDir
		case passed || d.IsDir():
			return nil
		case len(files) == maxSkillListedFiles:
			files = append(files, fmt.Sprintf("(more files not listed; the first %d are shown)", maxSkillListedFiles))
			return filepath.SkipAll
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, err
}

// findRepoRoot returns the nearest folder at or above dir holding a .git folder or file.
func findRepoRoot(dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}
