package runtime

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildSubstituted builds root with the rules in JSON against the test
// registry, on a manual clock.
func buildSubstituted(t *testing.T, rules string, root *NodeSpec, log *eventLog) (*Tree, *ManualClock, error) {
	t.Helper()
	subs, err := ParseSubstitutions("rules.json", []byte(rules))
	require.NoError(t, err, "the rules")
	clock := NewManualClock(testEpoch)
	doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: root}}}
	tree, err := Build(testRegistry(log), doc, BuildConf{Clock: clock, Seed: 42, Substitutions: subs})
	return tree, clock, err
}

// TestSubstitutionRules: a node a rule matches — by name, by type, or by
// its BT.CPP path with wildcards — is built as a test node or as another
// node type, tick by tick as BT.CPP's TestNode; the others are untouched.
func TestSubstitutionRules(t *testing.T) {
	ms := time.Millisecond
	seq := func(children ...*NodeSpec) *NodeSpec { return N("Sequence", nil, children...) }
	for _, tc := range []struct {
		name   string
		rules  string
		tree   *NodeSpec
		bb     map[string]any
		steps  []step
		wantBB map[string]any
		subbed map[string]string // node path → what replaced it
	}{
		{
			name:  "by name: a test node that succeeds at once, its post script run",
			rules: `{"TestNodeConfigs": {"ok": {"return_status": "SUCCESS", "post_script": "n := 7"}}, "SubstitutionRules": {"go": "ok"}}`,
			tree:  seq(S("go", "F"), S("after", "S")),
			steps: []step{tick(Success, "after")}, wantBB: map[string]any{"n": 7},
			subbed: map[string]string{"MainTree/Sequence/go": "a test node (ok)", "MainTree/Sequence/after": ""},
		},
		{
			name:  "by type: every node of the type",
			rules: `{"TestNodeConfigs": {"no": {"return_status": "FAILURE", "failure_script": "why := 'refused'"}}, "SubstitutionRules": {"Step": "no"}}`,
			tree:  N("Fallback", nil, S("a", "S"), S("b", "S")),
			steps: []step{tick(Failure, "")}, wantBB: map[string]any{"why": "refused"},
		},
		{
			name:   "by path with wildcards; Type::UID for a node named as its type",
			rules:  `{"TestNodeConfigs": {"ok": {"return_status": "SUCCESS"}}, "SubstitutionRules": {"AlwaysFail*::?": "ok"}}`,
			tree:   seq(N("AlwaysFailure", nil), S("after", "S")),
			steps:  []step{tick(Success, "after")},
			subbed: map[string]string{"MainTree/Sequence/AlwaysFailure": "a test node (ok)"},
		},
		{
			name:  "a path that matches nothing changes nothing",
			rules: `{"TestNodeConfigs": {"ok": {"return_status": "SUCCESS"}}, "SubstitutionRules": {"nothing/here": "ok"}}`,
			tree:  seq(S("go", "F")),
			steps: []step{tick(Failure, "go")},
		},
		{
			name:  "async_delay: RUNNING on the tree's clock, a tick asked for at the end",
			rules: `{"TestNodeConfigs": {"slow": {"return_status": "SUCCESS", "async_delay": 100, "success_script": "done := true"}}, "SubstitutionRules": {"go": "slow"}}`,
			tree:  seq(S("go", "F"), S("after", "S")),
			steps: []step{
				tick(Running, "").askingTick(100 * ms),
				timed(99*ms, Running, ""),
				timed(1*ms, Success, "after"),
			},
			wantBB: map[string]any{"done": true},
		},
		{
			name:  "async_delay: a halt cancels the wait, the next tick starts a new one",
			rules: `{"TestNodeConfigs": {"slow": {"return_status": "FAILURE", "async_delay": 100, "post_script": "posts += 1"}}, "SubstitutionRules": {"go": "slow"}}`,
			tree:  S("go", "S"),
			bb:    map[string]any{"posts": int64(0)},
			steps: []step{
				tick(Running, ""), halted("").after(90 * ms),
				timed(20*ms, Running, ""), timed(99*ms, Running, ""), timed(1*ms, Failure, ""),
			},
			wantBB: map[string]any{"posts": int64(1)},
		},
		{
			name:  "return_status_script names the statuses, reads the blackboard, and after a delay is computed on every tick",
			rules: `{"TestNodeConfigs": {"wait": {"return_status_script": "ready ? SUCCESS : RUNNING", "async_delay": 10}}, "SubstitutionRules": {"go": "wait"}}`,
			tree:  S("go", "F"),
			bb:    map[string]any{"ready": false},
			steps: []step{tick(Running, ""), timed(10*ms, Running, ""), tick(Running, ""), tick(Success, "").writing("ready", true)},
		},
		{
			name:   "without a delay, a test node that ends RUNNING stays RUNNING (BT.CPP's TestNode)",
			rules:  `{"TestNodeConfigs": {"wait": {"return_status_script": "ready ? SUCCESS : RUNNING", "post_script": "posts += 1"}}, "SubstitutionRules": {"go": "wait"}}`,
			tree:   S("go", "F"),
			bb:     map[string]any{"ready": false, "posts": int64(0)},
			steps:  []step{tick(Running, ""), tick(Running, "").writing("ready", true), halted(""), tick(Success, "")},
			wantBB: map[string]any{"posts": int64(2)},
		},
		{
			name:   "a rule naming a node type builds that type, with the attributes it has ports for",
			rules:  `{"SubstitutionRules": {"go": "AlwaysSuccess"}}`,
			tree:   seq(S("go", "F"), S("after", "S")),
			steps:  []step{tick(Success, "after")},
			subbed: map[string]string{"MainTree/Sequence/go": "AlwaysSuccess"},
		},
		{
			name:   "a SubTree's nodes are matched under the subtree's instance name",
			rules:  `{"TestNodeConfigs": {"ok": {"return_status": "SUCCESS"}}, "SubstitutionRules": {"inner/go": "ok"}}`,
			tree:   seq(N("SubTree", A("ID", "Inner", "name", "inner")), S("go", "S")),
			steps:  []step{tick(Success, "go")},
			subbed: map[string]string{"MainTree/Sequence/inner/go": "a test node (ok)", "MainTree/Sequence/go": ""},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := &eventLog{}
			clock := NewManualClock(testEpoch)
			subs, err := ParseSubstitutions("rules.json", []byte(tc.rules))
			require.NoError(t, err, "the rules")
			doc := &Document{Trees: []*TreeSpec{{ID: "MainTree", Root: tc.tree}, {ID: "Inner", Root: S("go", "F")}}}
			tree, err := Build(testRegistry(log), doc, BuildConf{Main: "MainTree", Clock: clock, Seed: 42, Substitutions: subs})
			require.NoError(t, err)
			for k, v := range tc.bb {
				require.NoError(t, tree.Blackboard().Set(k, v))
			}
			for i, s := range tc.steps {
				runStep(t, i+1, tree, clock, log, s)
			}
			for k, want := range tc.wantBB {
				got, ok := tree.Blackboard().Get(k)
				require.True(t, ok, "blackboard %q", k)
				assert.Equal(t, want, got, "blackboard %q", k)
			}
			for path, want := range tc.subbed {
				n := tree.Node(path)
				require.NotNil(t, n, "no node %s", path)
				assert.Equal(t, want, Substituted(n), path)
			}
		})
	}
}

