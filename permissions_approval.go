package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Asker puts a permission question to the user and returns the answer. The app's, App.Ask (app.go), runs the
// PermissionRequest hooks, then shows the terminal's menu (tui.Ask, tty_approval.go) or line mode's question.
type Asker interface {
	Ask(ctx context.Context, p Prompt) (Answer, error)
}

// ChoiceID identifies an answer to a permission question.
type ChoiceID string

// The answers; each does exactly what its name promises.
const (
	ChoiceAllowOnce      ChoiceID = "allow_once"       // allow this call only
	ChoiceAllowTurn      ChoiceID = "allow_turn"       // allow what an "always" answer would save, until the turn ends
	ChoiceAllowFileTurn  ChoiceID = "allow_file_turn"  // allow edits to this file until the turn ends
	ChoiceAllowEditsTurn ChoiceID = "allow_edits_turn" // allow every edit inside the workspace until the turn ends
	ChoiceAllowAlways    ChoiceID = "allow_always"     // save an allow rule
	ChoiceDenyOnce       ChoiceID = "deny_once"        // refuse this call only
	ChoiceDenyGuidance   ChoiceID = "deny_guidance"    // refuse it and tell the model what to do instead
	ChoiceDenyAlways     ChoiceID = "deny_always"      // save a deny rule
)

// Choice is one answer offered in a prompt, with the key that picks it.
type Choice struct {
	ID      ChoiceID
	Key     string
	Label   string
	Meaning string
}

// SaveTarget says where an "always" answer is kept.
type SaveTarget string

// The places an "always" answer can be kept.
const (
	saveProject SaveTarget = "project" // <workspace>/.minicode/permissions.json
	saveUser    SaveTarget = "user"    // $MINICODE_HOME/permissions.json
	saveSession SaveTarget = "session" // in memory until the program ends
)

// Prompt is one permission question.
type Prompt struct {
	Request     PermissionRequest
	Heading     string // what kind of question it is; "" for "Permission needed"
	Title       string // what the call wants to do, in one line
	Body        string // Markdown shown above the question, such as a plan
	Reason      string // why it needs asking ("rm -r deletes files ...")
	Warning     string // what the user must not miss, such as a write outside the workspace
	Diff        string // unified diff of an edit
	Choices     []Choice
	SaveTargets []SaveOption // where an "always" answer can be kept, the default first
}

// SaveOption is one place an "always" answer can be kept.
type SaveOption struct {
	Target SaveTarget
	File   string // "" for saveSession
}

// Answer is the user's reply to a prompt.
type Answer struct {
	Choice   ChoiceID
	Guidance string     // for ChoiceDenyGuidance: returned to the model
	SaveTo   SaveTarget // for the "always" choices
	Input    string     // with ChoiceAllowOnce: JSON input replacing the model's
}

// InputReplaced is the answer that approves a call with a changed Input.
type InputReplaced struct{ Input json.RawMessage }

// Error says what happened, for a caller that does not look.
func (e *InputReplaced) Error() string { return "the call was approved with a changed input" }

// askApproval puts a request that asks to the user, one question at a time, and carries out the answer.
func (p *Permissions) askApproval(ctx context.Context, req PermissionRequest) error {
	select {
	case p.askSlot <- struct{}{}:
	case <-ctx.Done():
		return p.refuse(req, "permission not granted: "+ctx.Err().Error())
	}
	defer func() { <-p.askSlot }()
	d := hookAdjusted(p.decide(req), req.HookDecision) // an answer given while waiting may have settled it
	if d.Verdict != verdictAsk {
		return p.settle(req, d)
	}
	prompt := p.prompt(req, d)
	answer, err := p.asker.Ask(ctx, prompt)
	if err != nil {
		return p.refuse(req, fmt.Sprintf("permission not granted: %s: %v", describeCall(req), err))
	}
	if answer.Choice == ChoiceAllowOnce && answer.Input != "" {
		return &InputReplaced{Input: json.RawMessage(answer.Input)}
	}
	return p.apply(req, d, prompt, answer)
}

