package script

import (
	"errors"
	"fmt"
	"math"
)

// Env is where a script reads and writes variables: the engine's
// blackboard, or a MapEnv in tests.
type Env interface {
	// Lookup returns the current value of a variable (name without braces;
	// it may start with '@' for the root blackboard). ok is false when the
	// variable does not exist; a variable that exists without a value yet
	// returns (nil, true).
	Lookup(name string) (v Value, ok bool)
	// Assign writes a variable. create is true for ':=' (create the
	// variable, or overwrite it if it exists) and false for '=' and the
	// compound forms, where the variable must exist: Assign returns an error
	// wrapping ErrUnknownVariable otherwise. Assign enforces the variable's
	// type (Convert implements BT.CPP's rules for that) and returns an error
	// when v does not fit; Eval reports it with the statement's position.
	Assign(name string, v Value, create bool) error
	// Enum resolves a registered enum name. Implementations without enums
	// return false.
	Enum(name string) (int, bool)
}

// evalFn evaluates one compiled expression.
type evalFn func(env Env) (val, error)

// Eval runs the script against env and returns the value of its last
// statement (for an assignment, the value as stored). The first error stops
// the script; variables it assigned before stay assigned, as in BT.CPP.
// Errors are *Error values with the position of the failing operation.
func (p *Program) Eval(env Env) (Value, error) {
	if p == nil || len(p.stmts) == 0 {
		return nil, &Error{Line: 1, Column: 1, Msg: "no program to run"}
	}
	if env == nil {
		return nil, &Error{Line: 1, Column: 1, Msg: "no environment to run the script in"}
	}
	var last val
	for _, s := range p.stmts {
		v, err := s(env)
		if err != nil {
			return nil, err
		}
		last = v
	}
	return last.box(), nil
}

// compiler turns syntax trees into closures.
type compiler struct {
	src string
}

func (c *compiler) fail(pos int, msg string) error { return errorAt(c.src, pos, msg, nil) }

func (c *compiler) failf(pos int, format string, args ...any) error {
	return errorAt(c.src, pos, fmt.Sprintf(format, args...), nil)
}

// compile compiles e. used says whether its value is needed: the value of
// an assignment that is not is never read back from the Env.
func (c *compiler) compile(e *expr, used bool) evalFn {
	switch e.kind {
	case eLit:
		lit := e.lit
		return func(Env) (val, error) { return lit, nil }
	case eName:
		if len(e.name.path) > 0 {
			return c.compileField(e)
		}
		return c.compileName(e)
	case eUnary:
		return c.compileUnary(e)
	case eArith:
		return c.compileArith(e)
	case eBitwise:
		return c.compileBitwise(e)
	case eLogic:
		return c.compileLogic(e)
	case eCompare:
		return c.compileCompare(e)
	case eCond:
		return c.compileCond(e, used)
	case eAssign:
		return c.compileAssign(e, used)
	}
	pos := e.pos // unreachable: the parser makes no other kind
	return func(Env) (val, error) { return val{}, c.fail(pos, "internal error: unknown expression") }
}

func (c *compiler) unknownVariable(pos int, name string) error {
	return errorAt(c.src, pos, "", fmt.Errorf("%w '%s' (use := to create it)", ErrUnknownVariable, name))
}

func (c *compiler) compileName(e *expr) evalFn {
	o := c.operand(e)
	return func(env Env) (val, error) { return c.get(o, env) }
}

// operand is a compiled sub-expression. Literals and plain names are read
// directly rather than through a closure, since most conditions compare a
// variable with a constant.
type operand struct {
	how  operandKind
	lit  val
	name string
	pos  int
	fn   evalFn
}

type operandKind uint8

const (
	operandExpr operandKind = iota
	operandLit
	operandName
)

func (c *compiler) operand(e *expr) *operand {
	switch {
	case e.kind == eLit:
		return &operand{how: operandLit, lit: e.lit}
	case e.kind == eName && len(e.name.path) == 0:
		return &operand{how: operandName, name: e.name.root, pos: e.pos}
	}
	return &operand{fn: c.compile(e, true)}
}

