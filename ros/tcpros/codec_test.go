package tcpros_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/actionproc"
	"github.com/bluenviron/goroslib/v2/pkg/msg"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/protocommon"
	"github.com/bluenviron/goroslib/v2/pkg/serviceproc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/tcpros"
)

// projectMessages returns a new value of every struct that goes on the
// wire in this project: each message the registry knows (goroslib's
// packages, move_base_msgs, btrobot_msgs), each service's request and
// response, and each action's goal, result and feedback wrappers.
func projectMessages(t testing.TB) map[string]reflect.Type {
	reg := ros.BuiltinMessages()
	out := map[string]reflect.Type{}
	for _, n := range reg.Names(ros.MessageKind) {
		mt, err := reg.Lookup(n)
		require.NoError(t, err)
		out[n] = mt.Go
	}
	for _, n := range reg.Names(ros.ServiceKind) {
		mt, err := reg.Lookup(n)
		require.NoError(t, err)
		req, res, err := serviceproc.RequestResponse(reflect.New(mt.Go).Elem().Interface())
		require.NoError(t, err, n)
		out[n+"Request"] = reflect.TypeOf(req)
		out[n+"Response"] = reflect.TypeOf(res)
	}
	for _, n := range reg.Names(ros.ActionKind) {
		mt, err := reg.Lookup(n)
		require.NoError(t, err)
		g, r, f, err := actionproc.Messages(reflect.New(mt.Go).Elem().Interface())
		require.NoError(t, err, n)
		out[n+"Goal(wrapped)"] = reflect.TypeOf(g)
		out[n+"Result(wrapped)"] = reflect.TypeOf(r)
		out[n+"Feedback(wrapped)"] = reflect.TypeOf(f)
	}
	for n, typ := range out {
		if typ.Kind() == reflect.Pointer {
			out[n] = typ.Elem()
		}
	}
	return out
}

// fill sets v to random values that both codecs represent the same way
// (times from 1970 to 2038, durations not negative: see
// TestCodecNegativeDuration for those).
func fill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		if r.IntN(3) > 0 {
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(math.MaxInt32)+1, r.Int64N(1e9)).UTC()))
		}
		return
	case reflect.TypeFor[time.Duration]():
		v.SetInt(r.Int64N(math.MaxInt32 * 1e9))
		return
	case reflect.TypeFor[msg.Package](), reflect.TypeFor[msg.Name](), reflect.TypeFor[msg.Definitions]():
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.Uint64()) >> (64 - v.Type().Bits()))
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(r.Uint64() >> (64 - v.Type().Bits()))
	case reflect.Float32:
		v.SetFloat(float64(float32(r.NormFloat64() * 1e3)))
	case reflect.Float64:
		v.SetFloat(r.NormFloat64() * 1e6)
	case reflect.String:
		b := make([]byte, r.IntN(9))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		v.SetString(string(b))
	case reflect.Slice:
		n := r.IntN(4)
		if depth > 4 {
			n = 0
		}
		if n == 0 {
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(r, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			fill(r, v.Index(i), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(r, v.Field(i), depth+1)
			}
		}
	}
}

func goroslibEncode(t testing.TB, m any) []byte {
	var buf bytes.Buffer
	require.NoError(t, protocommon.MessageEncode(&buf, m))
	return buf.Bytes()[4:]
}

// TestCodecMatchesGoroslib: for every message struct of the project, with
// random contents, btrobot's encoding is goroslib's byte for byte, and each
// side decodes the other's bytes to the original value.
func TestCodecMatchesGoroslib(t *testing.T) {
	types := projectMessages(t)
	require.Greater(t, len(types), 300, "the registry's types")
	r := rand.New(rand.NewPCG(1, 2))
	for name, typ := range types {
		t.Run(name, func(t *testing.T) {
			for range 5 {
				want := reflect.New(typ)
				fill(r, want.Elem(), 0)
				ours, err := tcpros.Append(nil, want.Interface())
				require.NoError(t, err)
				require.True(t, bytes.Equal(goroslibEncode(t, want.Interface()), ours), "the encoding: goroslib % x, ours % x", goroslibEncode(t, want.Interface()), ours)

				got := reflect.New(typ)
				require.NoError(t, tcpros.Unmarshal(ours, got.Interface()))
				require.Equal(t, want.Interface(), got.Interface(), "our decoding")

				framed := append([]byte{0, 0, 0, 0}, ours...)
				framed[0], framed[1], framed[2], framed[3] = byte(len(ours)), byte(len(ours)>>8), byte(len(ours)>>16), byte(len(ours)>>24)
				ref := reflect.New(typ)
				require.NoError(t, protocommon.MessageDecode(bytes.NewReader(framed), ref.Interface()))
				require.Equal(t, want.Interface(), ref.Interface(), "goroslib's decoding")
			}
		})
	}
}

