package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// JSON decoding that says what is wrong and where, for settings files, permission files, hooks and tool inputs alike.

// unknownKeys returns the sorted keys of m that no field of the struct type
// t takes (a nested struct's as parent.key), each after prefix.
func unknownKeys(m map[string]json.RawMessage, t reflect.Type, prefix string) []string {
	var out []string
	fields := reflect.VisibleFields(t)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch i := slices.IndexFunc(fields, func(f reflect.StructField) bool { return f.IsExported() && jsonName(f) == k }); {
		case i < 0:
			out = append(out, prefix+k)
		case fields[i].Type.Kind() == reflect.Struct:
			var nested map[string]json.RawMessage
			_ = json.Unmarshal(m[k], &nested) // decodeJSON has checked the syntax and types
			out = append(out, unknownKeys(nested, fields[i].Type, prefix+k+".")...)
		}
	}
	return out
}

// decodeJSON decodes a JSON document of exactly one value, describing any problem with its line number.
func decodeJSON(data []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(v)
	field, unknown := strings.CutPrefix(fmt.Sprint(err), "json: unknown field ")
	switch {
	case err == nil && dec.More():
		return fmt.Errorf("line %d: unexpected data after the JSON object", lineOf(data, dec.InputOffset()))
	case err == nil:
		return nil
	case unknown:
		return fmt.Errorf("line %d: unknown field %s", lineOf(data, int64(max(0, bytes.Index(data, []byte(field))))), field)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the file is empty or ends too soon")
	}
	return errors.New(jsonError(err, data, 0))
}

// jsonError describes a JSON decoding error by field, wanted and given type,
// and line when given the document data, where the decoded part starts at base.
func jsonError(err error, data []byte, base int64) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	msg, offset := err.Error(), int64(-1)
	switch {
	case errors.As(err, &typeErr):
		msg, offset = fmt.Sprintf("field %q must be %s, got %s", typeErr.Field, jsonKind(typeErr.Type), typeErr.Value), typeErr.Offset
	case errors.As(err, &syntaxErr):
		msg, offset = fmt.Sprintf("not valid JSON (%v)", err), syntaxErr.Offset
	}
	if data == nil || offset < 0 {
		return msg
	}
	return fmt.Sprintf("line %d: %s", lineOf(data, base+offset), msg)
}

// jsonKind names a Go type as JSON does: "a string", "an integer".
func jsonKind(t reflect.Type) string {
	kind := cmp.Or(jsonType(t), "object")
	if strings.ContainsAny(kind[:1], "aio") {
		return "an " + kind
	}
	return "a " + kind
}

// jsonTypes are the JSON schema types of Go kinds; others take any value.
var jsonTypes = map[reflect.Kind]string{
	reflect.String: "string", reflect.Bool: "boolean", reflect.Float32: "number", reflect.Float64: "number",
	reflect.Int: "integer", reflect.Int8: "integer", reflect.Int16: "integer", reflect.Int32: "integer", reflect.Int64: "integer",
	reflect.Uint: "integer", reflect.Uint8: "integer", reflect.Uint16: "integer", reflect.Uint32: "integer", reflect.Uint64: "integer",
	reflect.Slice: "array", reflect.Array: "array", reflect.Map: "object", reflect.Struct: "object",
}

// jsonType is the JSON schema type of a Go type; "" when any value fits.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return ""
	}
	return jsonTypes[t.Kind()]
}

// jsonName is the JSON name of a struct field ("" for skipped fields).
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return cmp.Or(name, f.Name)
}

// readableJSON encodes v for people to read: indented, with <, > and & as they are, and a final newline.
func readableJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v) // the callers' values always encode
	return b.Bytes()
}

// editJSON returns the JSON object doc (nothing or null: none), readable, with the member at path set to value or
// removed when value is nil, and the value it replaced. Objects on the path are made when missing; all else keeps
// its order and is written as it was, numbers too (12345678901234567890 would round as a float).
func editJSON(doc []byte, value json.RawMessage, path ...string) (edited []byte, old json.RawMessage, err error) {
	if s := bytes.TrimSpace(doc); len(s) == 0 || string(s) == "null" {
		doc = []byte("{}")
	}
	if err := json.Unmarshal(doc, new(json.RawMessage)); err != nil {
		return nil, nil, err
	}
	var keys []string
	var values []json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, _ := dec.Token(); t != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	for dec.More() { // the syntax is checked above
		key, _ := dec.Token()
		keys, values = append(keys, key.(string)), append(values, nil)
		dec.Decode(&values[len(values)-1])
	}
	i := slices.Index(keys, path[0])
	if i < 0 {
		i, keys, values = len(keys), append(keys, path[0]), append(values, nil)
	}
	if old = values[i]; len(path) > 1 {
		if value, old, err = editJSON(old, value, path[1:]...); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path[0], err)
		}
	}
	values[i] = value
	var b bytes.Buffer
	for j, v := range values {
		if key, _ := encodeJSON(keys[j], 0); v != nil { // a string always encodes
			fmt.Fprintf(&b, ",%s:%s", key, v)
		}
	}
	return readableJSON(json.RawMessage("{" + strings.TrimPrefix(b.String(), ",") + "}")), old, nil
}

// mapped applies f to each element of list, in order; the result is never nil, so it encodes as a JSON array.
func mapped[T, U any](list []T, f func(T) U) []U {
	out := make([]U, 0, len(list))
	for _, v := range list {
		out = append(out, f(v))
	}
	return out
}
