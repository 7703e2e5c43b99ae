package script

import (
	"strconv"
	"strings"
)

// MaxNesting bounds how deeply expressions may nest (parentheses, unary
// operators, assignments and conditionals inside one another).
const MaxNesting = 256

// MaxSourceLen bounds the length of a script, in bytes.
const MaxSourceLen = 64 << 10

// Binding powers of the operators: higher binds tighter. The levels are
// BT.CPP's, which differ from C's in one place worth knowing: bitwise
// operators bind tighter than comparisons, so "x & 1 == 1" is (x & 1) == 1.
const (
	bpAssign     = 2
	bpTernary    = 4
	bpOr         = 6
	bpAnd        = 8
	bpComparison = 10
	bpBitOr      = 12 // | and ^
	bpBitAnd     = 14
	bpAdditive   = 16 // + - ..
	bpMultiply   = 18
	bpPrefix     = 20
)

func leftBP(k tokKind) int {
	switch k {
	case tDefine, tAssign, tAddAssign, tSubAssign, tMulAssign, tDivAssign:
		return bpAssign
	case tQuestion:
		return bpTernary
	case tOrOr:
		return bpOr
	case tAndAnd:
		return bpAnd
	case tEq, tNe, tLt, tGt, tLe, tGe:
		return bpComparison
	case tPipe, tCaret:
		return bpBitOr
	case tAmp:
		return bpBitAnd
	case tPlus, tMinus, tDotDot:
		return bpAdditive
	case tStar, tSlash:
		return bpMultiply
	}
	return -1
}

func isComparison(k tokKind) bool { return k >= tEq && k <= tGe }
func isAssignment(k tokKind) bool { return k >= tDefine && k <= tDivAssign }

// exprKind is the kind of a syntax tree node.
type exprKind uint8

const (
	eLit     exprKind = iota
	eName             // a variable or enum name, maybe dotted
	eUnary            // - ! ~
	eArith            // + - * / ..
	eBitwise          // & | ^
	eLogic            // && ||
	eCompare          // a chain: a < b <= c
	eCond             // c ? a : b
	eAssign           // := = += -= *= /=
)

// expr is a node of the syntax tree.
type expr struct {
	kind exprKind
	op   tokKind
	pos  int // of the operator, or of the name or literal
	lit  val
	name *nameRef
	a, b *expr
	c    *expr // the else branch of a conditional
	// a comparison chain: operands[i] ops[i] operands[i+1]
	operands []*expr
	ops      []tokKind
	opPos    []int
	// effects is true when evaluating the node may write variables.
	effects bool
}

// nameRef is a variable read or written by a script.
type nameRef struct {
	text string // as written: battery.percentage
	root string // the Env variable: battery
	path []pathStep
}

// parser turns tokens into statements, Pratt style.
type parser struct {
	src   string
	toks  []token
	i     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) errAt(pos int, msg string) *Error { return errorAt(p.src, pos, msg, nil) }

// expected reports that something else was expected where the next token is.
func (p *parser) expected(what string) *Error {
	t := p.peek()
	if t.kind == tError {
		return p.errAt(t.pos, t.text)
	}
	return p.errAt(t.pos, "expected "+what+", found "+t.describe())
}

func addName(list []string, name string) []string {
	for _, n := range list {
		if n == name {
			return list
		}
	}
	return append(list, name)
}

// parseProgram reads statements until the end. As in BT.CPP, statements
// are separated by ';' (repeated ';' are fine) but may also simply follow
// one another: "a := 1 b := 2" is two statements.
func (p *parser) parseProgram() ([]*expr, error) {
	var stmts []*expr
	for p.peek().kind != tEOF {
		if p.peek().kind == tSemicolon {
			return nil, p.expected("a statement")
		}
		e, err := p.parseExpr(0, "a statement")
		if err != nil {
			return nil, err
		}
		stmts = append(stmts, e)
		for p.peek().kind == tSemicolon {
			p.next()
		}
	}
	if len(stmts) == 0 {
		return nil, p.errAt(0, "empty script: expected at least one statement")
	}
	return stmts, nil
}

