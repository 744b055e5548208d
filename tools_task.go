package main

import "context"

// contextKey names the values minicode keeps in a context.
type contextKey int

// The context keys.
const (
	keyToolUseID  contextKey = iota // the id of the tool call being run
	keyToolGrants                   // allow rules of the running skill or command
)

// withToolUseID records the id of the tool call a context runs.
func withToolUseID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, keyToolUseID, id)
}

// withToolGrants lets the calls run under ctx use rules without asking.
func withToolGrants(ctx context.Context, rules []Rule) context.Context {
	return context.WithValue(ctx, keyToolGrants, append(toolGrants(ctx), rules...))
}

// toolGrants returns the allow rules granted to calls run under ctx.
func toolGrants(ctx context.Context) []Rule {
	rules, _ := ctx.Value(keyToolGrants).([]Rule)
	return rules
}
