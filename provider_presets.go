package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// providerPreset is a host of the OpenAI-compatible API under a name of its own for --provider:
// its address (and the variable that moves it), its key's variable, a model to start with, and
// how to start it when it is a local server that is not running.
type providerPreset struct {
	base, baseVar, keyVar, model, start string
}

// providerPresets are the openai provider and the hosts users name. A local server needs no key,
// and its model is the first it lists; Ollama also says the context window it runs a model with.
var providerPresets = map[string]providerPreset{
	"openai":     {openAIDefaultBase, "OPENAI_BASE_URL", "OPENAI_API_KEY", "gpt-4.1", ""},
	"ollama":     {"http://localhost:11434/v1", "OLLAMA_HOST", "", "", "start it with `ollama serve`"},
	"lmstudio":   {"http://localhost:1234/v1", "LMSTUDIO_BASE_URL", "", "", "start its server with `lms server start` (or in LM Studio's Developer tab)"},
	"openrouter": {"https://openrouter.ai/api/v1", "OPENROUTER_BASE_URL", "OPENROUTER_API_KEY", "openrouter/auto", ""},
	"gemini":     {"https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_BASE_URL", "GEMINI_API_KEY", "gemini-2.5-flash", ""},
}

// newOpenAI builds the provider of a preset with the protocol asked for (--api chat|responses,
// or the "api" setting), and picks its model: the one asked for, the preset's, or the server's first.
func (app *App) newOpenAI(ctx context.Context, name, model string, opts ProviderOptions) (Provider, string, error) {
	p := providerPresets[name]
	base := app.getenv(p.baseVar)
	if base != "" && name == "ollama" {
		base = strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1") + "/v1"
		if !strings.Contains(base, "://") { // OLLAMA_HOST is host:port
			base = "http://" + base
		}
	}
	opts.BaseURL, opts.APIKey, opts.Effort = cmp.Or(base, app.Settings.BaseURL, p.base), app.getenv(p.keyVar), app.Opts.Effort
	if p.keyVar != "" && opts.APIKey == "" && name != "openai" {
		return nil, "", usageErrorf("the %s provider needs %s", name, p.keyVar)
	}
	var o *openAI
	switch api := cmp.Or(app.Opts.API, app.Settings.API, "chat"); api {
	case "chat":
		o = newOpenAI(opts)
	case "responses":
		o = newOpenAIResponses(opts)
	default:
		return nil, "", usageErrorf("unknown API %q for the %s provider (use chat or responses)", api, name)
	}
	o.provider, o.baseURLVar, o.startHint, o.media.Provider = name, p.baseVar, p.start, name
	if model = cmp.Or(model, app.Settings.Model, p.model); model == "" {
		models, err := o.ListModels(ctx)
		if err != nil {
			return nil, "", err
		}
		if len(models) == 0 {
			return nil, "", fmt.Errorf("the %s server at %s has no models yet; download one first (for example `ollama pull qwen3-coder`)", name, opts.BaseURL)
		}
		model = models[0]
	}
	if _, set := app.Settings.Limits[model]; name == "ollama" && !set {
		window, err := ollamaContextWindow(ctx, o, model)
		if err != nil {
			return nil, "", err
		}
		if window > 0 {
			if app.Settings.Limits == nil {
				app.Settings.Limits = map[string]ModelLimits{}
			}
			app.Settings.Limits[model] = ModelLimits{ContextWindow: window, MaxOutput: min(limitsFor(model, nil).MaxOutput, window/4)}
		}
	}
	return o, model, nil
}

// ListModels asks the API which models it offers: GET {base}/models, whose answer OpenAI-compatible
// servers and Anthropic's API shape alike.
func (c *streamClient) ListModels(ctx context.Context) ([]string, error) {
	base := c.url
	for _, suffix := range []string{"/chat/completions", "/responses", "/messages"} {
		base = strings.TrimSuffix(base, suffix)
	}
	var list struct{ Data []struct{ ID string } }
	err := c.askJSON(ctx, http.MethodGet, base+"/models", nil, &list)
	var ids []string
	for _, m := range list.Data {
		ids = append(ids, strings.TrimPrefix(m.ID, "models/")) // Gemini's are models/NAME
	}
	return ids, err
}

// ollamaContextWindow asks Ollama (POST /api/show) the context window it runs a model with: the
// num_ctx of its parameters, else the model's own context length; 0 when it does not say.
func ollamaContextWindow(ctx context.Context, c *openAI, model string) (int, error) {
	var show struct {
		Parameters string
		ModelInfo  map[string]any `json:"model_info"`
	}
	if err := c.askJSON(ctx, http.MethodPost, strings.SplitN(c.url, "/v1/", 2)[0]+"/api/show", map[string]string{"model": model}, &show); err != nil {
		return 0, err
	}
	for _, line := range strings.Split(show.Parameters, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "num_ctx" {
			return strconv.Atoi(f[1])
		}
	}
	arch, _ := show.ModelInfo["general.architecture"].(string) // the model's own window is its architecture's context_length
	n, _ := show.ModelInfo[arch+".context_length"].(float64)
	return int(n), nil
}

// askJSON sends one request to the API (with body as JSON, if any) and decodes the JSON answer into v.
func (c *streamClient) askJSON(ctx context.Context, method, url string, body, v any) error {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	var data io.Reader // a GET has no body
	if body != nil {
		encoded, _ := json.Marshal(body)
		data = bytes.NewReader(encoded)
	}
	r, err := http.NewRequestWithContext(ctx, method, url, data)
	if err != nil {
		return err
	}
	r.Header = c.header.Clone()
	r.Header.Set("accept", "application/json")
	resp, err := c.client.Do(r)
	if err != nil {
		return c.connectionError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return readAPIError(c.provider, resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("reading the %s API's answer: %w", c.provider, err)
	}
	return nil
}