// parseExpr parses an expression whose operators bind at least as tightly
// as minBP. what says what the caller expects, for messages.
func (p *parser) parseExpr(minBP int, what string) (*expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > MaxNesting {
		return nil, p.errAt(p.peek().pos, "expression nested too deeply (more than "+strconv.Itoa(MaxNesting)+" levels)")
	}
	left, err := p.parsePrefix(what)
	if err != nil {
		return nil, err
	}
	for {
		op := p.peek()
		lbp := leftBP(op.kind)
		if lbp < 0 || lbp < minBP {
			return left, nil
		}
		switch {
		case isAssignment(op.kind):
			// Not associative to the left: the right side is a whole
			// expression, and nothing may follow the assignment.
			return p.parseAssignment(left)
		case op.kind == tQuestion:
			return p.parseConditional(left)
		case isComparison(op.kind):
			left, err = p.parseComparison(left)
			if err != nil {
				return nil, err
			}
		default:
			p.next()
			right, err := p.parseExpr(lbp+1, "an expression after '"+op.kind.String()+"'")
			if err != nil {
				return nil, err
			}
			left = p.binary(op, left, right)
		}
	}
}

func (p *parser) binary(op token, l, r *expr) *expr {
	e := &expr{op: op.kind, pos: op.pos, a: l, b: r, effects: l.effects || r.effects}
	switch op.kind {
	case tAmp, tPipe, tCaret:
		e.kind = eBitwise
	case tAndAnd, tOrOr:
		e.kind = eLogic
	default:
		e.kind = eArith
	}
	return e
}

func (p *parser) parsePrefix(what string) (*expr, error) {
	t := p.peek()
	switch t.kind {
	case tMinus, tTilde, tBang:
		p.next()
		x, err := p.parseExpr(bpPrefix, "an expression after '"+t.kind.String()+"'")
		if err != nil {
			return nil, err
		}
		return &expr{kind: eUnary, op: t.kind, pos: t.pos, a: x, effects: x.effects}, nil
	case tLParen:
		p.next()
		x, err := p.parseExpr(0, "an expression after '('")
		if err != nil {
			return nil, err
		}
		if p.peek().kind != tRParen {
			open := errorAt(p.src, t.pos, "", nil)
			return nil, p.expected("')' to close the '(' at " + strconv.Itoa(open.Line) + ":" + strconv.Itoa(open.Column))
		}
		p.next()
		return x, nil
	case tTrue, tFalse:
		p.next()
		// A computed boolean, not an Env one: see val.toString.
		return &expr{kind: eLit, pos: t.pos, lit: boolVal(t.kind == tTrue)}, nil
	case tInt:
		p.next()
		return &expr{kind: eLit, pos: t.pos, lit: val{k: kInt, n: uint64(t.ival), x: int(t.ival)}}, nil
	case tReal:
		p.next()
		return &expr{kind: eLit, pos: t.pos, lit: val{k: kReal, n: realVal(t.fval).n, x: t.fval}}, nil
	case tString:
		p.next()
		return &expr{kind: eLit, pos: t.pos, lit: val{k: kString, x: t.text}}, nil
	case tName:
		p.next()
		ref := &nameRef{text: t.text, root: t.root}
		for _, seg := range t.path {
			ref.path = append(ref.path, newPathStep(seg))
		}
		return &expr{kind: eName, pos: t.pos, name: ref}, nil
	}
	return nil, p.expected(what)
}

func (p *parser) parseAssignment(target *expr) (*expr, error) {
	op := p.next()
	if target.kind != eName {
		return nil, p.errAt(target.pos, "cannot assign to an expression: the left side of '"+op.kind.String()+"' must be a variable name")
	}
	if len(target.name.path) > 0 {
		return nil, p.errAt(target.pos, "cannot assign to "+target.name.text+": dotted names are read-only; assign the whole variable '"+target.name.root+"' instead")
	}
	rhs, err := p.parseExpr(0, "an expression after '"+op.kind.String()+"'")
	if err != nil {
		return nil, err
	}
	return &expr{kind: eAssign, op: op.kind, pos: target.pos, name: target.name, a: rhs, effects: true}, nil
}

// collectNames lists the variables e reads and writes, in source order.
func collectNames(e *expr, reads, writes *[]string) {
	if e == nil {
		return
	}
	switch e.kind {
	case eName:
		*reads = addName(*reads, e.name.root)
	case eAssign:
		if e.op != tDefine && e.op != tAssign {
			*reads = addName(*reads, e.name.root)
		}
		collectNames(e.a, reads, writes)
		*writes = addName(*writes, e.name.root)
		return
	}
	for _, o := range e.operands {
		collectNames(o, reads, writes)
	}
	collectNames(e.a, reads, writes)
	collectNames(e.b, reads, writes)
	collectNames(e.c, reads, writes)
}

