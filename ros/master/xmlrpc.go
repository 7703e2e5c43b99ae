package master

// The master speaks XML-RPC with every ROS client library. goroslib's
// pkg/xmlrpc covers what a node needs but not what a master needs: it has no
// <struct> (the parameter server stores dictionaries), cannot decode an array
// into an interface value (setParam takes any value), does not escape strings,
// and has no faults or system.multicall (rospy unregisters through
// system.multicall when it shuts down). This file holds the complete value
// codec; the request and response shapes are still goroslib's apimaster,
// apiparam and apislave definitions wherever they fit (see defs.go).

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxValueDepth bounds the nesting of arrays and structs in one value, so a
// hostile request cannot exhaust the stack.
const maxValueDepth = 200

// dateTime is an XML-RPC dateTime.iso8601 value, kept as its text so that a
// parameter set with one reads back identically.
type dateTime string

// fault is an XML-RPC fault, the answer to a call that could not be
// dispatched at all (unknown method, unreadable request).
type fault struct {
	Code    int
	Message string
}

func (f *fault) Error() string {
	return fmt.Sprintf("XML-RPC fault %d: %s", f.Code, f.Message)
}

// methodCall is one decoded XML-RPC request.
type methodCall struct {
	Method string
	Params []any
}

// decodeMethodCall reads a <methodCall> document.
func decodeMethodCall(r io.Reader) (*methodCall, error) {
	d := xml.NewDecoder(r)
	if err := expectStart(d, "methodCall"); err != nil {
		return nil, err
	}
	call := &methodCall{Params: []any{}}
	for {
		tok, err := nextElement(d)
		if err != nil {
			return nil, err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch el.Name.Local {
			case "methodName":
				name, err := textUntilEnd(d)
				if err != nil {
					return nil, err
				}
				call.Method = strings.TrimSpace(name)
			case "params":
				params, err := decodeParams(d)
				if err != nil {
					return nil, err
				}
				call.Params = params
			default:
				return nil, fmt.Errorf("unexpected <%s> in <methodCall>", el.Name.Local)
			}
		case xml.EndElement:
			if call.Method == "" {
				return nil, errors.New("<methodCall> has no <methodName>")
			}
			return call, nil
		}
	}
}

// decodeMethodResponse reads a <methodResponse> document: its single value,
// or the fault it carries as a *fault error.
func decodeMethodResponse(r io.Reader) (any, error) {
	d := xml.NewDecoder(r)
	if err := expectStart(d, "methodResponse"); err != nil {
		return nil, err
	}
	tok, err := nextElement(d)
	if err != nil {
		return nil, err
	}
	el, ok := tok.(xml.StartElement)
	if !ok {
		return nil, errors.New("empty <methodResponse>")
	}
	switch el.Name.Local {
	case "params":
		params, err := decodeParams(d)
		if err != nil {
			return nil, err
		}
		if len(params) != 1 {
			return nil, fmt.Errorf("<methodResponse> has %d values, want 1", len(params))
		}
		return params[0], nil
	case "fault":
		if err := expectStart(d, "value"); err != nil {
			return nil, err
		}
		v, err := decodeValue(d, 0)
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		code, _ := m["faultCode"].(int)
		msg, _ := m["faultString"].(string)
		return nil, &fault{Code: code, Message: msg}
	default:
		return nil, fmt.Errorf("unexpected <%s> in <methodResponse>", el.Name.Local)
	}
}

// decodeParams reads the <param> elements up to </params>.
func decodeParams(d *xml.Decoder) ([]any, error) {
	params := []any{}
	for {
		tok, err := nextElement(d)
		if err != nil {
			return nil, err
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			return params, nil
		}
		if el.Name.Local != "param" {
			return nil, fmt.Errorf("unexpected <%s> in <params>", el.Name.Local)
		}
		if err := expectStart(d, "value"); err != nil {
			return nil, err
		}
		v, err := decodeValue(d, 0)
		if err != nil {
			return nil, err
		}
		params = append(params, v)
		if err := expectEnd(d, "param"); err != nil {
			return nil, err
		}
	}
}

