package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Value writes a blackboard value as `rostopic echo` shows a message: one
// field a line, nested fields indented, fields by their ROS names
// (frame_id, power_supply_status), times and durations as seconds, NaN
// and infinities as nan, inf and -inf, lists of numbers on one line.
// Other values read the same way: a number as itself, a string quoted. A
// json.RawMessage (a value as a recording holds it) is read as the JSON
// it is, in its order.
//
// Lists longer than MaxListItems show their first items and how many
// more there are (ValueJSON keeps them all); goroslib's markers (msg.Package, msg.Definitions) are left
// out.
func Value(v any) string {
	var b strings.Builder
	writeBlock(&b, toEcho(v), 0)
	return strings.TrimSuffix(b.String(), "\n")
}

// ValueLine is Value folded to one line, in YAML's flow style:
// {header: {seq: 0, stamp: 13, frame_id: "robot1/base_link"}, voltage: 13.74, temperature: nan}.
func ValueLine(v any) string {
	var b strings.Builder
	writeFlow(&b, toEcho(v))
	return b.String()
}

// ValueJSON is the value as JSON in the same form: fields by their ROS
// names in their order, times and durations as seconds, NaN and the
// infinities as the strings "nan", "inf" and "-inf" (JSON has no number
// for them). It always succeeds.
func ValueJSON(v any) json.RawMessage {
	var b bytes.Buffer
	writeJSON(&b, toEcho(v))
	return b.Bytes()
}

// MaxListItems is how many items of a list Value shows.
const MaxListItems = 32

// echo is a value made ready to write: a scalar's text (word: written
// bare, as a number is; else quoted), a list, or fields in order.
type echo struct {
	kind   echoKind
	text   string
	items  []echo
	fields []echoField
}

type echoKind int

const (
	echoWord echoKind = iota // a number, bool, nan, null
	echoString
	echoList
	echoFields
)

type echoField struct {
	name string
	val  echo
}

var (
	timeType     = reflect.TypeOf(time.Time{})
	durationType = reflect.TypeOf(time.Duration(0))
	rawType      = reflect.TypeOf(json.RawMessage(nil))
)

func toEcho(v any) echo {
	if raw, ok := v.(json.RawMessage); ok {
		return fromJSON(raw)
	}
	return fromValue(reflect.ValueOf(v), 0)
}

// maxDepth bounds the nesting followed (a value that holds itself).
const maxDepth = 32

func fromValue(rv reflect.Value, depth int) echo {
	if !rv.IsValid() {
		return echo{text: "null"}
	}
	if depth > maxDepth {
		return echo{text: "…"}
	}
	switch rv.Type() {
	case timeType:
		t := rv.Interface().(time.Time)
		if t.IsZero() {
			return echo{text: "0"}
		}
		return echo{text: seconds(t.Unix(), int64(t.Nanosecond()))}
	case durationType:
		d := time.Duration(rv.Int())
		return echo{text: seconds(int64(d/time.Second), int64(d%time.Second))}
	case rawType:
		return fromJSON(rv.Bytes())
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return echo{text: "null"}
		}
		return fromValue(rv.Elem(), depth+1)
	case reflect.Bool:
		return echo{text: strconv.FormatBool(rv.Bool())}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return echo{text: strconv.FormatInt(rv.Int(), 10)}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return echo{text: strconv.FormatUint(rv.Uint(), 10)}
	case reflect.Float32:
		return echo{text: float(rv.Float(), 32)}
	case reflect.Float64:
		return echo{text: float(rv.Float(), 64)}
	case reflect.String:
		return echo{kind: echoString, text: rv.String()}
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return echo{kind: echoList}
		}
		out := echo{kind: echoList}
		for i := range rv.Len() {
			out.items = append(out.items, fromValue(rv.Index(i), depth+1))
		}
		return out
	case reflect.Map:
		keys := rv.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		out := echo{kind: echoFields}
		for _, k := range keys {
			out.fields = append(out.fields, echoField{fmt.Sprint(k), fromValue(rv.MapIndex(k), depth+1)})
		}
		return out
	case reflect.Struct:
		out := echo{kind: echoFields}
		t := rv.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || (f.Anonymous && f.Type.Kind() != reflect.Struct) {
				continue // goroslib's msg.Package and msg.Definitions
			}
			out.fields = append(out.fields, echoField{rosName(f), fromValue(rv.Field(i), depth+1)})
		}
		return out
	}
	return echo{kind: echoString, text: fmt.Sprint(rv.Interface())}
}

// fromJSON reads a value as a recording holds it, keeping the order of
// its fields; what is not JSON is shown as its text.
func fromJSON(raw []byte) echo {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	e, err := decodeEcho(dec, 0)
	if err != nil {
		return echo{kind: echoString, text: string(raw)}
	}
	return e
}

