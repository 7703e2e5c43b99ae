package hil

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/runtime"
)

// A scenario's matrix expands one file into many runs:
//
//	matrix:
//	  seed: 1..3                  # whole numbers A..B, or a list
//	  battery: [0.12, 0.3]
//	  corridor: [blocked, open]
//	robots:
//	  - {name: robot1, battery: ${battery}}
//	faults:
//	  - {if: ${corridor} == blocked, at: 30s, obstacle: {name: box, place: corridor, size: 1}}
//
// Every combination is a run (the last parameter varies fastest), named by
// its parameters: "patrol [seed=2 battery=0.12 corridor=blocked]". ${name}
// is replaced in every value of the file: a value that is only ${name}
// takes the parameter's value as written in the matrix (a number stays a
// number), one that holds it in text gets its text. A list item with
// if: is kept only when the condition holds: true or false, or two texts
// compared with == or !=; if: itself is removed. seed is the only
// parameter that need not be written anywhere: it seeds the run.

// MaxRuns bounds the runs one file expands to.
const MaxRuns = 1000

// Param is one parameter of a run of a matrix, as the matrix wrote it.
type Param struct {
	Name, Value string
}

// matrixParam is a parameter with its values, in the file's order.
type matrixParam struct {
	name   string
	key    *yaml.Node // where it was written
	values []*yaml.Node
}

var (
	paramName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	paramRef  = regexp.MustCompile(`\$\{([^}]*)\}`)
	seedRange = regexp.MustCompile(`^\s*(\d+)\s*\.\.\s*(\d+)\s*$`)
)

// ParseSeeds reads a seed range as --seeds takes it: "A..B" (both
// included) or one seed "A".
func ParseSeeds(s string) ([]uint64, error) {
	if m := seedRange.FindStringSubmatch(s); m != nil {
		a, errA := strconv.ParseUint(m[1], 10, 64)
		b, errB := strconv.ParseUint(m[2], 10, 64)
		switch {
		case errA != nil || errB != nil:
			return nil, fmt.Errorf("seeds %q: want whole numbers A..B", s)
		case b < a:
			return nil, fmt.Errorf("seeds %q: want A..B with A ≤ B", s)
		case b-a >= MaxRuns:
			return nil, fmt.Errorf("seeds %q: at most %d seeds", s, MaxRuns)
		}
		out := make([]uint64, 0, b-a+1)
		for v := a; ; v++ {
			out = append(out, v)
			if v == b {
				return out, nil
			}
		}
	}
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("seeds %q: want A..B (1..20) or one whole number", s)
	}
	return []uint64{v}, nil
}

// matrix reads the matrix: key of root, removing it from root. seeds,
// when given, replace (or add) the seed parameter.
func (d *decoder) matrix(root *yaml.Node, seeds []uint64) []matrixParam {
	var params []matrixParam
	if root != nil && root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value != "matrix" {
				continue
			}
			params = d.matrixParams(root.Content[i+1])
			root.Content = append(root.Content[:i:i], root.Content[i+2:]...)
			break
		}
	}
	if seeds != nil {
		vals := make([]*yaml.Node, len(seeds))
		for i, s := range seeds {
			vals[i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(s, 10)}
		}
		found := false
		for i := range params {
			if params[i].name == "seed" {
				params[i].values, found = vals, true
			}
		}
		if !found {
			params = append(params, matrixParam{name: "seed", values: vals})
		}
	}
	return params
}

