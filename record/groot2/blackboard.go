package groot2

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/btrobot/btrobot/runtime"
)

// rootName is the name under which a dump carries the root blackboard of
// a subtree's scope, as BT.CPP's.
const rootName = "ROOT"

const msgpackNil = 0xc0

// blackboardDump answers a BLACKBOARD request: the blackboards named in
// names (separated by ';') as one msgpack map, name -> key -> value, as
// BT.CPP's generateBlackboardsDump. A subtree's scope brings its root
// blackboard along as ROOT. Unknown names are left out.
func (s *Server) blackboardDump(names string) ([]byte, error) {
	dump := map[string]any{}
	exportedRoot := false
	for _, name := range strings.Split(names, ";") {
		bb := s.scopes[name]
		if bb == nil {
			continue
		}
		root := bb.Root()
		needsRoot := root != bb
		if name == rootName && (needsRoot || exportedRoot) {
			return nil, fmt.Errorf("blackboard dump request uses reserved name [ROOT] together with an external root blackboard export")
		}
		dump[name] = exportBlackboard(bb)
		if needsRoot && !exportedRoot {
			if _, taken := dump[rootName]; taken {
				return nil, fmt.Errorf("blackboard dump request would overwrite subtree [ROOT] with an external root blackboard export")
			}
			dump[rootName] = exportBlackboard(root)
			exportedRoot = true
		}
	}
	if len(dump) == 0 {
		// BT.CPP's dump starts as a JSON null and stays one when no name
		// matched (an empty or unknown list): msgpack nil
		return []byte{msgpackNil}, nil
	}
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	// As nlohmann's to_msgpack (BT.CPP's): maps by sorted key, the
	// smallest integer encoding that holds the value (floats: see plain).
	enc.SetSortMapKeys(true)
	enc.UseCompactInts(true)
	if err := enc.Encode(dump); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// exportBlackboard returns the entries held in bb's own scope as plain
// JSON values; an entry declared but never written is nil, and a scope
// without entries is nil, not an empty map (as BT.CPP's JSON export).
func exportBlackboard(bb *runtime.Blackboard) map[string]any {
	keys := bb.Keys()
	if len(keys) == 0 {
		return nil
	}
	out := map[string]any{}
	for _, k := range keys {
		v, ok := bb.Get(k)
		if !ok {
			out[k] = nil
			continue
		}
		out[k] = plain(v)
	}
	return out
}

// plain turns a Go value into what JSON would make of it, integers kept as
// integers, and a float that a float32 holds exactly as a float32 (which
// nlohmann's to_msgpack writes in 5 bytes rather than 9).
func plain(v any) any {
	switch x := v.(type) {
	case string, bool, float32, int, int64, int32, uint, uint64, uint32:
		return x
	case float64:
		return compactFloat(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var g any
	if d.Decode(&g) != nil {
		return nil
	}
	return numbers(g)
}

func numbers(g any) any {
	switch x := g.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, _ := x.Float64()
		return compactFloat(f)
	case map[string]any:
		for k, v := range x {
			x[k] = numbers(v)
		}
	case []any:
		for i, v := range x {
			x[i] = numbers(v)
		}
	}
	return g
}

func compactFloat(f float64) any {
	if f >= -math.MaxFloat32 && f <= math.MaxFloat32 && float64(float32(f)) == f {
		return float32(f)
	}
	return f
}
