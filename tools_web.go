package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits and defaults of the web tools.
const (
	defaultSearchEndpoint = "https://html.duckduckgo.com/html/" // DuckDuckGo's plain HTML results page
	webTimeout            = 30 * time.Second
	webMaxRedirects       = 5
	webMaxBodyBytes       = 5 << 20 // more of a page is not read
	webUserAgent          = "minicode/1.0 (terminal coding agent)"
)

// webClient is what the web tools share.
type webClient struct {
	searchEndpoint string
	lookup         func(ctx context.Context, host string) ([]netip.Addr, error)
	proxy          func(req *http.Request) (*url.URL, error) // the HTTP proxy a request goes through, nil for none
}

// newWebClient builds the web tools' client; "" searches DuckDuckGo.
func newWebClient(searchEndpoint string) *webClient {
	return &webClient{
		searchEndpoint: cmp.Or(searchEndpoint, defaultSearchEndpoint),
		lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		proxy: http.ProxyFromEnvironment,
	}
}

// dialChecked connects to addr, judging each private address a host name resolves to as its literal address, before dialing.
func (w *webClient) dialChecked(ctx context.Context, env *ToolEnv, tool, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	var dialer net.Dialer
	switch ip, err := netip.ParseAddr(normalHost(host)); {
	case err == nil: // the address as judged, never looked up as a name (0x7f.1)
		return dialer.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
	case env == nil || env.Perms == nil:
		return dialer.DialContext(ctx, network, addr)
	}
	ips, err := w.lookup(ctx, host)
	if err == nil && len(ips) == 0 {
		err = errors.New("no address")
	}
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", host, err)
	}
	var errs []error
	for _, ip := range ips {
		addr := net.JoinHostPort(ip.Unmap().String(), port)
		if privateHost(ip.Unmap().String()) {
			if err := env.Perms.Authorize(ctx, PermissionRequest{Tool: tool, Access: AccessNetwork, URL: "http://" + addr + "/",
				Summary: fmt.Sprintf("connect to %s, which %s resolves to", ip.Unmap(), host)}); err != nil {
				return nil, err
			}
		}
		conn, err := dialer.DialContext(ctx, network, addr)
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, fmt.Errorf("connecting to %s: %w", host, errors.Join(errs...))
}

// judgeProxied judges, before a proxy connects to u's host by name, each
// private address the name resolves to here; a name that does not resolve here is the proxy's to find.
func (w *webClient) judgeProxied(ctx context.Context, env *ToolEnv, tool string, u *url.URL) error {
	if _, err := netip.ParseAddr(normalHost(u.Hostname())); err == nil || env == nil || env.Perms == nil {
		return nil // an address was judged as the URL's host
	}
	ips, _ := w.lookup(ctx, u.Hostname())
	for _, ip := range ips {
		if privateHost(ip.Unmap().String()) {
			addr := net.JoinHostPort(ip.Unmap().String(), cmp.Or(u.Port(), "80"))
			if err := env.Perms.Authorize(ctx, PermissionRequest{Tool: tool, Access: AccessNetwork, URL: "http://" + addr + "/",
				Summary: fmt.Sprintf("have the proxy connect to %s, which %s resolves to", ip.Unmap(), u.Hostname())}); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkWebURL accepts only absolute http and https addresses with an ASCII host.
func checkWebURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return nil, fmt.Errorf("invalid URL %q: %v", raw, err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("invalid URL %q: only http and https addresses can be fetched", raw)
	case u.Host == "":
		return nil, fmt.Errorf("invalid URL %q: no host", raw)
	case foreignHost(u):
		return nil, fmt.Errorf("invalid URL %q: write a host name in ASCII (an international one in its xn-- form)", raw)
	}
	return u, nil
}

// foreignHost reports whether a URL's host is not ASCII, which the HTTP client folds to another (①②⑦.0.0.1 to 127.0.0.1).
func foreignHost(u *url.URL) bool {
	return strings.ContainsFunc(u.Host, func(r rune) bool { return r >= utf8.RuneSelf })
}

// webPage is what a fetch got: its final address, media type and text.
type webPage struct {
	url       *url.URL
	status    int
	mediaType string
	text      string
	cut       bool // the body was longer than webMaxBodyBytes
}

// get fetches u for tool, judging each redirect again, dialing by dialChecked, refusing error statuses; the body becomes UTF-8.
func (w *webClient) get(ctx context.Context, env *ToolEnv, tool string, u *url.URL) (webPage, error) {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DisableKeepAlives = true
	transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return w.dialChecked(ctx, env, tool, network, addr)
	}
	transport.Proxy = func(req *http.Request) (*url.URL, error) {
		proxy, err := w.proxy(req)
		if err == nil && proxy != nil {
			err = w.judgeProxied(req.Context(), env, tool, req.URL)
		}
		return proxy, err
	}
	client := &http.Client{Timeout: webTimeout, Transport: transport, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		switch {
		case len(via) > webMaxRedirects:
			return fmt.Errorf("stopped after %d redirects", webMaxRedirects)
		case req.URL.Scheme != "http" && req.URL.Scheme != "https":
			return fmt.Errorf("redirect to unsupported address %s", req.URL)
		case foreignHost(req.URL):
			return fmt.Errorf("redirect to %s, whose host is not ASCII", req.URL)
		case env == nil || env.Perms == nil:
			return nil
		}
		return env.Perms.Authorize(ctx, PermissionRequest{Tool: tool, Access: AccessNetwork, URL: req.URL.String(),
			Summary: fmt.Sprintf("follow a redirect from %s to %s", via[len(via)-1].URL, req.URL)})
	}}
	resp, err := client.Do((&http.Request{Method: http.MethodGet, URL: u, Header: http.Header{"User-Agent": {webUserAgent},
		"Accept": {"text/html, text/plain, application/json, text/*;q=0.8, */*;q=0.1"}}}).WithContext(ctx))
	if err != nil {
		if uerr, ok := err.(*url.Error); ok {
			err = uerr.Err
		}
		return webPage{}, fmt.Errorf("fetching %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return webPage{}, fmt.Errorf("fetching %s: HTTP %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, webMaxBodyBytes+1))
	if err != nil {
		return webPage{}, fmt.Errorf("reading %s: %w", u, err)
	}
	page := webPage{url: resp.Request.URL, status: resp.StatusCode, cut: len(body) > webMaxBodyBytes}
	body = body[:min(len(body), webMaxBodyBytes)]
	header := cmp.Or(resp.Header.Get("Content-Type"), http.DetectContentType(body))
	mediaType, params, err := mime.ParseMediaType(header)
	if err != nil {
		mediaType = "application/octet-stream"
	}
	page.mediaType, page.text = mediaType, decodeCharset(body, strings.ToLower(params["charset"]))
	return page, nil
}

