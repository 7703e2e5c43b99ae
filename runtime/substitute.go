package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/btrobot/btrobot/runtime/script"
)

// Substitutions are BehaviorTree.CPP's substitution rules: when a tree is
// built, a node a rule matches is built as another registered node type,
// or as a test node that returns a configured status (at once or after a
// delay) and runs configured scripts. This is how a mission is tested
// without its robot: the navigation and the docking replaced, the logic
// around them run as it is. The rules are read from the JSON file
// BT.CPP's BehaviorTreeFactory::loadSubstitutionRuleFromJSON reads:
//
//	{
//	  "TestNodeConfigs": {
//	    "Arrive":  {"return_status": "SUCCESS", "async_delay": 2000, "post_script": "visits += 1"},
//	    "Refuse":  {"return_status": "FAILURE"}
//	  },
//	  "SubstitutionRules": {
//	    "NavigateTo": "Arrive",
//	    "Dock*":      "Refuse",
//	    "charge/Wait::7": "AlwaysSuccess"
//	  }
//	}
//
// A rule's filter matches a node when it equals the node's name or its
// type, or when it matches, with * (any run of characters) and ? (any one
// character), the node's BT.CPP path: its subtrees' instance names then
// its own name, joined by "/", and a node named as its type written
// Type::UID (UIDs as BT.CPP and Groot2 number the nodes). A rule's value
// names a TestNodeConfig of the file, else a registered node type.
//
// Where btrobot is stricter than BT.CPP, it says so rather than guess: an
// unknown key (a misspelt "retrun_status") is an error BT.CPP ignores; a
// node two rules match is an error (BT.CPP takes either, in the order of
// its hash map); a test node's scripts are checked when the rules are read
// (BT.CPP: when the tree is built).
type Substitutions struct {
	File  string
	Rules []SubstitutionRule
}

// SubstitutionRule replaces the nodes Filter matches.
type SubstitutionRule struct {
	Filter string
	Pos    Pos
	// Type is the node type to build instead, when Test is nil.
	Type string
	// Test, with its name in the file in Type, configures a test node.
	Test *TestNodeConfig
}

// TestNodeConfig is a test node's behaviour (BT.CPP's TestNodeConfig).
type TestNodeConfig struct {
	// ReturnStatus is the status it ends with [SUCCESS]: SUCCESS, FAILURE,
	// RUNNING or SKIPPED; ReturnStatusScript, when set, computes it
	// instead, at the end, on the blackboard (it may name the statuses:
	// "done ? SUCCESS : RUNNING").
	ReturnStatus       Status
	ReturnStatusScript string
	// AsyncDelay, when positive, makes it RUNNING for that long (on the
	// tree's clock) before it ends; halting it cancels the wait.
	AsyncDelay time.Duration
	// SuccessScript runs when it ends with SUCCESS, FailureScript with
	// FAILURE, PostScript after either (and after RUNNING or SKIPPED).
	SuccessScript, FailureScript, PostScript string

	returnStatus, success, failure, post *script.Program
}

// maxSubstitutionsFile bounds a rules file: rules are written by hand.
const maxSubstitutionsFile = 4 << 20

// LoadSubstitutions reads a rules file (see Substitutions).
func LoadSubstitutions(path string) (*Substitutions, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSubstitutionsFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxSubstitutionsFile {
		return nil, fmt.Errorf("%s: over %d MiB; substitution rules are a few lines", path, maxSubstitutionsFile>>20)
	}
	return ParseSubstitutions(path, data)
}