func (d *decoder) matrixParams(n *yaml.Node) []matrixParam {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		d.add(n, "matrix", "want a mapping of parameters to their values ({seed: 1..3, battery: [0.12, 0.3]}), got %s", input.Describe(n))
		return nil
	}
	var out []matrixParam
	runs := 1
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := join("matrix", k.Value)
		switch {
		case k.Kind != yaml.ScalarNode || !paramName.MatchString(k.Value):
			d.add(k, "matrix", "want a parameter's name (lower case letters, digits and _, such as battery), got %s", input.Describe(k))
			continue
		case hasParam(out, k.Value):
			d.add(k, field, "given twice")
			continue
		}
		p := matrixParam{name: k.Value, key: k}
		switch {
		case v.Kind == yaml.ScalarNode && seedRange.MatchString(v.Value):
			seeds, err := ParseSeeds(v.Value)
			if err != nil {
				d.add(v, field, "%v", err)
				continue
			}
			for _, s := range seeds {
				p.values = append(p.values, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(s, 10), Line: v.Line, Column: v.Column})
			}
		case v.Kind == yaml.SequenceNode && len(v.Content) > 0:
			bad := false
			for _, x := range v.Content {
				if x.Kind != yaml.ScalarNode || x.Tag == "!!null" || strings.Contains(x.Value, "${") {
					d.add(x, field, "want a number, true, false or a text, got %s", input.Describe(x))
					bad = true
				}
			}
			if bad {
				continue
			}
			p.values = v.Content
		default:
			d.add(v, field, "want a list of values ([0.12, 0.3]) or whole numbers A..B, got %s", input.Describe(v))
			continue
		}
		if p.name == "seed" {
			for _, x := range p.values {
				if _, err := strconv.ParseUint(x.Value, 10, 64); err != nil || x.Tag != "!!int" {
					d.add(x, field, "want a whole number ≥ 0, got %s", input.Describe(x))
					p.values = nil
				}
			}
			if p.values == nil {
				continue
			}
		}
		runs *= len(p.values)
		if runs > MaxRuns {
			d.add(v, field, "the matrix makes more than %d runs; split the file", MaxRuns)
			return nil
		}
		out = append(out, p)
	}
	return out
}

func hasParam(ps []matrixParam, name string) bool {
	for _, p := range ps {
		if p.name == name {
			return true
		}
	}
	return false
}

