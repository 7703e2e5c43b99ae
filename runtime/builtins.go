package runtime

import (
	"math/rand/v2"
	"reflect"
)

//go:generate go run ./internal/nodedocs/gen -pkg runtime -base Base

// builtins returns the built-in palette: BehaviorTree.CPP v4's nodes and
// what the older behavior-tree literature adds.
func builtins() []NodeType {
	var all []NodeType
	all = append(all, controlTypes()...)
	all = append(all, decoratorTypes()...)
	all = append(all, leafTypes()...)
	all = append(all, subTreeType(), lookUpType())
	for i := range all {
		if all[i].Doc == "" {
			all[i].Doc = DocOf(&all[i], nodeDocs)
		}
	}
	return all
}

// DocOf returns the doc comment of the Go type that t's constructor builds,
// looked up in docs (a map that internal/nodedocs generates from the
// package's comments). Packages with nodes of their own (skills, ros) use it
// to fill NodeType.Doc from their comments the same way.
func DocOf(t *NodeType, docs map[string]string) string {
	n, err := t.New(&Config{Name: t.ID, Type: t, Clock: WallClock{}, Rand: rand.New(rand.NewPCG(1, 2)), literals: map[string]any{}})
	if err != nil || n == nil {
		return ""
	}
	rt := reflect.TypeOf(n)
	for rt.Kind() == reflect.Pointer {
		rt = rt.Elem()
	}
	return docs[rt.Name()]
}
