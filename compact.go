package main

import (
	"fmt"
	"slices"
	"strings"
)

// As the window fills, context layers run cheapest first: micro, snip, collapse, auto compact (large results
// are stored on disk apart); each is a pure function from a history to the splices that rewrite it.

// Limits of context management.
const (
	maxOutputReserve   = 20_000 // output tokens kept free, at most
	microKeepPerTool   = 3      // newest results of each tool left whole
	microMinSavedShare = 10     // automatic micro compact waits until it clears 1/10 of the window (microMaxTokens/5 at most): each run rewrites the prompt cache after its first change
	// microMaxTokens is where automatic micro compact runs at the latest, whatever the window, unless settings
	// set its threshold: every request reads the whole context again, so a session on a window of a million
	// tokens that let old results fill half of it would read four times as many tokens a step as under this.
	microMaxTokens     = 100_000
	keepNewestMessages = 12 // never snipped or collapsed
	minRunMessages     = 6  // a snip or collapse span, at least
	minRunTokens       = 2_000
	maxCompactFailures = 3 // model-call layers give up after this many in a row
)

// The layers, as Compaction.Layer names them.
const (
	LayerMicro    = "micro"
	LayerSnip     = "snip"
	LayerCollapse = "collapse"
	LayerCompact  = "compact"
)

// CompactThresholds are the utilisations (percent of the usable window) at which the layers run, 0 meaning the default (50, 70, 75, 85); settings.json's "compaction".
type CompactThresholds struct {
	Micro    int `json:"micro,omitempty"`
	Snip     int `json:"snip,omitempty"`
	Collapse int `json:"collapse,omitempty"`
	Auto     int `json:"auto,omitempty"`
}

// ContextUsage says how full the window is: the next request's estimated tokens, the window, the part kept for output, and Percent = Tokens / (Window − Reserve).
type ContextUsage struct {
	Model   string // whose window it is
	Tokens  int
	Window  int
	Reserve int
	Percent float64
}

// usable is the part of the window a request may fill.
func (u ContextUsage) usable() int { return u.Window - u.Reserve }

// String reads like "12% of the context window (21,000 of 180,000 tokens)".
func (u ContextUsage) String() string {
	return fmt.Sprintf("%.0f%% of the context window (%s of %s tokens)", u.Percent, thousands(u.Tokens), thousands(u.usable()))
}

// Splice replaces the messages From..To (To excluded) of a history with With; a compaction's splices are in order.
type Splice struct {
	From int       `json:"from"`
	To   int       `json:"to"`
	With []Message `json:"with"`
}

// Compaction is what one layer did: the new history and the splices that made it from the old one.
type Compaction struct {
	Layer      string // micro, snip, collapse or compact
	Trigger    string // auto or manual
	PreTokens  int
	PostTokens int
	Splices    []Splice
	View       []Message // the history after: what the model sees from now on
}

// layerNames are the compaction layers as people read them.
var layerNames = map[string]string{LayerMicro: "micro compact", LayerSnip: "snip compact", LayerCollapse: "context collapse", LayerCompact: "compaction"}

// String says what the compaction did, e.g. "snip compact saved 3,000 tokens".
func (c Compaction) String() string {
	return fmt.Sprintf("%s (%s) saved %s tokens", layerNames[c.Layer], c.Trigger, thousands(c.PreTokens-c.PostTokens))
}

// Summary is what the compaction's splices wrote in place of what they removed: summaries and notes.
func (c Compaction) Summary() string {
	var texts []string
	for _, s := range c.Splices {
		for _, m := range s.With {
			if isSummary(m) {
				texts = append(texts, m.Text())
			}
		}
	}
	return strings.Join(texts, "\n\n")
}

// applySplices returns msgs with the splices applied, copying it once.
func applySplices(msgs []Message, splices []Splice) []Message {
	n := len(msgs)
	for _, s := range splices {
		n += len(s.With) - (s.To - s.From)
	}
	out := make([]Message, 0, n)
	at := 0
	for _, s := range splices {
		out = append(append(out, msgs[at:s.From]...), s.With...)
		at = s.To
	}
	return append(out, msgs[at:]...)
}

// Token estimates: characters per token by kind of content, and the overhead of a message and a block.
const (
	charsPerTextToken = 4
	charsPerCodeToken = 3 // tool input and output: code, JSON, paths
	messageTokens     = 4
	blockTokens       = 3
)

