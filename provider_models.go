package main

import (
	"cmp"
	"strconv"
	"strings"
)

// ModelLimits are a model family's context window and output ceiling.
type ModelLimits struct {
	ContextWindow int `json:"context_window"`
	MaxOutput     int `json:"max_output"`
}

// modelLimitTable maps a model-name prefix to its limits; the longest match wins ("" matches all).
var modelLimitTable = map[string]ModelLimits{
	"claude-opus-5":     {1_000_000, 128_000},
	"claude-sonnet-5":   {1_000_000, 128_000},
	"claude-haiku-5":    {1_000_000, 128_000},
	"claude-fable-5":    {1_000_000, 128_000},
	"claude-opus-4":     {200_000, 32_000},
	"claude-sonnet-4":   {200_000, 64_000},
	"claude-haiku-4":    {200_000, 64_000},
	"claude-3-7-sonnet": {200_000, 64_000},
	"claude-3-5":        {200_000, 8_192},
	"claude":            {200_000, 8_192},
	"gpt-4o":            {128_000, 16_384},
	"gpt-4.1":           {1_000_000, 32_768},
	"gpt-5":             {400_000, 128_000},
	"o3":                {200_000, 100_000},
	"o4":                {200_000, 100_000},
	"deepseek":          {128_000, 8_192},
	"qwen":              {128_000, 8_192},
	"llama":             {128_000, 4_096},
	"mock":              {200_000, 8_192},
	"":                  {128_000, 8_192},
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

// limitsFor returns the limits of a model, preferring overrides from settings.
func limitsFor(model string, overrides map[string]ModelLimits) ModelLimits {
	limits, length := byPrefix(modelLimitTable, model)
	if override, n := byPrefix(overrides, model); n >= length {
		return override
	}
	return limits
}

// resolveModelAlias turns Claude Code's short model names (opus, opus-latest, opus[1m], ...) into ids.
func resolveModelAlias(name string) string {
	base, _, _ := strings.Cut(name, "[")
	aliases := map[string]string{"opus": "claude-opus-5-5", "sonnet": "claude-sonnet-5-5", "haiku": "claude-haiku-5-5", "fable": "claude-fable-5-1"}
	return cmp.Or(aliases[strings.TrimSuffix(strings.TrimPrefix(base, "claude-"), "-latest")], name)
}

// modelPrice is what a model costs, in dollars per million tokens.
type modelPrice struct{ input, output float64 }

// costUSD prices usage at the model's price, found by longest prefix (unknown models are free);
// cache writes cost 1.25 times input, reads a tenth.
func costUSD(model string, u Usage) float64 {
	p, _ := byPrefix(map[string]modelPrice{
		"claude-fable-5":  {10, 50},
		"claude-opus-5-5": {4, 20},
		"claude-opus-5":   {5, 25},
		"claude-opus-4-5": {5, 25}, "claude-opus-4-6": {5, 25}, "claude-opus-4-7": {5, 25}, "claude-opus-4-8": {5, 25},
		"claude-opus-4":     {15, 75},
		"claude-sonnet-5":   {2, 10},
		"claude-sonnet-4":   {3, 15},
		"claude-3-7-sonnet": {3, 15},
		"claude-haiku-5":    {0.10, 0.50},
		"claude-haiku-4":    {1, 5},
		"claude-3-5-haiku":  {0.80, 4},
		"gpt-4.1":           {2, 8},
		"gpt-4o":            {2.5, 10},
	}, model)
	return (float64(u.InputTokens)*p.input + float64(u.OutputTokens)*p.output +
		float64(u.CacheCreationInputTokens)*p.input*1.25 + float64(u.CacheReadInputTokens)*p.input*0.1) / 1e6
}

// maxOutputTokens is CLAUDE_CODE_MAX_OUTPUT_TOKENS, else the setting, else the model's limit.
func maxOutputTokens(env string, setting, limit int) (int, error) {
	if env == "" {
		return cmp.Or(setting, limit), nil
	}
	n, err := strconv.Atoi(env)
	if err != nil || n <= 0 {
		return 0, usageErrorf("CLAUDE_CODE_MAX_OUTPUT_TOKENS must be a positive number, not %q", env)
	}
	return n, nil
}