// webFetchInput is the input of web_fetch.
type webFetchInput struct {
	URL      string `json:"url" validate:"required" desc:"The http or https address to fetch."`
	MaxChars int    `json:"max_chars,omitempty" default:"40000" validate:"min=100,max=200000" desc:"Most characters of text to return. Default 40000."`
}

// webFetchTool fetches a page and returns it as readable text.
func webFetchTool(w *webClient) *Tool {
	return ToolDef[webFetchInput]{
		Name: "web_fetch",
		Description: "Fetch an http(s) URL and return its content as text: HTML pages are turned into readable text (title, headings, " +
			"lists, links as [text](url); no scripts or styles). Text, JSON and XML are returned as they are; images and other binary content are refused. " +
			"At most 40000 characters (change with max_chars); follows up to 5 redirects; 30 second timeout.",
		ReadOnly: true,
		Permission: func(env *ToolEnv, in webFetchInput) (PermissionRequest, error) {
			u, err := checkWebURL(in.URL)
			if err != nil {
				return PermissionRequest{}, err
			}
			return PermissionRequest{Access: AccessNetwork, URL: u.String(), Summary: "fetch " + u.String()}, nil
		},
		Run: w.fetch,
	}.Tool()
}

// fetch performs one web_fetch call.
func (w *webClient) fetch(ctx context.Context, env *ToolEnv, in webFetchInput) (ToolOutput, error) {
	u, err := checkWebURL(in.URL)
	if err != nil {
		return ToolOutput{}, err
	}
	page, err := w.get(ctx, env, "web_fetch", u)
	if err != nil {
		return ToolOutput{}, err
	}
	if !isTextType(page.mediaType) {
		return ToolOutput{}, fmt.Errorf("%s is %s, not text; web_fetch returns text only", page.url, page.mediaType)
	}
	head, text := "URL: "+page.url.String()+"\n", page.text
	if page.mediaType == "text/html" || page.mediaType == "application/xhtml+xml" {
		var title string
		if title, text = htmlToText(text, page.url); title != "" {
			head += "Title: " + title + "\n"
		}
	}
	if page.cut {
		head += fmt.Sprintf("Note: only the first %d bytes of the page were read.\n", webMaxBodyBytes)
	}
	if limit := in.MaxChars; len(text) > limit {
		keep := runeFloor(text, limit)
		text = fmt.Sprintf("%s\n[... cut at %d characters; %d more not shown ...]\n", text[:keep], keep, len(text)-keep)
	}
	return ToolOutput{Text: head + "\n" + text}, nil
}

// isTextType reports whether a media type is text a model can read.
func isTextType(mediaType string) bool {
	kind, sub, _ := strings.Cut(mediaType, "/")
	return kind == "text" || strings.HasSuffix(sub, "+json") || strings.HasSuffix(sub, "+xml") ||
		kind == "application" && slices.Contains(strings.Fields("json xml javascript x-javascript ecmascript x-yaml yaml toml x-sh"), sub)
}