func (c *compiler) get(o *operand, env Env) (val, error) {
	switch o.how {
	case operandLit:
		return o.lit, nil
	case operandName:
		// Enums come first, as in BT.CPP: a variable cannot shadow one.
		if n, ok := env.Enum(o.name); ok {
			return realVal(float64(n)), nil
		}
		v, ok := env.Lookup(o.name)
		if !ok {
			return val{}, c.unknownVariable(o.pos, o.name)
		}
		return fromValue(v), nil
	}
	return o.fn(env)
}

func (c *compiler) compileField(e *expr) evalFn {
	ref, pos := e.name, e.pos
	return func(env Env) (val, error) {
		v, ok := env.Lookup(ref.root)
		if !ok {
			return val{}, c.unknownVariable(pos, ref.root)
		}
		got, err := readPath(ref, v)
		if err != nil {
			return val{}, errorAt(c.src, pos, "", err)
		}
		return got, nil
	}
}

// notInit is BT.CPP's error for an operand without a value: a variable that
// exists but was never written.
// operands evaluates both sides of a binary operator — always both, as
// BT.CPP does — and rejects a side that has no value.
func (c *compiler) operands(l, r *operand, env Env, op tokKind, pos int) (a, b val, err error) {
	if a, err = c.get(l, env); err != nil {
		return val{}, val{}, err
	}
	if b, err = c.get(r, env); err != nil {
		return val{}, val{}, err
	}
	if a.k == kNil {
		return val{}, val{}, c.notInit(pos, "left", op)
	}
	if b.k == kNil {
		return val{}, val{}, c.notInit(pos, "right", op)
	}
	return a, b, nil
}

// reals returns two numbers as reals, or the error BT.CPP gives for an
// integer a real cannot hold exactly.
func (c *compiler) reals(a, b val, pos int) (x, y float64, err error) {
	var ok bool
	if x, ok = a.toReal(); !ok {
		return 0, 0, c.fail(pos, a.realError())
	}
	if y, ok = b.toReal(); !ok {
		return 0, 0, c.fail(pos, b.realError())
	}
	return x, y, nil
}

func (c *compiler) notInit(pos int, side string, op tokKind) error {
	return c.failf(pos, "the %s operand of '%s' has no value (a variable that was never written?)", side, op)
}

func (c *compiler) compileUnary(e *expr) evalFn {
	x := c.operand(e.a)
	op, pos := e.op, e.pos
	return func(env Env) (val, error) {
		v, err := c.get(x, env)
		if err != nil {
			return val{}, err
		}
		if !v.isNumber() {
			if v.k == kNil {
				return val{}, c.failf(pos, "the operand of '%s' has no value (a variable that was never written?)", op)
			}
			return val{}, c.failf(pos, "cannot apply '%s' to %s: it needs a number", op, v.describe())
		}
		f, ok := v.toReal()
		if !ok {
			return val{}, c.fail(pos, v.realError())
		}
		switch op {
		case tMinus:
			return realVal(-f), nil
		case tBang:
			return boolVal(f == 0), nil
		default: // tTilde
			if math.IsNaN(f) || f >= 1<<63 || f < -(1<<63) {
				return val{}, c.failf(pos, "cannot apply '~' to %s: out of the integer range", v.describe())
			}
			// Like BT.CPP, the fraction of a real is dropped: ~2.5 is -3.
			return realVal(float64(^int64(f))), nil
		}
	}
}

var arithVerb = map[tokKind]string{tPlus: "add", tMinus: "subtract", tStar: "multiply", tSlash: "divide", tDotDot: "concatenate"}