// decodeValue reads what follows a <value> start tag, up to and including
// </value>. The Go types it yields are bool, int, float64, string, []byte,
// dateTime, []any, map[string]any and nil.
func decodeValue(d *xml.Decoder, depth int) (any, error) {
	if depth > maxValueDepth {
		return nil, fmt.Errorf("value nested deeper than %d levels", maxValueDepth)
	}
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		switch el := tok.(type) {
		case xml.CharData:
			text.Write(el)
		case xml.EndElement:
			// A value without a type tag is a string.
			return text.String(), nil
		case xml.StartElement:
			if strings.TrimSpace(text.String()) != "" {
				return nil, fmt.Errorf("text mixed with <%s> in <value>", el.Name.Local)
			}
			v, err := decodeTyped(d, el.Name.Local, depth)
			if err != nil {
				return nil, err
			}
			if err := expectEnd(d, "value"); err != nil {
				return nil, err
			}
			return v, nil
		}
	}
}

// decodeTyped reads the content of a type element such as <int>, up to and
// including its end tag.
func decodeTyped(d *xml.Decoder, typ string, depth int) (any, error) {
	switch typ {
	case "array":
		return decodeArray(d, depth)
	case "struct":
		return decodeStruct(d, depth)
	case "nil":
		if err := d.Skip(); err != nil {
			return nil, err
		}
		return nil, nil
	}
	text, err := textUntilEnd(d)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "string":
		return text, nil
	case "int", "i4", "i8", "i1", "i2", "biginteger":
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("<%s> holds %q, not an integer", typ, text)
		}
		return int(n), nil
	case "boolean":
		switch strings.TrimSpace(text) {
		case "1", "true":
			return true, nil
		case "0", "false":
			return false, nil
		}
		return nil, fmt.Errorf("<boolean> holds %q, not 0 or 1", text)
	case "double", "float", "bigdecimal":
		f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return nil, fmt.Errorf("<%s> holds %q, not a number", typ, text)
		}
		return f, nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), ""))
		if err != nil {
			return nil, fmt.Errorf("<base64> does not decode: %w", err)
		}
		return b, nil
	case "dateTime.iso8601":
		return dateTime(strings.TrimSpace(text)), nil
	}
	return nil, fmt.Errorf("unknown XML-RPC type <%s>", typ)
}

func decodeArray(d *xml.Decoder, depth int) (any, error) {
	if err := expectStart(d, "data"); err != nil {
		return nil, err
	}
	items := []any{}
	for {
		tok, err := nextElement(d)
		if err != nil {
			return nil, err
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			break // </data>
		}
		if el.Name.Local != "value" {
			return nil, fmt.Errorf("unexpected <%s> in <data>", el.Name.Local)
		}
		v, err := decodeValue(d, depth+1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
	}
	return items, expectEnd(d, "array")
}

func decodeStruct(d *xml.Decoder, depth int) (any, error) {
	members := map[string]any{}
	for {
		tok, err := nextElement(d)
		if err != nil {
			return nil, err
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			return members, nil // </struct>
		}
		if el.Name.Local != "member" {
			return nil, fmt.Errorf("unexpected <%s> in <struct>", el.Name.Local)
		}
		var name string
		var value any
		haveName, haveValue := false, false
		for {
			tok, err := nextElement(d)
			if err != nil {
				return nil, err
			}
			el, ok := tok.(xml.StartElement)
			if !ok {
				break // </member>
			}
			switch el.Name.Local {
			case "name":
				if name, err = textUntilEnd(d); err != nil {
					return nil, err
				}
				haveName = true
			case "value":
				if value, err = decodeValue(d, depth+1); err != nil {
					return nil, err
				}
				haveValue = true
			default:
				return nil, fmt.Errorf("unexpected <%s> in <member>", el.Name.Local)
			}
		}
		if !haveName || !haveValue {
			return nil, errors.New("<member> needs both <name> and <value>")
		}
		members[name] = value
	}
}

// nextElement returns the next start or end element, skipping whitespace,
// comments and processing instructions.
func nextElement(d *xml.Decoder) (xml.Token, error) {
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, unexpectedEOF(err)
		}
		switch el := tok.(type) {
		case xml.StartElement, xml.EndElement:
			return el, nil
		case xml.CharData:
			if len(bytes.TrimSpace(el)) != 0 {
				return nil, fmt.Errorf("unexpected text %q", truncate(string(el)))
			}
		}
	}
}