// decodeCharset turns a body into UTF-8, reading Latin-1 byte by byte.
func decodeCharset(body []byte, charset string) string {
	latin1 := slices.Contains(strings.Fields("iso-8859-1 latin1 latin-1 windows-1252 cp1252 us-ascii"), charset)
	if !latin1 || utf8.Valid(body) {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	runes := make([]rune, len(body))
	for i, c := range body {
		runes[i] = rune(c)
	}
	return string(runes)
}

// webSearchInput is the input of web_search.
type webSearchInput struct {
	Query          string   `json:"query" validate:"required" desc:"What to search the web for."`
	MaxResults     int      `json:"max_results,omitempty" default:"8" validate:"min=1,max=20" desc:"Most results to return. Default 8."`
	AllowedDomains []string `json:"allowed_domains,omitempty" desc:"Only return results from these domains (and their subdomains)."`
	BlockedDomains []string `json:"blocked_domains,omitempty" desc:"Never return results from these domains (and their subdomains)."`
}

// searchResult is one hit of a web search.
type searchResult struct {
	title, url, snippet string
}

// webSearchTool searches the web.
func webSearchTool(w *webClient) *Tool {
	return ToolDef[webSearchInput]{
		Name: "web_search",
		Description: "Search the web. Returns up to 8 results (change with max_results, at most 20), each with title, URL and snippet; " +
			"allowed_domains and blocked_domains filter them. Use web_fetch to read a result.",
		ReadOnly: true,
		Permission: func(env *ToolEnv, in webSearchInput) (PermissionRequest, error) {
			u, err := w.searchURL(in.Query)
			if err != nil {
				return PermissionRequest{}, err
			}
			return PermissionRequest{Access: AccessNetwork, URL: u.String(), Summary: fmt.Sprintf("search the web for %q", in.Query)}, nil
		},
		Run: w.search,
	}.Tool()
}

// searchURL is the address of the results page for query.
func (w *webClient) searchURL(query string) (*url.URL, error) {
	u, err := checkWebURL(w.searchEndpoint)
	if err != nil {
		return nil, fmt.Errorf("search endpoint: %w", err)
	}
	q := u.Query()
	q.Set("q", query)
	u.RawQuery = q.Encode()
	return u, nil
}

// search performs one web_search call.
func (w *webClient) search(ctx context.Context, env *ToolEnv, in webSearchInput) (ToolOutput, error) {
	u, err := w.searchURL(in.Query)
	if err != nil {
		return ToolOutput{}, err
	}
	page, err := w.get(ctx, env, "web_search", u)
	if err != nil {
		return ToolOutput{}, fmt.Errorf("web search failed: %w", err)
	}
	results := parseSearchResults(page.text, page.url)
	if len(results) == 0 && page.status == http.StatusAccepted {
		return ToolOutput{}, errors.New("web search failed: the search engine refused the request (rate limit or bot check); try again later")
	}
	kept := slices.DeleteFunc(results, func(r searchResult) bool {
		return domainListed(r.url, in.BlockedDomains) || (len(in.AllowedDomains) > 0 && !domainListed(r.url, in.AllowedDomains))
	})
	if len(kept) == 0 {
		return ToolOutput{Text: fmt.Sprintf("No results for %q.", in.Query)}, nil
	}
	var b strings.Builder
	for i, r := range kept[:min(len(kept), in.MaxResults)] {
		fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, r.title, r.url)
		if r.snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.snippet)
		}
	}
	return ToolOutput{Text: b.String()}, nil
}

// parseSearchResults reads a DuckDuckGo results page, unwrapping links and dropping ads.
func parseSearchResults(page string, base *url.URL) []searchResult {
	var results []searchResult
	var capture *string // the text being collected, if any
	depth := 0          // open elements inside the captured one
	htmlTokens(page, func(t htmlToken) {
		switch {
		case capture != nil && t.name == "":
			*capture += t.text
		case capture != nil && !t.end:
			depth++
		case capture != nil:
			if depth--; depth < 0 {
				*capture = strings.Join(strings.Fields(*capture), " ")
				capture = nil
			}
		case !t.end && t.hasClass("result__a"):
			results = append(results, searchResult{url: unwrapRedirect(t.attrs["href"], base)})
			capture, depth = &results[len(results)-1].title, 0
		case !t.end && t.hasClass("result__snippet") && len(results) > 0:
			capture, depth = &results[len(results)-1].snippet, 0
		}
	})
	return slices.DeleteFunc(results, func(r searchResult) bool {
		_, err := checkWebURL(r.url)
		return err != nil || domainListed(r.url, []string{"duckduckgo.com"})
	})
}

// unwrapRedirect returns a redirect link's target, or the link made absolute.
func unwrapRedirect(href string, base *url.URL) string {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return href
	}
	if target := u.Query().Get("uddg"); target != "" {
		return target
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	return u.String()
}

// domainListed reports whether rawURL's host is in domains or below one.
func domainListed(rawURL string, domains []string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	for _, d := range domains {
		d = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "."))
		if d != "" && (host == d || strings.HasSuffix(host, "."+d)) {
			return true
		}
	}
	return false
}
