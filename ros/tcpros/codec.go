package tcpros

// The ROS1 serialization of message structs: little-endian numbers, a
// string or a slice as a uint32 count and its elements, a fixed array as
// its elements, time as uint32 seconds and nanoseconds, duration as int32
// seconds and nanoseconds (wiki.ros.org/msg, "Serialization"). A plan is
// compiled once per Go type (reflect walks the type once, never a message),
// and decoding checks every count against the bytes left in the frame
// before allocating for it.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msg"
)

// ErrMessage is wrapped by every error about a message's bytes.
var ErrMessage = errors.New("tcpros: bad message")

// A plan encodes and decodes one Go type.
type plan struct {
	// min is the fewest bytes the type takes on the wire (a string or a
	// slice 4, a struct the sum of its fields').
	min int
	enc func(e *encoder, v reflect.Value)
	dec func(d *decoder, v reflect.Value)
}

type encoder struct {
	b   []byte
	err error
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

type decoder struct {
	b   []byte
	off int
	err error
}

// take returns the next n bytes, or nil and records an error when fewer
// are left (every later take then returns nil too).
func (d *decoder) take(n int, what string) []byte {
	if d.err != nil {
		return nil
	}
	if n > len(d.b)-d.off {
		d.err = fmt.Errorf("%w: %s needs %d bytes at byte %d, %d are left in the frame", ErrMessage, what, n, d.off, len(d.b)-d.off)
		return nil
	}
	s := d.b[d.off : d.off+n]
	d.off += n
	return s
}

// count reads a string's or slice's count and checks that count elements
// of at least min bytes each fit in what is left of the frame, so nothing
// is allocated for bytes that are not there.
func (d *decoder) count(min int, what, unit string) int {
	s := d.take(4, what)
	if s == nil {
		return 0
	}
	n := uint64(binary.LittleEndian.Uint32(s))
	// An element of no bytes (a message with no fields) still takes room
	// in memory: count it as one byte, so n stays below the frame's size.
	m := uint64(max(min, 1))
	if left := uint64(len(d.b) - d.off); n*m > left {
		d.err = fmt.Errorf("%w: %s declares %d %s (at least %d bytes), %d bytes are left in the frame", ErrMessage, what, n, unit, n*m, left)
		return 0
	}
	return int(n)
}

var (
	plans        sync.Map // reflect.Type → *plan
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
	markerTypes  = map[reflect.Type]bool{
		reflect.TypeFor[msg.Package]():     true,
		reflect.TypeFor[msg.Name]():        true,
		reflect.TypeFor[msg.Definitions](): true,
	}
)

// planOf returns t's plan, compiling it the first time.
func planOf(t reflect.Type) (*plan, error) {
	if p, ok := plans.Load(t); ok {
		return p.(*plan), nil
	}
	p, err := compile(t, map[reflect.Type]bool{})
	if err != nil {
		return nil, err
	}
	actual, _ := plans.LoadOrStore(t, p)
	return actual.(*plan), nil
}

// Check reports whether the codec can encode messages of msg's type (a
// struct or a pointer to one), naming the first field it cannot.
func Check(msg any) error {
	t := reflect.TypeOf(msg)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return fmt.Errorf("tcpros: a message is a struct or a pointer to one, not %v", reflect.TypeOf(msg))
	}
	_, err := planOf(t)
	return err
}

func compile(t reflect.Type, open map[reflect.Type]bool) (*plan, error) {
	if p, ok := plans.Load(t); ok {
		return p.(*plan), nil
	}
	switch t {
	case timeType:
		return timePlan, nil
	case durationType:
		return durationPlan, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return boolPlan, nil
	case reflect.Int8:
		return intPlan(1), nil
	case reflect.Int16:
		return intPlan(2), nil
	case reflect.Int32:
		return intPlan(4), nil
	case reflect.Int64:
		return intPlan(8), nil
	case reflect.Uint8:
		return uintPlan(1), nil
	case reflect.Uint16:
		return uintPlan(2), nil
	case reflect.Uint32:
		return uintPlan(4), nil
	case reflect.Uint64:
		return uintPlan(8), nil
	case reflect.Float32:
		return float32Plan, nil
	case reflect.Float64:
		return float64Plan, nil
	case reflect.String:
		return stringPlan, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return bytesPlan, nil
		}
		ep, err := compile(t.Elem(), open)
		if err != nil {
			return nil, err
		}
		return slicePlan(t, ep), nil
	case reflect.Array:
		ep, err := compile(t.Elem(), open)
		if err != nil {
			return nil, err
		}
		return arrayPlan(t, ep), nil
	case reflect.Struct:
		if open[t] {
			return nil, fmt.Errorf("tcpros: type %v contains itself", t)
		}
		open[t] = true
		defer delete(open, t)
		return structPlan(t, open)
	}
	return nil, fmt.Errorf("tcpros: type %v (%v) has no ROS encoding", t, t.Kind())
}