func expectStart(d *xml.Decoder, name string) error {
	tok, err := nextElement(d)
	if err != nil {
		return err
	}
	el, ok := tok.(xml.StartElement)
	if !ok || el.Name.Local != name {
		return fmt.Errorf("expected <%s>, got %s", name, describe(tok))
	}
	return nil
}

func expectEnd(d *xml.Decoder, name string) error {
	tok, err := nextElement(d)
	if err != nil {
		return err
	}
	el, ok := tok.(xml.EndElement)
	if !ok || el.Name.Local != name {
		return fmt.Errorf("expected </%s>, got %s", name, describe(tok))
	}
	return nil
}

// textUntilEnd reads the text of an element whose start tag was just read.
func textUntilEnd(d *xml.Decoder) (string, error) {
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			return "", unexpectedEOF(err)
		}
		switch el := tok.(type) {
		case xml.CharData:
			text.Write(el)
		case xml.EndElement:
			return text.String(), nil
		case xml.StartElement:
			return "", fmt.Errorf("unexpected <%s> inside a text element", el.Name.Local)
		}
	}
}

func describe(tok xml.Token) string {
	switch el := tok.(type) {
	case xml.StartElement:
		return "<" + el.Name.Local + ">"
	case xml.EndElement:
		return "</" + el.Name.Local + ">"
	}
	return fmt.Sprintf("%T", tok)
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// xmlWriter is where documents are encoded: a bytes.Buffer, a bufio.Writer
// streaming to the network, or a byteCounter sizing a document before it is
// sent. Encoders ignore write errors; a bufio.Writer keeps the first one and
// reports it on Flush.
type xmlWriter interface {
	io.Writer
	io.StringWriter
}

// byteCounter counts what is written to it: a response is encoded twice,
// once to learn its Content-Length (XmlRpc++, roscpp's client, requires
// one) and once to the connection, so that no response is ever held whole
// in memory.
type byteCounter int64

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}

func (c *byteCounter) WriteString(s string) (int, error) {
	*c += byteCounter(len(s))
	return len(s), nil
}

// encodedSize returns how many bytes encode writes.
func encodedSize(encode func(w xmlWriter) error) (int64, error) {
	var n byteCounter
	err := encode(&n)
	return int64(n), err
}

// escapeText writes s with XML's special characters escaped, as
// xml.EscapeText does, without copying s into a byte slice first (a
// parameter may weigh tens of megabytes).
func escapeText(w xmlWriter, s string) {
	last := 0
	for i := 0; i < len(s); {
		var esc string
		width := 1
		switch b := s[i]; {
		case b == '"':
			esc = "&#34;"
		case b == '\'':
			esc = "&#39;"
		case b == '&':
			esc = "&amp;"
		case b == '<':
			esc = "&lt;"
		case b == '>':
			esc = "&gt;"
		case b == '\t':
			esc = "&#x9;"
		case b == '\n':
			esc = "&#xA;"
		case b == '\r':
			esc = "&#xD;"
		case b < 0x20:
			esc = "\uFFFD"
		case b >= utf8.RuneSelf:
			var r rune
			r, width = utf8.DecodeRuneInString(s[i:])
			if !xmlChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
			}
		}
		if esc != "" {
			w.WriteString(s[last:i]) //nolint:errcheck
			w.WriteString(esc)       //nolint:errcheck
			last = i + width
		}
		i += width
	}
	w.WriteString(s[last:]) //nolint:errcheck
}

