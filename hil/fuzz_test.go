package hil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse: whatever the bytes, Parse returns a scenario or errors, each
// placed in the file, and never panics or hangs.
func FuzzParse(f *testing.F) {
	f.Add([]byte(base))
	f.Add([]byte(base + "faults: [{at: 1s, obstacle: {name: b, place: lab, size: 1}}, {at: 2s, delay: {topic: scan, by: 1s}}]\n"))
	f.Add([]byte(base + "  - node: {path: a/b, reaches: FAILURE}\n  - at_rest: {within: 1s, after: 2s}\n  - visits_in_order: [lab]\n"))
	f.Add([]byte(base + "  - speed_near_obstacles: {max: 0.5, within: 0.4}\n  - blackboard: {a: 1, b: \"x\", c: null}\n  - no_errors: true\n  - steady: {goroutines: 3, heap: 1MiB, after: 1m}\n  - period_stable: {entry: n, tolerance: 0.5}\n"))
	f.Add([]byte(base + "faults: [{at: 1s, master: shutdown}, {at: 2s, clock: stop}, {at: 3s, stall: 1s}, {when: {entry: a, below: 3}, battery: 0.1}, {when: {entry: b, equals: on}, stall: 2s}]\n"))
	files, _ := filepath.Glob("../scenarios/*.scenario.yaml")
	for _, p := range files {
		data, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(file, data)
		if err != nil {
			require.Nil(t, s)
			require.Contains(t, err.Error(), file)
			return
		}
		require.NotNil(t, s)
		require.NotEmpty(t, s.Robots)
		require.NotEmpty(t, s.Expect)
	})
}

// FuzzParseRuns: a matrix expands into runs or errors placed in the file,
// never more than MaxRuns, never a panic or a hang.
func FuzzParseRuns(f *testing.F) {
	f.Add([]byte(matrixBase))
	f.Add([]byte("matrix: {seed: 1..3, x: [a, b]}\n" + base + "scenario: ${x}\n"))
	f.Add([]byte("matrix: {x: [&a true]}\n" + base + "faults: [{if: \"${x}\", at: 1s, battery: 0.5}, {if: *a, at: 2s, battery: 0.4}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		runs, err := ParseRuns(file, data, nil)
		if err != nil {
			require.Nil(t, runs)
			require.Contains(t, err.Error(), file)
			return
		}
		require.NotEmpty(t, runs)
		require.LessOrEqual(t, len(runs), MaxRuns)
	})
}