// messageTokenCount estimates the tokens of a message, once: the count is kept in its cache.
func messageTokenCount(m Message) int {
	if m.wire != nil && m.wire.tokens > 0 {
		return m.wire.tokens
	}
	n := messageTokens
	for _, b := range m.Content {
		n += blockTokens + (len(b.Text)+len(b.Thinking)+len(b.Name))/charsPerTextToken +
			(len(b.Input)+len(b.Content))/charsPerCodeToken + len(b.Signature)/8 + len(b.Data)/8
		for _, media := range append([]Block{b}, b.Media...) {
			if media.Source != nil && (media.Type == BlockImage || media.Type == BlockDocument) {
				n += mediaTokens(media)
			}
		}
	}
	if m.wire != nil {
		m.wire.tokens = n
	}
	return n
}

// tokenCount estimates the tokens of a run of messages.
func tokenCount(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += messageTokenCount(m)
	}
	return n
}

// requestTokenCount estimates a whole request: system prompt, tools and messages.
func requestTokenCount(req ModelRequest) int {
	n := len(req.System) / charsPerTextToken
	for _, t := range req.Tools {
		n += (len(t.Name) + len(t.Description) + len(t.InputSchema)) / charsPerTextToken
	}
	return n + tokenCount(req.Messages)
}

// isCallResults reports whether m holds tool results, so a history must not be cut just before it.
func isCallResults(m Message) bool {
	return slices.ContainsFunc(m.Content, func(b Block) bool { return b.Type == BlockToolResult })
}

// rerunnableTools are the built-in tools whose results can be had again by running the same call.
var rerunnableTools = map[string]bool{"read_file": true, "grep_files": true, "glob_files": true,
	"list_files": true, "run_command": true, "web_fetch": true, "web_search": true}

// microPlaceholderPrefix starts every result micro compact cleared.
const microPlaceholderPrefix = "[Earlier result of "

// microCompact turns all but the newest keep results of each rerunnable tool into a placeholder
// naming the call (failures are kept), and all but the newest keep images the user attached into
// a note; a result's images go with it. A re-read note among the newest keeps the result it points
// to, and an older one goes with it.
func microCompact(msgs []Message, keep int, rerunnable func(string) bool) []Splice {
	seen, noted := map[string]int{}, map[string]bool{}
	var splices []Splice
	for i := len(msgs) - 1; i >= 0; i-- {
		var content []Block
		for j, b := range msgs[i].Content {
			var name, text string
			if call, ok := callOf(msgs[max(0, i-1)], b); i > 0 && ok && !b.IsError && rerunnable(call.Name) {
				name = call.Name
				text = fmt.Sprintf("%s%s %s cleared to save context; run the tool again if you need it.]", microPlaceholderPrefix, call.Name, cutRunes(string(call.Input), 300))
			} else if b.Type == BlockImage && msgs[i].Role == RoleUser {
				name, text = BlockImage, "[An image attached earlier was cleared to save context.]"
			} else {
				continue
			}
			target, isNote := rereadTarget(b)
			if noted[b.ToolUseID] {
				continue
			}
			if seen[name]++; seen[name] <= keep {
				noted[target] = isNote
				continue
			}
			if strings.HasPrefix(b.Content, microPlaceholderPrefix) || len(text) >= len(b.Content) && !isNote && b.Media == nil && b.Type != BlockImage {
				continue
			}
			if content == nil {
				content = append([]Block(nil), msgs[i].Content...)
			}
			content[j].Content, content[j].Media = text, nil
			if b.Type == BlockImage {
				content[j] = Block{Type: BlockText, Text: text}
			}
		}
		if content != nil {
			splices = append(splices, Splice{From: i, To: i + 1, With: []Message{{Role: msgs[i].Role, Content: content}}})
		}
	}
	slices.Reverse(splices)
	return splices
}

// callOf finds the call that result b answers in the message before it, reporting false if there is none.
func callOf(calls Message, b Block) (Block, bool) {
	if b.Type == BlockToolResult && calls.Role == RoleAssistant {
		if i := slices.IndexFunc(calls.Content, func(c Block) bool { return c.Type == BlockToolUse && c.ID == b.ToolUseID }); i >= 0 {
			return calls.Content[i], true
		}
	}
	return Block{}, false
}

