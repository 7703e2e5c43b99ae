package mission

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// Entry reads a root blackboard entry written key=value, as --set gives
// it: an integer, a real, true or false, else a string; key:string=value
// keeps the text as a string. The key follows the rule of the keys a
// profile binds (ros.ValidKey).
func Entry(kv string) (string, any, error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return "", nil, fmt.Errorf("write key=value")
	}
	name, typ, typed := strings.Cut(k, ":")
	if !ros.ValidKey(name) {
		return "", nil, fmt.Errorf("blackboard key %q: a key is a letter or '_' followed by letters, digits or '_'", name)
	}
	if typed {
		if typ != "string" {
			return "", nil, fmt.Errorf("unknown type %q: only key:string=value forces a type", typ)
		}
		return name, v, nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		return k, n, nil
	}
	if v == "true" || v == "false" {
		return k, v == "true", nil
	}
	if !strings.ContainsAny(v, "xXnN") { // no hex floats, inf or nan
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return k, f, nil
		}
	}
	return k, v, nil
}

// Entries makes a root blackboard from key=value entries (see Entry); nil
// when there are none. The error starts with the first bad entry.
func Entries(kvs []string) (*runtime.Blackboard, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	bb := runtime.NewBlackboard(nil)
	for _, kv := range kvs {
		k, v, err := Entry(kv)
		if err == nil {
			err = bb.Set(k, v)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", kv, err)
		}
	}
	return bb, nil
}
