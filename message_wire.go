package main

// WireCache holds what is computed once per message, each provider's encoding and the token
// estimate. A request carries the whole conversation: encoded afresh, a step would cost more the
// longer the session. Encoded once per message (and the tools once per change, in a body that
// refers to those bytes), step 200 of BenchmarkLongSession costs what step 10 does.
type WireCache struct {
	anthropic []anthropicWireBlock // the content blocks; nil until encoded
	openai    []byte               // the chat messages, joined by commas; nil until encoded
	responses []byte               // the Responses API's input items, joined by commas; nil until encoded
	tokens    int
}

// withWireCaches gives every message of msgs that has none a cache.
func withWireCaches(msgs []Message) {
	for i := range msgs {
		if msgs[i].wire == nil {
			msgs[i].wire = &WireCache{}
		}
	}
}

// anthropicWireBlock is one encoded content block, kept in its message's WireCache.
type anthropicWireBlock struct {
	json     []byte
	rank     int  // 0 for a tool_result, which the API wants first in its message; else 1
	thinking bool // thinking never carries a cache breakpoint
}