func (c *compiler) compileArith(e *expr) evalFn {
	l, r := c.operand(e.a), c.operand(e.b)
	op, pos := e.op, e.pos
	return func(env Env) (val, error) {
		a, b, err := c.operands(l, r, env, op, pos)
		if err != nil {
			return val{}, err
		}
		if a.isNumber() && b.isNumber() {
			if op == tDotDot {
				return val{}, c.failf(pos, "cannot concatenate %s and %s: '..' needs a string on at least one side", a.describe(), b.describe())
			}
			x, y, err := c.reals(a, b, pos)
			if err != nil {
				return val{}, err
			}
			// All arithmetic is real arithmetic, as in BT.CPP: 5/2 is 2.5
			// and 1/0 is +Inf. Storing the result into an integer variable
			// turns it back into an integer when it has no fraction.
			switch op {
			case tPlus:
				return realVal(x + y), nil
			case tMinus:
				return realVal(x - y), nil
			case tStar:
				return realVal(x * y), nil
			default:
				return realVal(x / y), nil
			}
		}
		if a.k == kString && b.k == kString && (op == tPlus || op == tDotDot) {
			return c.join(pos, a.str(), b.str())
		}
		if op == tDotDot && (a.k == kString && b.isNumber() || a.isNumber() && b.k == kString) {
			return c.join(pos, a.toString(), b.toString())
		}
		return val{}, c.failf(pos, "cannot %s %s and %s", arithVerb[op], a.describe(), b.describe())
	}
}

// join joins two strings, refusing a result longer than MaxStringLen
// before it is made.
func (c *compiler) join(pos int, a, b string) (val, error) {
	if n := len(a) + len(b); n > MaxStringLen {
		return val{}, c.failf(pos, "the joined string would be %d bytes, more than the %d (1 MiB) a script may make", n, MaxStringLen)
	}
	return strVal(a + b), nil
}

