package trees

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// stripped returns a deep copy of doc with every position zeroed, so that
// documents read from different files (or built in Go) compare equal when
// they say the same thing — comments, blank lines and includes included.
func stripped(doc *runtime.Document) *runtime.Document {
	if doc == nil {
		return nil
	}
	out := &runtime.Document{Main: doc.Main, Attrs: strippedAttrs(doc.Attrs), Notes: doc.Notes, ModelsNotes: doc.ModelsNotes, NoDecl: doc.NoDecl}
	incs := map[*runtime.Include]*runtime.Include{}
	for _, inc := range doc.Includes {
		c := *inc
		c.Pos = runtime.Pos{}
		incs[inc] = &c
		out.Includes = append(out.Includes, &c)
	}
	for _, t := range doc.Trees {
		out.Trees = append(out.Trees, &runtime.TreeSpec{ID: t.ID, Root: strippedNode(t.Root), Attrs: strippedAttrs(t.Attrs), Notes: t.Notes, Include: incs[t.Include]})
	}
	for _, m := range doc.Models {
		c := *m
		c.Pos = runtime.Pos{}
		c.Attrs, c.Metadata = strippedAttrs(m.Attrs), strippedAttrs(m.Metadata)
		c.Include = incs[m.Include]
		out.Models = append(out.Models, &c)
	}
	return out
}

func strippedNode(n *runtime.NodeSpec) *runtime.NodeSpec {
	if n == nil {
		return nil
	}
	c := &runtime.NodeSpec{Type: n.Type, Attrs: strippedAttrs(n.Attrs), Notes: n.Notes}
	for _, k := range n.Children {
		c.Children = append(c.Children, strippedNode(k))
	}
	return c
}

func strippedAttrs(as []runtime.Attr) []runtime.Attr {
	if len(as) == 0 {
		return nil
	}
	out := make([]runtime.Attr, len(as))
	for i, a := range as {
		out[i] = runtime.Attr{Name: a.Name, Value: a.Value}
	}
	return out
}

// errorTexts returns the messages of a LoadError (or any error) one per
// element, as `check` prints them.
func errorTexts(t testing.TB, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var list runtime.ErrorList
	if !errors.As(err, &list) {
		return []string{err.Error()}
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = e.Error()
	}
	return out
}

func mustParse(t testing.TB, name, src string) *runtime.Document {
	t.Helper()
	doc, err := Parse(name, []byte(src))
	require.NoError(t, err, "Parse %s", name)
	return doc
}

// dump renders a document for failure messages.
func dump(doc *runtime.Document) string {
	if doc == nil {
		return "<nil>"
	}
	var sb strings.Builder
	if err := Write(&sb, doc); err != nil {
		b, _ := json.MarshalIndent(doc, "", "  ")
		return string(b)
	}
	for _, m := range doc.Models {
		fmt.Fprintf(&sb, "model %s: %+v types %v attrs %v metadata %v\n", m.ID, m.Ports, m.TypeNames, m.Attrs, m.Metadata)
	}
	return sb.String()
}

// bare is stripped without the layout (comments, blank lines, the XML
// declaration): what a document means.
func bare(doc *runtime.Document) *runtime.Document {
	out := stripped(doc)
	if out == nil {
		return nil
	}
	out.Notes, out.ModelsNotes, out.NoDecl = nil, nil, false
	for _, inc := range out.Includes {
		inc.Notes = nil
	}
	var walk func(n *runtime.NodeSpec)
	walk = func(n *runtime.NodeSpec) {
		if n == nil {
			return
		}
		n.Notes = nil
		for _, c := range n.Children {
			walk(c)
		}
	}
	for _, t := range out.Trees {
		t.Notes = nil
		walk(t.Root)
	}
	for _, m := range out.Models {
		m.Notes = nil
	}
	return out
}