func decodeEcho(dec *json.Decoder, depth int) (echo, error) {
	tok, err := dec.Token()
	if err != nil {
		return echo{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth > maxDepth {
			return echo{}, fmt.Errorf("nested too deep")
		}
		if t == '[' {
			out := echo{kind: echoList}
			for dec.More() {
				it, err := decodeEcho(dec, depth+1)
				if err != nil {
					return echo{}, err
				}
				out.items = append(out.items, it)
			}
			_, err := dec.Token()
			return out, err
		}
		out := echo{kind: echoFields}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return echo{}, err
			}
			v, err := decodeEcho(dec, depth+1)
			if err != nil {
				return echo{}, err
			}
			out.fields = append(out.fields, echoField{fmt.Sprint(k), v})
		}
		_, err := dec.Token()
		return out, err
	case json.Number:
		return echo{text: t.String()}, nil
	case bool:
		return echo{text: strconv.FormatBool(t)}, nil
	case nil:
		return echo{text: "null"}, nil
	case string:
		if t == "nan" || t == "inf" || t == "-inf" { // how ValueJSON writes them
			return echo{text: t}, nil
		}
		return echo{kind: echoString, text: t}, nil
	}
	return echo{}, fmt.Errorf("unexpected %v", tok)
}

// rosName is a field's name as its message definition spells it: its
// rosname tag, else its Go name in snake_case (FrameId is frame_id).
func rosName(f reflect.StructField) string {
	if tag := f.Tag.Get("rosname"); tag != "" {
		return tag
	}
	rs := []rune(f.Name)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// seconds writes s seconds and ns nanoseconds as seconds, exactly:
// 13, 1700000000.25, -1.5.
func seconds(s, ns int64) string {
	neg := s < 0 || ns < 0
	if neg {
		s, ns = -s, -ns
	}
	text := strconv.FormatInt(s, 10)
	if frac := strings.TrimRight(fmt.Sprintf("%09d", ns), "0"); frac != "" {
		text += "." + frac
	}
	if neg {
		text = "-" + text
	}
	return text
}

// float writes f as a ROS user reads it: nan, inf, -inf, else the
// shortest text that reads back as the same float (1, not 1.0: as JSON
// writes it, so that a value reads the same live and recorded).
func float(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

func scalar(e echo) string {
	if e.kind == echoString {
		return strconv.Quote(e.text)
	}
	return e.text
}

func inline(e echo) bool {
	switch e.kind {
	case echoFields:
		return len(e.fields) == 0
	case echoList:
		for _, it := range e.items {
			if it.kind == echoList || it.kind == echoFields {
				return false
			}
		}
	}
	return true
}

// writeBlock writes e as rostopic echo does, each line indented by
// indent levels.
func writeBlock(b *strings.Builder, e echo, indent int) {
	pad := strings.Repeat("  ", indent)
	switch {
	case inline(e):
		b.WriteString(pad)
		writeFlow(b, e)
		b.WriteByte('\n')
	case e.kind == echoFields:
		for _, f := range e.fields {
			b.WriteString(pad + f.name + ":")
			if inline(f.val) {
				b.WriteByte(' ')
				writeFlow(b, f.val)
				b.WriteByte('\n')
				continue
			}
			b.WriteByte('\n')
			writeBlock(b, f.val, indent+1)
		}
	default: // a list of lists or fields
		for _, it := range e.items[:min(len(e.items), MaxListItems)] {
			b.WriteString(pad + "-\n")
			writeBlock(b, it, indent+1)
		}
		if more := len(e.items) - MaxListItems; more > 0 {
			fmt.Fprintf(b, "%s- … (%d more)\n", pad, more)
		}
	}
}

// writeFlow writes e on one line.
func writeFlow(b *strings.Builder, e echo) {
	switch e.kind {
	case echoFields:
		b.WriteByte('{')
		for i, f := range e.fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.name + ": ")
			writeFlow(b, f.val)
		}
		b.WriteByte('}')
	case echoList:
		b.WriteByte('[')
		for i, it := range e.items[:min(len(e.items), MaxListItems)] {
			if i > 0 {
				b.WriteString(", ")
			}
			writeFlow(b, it)
		}
		if more := len(e.items) - MaxListItems; more > 0 {
			fmt.Fprintf(b, ", … (%d more)", more)
		}
		b.WriteByte(']')
	default:
		b.WriteString(scalar(e))
	}
}

func writeJSON(b *bytes.Buffer, e echo) {
	switch e.kind {
	case echoFields:
		b.WriteByte('{')
		for i, f := range e.fields {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(f.name)
			b.Write(k)
			b.WriteByte(':')
			writeJSON(b, f.val)
		}
		b.WriteByte('}')
	case echoList:
		b.WriteByte('[')
		for i, it := range e.items {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, it)
		}
		b.WriteByte(']')
	case echoString:
		s, _ := json.Marshal(e.text)
		b.Write(s)
	default:
		switch e.text {
		case "nan", "inf", "-inf":
			b.WriteString(`"` + e.text + `"`)
		case "…":
			b.WriteString(`"…"`)
		default:
			b.WriteString(e.text)
		}
	}
}
