package trees

import (
	"os"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestTheDocumentDoesNotHoldTheFileText: once read, the file's text is
// garbage — no string of the document (names, values, comments, IDs,
// models, layout notes), nor of the tree built from it, points into it.
// A 100,000-node tree's text is 1.7 MB at the peak of a load and for as
// long as the tree runs otherwise.
func TestTheDocumentDoesNotHoldTheFileText(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		build bool // build the tree and keep only it
	}{
		{name: "comments, explicit forms, references, CDATA, multi-line attributes", file: "testdata/roundtrip/hand_written.xml"},
		{name: "Groot2's attributes, models with descriptions and metadata", file: "testdata/roundtrip/groot2_project.xml"},
		{name: "a 100,000-node tree", file: "testdata/bench/seq100k.xml"},
		{name: "the tree built from it", file: "testdata/bench/seq100k.xml", build: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(c.file)
			require.NoError(t, err)
			src := string(data) // an allocation of its own, watched below
			var freed atomic.Bool
			goruntime.AddCleanup(unsafe.StringData(src), func(b *atomic.Bool) { b.Store(true) }, &freed)
			doc, err := load(c.file, src, readFile)
			src = ""
			require.NoError(t, err)
			require.NotEmpty(t, doc.Trees)
			var kept any = doc
			if c.build {
				tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{})
				require.NoError(t, err)
				kept, doc = tree, nil
			}
			assert.Eventually(t, func() bool {
				goruntime.GC()
				return freed.Load()
			}, 10*time.Second, 10*time.Millisecond, "the file's text is still held")
			goruntime.KeepAlive(kept)
		})
	}
}

// TestKeptStringsAreCopies: the loader's copies hold the same text, names
// are interned, and a long value gets an allocation of its own.
func TestKeptStringsAreCopies(t *testing.T) {
	l := &loader{}
	text := "AlwaysSuccess name=\"" + strings.Repeat("x", 4096) + "\""
	a := l.intern(text[:13])
	b := l.intern(strings.Clone(text[:13]))
	require.Equal(t, "AlwaysSuccess", a)
	assert.Same(t, unsafe.StringData(a), unsafe.StringData(b), "one copy of an equal name")
	assert.NotSame(t, unsafe.StringData(text), unsafe.StringData(a))
	long := l.keep(text[20 : 20+4096])
	assert.Equal(t, strings.Repeat("x", 4096), long)
	assert.NotSame(t, unsafe.StringData(text[20:]), unsafe.StringData(long))
	assert.Empty(t, l.keep(""))
}