func structPlan(t reflect.Type, open map[reflect.Type]bool) (*plan, error) {
	type field struct {
		i int
		p *plan
	}
	var fields []field
	min := 0
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && markerTypes[f.Type] {
			continue
		}
		if !f.IsExported() {
			return nil, fmt.Errorf("tcpros: %v.%s: unexported field", t, f.Name)
		}
		p, err := compile(f.Type, open)
		if err != nil {
			return nil, fmt.Errorf("%v.%s: %w", t, f.Name, err)
		}
		fields = append(fields, field{i, p})
		min += p.min
	}
	return &plan{
		min: min,
		enc: func(e *encoder, v reflect.Value) {
			for _, f := range fields {
				f.p.enc(e, v.Field(f.i))
			}
		},
		dec: func(d *decoder, v reflect.Value) {
			for _, f := range fields {
				if d.err != nil {
					return
				}
				f.p.dec(d, v.Field(f.i))
			}
		},
	}, nil
}

var boolPlan = &plan{
	min: 1,
	enc: func(e *encoder, v reflect.Value) {
		var b byte
		if v.Bool() {
			b = 1
		}
		e.b = append(e.b, b)
	},
	dec: func(d *decoder, v reflect.Value) {
		if s := d.take(1, "a bool"); s != nil {
			v.SetBool(s[0] != 0)
		}
	},
}

func appendUint(b []byte, size int, u uint64) []byte {
	switch size {
	case 1:
		return append(b, byte(u))
	case 2:
		return binary.LittleEndian.AppendUint16(b, uint16(u))
	case 4:
		return binary.LittleEndian.AppendUint32(b, uint32(u))
	}
	return binary.LittleEndian.AppendUint64(b, u)
}

func readUint(s []byte) uint64 {
	switch len(s) {
	case 1:
		return uint64(s[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(s))
	case 4:
		return uint64(binary.LittleEndian.Uint32(s))
	}
	return binary.LittleEndian.Uint64(s)
}

var intPlans, uintPlans [9]*plan

func init() {
	for _, size := range []int{1, 2, 4, 8} {
		what := fmt.Sprintf("an int%d", size*8)
		uwhat := fmt.Sprintf("a uint%d", size*8)
		shift := 64 - 8*size
		intPlans[size] = &plan{
			min: size,
			enc: func(e *encoder, v reflect.Value) { e.b = appendUint(e.b, size, uint64(v.Int())) },
			dec: func(d *decoder, v reflect.Value) {
				if s := d.take(size, what); s != nil {
					v.SetInt(int64(readUint(s)<<shift) >> shift) // sign-extend
				}
			},
		}
		uintPlans[size] = &plan{
			min: size,
			enc: func(e *encoder, v reflect.Value) { e.b = appendUint(e.b, size, v.Uint()) },
			dec: func(d *decoder, v reflect.Value) {
				if s := d.take(size, uwhat); s != nil {
					v.SetUint(readUint(s))
				}
			},
		}
	}
}

func intPlan(size int) *plan  { return intPlans[size] }
func uintPlan(size int) *plan { return uintPlans[size] }

var float32Plan = &plan{
	min: 4,
	enc: func(e *encoder, v reflect.Value) {
		e.b = binary.LittleEndian.AppendUint32(e.b, math.Float32bits(float32(v.Float())))
	},
	dec: func(d *decoder, v reflect.Value) {
		if s := d.take(4, "a float32"); s != nil {
			v.SetFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(s))))
		}
	},
}