// toInt64 converts a number to an integer for the bitwise operators, which
// accept reals only when they have no fraction.
func toInt64(v val) (int64, bool) {
	switch v.k {
	case kBool, kInt:
		return int64(v.n), true
	case kReal:
		f := v.real()
		if f != math.Trunc(f) || f >= 1<<63 || f < -(1<<63) {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

func (c *compiler) compileBitwise(e *expr) evalFn {
	l, r := c.operand(e.a), c.operand(e.b)
	op, pos := e.op, e.pos
	return func(env Env) (val, error) {
		a, b, err := c.operands(l, r, env, op, pos)
		if err != nil {
			return val{}, err
		}
		if !a.isNumber() || !b.isNumber() {
			return val{}, c.failf(pos, "cannot apply '%s' to %s and %s: it needs integers", op, a.describe(), b.describe())
		}
		// BT.CPP converts to real first, so huge integers fail here too.
		if _, _, err := c.reals(a, b, pos); err != nil {
			return val{}, err
		}
		x, okx := toInt64(a)
		y, oky := toInt64(b)
		if !okx || !oky {
			return val{}, c.failf(pos, "cannot apply '%s' to %s and %s: it needs integers", op, a.describe(), b.describe())
		}
		switch op {
		case tAmp:
			return realVal(float64(x & y)), nil
		case tPipe:
			return realVal(float64(x | y)), nil
		default:
			return realVal(float64(x ^ y)), nil
		}
	}
}

func (c *compiler) compileLogic(e *expr) evalFn {
	l, r := c.operand(e.a), c.operand(e.b)
	op, pos := e.op, e.pos
	return func(env Env) (val, error) {
		// Both sides are always evaluated, as in BT.CPP: no short circuit.
		a, b, err := c.operands(l, r, env, op, pos)
		if err != nil {
			return val{}, err
		}
		if !a.isNumber() || !b.isNumber() {
			return val{}, c.failf(pos, "cannot apply '%s' to %s and %s: it needs booleans or numbers", op, a.describe(), b.describe())
		}
		if _, _, err := c.reals(a, b, pos); err != nil {
			return val{}, err
		}
		x, err := truthy(a)
		if err != nil {
			return val{}, c.failf(pos, "left operand of '%s': %v", op, err)
		}
		y, err := truthy(b)
		if err != nil {
			return val{}, c.failf(pos, "right operand of '%s': %v", op, err)
		}
		if op == tAndAnd {
			return boolVal(x && y), nil
		}
		return boolVal(x || y), nil
	}
}

// floatEpsilon is the tolerance of '==' and '!=' between numbers: BT.CPP
// compares reals with an absolute tolerance of float's epsilon (2^-23).
const floatEpsilon = 1.0 / (1 << 23)

// compareReal follows BT.CPP to the letter: each test is written as the
// negation of its opposite, so any ordering involving NaN is true, and
// equality is within floatEpsilon (so +Inf != +Inf).
func compareReal(op tokKind, x, y float64) bool {
	switch op {
	case tEq:
		return math.Abs(x-y) <= floatEpsilon
	case tNe:
		return !(math.Abs(x-y) <= floatEpsilon)
	case tLt:
		return !(x >= y)
	case tGt:
		return !(x <= y)
	case tLe:
		return !(x > y)
	default: // tGe
		return !(x < y)
	}
}

func compareString(op tokKind, x, y string) bool {
	switch op {
	case tEq:
		return x == y
	case tNe:
		return x != y
	case tLt:
		return x < y
	case tGt:
		return x > y
	case tLe:
		return x <= y
	default: // tGe
		return x >= y
	}
}

// stringToReal converts a string compared with a number, as BT.CPP does:
// "true" and "false" are 1 and 0, a registered enum name is its value, and
// otherwise the number at the start of the string counts ("3abc" is 3).
func stringToReal(s string, env Env) (float64, bool) {
	switch s {
	case "true":
		return 1, true
	case "false":
		return 0, true
	}
	if n, ok := env.Enum(s); ok {
		return float64(n), true
	}
	return parseRealPrefix(s)
}

func (c *compiler) compare(env Env, op tokKind, pos int, a, b val) (bool, error) {
	if a.k == kNil {
		return false, c.notInit(pos, "left", op)
	}
	if b.k == kNil {
		return false, c.notInit(pos, "right", op)
	}
	switch {
	case a.isNumber() && b.isNumber():
		x, y, err := c.reals(a, b, pos)
		if err != nil {
			return false, err
		}
		return compareReal(op, x, y), nil
	case a.k == kString && b.k == kString:
		return compareString(op, a.str(), b.str()), nil
	case a.k == kString && b.isNumber():
		x, ok := stringToReal(a.str(), env)
		if !ok {
			return false, c.failf(pos, "cannot compare %s with %s: the string is not a number", a.describe(), b.describe())
		}
		y, ok := b.toReal()
		if !ok {
			return false, c.fail(pos, b.realError())
		}
		return compareReal(op, x, y), nil
	case a.isNumber() && b.k == kString:
		x, ok := a.toReal()
		if !ok {
			return false, c.fail(pos, a.realError())
		}
		y, ok := stringToReal(b.str(), env)
		if !ok {
			return false, c.failf(pos, "cannot compare %s with %s: the string is not a number", a.describe(), b.describe())
		}
		return compareReal(op, x, y), nil
	}
	return false, c.failf(pos, "cannot compare %s with %s using '%s'", a.describe(), b.describe(), op)
}

func (c *compiler) compileCompare(e *expr) evalFn {
	operands := make([]*operand, len(e.operands))
	for i, o := range e.operands {
		operands[i] = c.operand(o)
	}
	ops, opPos := e.ops, e.opPos
	if len(ops) == 1 {
		l, r, op, pos := operands[0], operands[1], ops[0], opPos[0]
		return func(env Env) (val, error) {
			a, err := c.get(l, env)
			if err != nil {
				return val{}, err
			}
			b, err := c.get(r, env)
			if err != nil {
				return val{}, err
			}
			ok, err := c.compare(env, op, pos, a, b)
			return boolVal(ok), err
		}
	}
	return func(env Env) (val, error) {
		a, err := c.get(operands[0], env)
		if err != nil {
			return val{}, err
		}
		for i, op := range ops {
			// Later operands are evaluated only while the chain holds.
			b, err := c.get(operands[i+1], env)
			if err != nil {
				return val{}, err
			}
			ok, err := c.compare(env, op, opPos[i], a, b)
			if err != nil || !ok {
				return boolVal(false), err
			}
			a = b
		}
		return boolVal(true), nil
	}
}

// condition decides a '?': BT.CPP tests a number against zero (so any
// negative number or NaN is true) and reads a string as a number.
func condition(v val) (bool, error) {
	switch {
	case v.isNumber():
		f, ok := v.toReal()
		if !ok {
			return false, errors.New(v.realError())
		}
		return f != 0, nil
	case v.k == kString:
		f, ok := parseRealPrefix(v.str())
		if !ok {
			return false, fmt.Errorf("the condition of '?' is %s, which is not a number", v.describe())
		}
		return f != 0, nil
	case v.k == kNil:
		return false, errors.New("the condition of '?' has no value (a variable that was never written?)")
	}
	return false, fmt.Errorf("the condition of '?' is %s, which is not a number", v.describe())
}

func (c *compiler) compileCond(e *expr, used bool) evalFn {
	cond, then, els := c.operand(e.a), c.compile(e.b, used), c.compile(e.c, used)
	pos := e.pos
	return func(env Env) (val, error) {
		v, err := c.get(cond, env)
		if err != nil {
			return val{}, err
		}
		ok, err := condition(v)
		if err != nil {
			return val{}, c.fail(pos, err.Error())
		}
		if ok {
			return then(env)
		}
		return els(env)
	}
}

func (c *compiler) compileAssign(e *expr, used bool) evalFn {
	rhs := c.operand(e.a)
	name, op, pos := e.name.root, e.op, e.pos
	create := op == tDefine
	// BT.CPP checks that the target of '=' exists before evaluating the
	// right side; that matters only when the right side writes variables.
	precheck := !create && e.a.effects
	return func(env Env) (val, error) {
		if precheck {
			if _, ok := env.Lookup(name); !ok {
				return val{}, c.unknownVariable(pos, name)
			}
		}
		r, err := c.get(rhs, env)
		if err != nil {
			return val{}, err
		}
		if r.k == kNil {
			return val{}, c.failf(pos, "the right operand of '%s' has no value (a variable that was never written?)", op)
		}
		var v Value
		if op == tDefine || op == tAssign {
			v = r.box()
		} else if v, err = c.compound(env, op, pos, name, r); err != nil {
			return val{}, err
		}
		if err := env.Assign(name, v, create); err != nil {
			if errors.Is(err, ErrUnknownVariable) {
				return val{}, errorAt(c.src, pos, "", err)
			}
			return val{}, errorAt(c.src, pos, "cannot assign to '"+name+"'", err)
		}
		if !used {
			return val{}, nil
		}
		// The value of an assignment is the value as stored, which the
		// Env may have converted (2.0 into an integer variable is 2).
		if stored, ok := env.Lookup(name); ok {
			return fromValue(stored), nil
		}
		return fromValue(v), nil
	}
}

// compound computes the new value of x for x += r, x -= r, x *= r, x /= r.
func (c *compiler) compound(env Env, op tokKind, pos int, name string, r val) (Value, error) {
	cur, ok := env.Lookup(name)
	if !ok {
		return nil, c.unknownVariable(pos, name)
	}
	x := fromValue(cur)
	if x.k == kNil {
		return nil, c.failf(pos, "cannot apply '%s' to '%s': it has no value yet", op, name)
	}
	switch {
	case r.isNumber():
		if !x.isNumber() {
			return nil, c.failf(pos, "cannot apply '%s' to '%s' (%s) and %s: it needs numbers, or strings with '+='", op, name, x.describe(), r.describe())
		}
		a, ok := x.toReal()
		if !ok {
			return nil, c.fail(pos, x.realError())
		}
		b, ok := r.toReal()
		if !ok {
			return nil, c.fail(pos, r.realError())
		}
		switch op {
		case tAddAssign:
			return a + b, nil
		case tSubAssign:
			return a - b, nil
		case tMulAssign:
			return a * b, nil
		default:
			return a / b, nil
		}
	case r.k == kString:
		if op != tAddAssign {
			return nil, c.failf(pos, "cannot apply '%s' to %s: only '+=' works on strings", op, r.describe())
		}
		if x.k != kString {
			return nil, c.failf(pos, "cannot apply '+=' to '%s' (%s) and %s: it needs numbers, or strings with '+='", name, x.describe(), r.describe())
		}
		v, err := c.join(pos, x.str(), r.str())
		if err != nil {
			return nil, err
		}
		return v.str(), nil
	}
	return nil, c.failf(pos, "cannot apply '%s' to '%s' (%s) and %s", op, name, x.describe(), r.describe())
}