// prompt builds the question for a request that asks.
func (p *Permissions) prompt(req PermissionRequest, d decision) Prompt {
	var saved []string
	for _, r := range p.grantRules(req, d.asking, saveProject) {
		saved = append(saved, r.String())
	}
	targets := slices.DeleteFunc([]SaveOption{{saveProject, p.projectFile}, {saveUser, p.userFile}, {saveSession, ""}},
		func(o SaveOption) bool { return o.File == "" && o.Target != saveSession })
	choices := choicesFor(req.Access == AccessWrite, d.Strict, strings.Join(saved, ", "))
	if req.ByUser { // no model would hear the guidance
		choices = slices.DeleteFunc(choices, func(c Choice) bool { return c.ID == ChoiceDenyGuidance })
	}
	return Prompt{Request: req, Title: cmp.Or(req.Summary, describeCall(req)), Reason: d.Reason, Warning: d.Warning,
		Diff: req.Diff, Choices: choices, SaveTargets: targets}
}

// choicesFor lists the answers to a question about an edit or another call; a strict one offers no grant.
func choicesFor(edit, strict bool, saved string) []Choice {
	all := []Choice{
		{ChoiceAllowOnce, "y", "allow once", "allow this call; the next one asks again"},
		{ChoiceAllowTurn, "t", "allow this turn", "allow, and allow " + saved + " without asking until this turn ends"},
		{ChoiceAllowAlways, "a", "allow always", "allow, and save the rule " + saved},
		{ChoiceDenyOnce, "n", "deny", "refuse this call"},
		{ChoiceDenyAlways, "x", "deny always", "refuse, and save the deny rule " + saved},
		{ChoiceDenyGuidance, "g", "deny with guidance", "refuse, and tell the model what to do instead"},
	}
	if edit {
		all = []Choice{
			{ChoiceAllowOnce, "y", "apply once", "apply this change; the next one asks again"},
			{ChoiceAllowFileTurn, "f", "allow this file this turn", "apply, and apply further edits to this file without asking until this turn ends"},
			{ChoiceAllowEditsTurn, "e", "allow all edits this turn", "apply, and apply every edit inside the workspace without asking until this turn ends"},
			{ChoiceAllowAlways, "a", "always allow this file", "apply, and save the rule " + saved + " so edits to this file never ask"},
			{ChoiceDenyOnce, "n", "reject once", "do not apply this change"},
			{ChoiceDenyGuidance, "g", "reject with guidance", "do not apply it, and tell the model what to do instead"},
			{ChoiceDenyAlways, "x", "always reject this file", "do not apply it, and save the deny rule " + saved},
		}
	}
	return slices.DeleteFunc(all, func(c Choice) bool {
		grant := c.ID == ChoiceAllowTurn || c.ID == ChoiceAllowFileTurn || c.ID == ChoiceAllowEditsTurn || c.ID == ChoiceAllowAlways
		return strict && grant || (c.ID == ChoiceAllowTurn || c.ID == ChoiceAllowAlways || c.ID == ChoiceDenyAlways) && saved == ""
	})
}