var float64Plan = &plan{
	min: 8,
	enc: func(e *encoder, v reflect.Value) {
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v.Float()))
	},
	dec: func(d *decoder, v reflect.Value) {
		if s := d.take(8, "a float64"); s != nil {
			v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(s)))
		}
	},
}

var stringPlan = &plan{
	min: 4,
	enc: func(e *encoder, v reflect.Value) {
		s := v.String()
		if uint64(len(s)) > math.MaxUint32 {
			e.fail(fmt.Errorf("tcpros: a string of %d bytes does not fit a ROS message", len(s)))
			return
		}
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(len(s)))
		e.b = append(e.b, s...)
	},
	dec: func(d *decoder, v reflect.Value) {
		n := d.count(1, "a string", "bytes")
		if s := d.take(n, "a string"); s != nil {
			v.SetString(string(s))
		} else if d.err == nil {
			v.SetString("")
		}
	},
}

// bytesPlan is uint8[] (and ROS's byte[] and char[]): copied whole.
var bytesPlan = &plan{
	min: 4,
	enc: func(e *encoder, v reflect.Value) {
		b := v.Bytes()
		if uint64(len(b)) > math.MaxUint32 {
			e.fail(fmt.Errorf("tcpros: an array of %d bytes does not fit a ROS message", len(b)))
			return
		}
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(len(b)))
		e.b = append(e.b, b...)
	},
	dec: func(d *decoder, v reflect.Value) {
		n := d.count(1, "a uint8 array", "bytes")
		s := d.take(n, "a uint8 array")
		if d.err != nil {
			return
		}
		if n == 0 {
			v.SetZero()
			return
		}
		b := reflect.MakeSlice(v.Type(), n, n)
		reflect.Copy(b, reflect.ValueOf(s))
		v.Set(b)
	},
}

func slicePlan(t reflect.Type, ep *plan) *plan {
	what := "an array of " + t.Elem().String()
	return &plan{
		min: 4,
		enc: func(e *encoder, v reflect.Value) {
			n := v.Len()
			if uint64(n) > math.MaxUint32 {
				e.fail(fmt.Errorf("tcpros: an array of %d elements does not fit a ROS message", n))
				return
			}
			e.b = binary.LittleEndian.AppendUint32(e.b, uint32(n))
			for i := range n {
				ep.enc(e, v.Index(i))
			}
		},
		dec: func(d *decoder, v reflect.Value) {
			n := d.count(ep.min, what, "elements")
			if d.err != nil {
				return
			}
			if n == 0 {
				v.SetZero()
				return
			}
			s := reflect.MakeSlice(t, n, n)
			for i := range n {
				if d.err != nil {
					return
				}
				ep.dec(d, s.Index(i))
			}
			v.Set(s)
		},
	}
}

func arrayPlan(t reflect.Type, ep *plan) *plan {
	n := t.Len()
	if t.Elem().Kind() == reflect.Uint8 {
		return &plan{
			min: n,
			enc: func(e *encoder, v reflect.Value) {
				for i := range n {
					e.b = append(e.b, byte(v.Index(i).Uint()))
				}
			},
			dec: func(d *decoder, v reflect.Value) {
				if s := d.take(n, fmt.Sprintf("a uint8[%d]", n)); s != nil {
					for i := range n {
						v.Index(i).SetUint(uint64(s[i]))
					}
				}
			},
		}
	}
	return &plan{
		min: n * ep.min,
		enc: func(e *encoder, v reflect.Value) {
			for i := range n {
				ep.enc(e, v.Index(i))
			}
		},
		dec: func(d *decoder, v reflect.Value) {
			for i := range n {
				if d.err != nil {
					return
				}
				ep.dec(d, v.Index(i))
			}
		},
	}
}

