package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
)

// mcpSDK reaches a server the driving program runs through mcp_message control requests.
type mcpSDK struct {
	conn    *sdkConn // nil when no program drives minicode
	server  string
	deliver atomic.Pointer[func(rpcMessage)] // nil while closed
}

// open starts taking the server's messages.
func (t *mcpSDK) open(_ context.Context, deliver func(rpcMessage), _ func(error)) error {
	if t.conn == nil {
		return errors.New(`a server of type "sdk" is run by the program driving minicode, and none does (--input-format stream-json)`)
	}
	t.deliver.Store(&deliver)
	return nil
}

// send passes one message to the program and delivers the reply to a request.
func (t *mcpSDK) send(ctx context.Context, msg rpcMessage) error {
	raw, err := t.conn.request(ctx, map[string]any{"subtype": "mcp_message", "server_name": t.server, "message": msg})
	if err != nil || !msg.isRequest() {
		return err
	}
	var r struct {
		Reply *rpcMessage `json:"mcp_response"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Reply == nil {
		return fmt.Errorf("the program's answer to %s has no mcp_response", msg.Method)
	}
	t.receive(*r.Reply)
	return nil
}

// receive passes a message from the server to the session, if it is open.
func (t *mcpSDK) receive(m rpcMessage) {
	if deliver := t.deliver.Load(); deliver != nil {
		(*deliver)(m)
	}
}

// close stops delivering: the server itself lives in the program.
func (t *mcpSDK) close() {
	t.deliver.Store(nil)
}

// serveMCP starts the servers the program runs (named in initialize, or of type "sdk").
func (c *sdkConn) serveMCP(ctx context.Context, named []string) []string {
	for _, srv := range c.app.MCP.list() {
		if srv.cfg.Type == "sdk" {
			named = append(named, srv.name)
		}
	}
	var started []string
	for _, name := range named {
		tr := &mcpSDK{conn: c, server: name}
		c.mu.Lock()
		if _, dup := c.mcp[name]; dup {
			c.mu.Unlock()
			continue
		}
		c.mcp[name] = tr
		c.mu.Unlock()
		if err := c.app.MCP.AddServer(ctx, MCPServerConfig{Name: name, Type: "sdk", Source: "the program"}, tr); err != nil {
			c.app.notice(fmt.Sprintf("MCP server %s from the program: %v", name, err))
			continue
		}
		started = append(started, name)
	}
	return started
}

// mcpMessage takes a message one of the program's servers sends on its own.
func (c *sdkConn) mcpMessage(server string, msg *rpcMessage) error {
	c.mu.Lock()
	tr := c.mcp[server]
	c.mu.Unlock()
	switch {
	case tr == nil:
		return fmt.Errorf("no SDK MCP server named %q", server)
	case msg == nil:
		return errors.New("mcp_message without a message")
	}
	tr.receive(*msg)
	return nil
}