// editTools change files: snip keeps their rounds, since what changed matters to the rest of the task.
var editTools = map[string]bool{"edit_file": true, "patch_file": true, "write_file": true}

// summaryMarker starts every message that stands for removed history.
const summaryMarker = "[minicode context: "

// isSummary reports whether m stands for removed history.
func isSummary(m Message) bool {
	return m.Role == RoleUser && len(m.Content) > 0 && strings.HasPrefix(m.Content[0].Text, summaryMarker)
}

// rereadTarget is the id of the call whose result a re-read note (rereadNotePrefix) points to.
func rereadTarget(b Block) (id string, ok bool) {
	rest, ok := strings.CutPrefix(b.Content, rereadNotePrefix)
	if !ok || b.Type != BlockToolResult {
		return "", false
	}
	id, _, _ = strings.Cut(rest, " ")
	return id, true
}

// protectedMessages marks what snip and collapse leave alone: the newest messages and request, summaries, rounds
// of edits and failures, and rounds whose result a re-read note points to.
func protectedMessages(msgs []Message) []bool {
	keep := make([]bool, len(msgs))
	request := newestRequest(msgs)
	targets := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Content {
			id, ok := rereadTarget(b)
			targets[id] = ok
		}
	}
	for i, m := range msgs {
		keep[i] = keep[i] || i >= len(msgs)-keepNewestMessages || i == request || isSummary(m)
		for _, b := range m.Content {
			if b.Type == BlockToolUse && editTools[b.Name] && i+1 < len(msgs) {
				keep[i], keep[i+1] = true, true
			}
			if b.Type == BlockToolResult && (b.IsError || targets[b.ToolUseID]) && i > 0 {
				keep[i], keep[i-1] = true, true
			}
		}
	}
	return keep
}

// newestRequest is the index of the newest user message with text of its own, or -1.
func newestRequest(msgs []Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleUser && !isCallResults(msgs[i]) && !isSummary(msgs[i]) && msgs[i].Text() != "" {
			return i
		}
	}
	return -1
}

// safeRuns returns the spans [from, to) of unprotected messages, long enough to be worth it, that keep calls with their results.
func safeRuns(msgs []Message) [][2]int {
	protected := protectedMessages(msgs)
	var runs [][2]int
	for i := 0; i < len(msgs); i++ {
		from := i
		for i < len(msgs) && !protected[i] {
			i++
		}
		to := i
		for from < to && isCallResults(msgs[from]) {
			from++
		}
		for to > from && to < len(msgs) && isCallResults(msgs[to]) {
			to--
		}
		if to-from >= minRunMessages && tokenCount(msgs[from:to]) >= minRunTokens {
			runs = append(runs, [2]int{from, to})
		}
	}
	return runs
}

// snipCompact drops the largest safe middle run of history for a marker listing its calls; nil when no run is long enough.
func snipCompact(msgs []Message) []Splice {
	best, bestTokens := [2]int{}, 0
	for _, r := range safeRuns(msgs) {
		if n := tokenCount(msgs[r[0]:r[1]]); n > bestTokens {
			best, bestTokens = r, n
		}
	}
	if bestTokens == 0 {
		return nil
	}
	var calls []string
	for _, m := range msgs[best[0]:best[1]] {
		for _, c := range m.ToolUses() {
			calls = append(calls, c.Name+" "+cutRunes(string(c.Input), 120))
		}
	}
	if len(calls) > 20 {
		calls = append(calls[:20], fmt.Sprintf("and %d more calls", len(calls)-20))
	}
	text := fmt.Sprintf("%s%d earlier messages (about %s tokens) were removed to save context.", summaryMarker, best[1]-best[0], thousands(bestTokens))
	if len(calls) > 0 {
		text += " They held these tool calls: " + strings.Join(calls, "; ") + "."
	}
	text += "]"
	return []Splice{{From: best[0], To: best[1], With: []Message{userText(text)}}}
}

// compactTail is where the messages auto compact keeps begin: the newest whole rounds within budget tokens, at least one.
func compactTail(msgs []Message, budget int) int {
	from, tokens := len(msgs), 0
	for from > 0 {
		n := messageTokenCount(msgs[from-1])
		if tokens+n > budget && len(msgs)-from >= 2 {
			break
		}
		from--
		tokens += n
	}
	for from < len(msgs) && isCallResults(msgs[from]) {
		from++
	}
	return from
}