// timePlan is ROS's time: seconds and nanoseconds since 1970 as uint32s.
// The zero time.Time is 0 seconds, 0 nanoseconds, and back, as goroslib
// has it; a time ROS cannot hold (before 1970, after 2106) is an error.
var timePlan = &plan{
	min: 8,
	enc: func(e *encoder, v reflect.Value) {
		t := v.Interface().(time.Time)
		var secs, nsecs uint32
		if !t.IsZero() {
			s := t.Unix()
			if s < 0 || s > math.MaxUint32 {
				e.fail(fmt.Errorf("tcpros: time %v is outside ROS's range (1970 to 2106)", t))
				return
			}
			secs, nsecs = uint32(s), uint32(t.Nanosecond())
		}
		e.b = binary.LittleEndian.AppendUint32(e.b, secs)
		e.b = binary.LittleEndian.AppendUint32(e.b, nsecs)
	},
	dec: func(d *decoder, v reflect.Value) {
		s := d.take(8, "a time")
		if s == nil {
			return
		}
		secs, nsecs := binary.LittleEndian.Uint32(s), binary.LittleEndian.Uint32(s[4:])
		if nsecs >= 1e9 {
			d.err = fmt.Errorf("%w: a time at byte %d has %d nanoseconds (ROS peers keep them below 1e9)", ErrMessage, d.off-8, nsecs)
			return
		}
		if secs == 0 && nsecs == 0 {
			v.Set(reflect.ValueOf(time.Time{}))
			return
		}
		v.Set(reflect.ValueOf(time.Unix(int64(secs), int64(nsecs)).UTC()))
	},
}

// durationPlan is ROS's duration: int32 seconds and int32 nanoseconds,
// written as roscpp and rospy normalize it (nanoseconds in [0, 1e9)).
var durationPlan = &plan{
	min: 8,
	enc: func(e *encoder, v reflect.Value) {
		ns := v.Int()
		secs, nsecs := ns/1e9, ns%1e9
		if nsecs < 0 {
			secs, nsecs = secs-1, nsecs+1e9
		}
		if secs < math.MinInt32 || secs > math.MaxInt32 {
			e.fail(fmt.Errorf("tcpros: duration %v is outside ROS's range (±68 years)", time.Duration(ns)))
			return
		}
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(int32(secs)))
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(int32(nsecs)))
	},
	dec: func(d *decoder, v reflect.Value) {
		s := d.take(8, "a duration")
		if s == nil {
			return
		}
		secs := int64(int32(binary.LittleEndian.Uint32(s)))
		nsecs := int64(int32(binary.LittleEndian.Uint32(s[4:])))
		// roscpp and rospy write nanoseconds in [0, 1e9), goroslib in
		// (-1e9, 1e9) for a negative duration; below -2^31 s is out of
		// ROS's range.
		if nsecs <= -1e9 || nsecs >= 1e9 {
			d.err = fmt.Errorf("%w: a duration at byte %d has %d nanoseconds (ROS peers keep them within ±1e9)", ErrMessage, d.off-8, nsecs)
			return
		}
		if secs == math.MinInt32 && nsecs < 0 {
			d.err = fmt.Errorf("%w: a duration at byte %d is below ROS's range (-2^31 s)", ErrMessage, d.off-8)
			return
		}
		v.SetInt(secs*1e9 + nsecs)
	},
}

// Append appends msg's serialization (without the frame's length) to b.
// msg is a message struct or a pointer to one.
func Append(b []byte, msg any) ([]byte, error) {
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return b, fmt.Errorf("tcpros: a message is a struct or a pointer to one, not %T", msg)
	}
	p, err := planOf(v.Type())
	if err != nil {
		return b, err
	}
	e := encoder{b: b}
	p.enc(&e, v)
	if e.err != nil {
		return b, e.err
	}
	return e.b, nil
}

// Unmarshal decodes one message, the whole of data, into msg, a pointer
// to a message struct. Every count is checked against the bytes left in
// data before anything is allocated for it; bytes left over are an error.
// Errors about data wrap ErrMessage and say what did not fit where.
func Unmarshal(data []byte, msg any) error {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("tcpros: decode into a pointer to a message struct, not %T", msg)
	}
	v = v.Elem()
	p, err := planOf(v.Type())
	if err != nil {
		return err
	}
	d := decoder{b: data}
	p.dec(&d, v)
	if d.err != nil {
		return d.err
	}
	if d.off != len(data) {
		return fmt.Errorf("%w: %d bytes left over after a %v", ErrMessage, len(data)-d.off, v.Type())
	}
	return nil
}
