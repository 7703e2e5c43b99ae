package master

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
)

func TestDecodeMethodCall(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		method string
		params []any
	}{
		{
			name: "as Python's xmlrpc.client writes it",
			body: "<?xml version='1.0'?>\n<methodCall>\n<methodName>setParam</methodName>\n<params>\n" +
				"<param>\n<value><string>/rosparam</string></value>\n</param>\n" +
				"<param>\n<value><string>/robot</string></value>\n</param>\n" +
				"<param>\n<value><struct>\n<member>\n<name>speed</name>\n<value><double>0.5</double></value>\n</member>\n" +
				"<member>\n<name>wheels</name>\n<value><array><data>\n<value><int>2</int></value>\n<value><boolean>1</boolean></value>\n</data></array></value>\n</member>\n" +
				"</struct></value>\n</param>\n</params>\n</methodCall>\n",
			method: "setParam",
			params: []any{"/rosparam", "/robot", map[string]any{"speed": 0.5, "wheels": []any{2, true}}},
		},
		{
			name: "untyped strings, i4, i8, nil and base64",
			body: `<?xml version="1.0"?><methodCall><methodName>x</methodName><params>` +
				`<param><value>plain</value></param><param><value></value></param>` +
				`<param><value><i4>-3</i4></value></param><param><value><i8>5000000000</i8></value></param>` +
				`<param><value><nil/></value></param><param><value><base64>AAH/</base64></value></param>` +
				`<param><value><string>a &lt;b&gt; &amp; c</string></value></param>` +
				`</params></methodCall>`,
			method: "x",
			params: []any{"plain", "", -3, 5000000000, nil, []byte{0, 1, 255}, "a <b> & c"},
		},
		{
			name:   "no params",
			body:   `<methodCall><methodName>getPid</methodName></methodCall>`,
			method: "getPid",
			params: []any{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			call, err := decodeMethodCall(strings.NewReader(tc.body))
			require.NoError(t, err)
			if assert.Equal(t, tc.method, call.Method, "got %s%#v, want %s%#v", call.Method, call.Params, tc.method, tc.params) {
				assert.Equal(t, tc.params, call.Params, "got %s%#v, want %s%#v", call.Method, call.Params, tc.method, tc.params)
			}
		})
	}
}

func TestDecodeMethodCallRejectsBadInput(t *testing.T) {
	deep := strings.Repeat("<value><array><data>", maxValueDepth+5)
	tests := []struct {
		name, body, want string
	}{
		{"empty", "", "unexpected EOF"},
		{"not XML", "hello", "unexpected text"},
		{"wrong root", "<methodResponse/>", "expected <methodCall>"},
		{"no method name", "<methodCall><params/></methodCall>", "no <methodName>"},
		{"truncated", "<methodCall><methodName>x</methodName><params><param><value><int>1", "unexpected EOF"},
		{"bad int", "<methodCall><methodName>x</methodName><params><param><value><int>one</int></value></param></params></methodCall>", "not an integer"},
		{"bad boolean", "<methodCall><methodName>x</methodName><params><param><value><boolean>yes</boolean></value></param></params></methodCall>", "not 0 or 1"},
		{"unknown type", "<methodCall><methodName>x</methodName><params><param><value><blob>1</blob></value></param></params></methodCall>", "unknown XML-RPC type"},
		{"member without value", "<methodCall><methodName>x</methodName><params><param><value><struct><member><name>a</name></member></struct></value></param></params></methodCall>", "needs both"},
		{"too deep", "<methodCall><methodName>x</methodName><params><param>" + deep, "nested deeper"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeMethodCall(strings.NewReader(tc.body))
			assert.ErrorContains(t, err, tc.want, "error %v, want one containing %q", err, tc.want)
		})
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want any // decoded form
	}{
		{"goroslib response struct as array", apimaster.ResponseLookup{Code: 1, StatusMessage: "node api", URL: "http://h:1/"}, []any{1, "node api", "http://h:1/"}},
		{"nil slice as empty array", apimaster.ResponseRegister{Code: 1}, []any{1, "", []any{}}},
		{"map as struct", map[string]any{"b": 1, "a": map[string]any{}}, map[string]any{"b": 1, "a": map[string]any{}}},
		{"escaped text", "<&>\"'\n", "<&>\"'\n"},
		{"large int", 1 << 40, 1 << 40},
		{"float", 1e21, 1e21},
		{"datetime", dateTime("20240102T03:04:05"), dateTime("20240102T03:04:05")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, encodeMethodResponse(&buf, tc.in))
			got, err := decodeMethodResponse(&buf)
			require.NoError(t, err, "%v in %s", err, buf.String())
			assert.Equal(t, tc.want, got, "round trip = %#v, want %#v", got, tc.want)
		})
	}
}