// xmlChar reports whether r may appear in an XML 1.0 document.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// encodeMethodCall writes a <methodCall> document with one <param> per value.
func encodeMethodCall(w xmlWriter, method string, params ...any) error {
	w.WriteString(`<?xml version="1.0"?><methodCall><methodName>`)
	escapeText(w, method)
	w.WriteString(`</methodName><params>`)
	for _, p := range params {
		w.WriteString(`<param>`)
		if err := encodeValue(w, reflect.ValueOf(p), 0); err != nil {
			return err
		}
		w.WriteString(`</param>`)
	}
	w.WriteString(`</params></methodCall>`)
	return nil
}

// encodeMethodResponse writes a <methodResponse> carrying v.
func encodeMethodResponse(w xmlWriter, v any) error {
	w.WriteString(`<?xml version="1.0"?><methodResponse><params><param>`)
	if err := encodeValue(w, reflect.ValueOf(v), 0); err != nil {
		return err
	}
	w.WriteString(`</param></params></methodResponse>`)
	return nil
}

// encodeFault writes a <methodResponse> carrying a fault.
func encodeFault(w xmlWriter, f *fault) {
	w.WriteString(`<?xml version="1.0"?><methodResponse><fault>`)
	// A map of two scalars always encodes.
	encodeValue(w, reflect.ValueOf(map[string]any{ //nolint:errcheck
		"faultCode":   f.Code,
		"faultString": f.Message,
	}), 0)
	w.WriteString(`</fault></methodResponse>`)
}

// encodeValue writes v as a <value>. Structs are written as arrays of their
// fields in order, which is how goroslib's definitions map onto the ROS
// [code, statusMessage, value] convention; maps with string keys are written
// as <struct>.
func encodeValue(w xmlWriter, v reflect.Value, depth int) error {
	if depth > maxValueDepth {
		return fmt.Errorf("value nested deeper than %d levels", maxValueDepth)
	}
	w.WriteString(`<value>`)
	if err := encodeInner(w, v, depth); err != nil {
		return err
	}
	w.WriteString(`</value>`)
	return nil
}

func encodeInner(w xmlWriter, v reflect.Value, depth int) error {
	if !v.IsValid() {
		w.WriteString(`<nil/>`)
		return nil
	}
	switch x := v.Interface().(type) {
	case []byte:
		w.WriteString(`<base64>`)
		enc := base64.NewEncoder(base64.StdEncoding, w)
		enc.Write(x) //nolint:errcheck
		enc.Close()  //nolint:errcheck
		w.WriteString(`</base64>`)
		return nil
	case dateTime:
		w.WriteString(`<dateTime.iso8601>`)
		escapeText(w, string(x))
		w.WriteString(`</dateTime.iso8601>`)
		return nil
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			w.WriteString(`<nil/>`)
			return nil
		}
		return encodeInner(w, v.Elem(), depth)
	case reflect.Bool:
		if v.Bool() {
			w.WriteString(`<boolean>1</boolean>`)
		} else {
			w.WriteString(`<boolean>0</boolean>`)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := v.Int()
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			w.WriteString(`<i4>` + strconv.FormatInt(n, 10) + `</i4>`)
		} else {
			w.WriteString(`<i8>` + strconv.FormatInt(n, 10) + `</i8>`)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := v.Uint()
		if n > math.MaxInt64 {
			return fmt.Errorf("integer %d does not fit XML-RPC", n)
		}
		return encodeInner(w, reflect.ValueOf(int64(n)), depth)
	case reflect.Float32, reflect.Float64:
		w.WriteString(`<double>` + strconv.FormatFloat(v.Float(), 'g', -1, 64) + `</double>`)
	case reflect.String:
		w.WriteString(`<string>`)
		escapeText(w, v.String())
		w.WriteString(`</string>`)
	case reflect.Slice, reflect.Array:
		w.WriteString(`<array><data>`)
		for i := 0; i < v.Len(); i++ {
			if err := encodeValue(w, v.Index(i), depth+1); err != nil {
				return err
			}
		}
		w.WriteString(`</data></array>`)
	case reflect.Struct:
		w.WriteString(`<array><data>`)
		for i := 0; i < v.NumField(); i++ {
			if err := encodeValue(w, v.Field(i), depth+1); err != nil {
				return err
			}
		}
		w.WriteString(`</data></array>`)
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("cannot encode a map keyed by %s", v.Type().Key())
		}
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		w.WriteString(`<struct>`)
		for _, k := range keys {
			w.WriteString(`<member><name>`)
			escapeText(w, k)
			w.WriteString(`</name>`)
			if err := encodeValue(w, v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())), depth+1); err != nil {
				return err
			}
			w.WriteString(`</member>`)
		}
		w.WriteString(`</struct>`)
	default:
		return fmt.Errorf("cannot encode a %s in XML-RPC", v.Type())
	}
	return nil
}