func (p *parser) parseConditional(cond *expr) (*expr, error) {
	q := p.next()
	then, err := p.parseExpr(0, "an expression after '?'")
	if err != nil {
		return nil, err
	}
	if p.peek().kind != tColon {
		return nil, p.expected("':' after the first branch of '?'")
	}
	p.next()
	els, err := p.parseExpr(bpTernary, "an expression after ':'")
	if err != nil {
		return nil, err
	}
	return &expr{kind: eCond, pos: q.pos, a: cond, b: then, c: els,
		effects: cond.effects || then.effects || els.effects}, nil
}

// parseComparison reads a chain a < b <= c, which means a < b && b <= c with
// each operand evaluated once, as in BT.CPP (and Python).
func (p *parser) parseComparison(first *expr) (*expr, error) {
	e := &expr{kind: eCompare, pos: p.peek().pos, operands: []*expr{first}, effects: first.effects}
	for isComparison(p.peek().kind) {
		op := p.next()
		x, err := p.parseExpr(bpComparison+1, "an expression after '"+op.kind.String()+"'")
		if err != nil {
			return nil, err
		}
		e.ops = append(e.ops, op.kind)
		e.opPos = append(e.opPos, op.pos)
		e.operands = append(e.operands, x)
		e.effects = e.effects || x.effects
	}
	return e, nil
}

// Parse compiles a script once; the Program it returns may then be
// evaluated any number of times, from any number of goroutines. Errors are
// *Error values placing the problem in src and saying what was expected.
func Parse(src string) (*Program, error) {
	if len(src) > MaxSourceLen {
		return nil, &Error{Line: 1, Column: 1,
			Msg: "script too long: " + strconv.Itoa(len(src)) + " bytes, the limit is " + strconv.Itoa(MaxSourceLen)}
	}
	p := &parser{src: src, toks: lex(src)}
	stmts, err := p.parseProgram()
	if err != nil {
		return nil, err
	}
	c := compiler{src: src}
	prog := &Program{src: src, stmts: make([]evalFn, len(stmts))}
	for i, s := range stmts {
		collectNames(s, &prog.reads, &prog.writes)
		collectRefs(s, &prog.refs)
		collectStringAssignments(src, s, &prog.strs)
		// Only the last statement's value is the program's value.
		prog.stmts[i] = c.compile(s, i == len(stmts)-1)
	}
	return prog, nil
}

// Program is a compiled script.
type Program struct {
	src    string
	stmts  []evalFn
	reads  []string
	writes []string
	refs   []*nameRef // the names read, as written (ReadValues)
	strs   []StringAssignment
}

// StringAssignment is a variable a script sets to a string literal
// (goal := 'charge', or either branch of goal = c ? 'charge' : 'deliver'),
// at Line and Column of the literal in the script.
type StringAssignment struct {
	Name, Value  string
	Line, Column int
}

// StringAssignments returns the string literals the script assigns to
// plain variables (not fields), in order: what a checker can compare with
// the values a variable may take.
func (p *Program) StringAssignments() []StringAssignment {
	return append([]StringAssignment(nil), p.strs...)
}

func collectStringAssignments(src string, e *expr, out *[]StringAssignment) {
	if e == nil {
		return
	}
	if e.kind == eAssign && (e.op == tDefine || e.op == tAssign) && e.name != nil && len(e.name.path) == 0 {
		var lits func(x *expr)
		lits = func(x *expr) {
			switch {
			case x == nil:
			case x.kind == eLit && x.lit.k == kString:
				pos := errorAt(src, x.pos, "", nil)
				*out = append(*out, StringAssignment{Name: e.name.root, Value: x.lit.x.(string), Line: pos.Line, Column: pos.Column})
			case x.kind == eCond:
				lits(x.b)
				lits(x.c)
			}
		}
		lits(e.a)
	}
	collectStringAssignments(src, e.a, out)
	collectStringAssignments(src, e.b, out)
	collectStringAssignments(src, e.c, out)
	for _, o := range e.operands {
		collectStringAssignments(src, o, out)
	}
}

// Source returns the script text the Program was parsed from.
func (p *Program) Source() string { return p.src }

// Reads returns the variables whose values the script reads, in order of
// first appearance: the root of a dotted name (battery for
// battery.percentage), the target of a compound assignment (x in x += 1).
// A name that turns out to be a registered enum is listed too, since that
// is only known when the script runs.
func (p *Program) Reads() []string { return append([]string(nil), p.reads...) }

// Writes returns the variables the script may assign, in order of first
// appearance.
func (p *Program) Writes() []string { return append([]string(nil), p.writes...) }

// String returns the source, trimmed, for logs.
func (p *Program) String() string { return strings.TrimSpace(p.src) }
