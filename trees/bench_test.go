package trees

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// wideTree returns a Sequence of n AlwaysSuccess as BT.CPP v4 XML.
func wideTree(n int) []byte {
	var sb strings.Builder
	sb.Grow(40 + n*24)
	sb.WriteString("<root BTCPP_format=\"4\" main_tree_to_execute=\"Main\">\n  <BehaviorTree ID=\"Main\">\n    <Sequence>\n")
	for range n {
		sb.WriteString("      <AlwaysSuccess/>\n")
	}
	sb.WriteString("    </Sequence>\n  </BehaviorTree>\n</root>\n")
	return []byte(sb.String())
}

// BenchmarkLoad100k is the load benchmark: Parse and runtime.Build
// of a Sequence of 100,000 AlwaysSuccess. The budget is 100 ms per load
// (BehaviorTree.CPP 4.10 takes about 215 ms).
func BenchmarkLoad100k(b *testing.B) {
	data := wideTree(100_000)
	reg := runtime.NewRegistry()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		doc, err := Parse("wide.xml", data)
		require.NoError(b, err)
		_, err = runtime.Build(reg, doc, runtime.BuildConf{Seed: 1})
		require.NoError(b, err, firstErrors(err, 3)) // firstErrors(nil) is "": nothing is built in the timed loop
	}
}

// firstErrors shortens a long error list for a failure message. It is
// evaluated before require knows whether err is nil, so nil is "".
func firstErrors(err error, n int) string {
	if err == nil {
		return ""
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) <= n {
		return err.Error()
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n… and %d more", len(lines)-n)
}

// BenchmarkParse100k is the loader's share of BenchmarkLoad100k.
func BenchmarkParse100k(b *testing.B) {
	data := wideTree(100_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		_, err := Parse("wide.xml", data)
		require.NoError(b, err)
	}
}

// BenchmarkCheck100k is what `btrobot check` costs on the same tree.
func BenchmarkCheck100k(b *testing.B) {
	data := wideTree(100_000)
	reg := runtime.NewRegistry()
	b.ReportAllocs()
	for b.Loop() {
		doc, err := Parse("wide.xml", data)
		require.NoError(b, err)
		err = runtime.Check(reg, doc, runtime.BuildConf{})
		require.NoError(b, err, firstErrors(err, 3))
	}
}

// BenchmarkWrite100k writes the same tree back.
func BenchmarkWrite100k(b *testing.B) {
	doc, err := Parse("wide.xml", wideTree(100_000))
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		require.NoError(b, Write(discard{}, doc))
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
