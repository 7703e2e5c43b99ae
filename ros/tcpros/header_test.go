package tcpros_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
	"testing"

	"github.com/bluenviron/goroslib/v2/pkg/protocommon"
	"github.com/bluenviron/goroslib/v2/pkg/prototcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/tcpros"
)

// rawHeader builds a header's wire form from raw fields.
func rawHeader(fields ...string) []byte {
	var body []byte
	for _, f := range fields {
		body = binary.LittleEndian.AppendUint32(body, uint32(len(f)))
		body = append(body, f...)
	}
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func TestHeaderRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		h    tcpros.Header
	}{
		{"empty", tcpros.Header{}},
		{"a subscriber's", tcpros.Header{"callerid": "/btrobot", "topic": "/cmd_vel", "md5sum": "9f195f881246fdfa2798d1d3eebca84a", "type": "geometry_msgs/Twist", "tcp_nodelay": "1"}},
		{"a value with '=' and newlines", tcpros.Header{"message_definition": "uint8 A=1\nstring b\n", "error": ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, tcpros.WriteHeader(&buf, c.h))
			got, err := tcpros.ReadHeader(&buf, tcpros.HeaderLimits{})
			require.NoError(t, err)
			assert.Equal(t, c.h, got)
			assert.Zero(t, buf.Len(), "the whole header is read, nothing more")
		})
	}
}

// TestHeaderReadsGoroslibs: a header goroslib writes is read back whole.
func TestHeaderReadsGoroslibs(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, protocommon.HeaderEncode(&buf, &prototcp.HeaderSubscriber{
		Callerid: "/a", Topic: "/t", Type: "std_msgs/String", Md5sum: "992ce8a1687cec8c8bd883ec73ca41d1", MessageDefinition: "string data\n", TcpNodelay: 1,
	}))
	got, err := tcpros.ReadHeader(&buf, tcpros.HeaderLimits{})
	require.NoError(t, err)
	assert.Equal(t, tcpros.Header{
		"callerid": "/a", "topic": "/t", "type": "std_msgs/String", "md5sum": "992ce8a1687cec8c8bd883ec73ca41d1",
		"message_definition": "string data\n", "tcp_nodelay": "1",
	}, got)
}

// TestHeaderBounds: a header over a bound, or malformed, is an error that
// says what was wrong, found before anything is allocated for it.
func TestHeaderBounds(t *testing.T) {
	many := make([]string, 65)
	for i := range many {
		many[i] = "k" + strings.Repeat("x", i) + "=v"
	}
	for _, c := range []struct {
		name string
		wire []byte
		lim  tcpros.HeaderLimits
		err  string
	}{
		{"1 GiB declared", binary.LittleEndian.AppendUint32(nil, 1<<30), tcpros.HeaderLimits{}, "declares 1073741824 bytes, over the bound of 65536"},
		{"over a configured bound", rawHeader("topic=" + strings.Repeat("t", 100)), tcpros.HeaderLimits{MaxSize: 64}, "declares 110 bytes, over the bound of 64"},
		{"too many fields", rawHeader(many...), tcpros.HeaderLimits{}, "more than 64 fields"},
		{"a field longer than the header", append(binary.LittleEndian.AppendUint32(nil, 8), 200, 0, 0, 0, 'a', '=', 'b', 'c'), tcpros.HeaderLimits{}, "field 1 declares 200 bytes, 4 are left in the header"},
		{"a field length cut", append(binary.LittleEndian.AppendUint32(nil, 2), 1, 0), tcpros.HeaderLimits{}, "field 1 at byte 0: 2 bytes left, a field length needs 4"},
		{"no '='", rawHeader("topic"), tcpros.HeaderLimits{}, `field 1 "topic" is not key=value`},
		{"empty key", rawHeader("=x"), tcpros.HeaderLimits{}, `field 1 "=x" is not key=value`},
		{"a key twice", rawHeader("topic=/a", "topic=/b"), tcpros.HeaderLimits{}, `field "topic" given twice`},
		{"cut short", binary.LittleEndian.AppendUint32(nil, 100), tcpros.HeaderLimits{}, "cut short before its 100 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := tcpros.ReadHeader(bytes.NewReader(c.wire), c.lim)
			require.ErrorIs(t, err, tcpros.ErrHeader)
			assert.ErrorContains(t, err, c.err)
		})
	}
	t.Run("nothing at all", func(t *testing.T) {
		_, err := tcpros.ReadHeader(bytes.NewReader(nil), tcpros.HeaderLimits{})
		assert.ErrorIs(t, err, io.EOF)
	})
}

// TestHeaderWriteRefuses: a key no peer could read back is refused.
func TestHeaderWriteRefuses(t *testing.T) {
	for _, k := range []string{"", "a=b"} {
		_, err := tcpros.AppendHeader(nil, tcpros.Header{k: "v"})
		assert.ErrorContains(t, err, "must be non-empty and without '='", k)
	}
}

// FuzzReadHeader: no bytes make the reader panic or allocate over the
// bound, and what it accepts writes back to a header that reads the same.
func FuzzReadHeader(f *testing.F) {
	f.Add(rawHeader("topic=/a", "md5sum=*"))
	f.Add(rawHeader("a=", "b==", "c"))
	f.Add([]byte{255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := tcpros.ReadHeader(bytes.NewReader(data), tcpros.HeaderLimits{MaxSize: 1024, MaxFields: 8})
		if err != nil {
			return
		}
		assert.LessOrEqual(t, len(h), 8)
		b, err := tcpros.AppendHeader(nil, h)
		require.NoError(t, err)
		again, err := tcpros.ReadHeader(bytes.NewReader(b), tcpros.HeaderLimits{MaxSize: 1024, MaxFields: 8})
		require.NoError(t, err)
		assert.Equal(t, h, again)
	})
}
