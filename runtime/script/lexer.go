package script

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// tokKind is the kind of a lexical token.
type tokKind uint8

const (
	tEOF tokKind = iota
	tError
	tInt
	tReal
	tString
	tTrue
	tFalse
	tName
	// arithmetic
	tPlus
	tMinus
	tStar
	tSlash
	tDotDot
	// bitwise
	tAmp
	tPipe
	tCaret
	tTilde
	// logical
	tAndAnd
	tOrOr
	tBang
	// comparison
	tEq
	tNe
	tLt
	tGt
	tLe
	tGe
	// assignment
	tDefine
	tAssign
	tAddAssign
	tSubAssign
	tMulAssign
	tDivAssign
	// other punctuation
	tQuestion
	tColon
	tLParen
	tRParen
	tSemicolon
)

// opText is how each operator is written, for messages.
var opText = [...]string{
	tPlus: "+", tMinus: "-", tStar: "*", tSlash: "/", tDotDot: "..",
	tAmp: "&", tPipe: "|", tCaret: "^", tTilde: "~",
	tAndAnd: "&&", tOrOr: "||", tBang: "!",
	tEq: "==", tNe: "!=", tLt: "<", tGt: ">", tLe: "<=", tGe: ">=",
	tDefine: ":=", tAssign: "=", tAddAssign: "+=", tSubAssign: "-=", tMulAssign: "*=", tDivAssign: "/=",
	tQuestion: "?", tColon: ":", tLParen: "(", tRParen: ")", tSemicolon: ";",
}

func (k tokKind) String() string {
	if int(k) < len(opText) && opText[k] != "" {
		return opText[k]
	}
	return "?"
}

// token is one lexical token. text is the source text, except for strings
// (the content between the quotes) and errors (the message).
type token struct {
	kind tokKind
	pos  int
	text string
	ival int64
	fval float64
	// root and path split a dotted name: battery.percentage has root
	// "battery" and path ["percentage"].
	root string
	path []string
}

// describe names the token the way a message shows what was found.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of script"
	case tInt, tReal:
		return "number " + t.text
	case tString:
		return "string " + quote(t.text)
	case tTrue, tFalse:
		return "'" + t.text + "'"
	case tName:
		return "name '" + t.text + "'"
	default:
		return "'" + t.kind.String() + "'"
	}
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '@'
}

func isIdentChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= '0' && c <= '9'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// lex splits src into tokens. Malformed input becomes a tError token whose
// text is the message; the parser reports it when it reaches it, so the
// first problem in reading order is the one reported.
func lex(src string) []token {
	toks := make([]token, 0, len(src)/3+1)
	i := 0
	for i < len(src) {
		c := src[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		start := i
		switch {
		case c == '\'':
			end := i + 1
			for end < len(src) && src[end] != '\'' {
				end++
			}
			if end >= len(src) {
				toks = append(toks, token{kind: tError, pos: start, text: "unterminated string: missing the closing '"})
				i = len(src)
				continue
			}
			toks = append(toks, token{kind: tString, pos: start, text: src[start+1 : end]})
			i = end + 1
		case isDigit(c):
			var t token
			t, i = lexNumber(src, i)
			toks = append(toks, t)
		case isIdentStart(c):
			var t token
			t, i = lexName(src, i)
			toks = append(toks, t)
		default:
			if i+1 < len(src) {
				if k := twoCharOp(c, src[i+1]); k != tEOF {
					toks = append(toks, token{kind: k, pos: start, text: src[i : i+2]})
					i += 2
					continue
				}
			}
			if k := oneCharOp(c); k != tEOF {
				toks = append(toks, token{kind: k, pos: start, text: src[i : i+1]})
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(src[i:])
			msg := "unexpected character " + strconv.QuoteRune(r)
			if c == '.' {
				msg = "unexpected '.': a field name must follow the dot directly (battery.percentage), and '..' joins strings"
			} else if c == '"' {
				msg = "unexpected '\"': strings are written in single quotes ('text')"
			}
			toks = append(toks, token{kind: tError, pos: start, text: msg})
			i += size
		}
	}
	return append(toks, token{kind: tEOF, pos: len(src)})
}

func twoCharOp(c, next byte) tokKind {
	switch {
	case c == '.' && next == '.':
		return tDotDot
	case c == '&' && next == '&':
		return tAndAnd
	case c == '|' && next == '|':
		return tOrOr
	case c == '=' && next == '=':
		return tEq
	case c == '!' && next == '=':
		return tNe
	case c == '<' && next == '=':
		return tLe
	case c == '>' && next == '=':
		return tGe
	case c == ':' && next == '=':
		return tDefine
	case c == '+' && next == '=':
		return tAddAssign
	case c == '-' && next == '=':
		return tSubAssign
	case c == '*' && next == '=':
		return tMulAssign
	case c == '/' && next == '=':
		return tDivAssign
	}
	return tEOF
}

func oneCharOp(c byte) tokKind {
	switch c {
	case '+':
		return tPlus
	case '-':
		return tMinus
	case '*':
		return tStar
	case '/':
		return tSlash
	case '&':
		return tAmp
	case '|':
		return tPipe
	case '^':
		return tCaret
	case '~':
		return tTilde
	case '!':
		return tBang
	case '<':
		return tLt
	case '>':
		return tGt
	case '=':
		return tAssign
	case '?':
		return tQuestion
	case ':':
		return tColon
	case '(':
		return tLParen
	case ')':
		return tRParen
	case ';':
		return tSemicolon
	}
	return tEOF
}

// lexNumber reads an integer (decimal or 0x hex) or a real literal starting
// at i, following BT.CPP's rules: "65..66" is 65 .. 66, while "65.", "3foo",
// "0x1G", "3e" and "3e+" are malformed.
func lexNumber(src string, i int) (token, int) {
	start := i
	bad := func(end int, why string) (token, int) {
		// Swallow the rest of the malformed word so that one mistake gives
		// one message.
		for end < len(src) && (isIdentChar(src[end]) || src[end] == '.') {
			end++
		}
		return token{kind: tError, pos: start, text: "malformed number '" + src[start:end] + "': " + why}, end
	}
	if src[i] == '0' && i+1 < len(src) && (src[i+1] == 'x' || src[i+1] == 'X') {
		i += 2
		digits := i
		for i < len(src) && isHexDigit(src[i]) {
			i++
		}
		if i == digits {
			return bad(i, "expected hex digits after 0x")
		}
		if i < len(src) && (src[i] == '.' || isIdentChar(src[i])) {
			return bad(i, "hex numbers are integers made of 0-9 and a-f")
		}
		u, err := strconv.ParseUint(src[digits:i], 16, 64)
		if err != nil || u > math.MaxInt64 {
			return token{kind: tError, pos: start, text: "number " + src[start:i] + " is out of range (the largest integer is 0x7FFFFFFFFFFFFFFF)"}, i
		}
		return token{kind: tInt, pos: start, text: src[start:i], ival: int64(u)}, i
	}
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	real := false
	if i < len(src) && src[i] == '.' {
		switch {
		case i+1 < len(src) && src[i+1] == '.':
			// "65..": an integer followed by the concatenation operator.
		case i+1 < len(src) && isDigit(src[i+1]):
			real = true
			i++
			for i < len(src) && isDigit(src[i]) {
				i++
			}
		default:
			return bad(i+1, "expected digits after the decimal point")
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		real = true
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || !isDigit(src[i]) {
			return bad(i, "expected digits in the exponent")
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && isIdentStart(src[i]) {
		return bad(i, "a number cannot run into a name")
	}
	text := src[start:i]
	if real {
		f, ok := parseRealExact(text)
		if !ok {
			return token{kind: tError, pos: start, text: "number " + text + " is out of range for a real"}, i
		}
		return token{kind: tReal, pos: start, text: text, fval: f}, i
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return token{kind: tError, pos: start, text: "number " + text + " is out of range (the largest integer is 9223372036854775807)"}, i
	}
	return token{kind: tInt, pos: start, text: text, ival: n}, i
}

// lexName reads a variable name, a keyword (true, false) or a dotted name
// (battery.percentage, goal.pose.position.x, scan.ranges.0).
func lexName(src string, i int) (token, int) {
	start := i
	i++ // the first character may be '@', which is not an identifier character
	for i < len(src) && isIdentChar(src[i]) {
		i++
	}
	root := src[start:i]
	var path []string
	for i+1 < len(src) && src[i] == '.' && (isIdentStart(src[i+1]) && src[i+1] != '@' || isDigit(src[i+1])) {
		segStart := i + 1
		i = segStart
		if isDigit(src[i]) {
			for i < len(src) && isDigit(src[i]) {
				i++
			}
			if i < len(src) && isIdentChar(src[i]) {
				for i < len(src) && isIdentChar(src[i]) {
					i++
				}
				return token{kind: tError, pos: start, text: "malformed name '" + src[start:i] + "': a part after a dot is a field name or an index (0, 1, ...)"}, i
			}
		} else {
			for i < len(src) && isIdentChar(src[i]) {
				i++
			}
		}
		path = append(path, src[segStart:i])
	}
	text := src[start:i]
	if path == nil {
		switch text {
		case "true":
			return token{kind: tTrue, pos: start, text: text}, i
		case "false":
			return token{kind: tFalse, pos: start, text: text}, i
		}
	} else if root == "true" || root == "false" {
		return token{kind: tError, pos: start, text: "'" + root + "' is a constant and has no fields"}, i
	}
	return token{kind: tName, pos: start, text: text, root: root, path: path}, i
}
