package runtime

import (
	"fmt"
	"reflect"
)

// SetBlackboard writes a value into the blackboard entry output_key, or
// copies another entry into it.
//
//	<SetBlackboard value="42" output_key="the_answer"/>
//	<SetBlackboard value="{dock_pose}" output_key="goal"/>
//
// Contract (BehaviorTree.CPP v4 SetBlackboard), on every tick:
//   - output_key is the name of the destination entry, read as a string
//     (so output_key="{k}" writes to the entry whose name k holds, as in
//     BT.CPP, and fails the tick while k is unset);
//   - value="{src}" copies entry src, with its type: a missing destination
//     is created with src's type first. An empty src (declared but never
//     written) returns FAILURE without writing;
//   - any other value is the text itself. A destination that exists with a
//     type other than string (declared by a typed port, or holding a value
//     of that type) receives the text parsed as that type, and text that
//     does not parse is an error; a missing destination is created as a
//     string entry;
//   - the write follows the blackboard's rules (scopes, remapping, '@',
//     type checks) and the node returns SUCCESS.
//
// Where btrobot differs from BT.CPP 4.10, deliberately: text written onto
// an entry that a script created with ':=' (so no port declared its type)
// is parsed as the type of the value the entry holds: after n := 1,
// value="7" writes the integer 7, and value="seven" is an error naming the
// entry. BT.CPP instead stores an empty value and retypes the entry to a
// generic one, so n reads back empty and the next SetBlackboard onto it
// throws (it cannot convert the string to that generic type) — a defect not
// worth copying.
type SetBlackboard struct{ Base }

var stringType = reflect.TypeFor[string]()

func setBlackboardTypes() []NodeType {
	return []NodeType{{
		ID: "SetBlackboard", Kind: ActionKind,
		Summary: "Writes value (text, or a copy of {entry}) into the blackboard entry output_key.",
		Ports: []PortSpec{
			InputPort[any]("value", "Value to be written into the output_key"),
			InOutPort[any]("output_key", "Name of the blackboard entry where the value should be written").AsEntryName(),
		},
		New: func(*Config) (Node, error) { return &SetBlackboard{}, nil },
	}}
}

// Tick writes the value.
func (n *SetBlackboard) Tick() (Status, error) {
	dstKey, err := GetInput[string](n, "output_key")
	if err != nil {
		return Failure, err
	}
	bb := n.bb
	dst := bb.Entry(dstKey)
	var v any
	if srcKey, isKey := PortKey(n, "value"); isKey {
		src := bb.Entry(srcKey)
		if src == nil {
			return Failure, fmt.Errorf("value: blackboard entry %q does not exist", srcKey)
		}
		if dst == nil {
			if dst, err = bb.Declare(dstKey, src.Type()); err != nil {
				return Failure, err
			}
		}
		v, _, _ = src.Load()
	} else {
		text, err := GetInput[string](n, "value")
		if err != nil {
			return Failure, err
		}
		if dst == nil {
			if dst, err = bb.Declare(dstKey, stringType); err != nil {
				return Failure, err
			}
		}
		v = text
	}
	if v == nil {
		n.SetReason("the value's entry has no value yet")
		return Failure, nil
	}
	if text, isText := v.(string); isText {
		if t := targetType(dst); t != nil && t != stringType && !isAnyType(t) {
			parsed, err := ParseLiteral(text, t)
			if err != nil {
				return Failure, fmt.Errorf("cannot write %q into blackboard entry %q of type %s: %v", text, dstKey, TypeName(t), err)
			}
			v = parsed
		}
	}
	if err := bb.Set(dstKey, v); err != nil {
		return Failure, err
	}
	return Success, nil
}

// targetType is the type text written into dst is parsed as: the entry's
// declared type, or else the type of the value it holds (an entry a script
// created with ':=' has no declared type). BT.CPP here erases the value of
// such an entry on the first write and throws on the second, a quirk we do
// not copy: the text is parsed as the held value's type instead.
func targetType(dst *Entry) reflect.Type {
	if t := dst.Type(); t != nil {
		return t
	}
	if v, _, _ := dst.Load(); v != nil {
		return reflect.TypeOf(v)
	}
	return nil
}