// TestSubstitutionRulesThatCannotApply: a rule the tree cannot take is an
// error when the tree is built, at the rule's line and the node's path.
func TestSubstitutionRulesThatCannotApply(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules string
		tree  *NodeSpec
		want  string
	}{
		{"an unknown node type", `{"SubstitutionRules": {"go": "AlwaysSucess"}}`, N("Sequence", nil, S("go", "S")),
			`rules.json:1:24: MainTree/Sequence/go: substitution rule "go": no node type or TestNodeConfig named "AlwaysSucess" (did you mean AlwaysSuccess`},
		{"two rules match one node", `{"SubstitutionRules": {"go": "AlwaysSuccess", "Step": "AlwaysFailure"}}`, S("go", "S"),
			`MainTree/go: substitution rules "go" (rules.json:1:24) and "Step" (rules.json:1:47) both match this node (BT.CPP would take either); make the filters disjoint`},
		{"a test node for a control node", `{"TestNodeConfigs": {"ok": {"return_status": "SUCCESS"}}, "SubstitutionRules": {"Sequence": "ok"}}`, N("Sequence", nil, S("go", "S")),
			`substitution rule "Sequence": a test node (ok) replaces leaves only, not a Sequence`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := buildSubstituted(t, tc.rules, tc.tree, &eventLog{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestParseSubstitutions: the rules file as BT.CPP reads it, and every
// mistake in it at its line and column.
func TestParseSubstitutions(t *testing.T) {
	good := `{
  "TestNodeConfigs": {
    "Arrive": {"return_status": "SUCCESS", "async_delay": 2000, "post_script": "visits += 1"},
    "Refuse": {"return_status": "FAILURE"}
  },
  "SubstitutionRules": {
    "NavigateTo": "Arrive",
    "Dock*": "Refuse",
    "charge/Wait::7": "AlwaysSuccess"
  }
}`
	s, err := ParseSubstitutions("rules.json", []byte(good))
	require.NoError(t, err)
	require.Len(t, s.Rules, 3)
	assert.Equal(t, "NavigateTo", s.Rules[0].Filter)
	assert.Equal(t, Pos{File: "rules.json", Line: 7, Col: 5}, s.Rules[0].Pos)
	require.NotNil(t, s.Rules[0].Test)
	assert.Equal(t, 2*time.Second, s.Rules[0].Test.AsyncDelay)
	assert.Equal(t, "visits += 1", s.Rules[0].Test.PostScript)
	assert.Equal(t, Failure, s.Rules[1].Test.ReturnStatus)
	assert.Nil(t, s.Rules[2].Test)
	assert.Equal(t, "AlwaysSuccess", s.Rules[2].Type)

	for _, tc := range []struct {
		name, json string
		want       []string
	}{
		{"not JSON", `{"SubstitutionRules": `, []string{"rules.json:1:23: not valid JSON"}},
		{"not an object", `[1]`, []string{"rules.json:1:1: want an object {...}, got a list"}},
		{"no rules", `{}`, []string{`rules.json:1:1: no SubstitutionRules`}},
		{"an unknown key", `{"SubstitutionRule": {}}`, []string{`rules.json:1:2: unknown key "SubstitutionRule" (did you mean SubstitutionRules?)`}},
		{"a rule that is not a string", `{"SubstitutionRules": {"a": 3}}`, []string{`rules.json:1:29: SubstitutionRules.a: want a string, got 3`}},
		{"an empty filter", `{"SubstitutionRules": {"": "x"}}`, []string{`rules.json:1:24: SubstitutionRules: an empty filter matches no node`}},
		{"a misspelt config key", `{"TestNodeConfigs": {"c": {"retrun_status": "SUCCESS"}}, "SubstitutionRules": {}}`,
			[]string{`rules.json:1:28: TestNodeConfigs.c: unknown key "retrun_status" (did you mean return_status?)`}},
		{"no status", `{"TestNodeConfigs": {"c": {"post_script": "a := 1"}}, "SubstitutionRules": {}}`,
			[]string{`rules.json:1:22: TestNodeConfigs.c: want return_status or return_status_script`}},
		{"IDLE", `{"TestNodeConfigs": {"c": {"return_status": "IDLE"}}, "SubstitutionRules": {}}`,
			[]string{`rules.json:1:45: TestNodeConfigs.c.return_status: a test node may not return IDLE`}},
		{"an unknown status", `{"TestNodeConfigs": {"c": {"return_status": "success"}}, "SubstitutionRules": {}}`,
			[]string{`TestNodeConfigs.c.return_status: unknown status "success"`}},
		{"a bad delay", `{"TestNodeConfigs": {"c": {"return_status": "SUCCESS", "async_delay": -5}}, "SubstitutionRules": {}}`,
			[]string{`TestNodeConfigs.c.async_delay: want whole milliseconds from 0 to a day (86400000), got -5`}},
		{"a script that does not parse", `{"TestNodeConfigs": {"c": {"return_status": "SUCCESS", "post_script": "a :="}}, "SubstitutionRules": {}}`,
			[]string{`TestNodeConfigs.c.post_script: the script does not parse`}},
		{"a key twice", `{"SubstitutionRules": {"a": "x", "a": "y"}}`, []string{`rules.json:1:34: SubstitutionRules: "a" given twice`}},
		{"every problem at once", "{\"TestNodeConfigs\": {\"c\": {\"return_status\": \"NO\"}},\n \"SubstitutionRules\": {\"a\": 1}}",
			[]string{`rules.json:1:45: TestNodeConfigs.c.return_status`, `rules.json:2:29: SubstitutionRules.a: want a string`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSubstitutions("rules.json", []byte(tc.json))
			require.Error(t, err)
			var list ErrorList
			require.ErrorAs(t, err, &list)
			require.Len(t, list, len(tc.want), "%v", err)
			for i, w := range tc.want {
				assert.Contains(t, list[i].Error(), w)
			}
		})
	}
}

// TestWildcardMatch: * is any run of characters, ? any one, as BT.CPP's
// wildcards_match.
func TestWildcardMatch(t *testing.T) {
	for _, tc := range []struct {
		s, pattern string
		want       bool
	}{
		{"", "", true}, {"", "*", true}, {"a", "", false}, {"abc", "abc", true}, {"abc", "ab", false},
		{"abc", "a*", true}, {"abc", "*c", true}, {"abc", "a?c", true}, {"ac", "a?c", false},
		{"charge/Wait::7", "charge/*", true}, {"charge/Wait::7", "*Wait::?", true}, {"charge/Wait::17", "*Wait::?", false},
		{"a/b/c", "a*c", true}, {"aXbYc", "a*b*c", true}, {"abcb", "*b", true}, {"abcd", "*b", false},
		{strings.Repeat("a", 200), strings.Repeat("*a", 50) + "b", false},
	} {
		assert.Equal(t, tc.want, wildcardMatch(tc.s, tc.pattern), "%q ~ %q", tc.s, tc.pattern)
	}
}

// FuzzParseSubstitutions: any input gives rules or an error, never a
// panic.
func FuzzParseSubstitutions(f *testing.F) {
	f.Add([]byte(`{"TestNodeConfigs": {"c": {"return_status": "SUCCESS", "async_delay": 5}}, "SubstitutionRules": {"a*": "c"}}`))
	f.Add([]byte(`{"SubstitutionRules": {"a": [1, {"b": null}]}}`))
	f.Add([]byte(`{"x": {"y": [[[]]]}, "SubstitutionRules": {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSubstitutions("f.json", data)
		if err == nil {
			require.NotNil(t, s)
		}
	})
}
