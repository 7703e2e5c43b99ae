package hil

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// matrixBase is base with a matrix in front and a parameterised robot.
const matrixBase = `matrix:
  seed: 1..2
  battery: [0.12, 0.3]
  corridor: [blocked, open]
world: ../../worlds/office
time_limit: 5m
mission:
  tree: ../../trees/missions/patrol.xml
  profile: ../../robots/sim.yaml
robots:
  - {name: robot1, battery: "${battery}"}
faults:
  - {if: "${corridor} == blocked", at: 30s, obstacle: {name: box, place: kitchen, size: 1}}
  - {at: 1m, battery: "${battery}"}
expect:
  - outcome: done
  - {if: "${corridor} != blocked", ends_within: 4m}
`

// TestMatrixExpands: every combination is a run, in the matrix's order
// (the last parameter fastest), named by its parameters, with the values
// in place and the items whose if: fails left out.
func TestMatrixExpands(t *testing.T) {
	runs, err := ParseRuns(file, []byte(matrixBase), nil)
	require.NoError(t, err)
	require.Len(t, runs, 8)
	var names []string
	for _, s := range runs {
		names = append(names, s.Name)
	}
	assert.Equal(t, []string{
		"inline [seed=1 battery=0.12 corridor=blocked]", "inline [seed=1 battery=0.12 corridor=open]",
		"inline [seed=1 battery=0.3 corridor=blocked]", "inline [seed=1 battery=0.3 corridor=open]",
		"inline [seed=2 battery=0.12 corridor=blocked]", "inline [seed=2 battery=0.12 corridor=open]",
		"inline [seed=2 battery=0.3 corridor=blocked]", "inline [seed=2 battery=0.3 corridor=open]",
	}, names)
	for _, tc := range []struct {
		name    string
		run     *Scenario
		seed    uint64
		battery float64
		faults  []string
		expect  []string
	}{
		{"blocked", runs[0], 1, 0.12, []string{"obstacle", "battery"}, []string{"outcome"}},
		{"open", runs[1], 1, 0.12, []string{"battery"}, []string{"outcome", "ends_within"}},
		{"seed 2, 30%", runs[6], 2, 0.3, []string{"obstacle", "battery"}, []string{"outcome"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.run
			assert.Equal(t, tc.seed, s.Seed)
			assert.Equal(t, tc.battery, s.Robots[0].Battery)
			var faults, expect []string
			for _, f := range s.Faults {
				faults = append(faults, f.Kind)
				assert.NotContains(t, f.Text, "if")
			}
			for _, e := range s.Expect {
				expect = append(expect, e.Kind)
			}
			assert.Equal(t, tc.faults, faults)
			assert.Equal(t, tc.expect, expect)
			assert.Equal(t, int32(14), s.Faults[len(s.Faults)-1].Pos.Line, "positions stay those of the file")
		})
	}
}

// TestMatrixSeedsAndSelection: --seeds replaces the matrix's seeds (or
// adds them to a file without a matrix); --only keeps the runs it names.
func TestMatrixSeedsAndSelection(t *testing.T) {
	runs, err := ParseRuns(file, []byte(matrixBase), []uint64{7})
	require.NoError(t, err)
	require.Len(t, runs, 4)
	assert.Equal(t, uint64(7), runs[3].Seed)
	assert.Equal(t, "inline [seed=7 battery=0.3 corridor=open]", runs[3].Name)

	runs, err = ParseRuns(file, []byte(base+"seed: 4\n"), []uint64{10, 11, 12})
	require.NoError(t, err)
	require.Len(t, runs, 3)
	assert.Equal(t, "inline [seed=12]", runs[2].Name)
	assert.Equal(t, uint64(12), runs[2].Seed)

	plain, err := ParseRuns(file, []byte(base+"seed: 4\n"), nil)
	require.NoError(t, err)
	require.Len(t, plain, 1)
	assert.Equal(t, "inline", plain[0].Name)

	all, err := ParseRuns(file, []byte(matrixBase), nil)
	require.NoError(t, err)
	for _, tc := range []struct {
		only string
		want int
	}{
		{"seed=1", 4},
		{"battery=0.3,corridor=open", 2},
		{"seed=2,battery=0.12,corridor=blocked", 1},
		{"battery=0.5", 0},
	} {
		t.Run(tc.only, func(t *testing.T) {
			sel, err := ParseSelector(tc.only)
			require.NoError(t, err)
			n := 0
			for _, s := range all {
				if sel.Match(s) {
					n++
				}
			}
			assert.Equal(t, tc.want, n)
		})
	}
	for _, bad := range []string{"", "battery", "=1", "Battery=1", "a=1,,b=2"} {
		_, err := ParseSelector(bad)
		assert.Error(t, err, bad)
	}
}