// apply carries out the user's answer for this call and what it promises.
func (p *Permissions) apply(req PermissionRequest, d decision, prompt Prompt, a Answer) error {
	what := describeCall(req)
	// A refusal with a reason, such as a hook's or an SDK host's, is an answer even where guidance is not offered.
	if !slices.ContainsFunc(prompt.Choices, func(c Choice) bool { return c.ID == a.Choice }) && a.Choice != ChoiceDenyGuidance {
		return p.refuse(req, fmt.Sprintf("permission not granted: %s: the answer %q was not one of the choices", what, a.Choice))
	}
	rules := p.grantRules(req, d.asking, a.SaveTo)
	switch a.Choice {
	case ChoiceAllowFileTurn:
		rules = slices.DeleteFunc(rules, func(r Rule) bool { return r.Tool != editAlias }) // the files written, nothing else
	case ChoiceAllowEditsTurn:
		rules = []Rule{{Tool: editAlias}}
	case ChoiceAllowAlways, ChoiceDenyAlways:
		p.save(a.SaveTo, rules, a.Choice == ChoiceAllowAlways)
	}
	p.mu.Lock()
	if list := map[ChoiceID]*[]Rule{ChoiceAllowTurn: &p.turn, ChoiceAllowFileTurn: &p.turn, ChoiceAllowEditsTurn: &p.turn, ChoiceAllowAlways: &p.allow, ChoiceDenyAlways: &p.deny}[a.Choice]; list != nil {
		*list = append(*list, rules...)
	}
	p.mu.Unlock()
	switch a.Choice {
	case ChoiceDenyOnce:
		return p.refuse(req, "the user rejected "+what)
	case ChoiceDenyGuidance:
		return p.refuse(req, fmt.Sprintf("the user rejected %s and said: %s", what, a.Guidance))
	case ChoiceDenyAlways:
		return p.refuse(req, "the user rejected "+what+" and denied it from now on")
	}
	return nil
}

// grantRules are the rules an "always" answer saves, one per part that asked.
func (p *Permissions) grantRules(req PermissionRequest, asking []target, to SaveTarget) []Rule {
	var rules []Rule
	for _, t := range asking {
		r := Rule{Tool: req.Tool}
		switch t := t.(type) {
		case pathTarget:
			r.Spec = "/" + globQuoter.Replace(t.abs)
			if to == saveProject {
				r.Spec = p.relGlob(t.abs)
			}
			if t.write {
				r.Tool, r.Claude = editAlias, true
			} else if req.Access == AccessExecute {
				r.Tool, r.Claude = readAlias, true
			}
		case commandTarget:
			if t.unreadable != nil {
				continue
			}
			r.Spec = quoteWords(t.cmd.Words)
		case hostTarget:
			r.Spec = "domain:" + t.host
		case wholeCall:
		default:
			continue
		}
		if !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	return rules
}

// quoteWords writes words back as a command, quoting those that need it.
func quoteWords(words []string) string {
	quoted := slices.Clone(words)
	for i, w := range words {
		if w == "" || strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") != "" {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}

// save writes an "always" answer's rules to the chosen file, if it can, noting where each is kept.
func (p *Permissions) save(to SaveTarget, rules []Rule, allow bool) {
	file := map[SaveTarget]string{saveProject: p.projectFile, saveUser: p.userFile}[to]
	for i, r := range rules {
		rules[i].Source = "this session"
		if file == "" {
			continue
		}
		if err := addToRuleFile(file, r, allow); err != nil {
			p.notice(fmt.Sprintf("the rule %s holds for this session only: %v", r, err))
		} else {
			rules[i].Source = file
		}
	}
}

// addToRuleFile adds a rule to a permissions.json (a missing or blank one holds no rules), replacing it in one step.
func addToRuleFile(file string, r Rule, allow bool) error {
	rf := RuleFile{Allow: []string{}, Deny: []string{}} // shown as [] when empty
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	if strings.TrimSpace(string(data)) != "" {
		if err := decodeJSON(data, &rf, true); err != nil {
			return fmt.Errorf("permissions file %s: %w", file, err)
		}
	}
	if list := map[bool]*[]string{true: &rf.Allow, false: &rf.Deny}[allow]; !slices.Contains(*list, r.String()) {
		*list = append(*list, r.String())
	}
	if err := writeFileAtomic(file, readableJSON(rf), 0o644); err != nil {
		return fmt.Errorf("saving %s: %w", file, err)
	}
	return nil
}

// unifiedDiff returns the unified diff that turns before into after.
func unifiedDiff(path, before, after string) string {
	if before == after {
		return ""
	}
	text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{ // writing to a string never fails
		A:        diffLines(before),
		B:        diffLines(after),
		FromFile: "a/" + path,
		ToFile:   "b/" + path,
		Context:  3,
	})
	return text
}

// diffLines splits text into lines, marking a missing final newline.
func diffLines(text string) []string {
	lines := slices.Collect(strings.Lines(text))
	if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		lines[n-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}
