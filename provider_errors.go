package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// What the model APIs and the connection answer when a request fails, and which failures are worth a retry.

// APIError is an error reply of a model API: a non-200 status or an error event.
type APIError struct {
	Provider   string
	Status     int    // the HTTP status; 0 for an error event inside the stream
	Type       string // the API's error type or code, e.g. "overloaded_error"
	Message    string // the API's own words, shown to the user
	RetryAfter time.Duration
	Retryable  bool
}

// Error says what the API said, and where.
func (e *APIError) Error() string {
	where := fmt.Sprintf("HTTP %d", e.Status)
	if e.Status == 0 {
		where = "error event in the stream"
	}
	if e.Type != "" {
		where += ", " + e.Type
	}
	msg := fmt.Sprintf("%s API error: %s (%s)", e.Provider, e.Message, where)
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf("; the server asks to retry after %s", e.RetryAfter)
	}
	return msg
}

// rejectsMedia reports whether err is an API refusing an image or document of the request.
func rejectsMedia(err error) bool {
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok || apiErr.Status < 400 || apiErr.Status >= 500 || apiErr.Status == 429 {
		return false
	}
	return containsAny(strings.ToLower(apiErr.Message), "image", "pdf", "document", "vision")
}

// containsAny reports whether s contains any of words.
func containsAny(s string, words ...string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(s, w) })
}

// streamError is a failure of the connection or the stream, worth a retry (a stall only once).
type streamError struct {
	error
	stalled bool
}

// Unwrap returns the underlying error.
func (e *streamError) Unwrap() error { return e.error }

// errTruncated reports a stream that ended before the reply was complete.
var errTruncated = &streamError{error: errors.New("the stream ended before the reply was complete")}

// connectionError makes a reset, EOF or timeout retryable, and names the address for the rest.
func (c *streamClient) connectionError(err error) error {
	netErr, isNet := errors.AsType[net.Error](err)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) || (isNet && netErr.Timeout()) {
		return &streamError{error: fmt.Errorf("connection failed: %w", err)}
	}
	urlErr, ok := errors.AsType[*url.Error](err)
	if !ok {
		return err
	}
	reason := urlErr.Err
	if errno, ok := errors.AsType[syscall.Errno](reason); ok {
		reason = errno
	} else if dnsErr, ok := errors.AsType[*net.DNSError](reason); ok {
		reason = fmt.Errorf("%s: %s", dnsErr.Name, dnsErr.Err)
	}
	hint := ""
	if c.startHint != "" {
		hint = "; is the server running? " + c.startHint
	}
	return fmt.Errorf("cannot reach the %s API at %s (%w); %s sets the address%s", c.provider, urlErr.URL, reason, c.baseURLVar, hint)
}

// readError classifies a failure while reading a stream: cut short, too long, or lost.
func readError(err error) error {
	switch {
	case errors.Is(err, io.EOF):
		return errTruncated
	case errors.Is(err, errSSETooLong):
		return err
	default:
		return &streamError{error: fmt.Errorf("connection lost during the reply: %w", err)}
	}
}

// readAPIError builds the error of a non-200 response from its body and retry headers.
func readAPIError(provider string, resp *http.Response) *APIError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := parseErrorBody(body)
	e.Provider, e.Status = provider, resp.StatusCode
	e.Message = cmp.Or(e.Message, cutBytes(strings.TrimSpace(string(body)), 500, "..."), http.StatusText(resp.StatusCode))
	e.RetryAfter = retryAfter(resp.Header, time.Now())
	switch resp.StatusCode {
	case http.StatusTooManyRequests: // unless it is about money, which waiting does not fix
		e.Retryable = !containsAny(strings.ToLower(e.Type), "insufficient_quota", "billing") &&
			!containsAny(strings.ToLower(e.Message), "current quota", "credit balance", "spend limit", "spending limit", "usage limit")
	case 500, 502, 503, 504, 529:
		e.Retryable = true
	}
	return e
}

// parseErrorBody reads the error object, or bare error string, of an API reply.
func parseErrorBody(body []byte) *APIError {
	var envelope struct {
		Error json.RawMessage `json:"error"`
	}
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	e := &APIError{}
	if json.Unmarshal(body, &envelope) != nil || json.Unmarshal(envelope.Error, &e.Message) == nil {
		return e
	}
	json.Unmarshal(envelope.Error, &obj)
	e.Message, e.Type = obj.Message, obj.Type
	if code := strings.Trim(string(obj.Code), `" `); code != "" && code != "null" && code != e.Type {
		e.Type = strings.TrimPrefix(e.Type+", "+code, ", ")
	}
	return e
}

// streamErrorEvent is the error of an error event; overload, rate limits and server failures are retried.
func streamErrorEvent(provider, data string) error {
	e := parseErrorBody([]byte(data))
	e.Provider, e.Message = provider, cmp.Or(e.Message, "unknown error")
	e.Retryable = containsAny(strings.ToLower(e.Type),
		"overloaded", "api_error", "rate_limit", "server_error", "internal", "500", "502", "503", "504", "529")
	return e
}

// retryAfter reads retry-after-ms, or retry-after as seconds or a date; 0 when absent.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("retry-after-ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs > 0 {
		return time.Duration(secs * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil && at.After(now) {
		return at.Sub(now)
	}
	return 0
}
