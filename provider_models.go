package main

import (
	"cmp"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ModelLimits are a model family's context window and output ceiling.
type ModelLimits struct {
	ContextWindow int `json:"context_window"`
	MaxOutput     int `json:"max_output"`
}

// modelInfo is one row of the model table: limits, and dollars per million input and output tokens.
type modelInfo struct {
	ModelLimits
	input, output float64
}

// modelTable maps a model-name prefix to what the providers publish about it; the longest match
// wins, "" matches every model (its window is a guess), and a "vendor/" prefix (OpenRouter's) is
// ignored. Cache writes cost 1.25 times input, reads a tenth.
var modelTable = map[string]modelInfo{
	"claude-fable-5":    {ModelLimits{1_000_000, 128_000}, 10, 50},
	"claude-opus-4-8":   {ModelLimits{1_000_000, 128_000}, 5, 25},
	"claude-opus-4-7":   {ModelLimits{1_000_000, 128_000}, 5, 25},
	"claude-opus-4-6":   {ModelLimits{1_000_000, 128_000}, 5, 25},
	"claude-opus-4-5":   {ModelLimits{200_000, 64_000}, 5, 25},
	"claude-opus-4":     {ModelLimits{200_000, 32_000}, 15, 75},
	"claude-sonnet-5":   {ModelLimits{1_000_000, 128_000}, 3, 15},
	"claude-sonnet-4-6": {ModelLimits{1_000_000, 64_000}, 3, 15},
	"claude-sonnet-4":   {ModelLimits{200_000, 64_000}, 3, 15},
	"claude-3-7-sonnet": {ModelLimits{200_000, 64_000}, 3, 15},
	"claude-haiku-4-5":  {ModelLimits{200_000, 64_000}, 1, 5},
	"claude-3-5-haiku":  {ModelLimits{200_000, 8_192}, 0.80, 4},
	"claude":            {ModelLimits{200_000, 8_192}, 3, 15},
	"gpt-5.5":           {ModelLimits{1_050_000, 128_000}, 5, 30},
	"gpt-5":             {ModelLimits{400_000, 128_000}, 1.25, 10},
	"gpt-5-mini":        {ModelLimits{400_000, 128_000}, 0.25, 2},
	"gpt-5-nano":        {ModelLimits{400_000, 128_000}, 0.05, 0.40},
	"gpt-4.1":           {ModelLimits{1_047_576, 32_768}, 2, 8},
	"gpt-4o":            {ModelLimits{128_000, 16_384}, 2.5, 10},
	"o3":                {ModelLimits{200_000, 100_000}, 2, 8},
	"o4-mini":           {ModelLimits{200_000, 100_000}, 1.1, 4.4},
	"gpt-oss":           {ModelLimits{131_072, 32_768}, 0, 0},
	"gemini-3-pro":      {ModelLimits{1_048_576, 65_536}, 2, 12},
	"gemini-3-flash":    {ModelLimits{1_048_576, 65_536}, 0.5, 3},
	"gemini-2.5-pro":    {ModelLimits{1_048_576, 65_536}, 1.25, 10},
	"gemini-2.5-flash":  {ModelLimits{1_048_576, 65_536}, 0.30, 2.50},
	"gemini":            {ModelLimits{1_048_576, 8_192}, 0, 0},
	"qwen3-coder":       {ModelLimits{262_144, 65_536}, 0, 0},
	"qwen":              {ModelLimits{32_768, 8_192}, 0, 0},
	"deepseek":          {ModelLimits{128_000, 8_192}, 0, 0},
	"llama":             {ModelLimits{128_000, 4_096}, 0, 0},
	"mistral":           {ModelLimits{128_000, 8_192}, 0, 0},
	"mock":              {ModelLimits{200_000, 8_192}, 0, 0},
	"":                  {ModelLimits{128_000, 8_192}, 0, 0},
}

// byPrefix returns the value of table's longest key that prefixes model, and its length or -1.
func byPrefix[V any](table map[string]V, model string) (best V, length int) {
	length = -1
	for prefix, v := range table {
		if strings.HasPrefix(model, prefix) && len(prefix) > length {
			best, length = v, len(prefix)
		}
	}
	return best, length
}

// tableEntry finds a model in the table by the name a provider knows it by, and the length of
// the prefix that matched: 0 when the table only guesses.
func tableEntry(model string) (modelInfo, int) {
	model = model[strings.IndexByte(model, '/')+1:] // without a vendor/ prefix
	return byPrefix(modelTable, strings.ToLower(modelForMode(model, false)))
}

// limitsFor returns the limits of a model, preferring overrides from settings; "[1m]" asks for the 1M window.
func limitsFor(model string, overrides map[string]ModelLimits) ModelLimits {
	info, length := tableEntry(model)
	if override, n := byPrefix(overrides, model); n >= length {
		return override
	}
	if strings.HasSuffix(model, oneMillionSuffix) {
		info.ContextWindow = 1_000_000
	}
	return info.ModelLimits
}

// windowNote says how large a model's context window is and, when the table only guesses, how to set it.
func windowNote(model string, s Settings) string {
	limits, _ := contextLimits(model, s)
	note := fmt.Sprintf("context window: %s tokens", thousands(limits.ContextWindow))
	_, known := tableEntry(model)
	if _, set := byPrefix(s.Limits, model); known == 0 && set < 0 && s.ContextWindow == nil {
		note += fmt.Sprintf(", a guess: %s is not in minicode's table; set \"contextWindow\" in settings (or \"modelLimits\")", model)
	}
	return note
}

// oneMillionSuffix on a Claude model name asks for the 1M-token window (with its beta header, which models with a native 1M window ignore).
const (
	oneMillionSuffix = "[1m]"
	oneMillionBeta   = "context-1m-2025-08-07"
)

// claudeAliases are Claude Code's model aliases as its model configuration documents them for the
// Anthropic API; "opusplan" is opus in plan mode and sonnet otherwise (see modelForMode).
var claudeAliases = map[string]string{
	"opus": "claude-opus-4-8", "sonnet": "claude-sonnet-5", "haiku": "claude-haiku-4-5",
	"fable": "claude-fable-5", "best": "claude-fable-5", "default": "claude-sonnet-5",
}

// resolveModelAlias turns Claude Code's short model names (opus, sonnet-latest, opus[1m], ...) into
// ids, keeping a "[1m]" suffix, which the Anthropic provider turns into its beta header.
func resolveModelAlias(name string) string {
	base := strings.TrimSuffix(name, oneMillionSuffix)
	id := cmp.Or(claudeAlias(strings.TrimSuffix(strings.TrimPrefix(base, "claude-"), "-latest")), base)
	return id + name[len(base):] // with the suffix, if any
}

// claudeAlias is the id an alias names: ANTHROPIC_DEFAULT_OPUS_MODEL (or _SONNET_, _HAIKU_, ...),
// which Claude Code reads and settings' env sets, else the table; "" for a name that is no alias.
func claudeAlias(alias string) string {
	if claudeAliases[alias] == "" {
		return ""
	}
	return cmp.Or(os.Getenv("ANTHROPIC_DEFAULT_"+strings.ToUpper(alias)+"_MODEL"), claudeAliases[alias])
}

// modelForMode is the model a turn uses: opusplan means opus while planning and sonnet otherwise.
func modelForMode(model string, planning bool) string {
	switch {
	case model != "opusplan":
		return model
	case planning:
		return claudeAlias("opus")
	}
	return claudeAlias("sonnet")
}

// costUSD prices usage at the table's price for the model (models without a price are free).
func costUSD(model string, u Usage) float64 {
	p, _ := tableEntry(model)
	return (float64(u.InputTokens)*p.input + float64(u.OutputTokens)*p.output +
		float64(u.CacheCreationInputTokens)*p.input*1.25 + float64(u.CacheReadInputTokens)*p.input*0.1) / 1e6
}

// maxOutputTokens is CLAUDE_CODE_MAX_OUTPUT_TOKENS, else the setting; 0 leaves it to each request's model (its output limit).
func maxOutputTokens(env string, setting int) (int, error) {
	if env == "" {
		return setting, nil
	}
	n, err := strconv.Atoi(env)
	if err != nil || n <= 0 {
		return 0, usageErrorf("CLAUDE_CODE_MAX_OUTPUT_TOKENS must be a positive number, not %q", env)
	}
	return n, nil
}