// checkRefs reports every ${name} that names no parameter and every
// parameter (but seed) written nowhere.
func (d *decoder) checkRefs(root *yaml.Node, params []matrixParam) {
	used := map[string]bool{}
	seen := map[*yaml.Node]bool{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		if n.Kind == yaml.ScalarNode {
			rest := n.Value
			for {
				i := strings.Index(rest, "${")
				if i < 0 {
					break
				}
				j := strings.IndexByte(rest[i:], '}')
				if j < 0 {
					d.add(n, "", "unclosed ${ in %s; write ${name} with a parameter of the matrix", input.Describe(n))
					break
				}
				name := rest[i+2 : i+j]
				if !hasParam(params, name) {
					var names []string
					for _, p := range params {
						names = append(names, p.name)
					}
					msg := fmt.Sprintf("${%s} names no parameter of the matrix", name)
					switch near := runtime.NearestNames(name, names, 3); {
					case len(near) > 0:
						msg += "; did you mean " + strings.Join(near, " or ") + "?"
					case len(names) > 0:
						msg += " (" + strings.Join(names, ", ") + ")"
					default:
						msg += "; give matrix: {" + name + ": [...]}"
					}
					d.add(n, "", "%s", msg)
				}
				used[name] = true
				rest = rest[i+j+1:]
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
		walk(n.Alias)
	}
	walk(root)
	for _, p := range params {
		if p.name != "seed" && !used[p.name] && p.key != nil {
			d.add(p.key, join("matrix", p.name), "the parameter is written nowhere; write ${%s} where its value goes", p.name)
		}
	}
}

// combinations lists every run's values, the last parameter varying
// fastest.
func combinations(params []matrixParam) [][]*yaml.Node {
	out := [][]*yaml.Node{{}}
	for _, p := range params {
		var next [][]*yaml.Node
		for _, prefix := range out {
			for _, v := range p.values {
				next = append(next, append(prefix[:len(prefix):len(prefix)], v))
			}
		}
		out = next
	}
	return out
}

// instantiate copies root with the parameters' values in place of their
// references and the list items whose if: fails left out. An alias
// points at the copy of its anchor, so a document's size is kept.
func (d *decoder) instantiate(root *yaml.Node, params []matrixParam, values []*yaml.Node) *yaml.Node {
	val := map[string]*yaml.Node{}
	for i, p := range params {
		val[p.name] = values[i]
	}
	copies := map[*yaml.Node]*yaml.Node{}
	var cp func(n *yaml.Node) *yaml.Node
	cp = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if c, ok := copies[n]; ok {
			return c
		}
		c := &yaml.Node{}
		*c = *n
		copies[n] = c
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${") {
			if m := paramRef.FindStringSubmatch(n.Value); m != nil && m[0] == n.Value && val[m[1]] != nil {
				v := val[m[1]]
				c.Value, c.Tag, c.Style = v.Value, v.Tag, v.Style
			} else {
				c.Value = paramRef.ReplaceAllStringFunc(n.Value, func(ref string) string {
					if v := val[ref[2:len(ref)-1]]; v != nil {
						return v.Value
					}
					return ref
				})
				c.Tag = "!!str"
			}
		}
		c.Alias = cp(n.Alias)
		c.Content = nil
		for _, x := range n.Content {
			xc := cp(x)
			if n.Kind == yaml.SequenceNode && xc.Kind == yaml.MappingNode {
				keep, ok := d.condition(xc)
				if !ok || !keep {
					continue
				}
			}
			c.Content = append(c.Content, xc)
		}
		return c
	}
	return cp(root)
}

// condition takes a list item's if: out and says whether the item stays;
// ok is false for a condition that is neither true, false nor a
// comparison (an error then says so).
func (d *decoder) condition(item *yaml.Node) (keep, ok bool) {
	for i := 0; i+1 < len(item.Content); i += 2 {
		if item.Content[i].Value != "if" {
			continue
		}
		v := item.Content[i+1]
		item.Content = append(item.Content[:i:i], item.Content[i+2:]...)
		if v.Kind == yaml.ScalarNode {
			switch s := strings.TrimSpace(v.Value); {
			case s == "true":
				return true, true
			case s == "false":
				return false, true
			case strings.Contains(s, "!="):
				a, b, _ := strings.Cut(s, "!=")
				return strings.TrimSpace(a) != strings.TrimSpace(b), true
			case strings.Contains(s, "=="):
				a, b, _ := strings.Cut(s, "==")
				return strings.TrimSpace(a) == strings.TrimSpace(b), true
			}
		}
		d.add(v, "if", "want true, false, or a comparison such as ${corridor} == blocked, got %s", input.Describe(v))
		return false, false
	}
	return true, true
}

// runName is a run's name: the scenario's, with its parameters.
func runName(name string, ps []Param) string {
	if len(ps) == 0 {
		return name
	}
	words := make([]string, len(ps))
	for i, p := range ps {
		words[i] = p.Name + "=" + p.Value
	}
	return name + " [" + strings.Join(words, " ") + "]"
}

// Selector is what --only writes: name=value pairs, comma separated
// (battery=0.12,seed=3); a run matches when it has every one.
type Selector []Param

// ParseSelector reads name=value,name=value.
func ParseSelector(s string) (Selector, error) {
	var out Selector
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || !paramName.MatchString(k) || v == "" {
			return nil, fmt.Errorf("only %q: want name=value pairs separated by commas (battery=0.12,seed=3)", s)
		}
		out = append(out, Param{k, v})
	}
	return out, nil
}

// Match reports whether s's parameters hold every pair of the selector
// (seed matches the run's seed when the matrix did not name it).
func (sel Selector) Match(s *Scenario) bool {
	for _, want := range sel {
		found := false
		for _, p := range s.Params {
			if p.Name == want.Name && p.Value == want.Value {
				found = true
			}
		}
		if !found && !(want.Name == "seed" && want.Value == strconv.FormatUint(s.Seed, 10)) {
			return false
		}
	}
	return true
}

// String writes the selector as --only takes it.
func (sel Selector) String() string {
	words := make([]string, len(sel))
	for i, p := range sel {
		words[i] = p.Name + "=" + p.Value
	}
	return strings.Join(words, ",")
}