// TestCodecNegativeDuration: a negative duration is written as roscpp and
// rospy write it (nanoseconds in [0, 1e9)); goroslib writes negative
// nanoseconds, which decode to the same value.
func TestCodecNegativeDuration(t *testing.T) {
	for _, c := range []struct {
		name string
		d    time.Duration
		wire []byte
	}{
		{"minus half a second", -500 * time.Millisecond, []byte{0xff, 0xff, 0xff, 0xff, 0x00, 0x65, 0xcd, 0x1d}},
		{"minus one and a half", -1500 * time.Millisecond, []byte{0xfe, 0xff, 0xff, 0xff, 0x00, 0x65, 0xcd, 0x1d}},
		{"minus one second", -time.Second, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &std_msgs.Duration{Data: c.d}
			b, err := tcpros.Append(nil, m)
			require.NoError(t, err)
			assert.Equal(t, c.wire, b)
			var back std_msgs.Duration
			require.NoError(t, tcpros.Unmarshal(b, &back))
			assert.Equal(t, c.d, back.Data)
			require.NoError(t, tcpros.Unmarshal(goroslibEncode(t, m), &back))
			assert.Equal(t, c.d, back.Data, "goroslib's bytes")
		})
	}
}

// TestCodecBounds: counts a peer declares are checked against the frame
// before anything is allocated; the errors say what did not fit.
func TestCodecBounds(t *testing.T) {
	le := func(n uint32) []byte { return []byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)} }
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	for _, c := range []struct {
		name string
		msg  any
		data []byte
		err  string
	}{
		{"a string of 4 GiB in 4 bytes", &std_msgs.String{}, cat(le(math.MaxUint32), []byte("abcd")),
			"a string declares 4294967295 bytes (at least 4294967295 bytes), 4 bytes are left"},
		{"a 1 TiB float array", &std_msgs.Float64MultiArray{}, cat(le(0), le(0), le(1<<31)),
			"an array of float64 declares 2147483648 elements (at least 17179869184 bytes), 0 bytes are left"},
		{"a byte array longer than the frame", &sensor_msgs.CompressedImage{}, cat(le(0), le(0), le(0), le(0), le(0), le(10), []byte("x")),
			"a uint8 array declares 10 bytes (at least 10 bytes), 1 bytes are left"},
		{"empty structs counted as a byte each", &struct{ A []struct{ msg.Package } }{}, cat(le(1<<30), []byte("xx")),
			"declares 1073741824 elements (at least 1073741824 bytes), 2 bytes are left"},
		{"cut in a float", &geometry_msgs.Vector3{}, make([]byte, 20), "a float64 needs 8 bytes at byte 16, 4 are left"},
		{"left over", &std_msgs.Bool{}, []byte{1, 2}, "1 bytes left over"},
		{"empty frame for a string", &std_msgs.String{}, nil, "a string needs 4 bytes at byte 0, 0 are left"},
		{"a time with 1e9 nanoseconds", &std_msgs.Time{}, cat(le(math.MaxUint32), le(1e9)), "a time at byte 0 has 1000000000 nanoseconds"},
		{"a duration with -1e9 nanoseconds", &std_msgs.Duration{}, cat(le(5), le(uint32(0xc4653600))), "a duration at byte 0 has -1000000000 nanoseconds"},
		{"a duration below -2^31 s", &std_msgs.Duration{}, cat(le(1<<31), le(uint32(0xffffffff))), "a duration at byte 0 is below ROS's range (-2^31 s)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := tcpros.Unmarshal(c.data, c.msg)
			require.ErrorIs(t, err, tcpros.ErrMessage)
			assert.ErrorContains(t, err, c.err)
		})
	}
}

// TestCodecRefuses: types and values ROS cannot carry are errors, not
// panics.
func TestCodecRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		msg  any
		err  string
	}{
		{"an int field", &struct{ A int }{}, "has no ROS encoding"},
		{"a map", &struct{ M map[string]string }{}, "has no ROS encoding"},
		{"unexported", &struct{ a int32 }{}, "unexported field"},
		{"not a struct", 3, "a message is a struct"},
		{"nil", nil, "a message is a struct"},
		{"time before 1970", &std_msgs.Time{Data: time.Unix(-5, 0)}, "outside ROS's range"},
		{"duration of a century", &std_msgs.Duration{Data: 100 * 365 * 24 * time.Hour}, "outside ROS's range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := tcpros.Append(nil, c.msg)
			assert.ErrorContains(t, err, c.err)
		})
	}
}

// FuzzUnmarshal: no bytes make the decoder panic, whatever the message
// type (the first byte picks one of the project's types, sorted by name),
// and what it accepts encodes and decodes back to the same value (not
// always the same bytes: a duration goroslib's way is normalized).
func FuzzUnmarshal(f *testing.F) {
	all := projectMessages(f)
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	seed := &sensor_msgs.LaserScan{Header: std_msgs.Header{FrameId: "laser"}, Ranges: []float32{1, 2}, Intensities: []float32{3}}
	b, err := tcpros.Append(nil, seed)
	require.NoError(f, err)
	f.Add(append([]byte{byte(slices.Index(names, "sensor_msgs/LaserScan"))}, b...))
	f.Add([]byte{0, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		typ := all[names[int(data[0])*len(names)/256]]
		m := reflect.New(typ).Interface()
		if tcpros.Unmarshal(data[1:], m) != nil {
			return
		}
		again, err := tcpros.Append(nil, m)
		require.NoError(t, err)
		back := reflect.New(typ).Interface()
		require.NoError(t, tcpros.Unmarshal(again, back))
		// NaN is not equal to itself: compare the encodings of both.
		again2, err := tcpros.Append(nil, back)
		require.NoError(t, err)
		require.Equal(t, again, again2)
	})
}