// bindParams copies the decoded parameters of a call into the fields of the
// struct dst points to, in order, the way goroslib's request definitions are
// laid out. It fails with a message naming the first parameter that does not
// fit.
func bindParams(params []any, dst any) error {
	rv := reflect.ValueOf(dst).Elem()
	if len(params) != rv.NumField() {
		return fmt.Errorf("bad call arity: got %d parameters, want %d", len(params), rv.NumField())
	}
	for i, p := range params {
		if err := assign(rv.Field(i), p); err != nil {
			return fmt.Errorf("parameter %d (%s): %w", i+1, rv.Type().Field(i).Name, err)
		}
	}
	return nil
}

// assign stores a decoded value into a typed destination.
func assign(dst reflect.Value, v any) error {
	if dst.Kind() == reflect.Interface {
		if v == nil {
			dst.SetZero()
		} else {
			dst.Set(reflect.ValueOf(v))
		}
		return nil
	}
	switch dst.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %s", typeName(v))
		}
		dst.SetString(s)
	case reflect.Int:
		n, ok := v.(int)
		if !ok {
			return fmt.Errorf("want an integer, got %s", typeName(v))
		}
		dst.SetInt(int64(n))
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want a boolean, got %s", typeName(v))
		}
		dst.SetBool(b)
	case reflect.Float64:
		switch n := v.(type) {
		case float64:
			dst.SetFloat(n)
		case int:
			dst.SetFloat(float64(n))
		default:
			return fmt.Errorf("want a number, got %s", typeName(v))
		}
	case reflect.Slice:
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array, got %s", typeName(v))
		}
		s := reflect.MakeSlice(dst.Type(), len(items), len(items))
		for i, item := range items {
			if err := assign(s.Index(i), item); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
		dst.Set(s)
	case reflect.Struct:
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want an array, got %s", typeName(v))
		}
		if len(items) != dst.NumField() {
			return fmt.Errorf("want an array of %d items, got %d", dst.NumField(), len(items))
		}
		for i, item := range items {
			if err := assign(dst.Field(i), item); err != nil {
				return fmt.Errorf("item %d: %w", i, err)
			}
		}
	default:
		return fmt.Errorf("cannot decode into a %s", dst.Type())
	}
	return nil
}

// typeName names a decoded value's XML-RPC type for error messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case bool:
		return "a boolean"
	case int:
		return "an integer"
	case float64:
		return "a double"
	case string:
		return "a string"
	case []byte:
		return "base64"
	case dateTime:
		return "a dateTime"
	case []any:
		return "an array"
	case map[string]any:
		return "a struct"
	}
	return fmt.Sprintf("%T", v)
}
