package main

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
)

// This file holds the client's side of what a server asks of it: answers
// to ping, roots/list and elicitation/create (anything else gets "method
// not found"), and progress reports for our own requests.

// serve answers a request from the server on its own goroutine, so that a
// slow answer (a person filling in a form) never stalls the connection.
func (s *mcpSession) serve(m rpcMessage) {
	ctx, stop := context.WithCancel(s.life)
	key := idKey(m.ID)
	s.mu.Lock()
	s.incoming[key] = stop
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.incoming, key)
			s.mu.Unlock()
			stop()
		}()
		result, rerr := s.answer(ctx, m)
		if ctx.Err() != nil {
			return
		}
		reply := rpcMessage{JSONRPC: "2.0", ID: m.ID, Error: rerr}
		if rerr == nil {
			body, err := json.Marshal(result)
			if err != nil {
				reply.Error = &rpcError{Code: rpcInternalError, Message: err.Error()}
			} else {
				reply.Result = body
			}
		}
		sendCtx, cancel := context.WithTimeout(s.life, defaultMCPCallTimeout)
		defer cancel()
		_ = s.tr.send(sendCtx, reply)
	}()
}

// answer computes the result of a server's request.
func (s *mcpSession) answer(ctx context.Context, m rpcMessage) (any, *rpcError) {
	switch m.Method {
	case "ping":
		return struct{}{}, nil
	case "roots/list":
		if len(s.opts.Roots) == 0 {
			break
		}
		return map[string]any{"roots": rootsList(s.opts.Roots)}, nil
	case "elicitation/create":
		return s.elicit(ctx, m.Params)
	}
	return nil, &rpcError{Code: rpcMethodNotFound, Message: "method not found: " + m.Method}
}

// progress passes a progress report to the request it belongs to.
func (s *mcpSession) progress(params json.RawMessage) {
	var p struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    float64         `json:"total"`
		Message  string          `json:"message"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	s.mu.Lock()
	pend := s.pending[idKey(p.Token)]
	s.mu.Unlock()
	if pend == nil {
		return
	}
	select {
	case pend.progressed <- struct{}{}:
	default:
	}
	if pend.onProgress != nil {
		pend.onProgress(MCPProgress{Server: s.server, Progress: p.Progress, Total: p.Total, Message: p.Message})
	}
}

// rootsList describes directories as MCP roots (file:// URIs).
func rootsList(dirs []string) []map[string]string {
	roots := make([]map[string]string, len(dirs))
	for i, dir := range dirs {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
		roots[i] = map[string]string{"uri": u.String(), "name": filepath.Base(dir)}
	}
	return roots
}