// TestMatrixErrors: every problem of a matrix, at its line and column.
func TestMatrixErrors(t *testing.T) {
	body := strings.SplitN(matrixBase, "\n", 5)[4] // from world: on
	for _, tc := range []struct {
		name, matrix, extra string
		want                []string
	}{
		{"not a mapping", "matrix: [1, 2]\n", "", []string{"inline.scenario.yaml:1:9: matrix: want a mapping of parameters"}},
		{"bad name", "matrix: {Battery: [1], battery: [0.1], corridor: [a]}\n", "", []string{"1:10: matrix: want a parameter's name"}},
		{"twice", "matrix: {battery: [0.1], battery: [0.2], corridor: [a]}\n", "", []string{"1:26: matrix.battery: given twice"}},
		{"empty list", "matrix: {battery: [], corridor: [a]}\n", "", []string{"1:19: matrix.battery: want a list of values"}},
		{"a list in the list", "matrix: {battery: [[1]], corridor: [a]}\n", "", []string{"1:20: matrix.battery: want a number, true, false or a text, got a list"}},
		{"seed not whole", "matrix: {seed: [1.5], battery: [0.1], corridor: [a]}\n", "", []string{"1:17: matrix.seed: want a whole number ≥ 0"}},
		{"range backwards", "matrix: {seed: 5..2, battery: [0.1], corridor: [a]}\n", "", []string{"1:16: matrix.seed: seeds \"5..2\": want A..B with A ≤ B"}},
		{"too many runs", "matrix: {seed: 1..500, battery: [0.1, 0.2, 0.3], corridor: [a]}\n", "", []string{"1:33: matrix.battery: the matrix makes more than 1000 runs"}},
		{"unknown reference", "matrix: {battry: [0.1], corridor: [a]}\n", "", []string{
			"1:10: matrix.battry: the parameter is written nowhere; write ${battry} where its value goes",
			"8:29: ${battery} names no parameter of the matrix; did you mean battry?"}},
		{"unclosed", "matrix: {battery: [0.1], corridor: [a]}\n", "scenario: x ${battery\n", []string{"unclosed ${"}},
		{"bad condition", "matrix: {battery: [0.1], corridor: [a]}\n", "", nil},
		{"seed given twice", "matrix: {seed: [1], battery: [0.1], corridor: [a]}\n", "seed: 3\n", []string{"seed: the matrix gives the seeds; leave seed: out"}},
		{"a bad value in one run only", "matrix: {battery: [0.5, 2], corridor: [a]}\n", "", []string{"8:29: robots[0].battery: want a fraction in (0, 1]", "11:23: faults[0].battery: want a fraction in [0, 1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.matrix + body + tc.extra
			if tc.name == "bad condition" {
				doc = strings.Replace(doc, "${corridor} == blocked", "maybe", 1)
				tc.want = []string{"10:10: if: want true, false, or a comparison"}
			}
			runs, err := ParseRuns(file, []byte(doc), nil)
			require.Error(t, err, "%d runs", len(runs))
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			assert.Equal(t, 1, strings.Count(err.Error(), tc.want[0][strings.Index(tc.want[0], ":")+1:]), "said once: %v", err)
		})
	}
}

// TestShardsPartitionTheCampaign: for every N, the N shards of a
// campaign hold every run exactly once, in the campaign's order, and
// differ in size by one at most.
func TestShardsPartitionTheCampaign(t *testing.T) {
	runs := make([]*Scenario, 37)
	for i := range runs {
		runs[i] = &Scenario{Name: fmt.Sprint(i)}
	}
	for n := 1; n <= 40; n++ {
		seen := map[*Scenario]int{}
		lo, hi := len(runs), 0
		for k := 1; k <= n; k++ {
			shard := ShardOf(runs, k, n)
			lo, hi = min(lo, len(shard)), max(hi, len(shard))
			for i, s := range shard {
				seen[s]++
				if i > 0 {
					assert.Less(t, indexOf(runs, shard[i-1]), indexOf(runs, s))
				}
			}
		}
		require.Len(t, seen, len(runs), "N=%d", n)
		for s, c := range seen {
			require.Equal(t, 1, c, "N=%d run %s", n, s.Name)
		}
		assert.LessOrEqual(t, hi-lo, 1, "N=%d", n)
	}
	for _, tc := range []struct {
		in   string
		k, n int
		ok   bool
	}{{"1/1", 1, 1, true}, {"3/4", 3, 4, true}, {" 2 / 2 ", 2, 2, true}, {"0/4", 0, 0, false}, {"5/4", 0, 0, false}, {"4", 0, 0, false}, {"a/b", 0, 0, false}, {"1/0", 0, 0, false}} {
		k, n, err := ParseShard(tc.in)
		assert.Equal(t, tc.ok, err == nil, tc.in)
		assert.Equal(t, [2]int{tc.k, tc.n}, [2]int{k, n}, tc.in)
	}
}

func indexOf(runs []*Scenario, s *Scenario) int {
	for i, r := range runs {
		if r == s {
			return i
		}
	}
	return -1
}

// TestParseSeeds: --seeds A..B, or one seed.
func TestParseSeeds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []uint64
	}{{"1..3", []uint64{1, 2, 3}}, {"5", []uint64{5}}, {"7..7", []uint64{7}}, {"3..1", nil}, {"1..5000", nil}, {"x", nil}, {"-1", nil}} {
		got, err := ParseSeeds(tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		assert.Equal(t, tc.want == nil, err != nil, tc.in)
	}
}