func TestEncodeRejectsWhatXMLRPCCannotCarry(t *testing.T) {
	tests := []struct {
		name string
		in   any
	}{
		{"map keyed by int", map[int]string{1: "a"}},
		{"channel", make(chan int)},
		{"huge unsigned", uint64(1) << 63},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		err := encodeMethodResponse(&buf, tc.in)
		assert.Error(t, err, "%s: encoded without error", tc.name)
	}
}

func TestFaultRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	encodeFault(&buf, &fault{Code: 1, Message: `method "x" <unknown>`})
	_, err := decodeMethodResponse(&buf)
	var f *fault
	if assert.ErrorAs(t, err, &f, "decoded %v, want the fault back", err) {
		assert.Equal(t, 1, f.Code, "decoded %v, want the fault back", err)
		assert.Equal(t, `method "x" <unknown>`, f.Message, "decoded %v, want the fault back", err)
	}
}

func TestBindParams(t *testing.T) {
	tests := []struct {
		name    string
		params  []any
		wantErr string
	}{
		{"fits", []any{"/n", "/t", "std_msgs/String", "http://h:1/"}, ""},
		{"too few", []any{"/n"}, "bad call arity"},
		{"too many", []any{"/n", "/t", "a/b", "http://h:1/", 5}, "bad call arity"},
		{"int for string", []any{"/n", 7, "a/b", "http://h:1/"}, "parameter 2 (Topic): want a string, got an integer"},
		{"array for string", []any{[]any{}, "/t", "a/b", "http://h:1/"}, "parameter 1 (CallerID): want a string, got an array"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var req apimaster.RequestRegister
			err := bindParams(tc.params, &req)
			switch {
			case tc.wantErr == "" && err != nil:
				assert.Fail(t, fmt.Sprintf("unexpected error %v", err))
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				assert.Fail(t, fmt.Sprintf("error %v, want %q", err, tc.wantErr))
			}
		})
	}
}

// TestEscapeTextMatchesEncodingXML: the master's escaping, which streams a
// string without copying it, writes what encoding/xml's EscapeText writes.
func TestEscapeTextMatchesEncodingXML(t *testing.T) {
	tests := []string{
		"", "plain", `<robot name="r&d" type='x'>`, "tab\tnew\nline\rreturn",
		"über Stock & Stein ✓", "nul\x00bell\x07", "bad utf8 \xff\xfe end", "\uFFFD real replacement",
		"surrogate \xed\xa0\x80", "\U0010FFFF max", "\x7f del",
	}
	for _, s := range tests {
		checkEscapeText(t, s)
	}
}

func FuzzEscapeText(f *testing.F) {
	f.Add("<a href='x'>&amp;</a>\t\xff")
	f.Fuzz(checkEscapeText)
}

func checkEscapeText(t *testing.T, s string) {
	t.Helper()

	var want, got bytes.Buffer
	xml.EscapeText(&want, []byte(s)) //nolint:errcheck
	escapeText(&got, s)
	assert.Equal(t, want.String(), got.String(), "escapeText(%q) = %q, want %q", s, got.String(), want.String())
}