// ParseSubstitutions reads substitution rules from data (file names them
// in errors): every problem, each at file:line:col.
func ParseSubstitutions(file string, data []byte) (*Substitutions, error) {
	p := &subParser{file: file, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	s := &Substitutions{File: file}
	configs := map[string]*TestNodeConfig{}
	var rules []SubstitutionRule
	sawRules := false
	top := p.pos()
	if !p.object("", func(key string, at Pos) {
		switch key {
		case "TestNodeConfigs":
			p.object(key, func(name string, at Pos) {
				if c := p.testConfig(key+"."+name, at); c != nil {
					configs[name] = c
				}
			})
		case "SubstitutionRules":
			sawRules = true
			p.object(key, func(filter string, at Pos) {
				v, ok := p.str(key + "." + filter)
				if !ok {
					return
				}
				if filter == "" {
					p.errs.add(at, "", "%s: an empty filter matches no node", key)
				}
				rules = append(rules, SubstitutionRule{Filter: filter, Pos: at, Type: v})
			})
		default:
			p.errs.add(at, "", "unknown key %q%s; want TestNodeConfigs and SubstitutionRules", key, didYouMean(key, []string{"TestNodeConfigs", "SubstitutionRules"}))
			p.skip()
		}
	}) {
		return nil, p.errs.Err()
	}
	if !sawRules && len(p.errs) == 0 {
		p.errs.add(top, "", "no SubstitutionRules: want {\"SubstitutionRules\": {\"filter\": \"TestNodeConfig or node type\"}}")
	}
	for i := range rules {
		if c := configs[rules[i].Type]; c != nil {
			rules[i].Test = c
		}
	}
	s.Rules = rules
	if err := p.errs.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

type subParser struct {
	file string
	data []byte
	dec  *json.Decoder
	errs ErrorList
	bad  bool // the JSON itself is broken: stop
}

// pos is where the decoder is, as file:line:col (of the next token).
func (p *subParser) pos() Pos {
	off := int(p.dec.InputOffset())
	for off < len(p.data) && strings.ContainsRune(" \t\r\n,:", rune(p.data[off])) {
		off++
	}
	line, col := 1, 1
	for _, c := range p.data[:min(off, len(p.data))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return PosAt(p.file, line, col)
}

func (p *subParser) token() (json.Token, bool) {
	if p.bad {
		return nil, false
	}
	at := p.pos()
	t, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		msg := err.Error()
		if errors.As(err, &se) {
			msg = se.Error()
		} else if errors.Is(err, io.EOF) {
			msg = "the file ends before the JSON does"
		}
		p.errs.add(at, "", "not valid JSON: %s", msg)
		p.bad = true
		return nil, false
	}
	return t, true
}

// object reads an object, calling each for every key with the position of
// the key; false when the JSON is broken or the value is no object.
func (p *subParser) object(field string, each func(key string, at Pos)) bool {
	at := p.pos()
	t, ok := p.token()
	if !ok {
		return false
	}
	if d, isDelim := t.(json.Delim); !isDelim || d != '{' {
		p.errs.add(at, "", "%swant an object {...}, got %s", fieldPrefix(field), describeJSON(t))
		if isDelim {
			p.skipRest(d)
		}
		return !p.bad
	}
	seen := map[string]bool{}
	for p.dec.More() && !p.bad {
		at := p.pos()
		t, ok := p.token()
		if !ok {
			return false
		}
		key, _ := t.(string)
		if seen[key] {
			p.errs.add(at, "", "%s%q given twice", fieldPrefix(field), key)
		}
		seen[key] = true
		each(key, at)
	}
	_, ok = p.token() // }
	return ok
}

func fieldPrefix(field string) string {
	if field == "" {
		return ""
	}
	return field + ": "
}

// skip skips one value.
func (p *subParser) skip() {
	t, ok := p.token()
	if !ok {
		return
	}
	if d, isDelim := t.(json.Delim); isDelim {
		p.skipRest(d)
	}
}

// skipRest skips what is left of the object or array d opened.
func (p *subParser) skipRest(d json.Delim) {
	if d != '{' && d != '[' {
		return
	}
	for depth := 1; depth > 0; {
		t, ok := p.token()
		if !ok {
			return
		}
		if d, isDelim := t.(json.Delim); isDelim {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
}

func (p *subParser) str(field string) (string, bool) {
	at := p.pos()
	t, ok := p.token()
	if !ok {
		return "", false
	}
	s, isStr := t.(string)
	if !isStr {
		p.errs.add(at, "", "%s: want a string, got %s", field, describeJSON(t))
		if d, isDelim := t.(json.Delim); isDelim {
			p.skipRest(d)
		}
		return "", false
	}
	return s, true
}

var testConfigKeys = []string{"return_status", "return_status_script", "async_delay", "success_script", "failure_script", "post_script"}

// testConfig reads one TestNodeConfig.
func (p *subParser) testConfig(field string, at Pos) *TestNodeConfig {
	c := &TestNodeConfig{ReturnStatus: Success}
	hasStatus := false
	before := len(p.errs)
	p.object(field, func(key string, kat Pos) {
		f := field + "." + key
		switch key {
		case "return_status":
			sat := p.pos()
			if s, ok := p.str(f); ok {
				st, err := ParseStatus(s)
				switch {
				case err != nil:
					p.errs.add(sat, "", "%s: %v", f, err)
				case st == Idle:
					p.errs.add(sat, "", "%s: a test node may not return IDLE (want SUCCESS, FAILURE, RUNNING or SKIPPED)", f)
				default:
					c.ReturnStatus, hasStatus = st, true
				}
			}
		case "async_delay":
			dat := p.pos()
			t, ok := p.token()
			if !ok {
				return
			}
			n, isNum := t.(json.Number)
			ms, err := n.Int64()
			if !isNum || err != nil || ms < 0 || ms > int64(24*time.Hour/time.Millisecond) {
				p.errs.add(dat, "", "%s: want whole milliseconds from 0 to a day (86400000), got %s", f, describeJSON(t))
				if d, isDelim := t.(json.Delim); isDelim {
					p.skipRest(d)
				}
				return
			}
			c.AsyncDelay = time.Duration(ms) * time.Millisecond
		case "return_status_script", "success_script", "failure_script", "post_script":
			sat := p.pos()
			src, ok := p.str(f)
			if !ok || src == "" {
				return
			}
			prog, err := script.Parse(src)
			if err != nil {
				p.errs.add(sat, "", "%s: the script does not parse: %v", f, err)
				return
			}
			switch key {
			case "return_status_script":
				c.ReturnStatusScript, c.returnStatus = src, prog
			case "success_script":
				c.SuccessScript, c.success = src, prog
			case "failure_script":
				c.FailureScript, c.failure = src, prog
			case "post_script":
				c.PostScript, c.post = src, prog
			}
		default:
			p.errs.add(kat, "", "%s: unknown key %q%s; want %s", field, key, didYouMean(key, testConfigKeys), strings.Join(testConfigKeys, ", "))
			p.skip()
		}
	})
	if len(p.errs) > before {
		return nil
	}
	if !hasStatus && c.ReturnStatusScript == "" {
		p.errs.add(at, "", "%s: want return_status or return_status_script", field)
		return nil
	}
	return c
}

func describeJSON(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		if v == '[' {
			return "a list"
		}
		return "an object"
	case string:
		return fmt.Sprintf("%q", v)
	case nil:
		return "null"
	default:
		return fmt.Sprint(v)
	}
}

// wildcardMatch reports whether s matches pattern, where * matches any
// run of characters (none too) and ? any one character (a byte, as
// BT.CPP's matcher).
func wildcardMatch(s, pattern string) bool {
	// The classic linear scan with one backtrack point for the last *.
	si, pi := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(pattern) && (pattern[pi] == '?' || pattern[pi] == s[si]):
			si++
			pi++
		case pi < len(pattern) && pattern[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}

// match returns the rule that matches the node named name of type typ at
// BT.CPP path path, nil when none does, or an error when two do.
func (s *Substitutions) match(name, typ, path string) (*SubstitutionRule, error) {
	var found *SubstitutionRule
	for i := range s.Rules {
		r := &s.Rules[i]
		if r.Filter != name && r.Filter != typ && !wildcardMatch(path, r.Filter) {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("substitution rules %q (%s) and %q (%s) both match this node (BT.CPP would take either); make the filters disjoint",
				found.Filter, found.Pos, r.Filter, r.Pos)
		}
		found = r
	}
	return found, nil
}

// Substituted says what a substitution rule built in the node's place
// ("a test node (Arrive)", "AlwaysSuccess"), or "" when none did.
func Substituted(n Node) string {
	b := n.base()
	if b.tree == nil {
		return ""
	}
	return b.tree.substituted[b.uid]
}

// btcppPath is BT.CPP's path of the node s names, named name, in the
// subtree being expanded: the subtrees' instance names, then its own name,
// or Type::UID for a node named as its type (a SubTree's type is its
// tree's ID). The node's UID is b.made.
func (b *builder) btcppPath(s *NodeSpec, name string) string {
	typ := s.Type
	if typ == "SubTree" {
		typ, _ = s.Attr("ID")
	}
	if name == typ {
		name = fmt.Sprintf("%s::%d", typ, b.made)
	}
	return b.btPrefix + name
}

// substitute applies the rule that matches s, if any: a test node in its
// place (ports as the original's, unused), or the rule's node type built
// from the attributes it has ports for. It returns the spec and type to
// build, and what was substituted ("" when nothing was).
func (b *builder) substitute(s *NodeSpec, typ *NodeType, path string) (*NodeSpec, *NodeType, string) {
	rule, err := b.conf.Substitutions.match(s.Name(), s.Type, b.btcppPath(s, s.Name()))
	if err != nil {
		b.errs.add(s.Pos, path, "%v", err)
		return s, typ, ""
	}
	if rule == nil {
		return s, typ, ""
	}
	if rule.Test != nil {
		if lo, _ := typ.ChildBounds(); lo > 0 || len(s.Children) > 0 || s.Type == "SubTree" {
			b.errs.add(rule.Pos, path, "substitution rule %q: a test node (%s) replaces leaves only, not a %s", rule.Filter, rule.Type, s.Type)
			return s, typ, ""
		}
		tt := *typ
		cfg := rule.Test
		name := rule.Type
		tt.New = func(*Config) (Node, error) { return NewStatefulAction(&testNode{name: name, conf: cfg}), nil }
		return s, &tt, fmt.Sprintf("a test node (%s)", rule.Type)
	}
	sub, ok := b.reg.Lookup(rule.Type)
	if !ok {
		b.errs.add(rule.Pos, path, "substitution rule %q: no node type or TestNodeConfig named %q%s", rule.Filter, rule.Type, didYouMean(rule.Type, b.reg.Nearest(rule.Type, 3)))
		return s, typ, ""
	}
	// The substitute reads the attributes it has ports for; the others
	// were the original's.
	s2 := *s
	s2.Type = rule.Type
	s2.Attrs = nil
	for _, a := range s.Attrs {
		if _, has := sub.Port(a.Name); has || IsReservedAttr(a.Name) {
			s2.Attrs = append(s2.Attrs, a)
		}
	}
	return &s2, sub, rule.Type
}

// testNode is the node a TestNodeConfig makes: a stateful action that
// ends at once, or after AsyncDelay on the tree's clock, with the
// configured status, running the configured scripts. As BT.CPP's
// TestNode: one that ends RUNNING at once stays RUNNING (its status is not
// computed again until it is halted); after a delay, it is computed on
// every tick from then on.
type testNode struct {
	name      string // the TestNodeConfig's
	conf      *TestNodeConfig
	deadline  time.Time
	completed bool // the delay is over
}

func (t *testNode) OnStart(n *Leaf) (Status, error) {
	t.completed = false
	if t.conf.AsyncDelay <= 0 {
		return t.complete(n)
	}
	t.deadline = n.Now().Add(t.conf.AsyncDelay)
	n.tree.WakeAt(t.deadline)
	return Running, nil
}

func (t *testNode) OnRunning(n *Leaf) (Status, error) {
	if !t.completed {
		if t.conf.AsyncDelay <= 0 || n.Now().Before(t.deadline) {
			if t.conf.AsyncDelay > 0 {
				n.tree.WakeAt(t.deadline)
			}
			return Running, nil
		}
		t.completed = true
	}
	return t.complete(n)
}

func (t *testNode) OnHalted(*Leaf) {}

// statusEnv is a node's script environment with the statuses' names as
// enums (IDLE 0 … SKIPPED 4), for return_status_script.
type statusEnv struct{ *scriptEnv }

func (e statusEnv) Enum(name string) (int, bool) {
	if st, err := ParseStatus(name); err == nil {
		return int(st), true
	}
	return e.scriptEnv.Enum(name)
}

func (t *testNode) complete(n *Leaf) (Status, error) {
	c := t.conf
	st := c.ReturnStatus
	if c.returnStatus != nil {
		v, err := c.returnStatus.Eval(statusEnv{n.scriptEnv()})
		if err != nil {
			return Failure, fmt.Errorf("return_status_script: %w", err)
		}
		if st, err = statusOf(v); err != nil {
			return Failure, fmt.Errorf("return_status_script: %w", err)
		}
	}
	run := func(name string, p *script.Program) error {
		if p == nil {
			return nil
		}
		if _, err := p.Eval(n.scriptEnv()); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	var err error
	switch st {
	case Success:
		err = run("success_script", c.success)
	case Failure:
		err = run("failure_script", c.failure)
	}
	if err == nil {
		err = run("post_script", c.post)
	}
	if err != nil {
		return Failure, err
	}
	if n.Explaining() {
		how := "return_status " + st.String()
		if c.returnStatus != nil {
			how = fmt.Sprintf("return_status_script %q gave %s", c.ReturnStatusScript, st)
		}
		n.SetReason(fmt.Sprintf("substituted by the test node %s: %s", t.name, how))
	}
	return st, nil
}

// statusOf reads a return_status_script's value: a status name, or a
// status's number (the script's SUCCESS is 2).
func statusOf(v script.Value) (Status, error) {
	var st Status
	switch x := v.(type) {
	case string:
		s, err := ParseStatus(x)
		if err != nil {
			return Idle, err
		}
		st = s
	case int64:
		st = Status(x)
		if x < 0 || x > int64(Skipped) {
			return Idle, fmt.Errorf("%d is no status (want IDLE 0 … SKIPPED 4)", x)
		}
	case float64:
		if x != float64(int64(x)) || x < 0 || x > float64(Skipped) {
			return Idle, fmt.Errorf("%v is no status (want IDLE 0 … SKIPPED 4)", x)
		}
		st = Status(int64(x))
	default:
		return Idle, fmt.Errorf("want a status, got %v (%T)", v, v)
	}
	if st == Idle {
		return Idle, errors.New("a test node may not return IDLE")
	}
	return st, nil
}
