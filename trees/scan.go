package trees

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// scanner tokenizes the subset of XML 1.0 that tree files use: elements,
// attributes, character data, CDATA sections, comments and processing
// instructions. It checks well-formedness (names, quoting, matching end
// tags, one root element, characters XML allows) and refuses DTDs, so
// entity definitions — and with them entity-expansion bombs — never get in.
//
// It works on the file as one string and hands out substrings of it, so a
// large tree costs no allocation per name or value. encoding/xml is not used:
// it is several times slower on large trees and gives no attribute
// positions.
type scanner struct {
	src   string
	off   int
	stack []openElement
	attrs []rawAttr
	tok   token
	root  bool // the root element has started
	decl  bool // the file opens with an XML declaration
	// dupe is reused to find duplicate attributes on elements with many.
	dupe map[string]struct{}
	// gap is where the white space before the next token may start: the
	// end of the last token, comment or processing instruction.
	gap int
}

type openElement struct {
	name string
	off  int
}

type tokenKind uint8

const (
	tokEOF     tokenKind = iota
	tokStart             // <name attr="v"> or <name/>
	tokEnd               // </name>
	tokText              // character data or a CDATA section
	tokComment           // <!-- text -->
)

// token is one piece of the file. Its fields stay valid until the next call
// of next.
type token struct {
	kind  tokenKind
	off   int    // where the token starts
	name  string // element name (tokStart, tokEnd)
	attrs []rawAttr
	empty bool   // <name/>: no tokEnd follows
	text  string // raw character data (tokText), the comment's text (tokComment)
	plain bool   // text needs no decoding
	blank bool   // a blank line comes before the token (tokStart, tokEnd, tokComment)
}

// rawAttr is an attribute as written: its value still holds entity
// references unless plain.
type rawAttr struct {
	name, value string
	off         int  // where the name starts
	valOff      int  // where the value starts (after the quote)
	plain       bool // value holds no '&' or '\r'
}

// syntaxError is a place where the file is not the XML the loader reads;
// nothing after it is looked at.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return e.msg }

func errAt(off int, format string, args ...any) *syntaxError {
	return &syntaxError{off: off, msg: fmt.Sprintf(format, args...)}
}

var nameStart, nameChar [256]bool

func init() {
	for c := 0; c < 256; c++ {
		start := c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
		nameStart[c] = start
		nameChar[c] = start || c == '-' || c == '.' || (c >= '0' && c <= '9')
	}
}

func newScanner(src string) (*scanner, *syntaxError) {
	s := &scanner{src: src}
	if strings.HasPrefix(src, "\uFEFF") {
		s.off = 3 // the byte order mark
	}
	s.gap = s.off
	if err := checkChars(src, s.off); err != nil {
		return nil, err
	}
	return s, nil
}

// checkChars rejects what XML 1.0 does not allow anywhere in a document:
// invalid UTF-8 and control characters other than tab, newline and return.
func checkChars(src string, from int) *syntaxError {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i := from; i < len(src); {
		// Eight bytes at a time while they are all printable ASCII: no
		// byte has its high bit set or is below 0x20.
		if i+8 <= len(src) {
			w := uint64(src[i]) | uint64(src[i+1])<<8 | uint64(src[i+2])<<16 | uint64(src[i+3])<<24 |
				uint64(src[i+4])<<32 | uint64(src[i+5])<<40 | uint64(src[i+6])<<48 | uint64(src[i+7])<<56
			if (w|(w-0x20*ones))&highs == 0 {
				i += 8
				continue
			}
		}
		c := src[i]
		if c >= 0x20 && c < 0x80 {
			i++
			continue
		}
		if c < 0x80 {
			if c != '\t' && c != '\n' && c != '\r' {
				return errAt(i, "control character U+%04X is not allowed in XML", c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		if r == utf8.RuneError && size <= 1 {
			return errAt(i, "invalid UTF-8 (tree files are read as UTF-8)")
		}
		if r == 0xFFFE || r == 0xFFFF {
			return errAt(i, "character U+%04X is not allowed in XML", r)
		}
		i += size
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *scanner) skipSpace(i int) int {
	for i < len(s.src) && isSpace(s.src[i]) {
		i++
	}
	return i
}

// name reads an XML name at i.
func (s *scanner) name(i int, what string) (string, int, *syntaxError) {
	if i >= len(s.src) {
		return "", i, errAt(i, "unexpected end of file: expected %s", what)
	}
	if !nameStart[s.src[i]] {
		return "", i, errAt(i, "expected %s, found %s", what, describeByte(s.src, i))
	}
	j := i + 1
	for j < len(s.src) && nameChar[s.src[j]] {
		j++
	}
	if j-i > MaxNameSize {
		return "", i, errAt(i, "%s longer than %d bytes (the limit)", what, MaxNameSize)
	}
	return s.src[i:j], j, nil
}

func describeByte(src string, i int) string {
	if i >= len(src) {
		return "the end of the file"
	}
	r, _ := utf8.DecodeRuneInString(src[i:])
	switch r {
	case ' ', '\t', '\n', '\r':
		return "white space"
	}
	return strconv.QuoteRune(r)
}

// depth returns how many elements are open.
func (s *scanner) depth() int { return len(s.stack) }

// next returns the next token. Processing instructions are skipped;
// character data outside the root element must be white space.
func (s *scanner) next() (*token, *syntaxError) {
	tok, err := s.scan()
	if tok != nil {
		s.gap = s.off
	}
	return tok, err
}

// blankBefore reports whether the white space between the last token and
// off holds a blank line (an empty first line, at the start of the file).
func (s *scanner) blankBefore(off int) bool {
	lines, need := 0, 2
	if s.gap == 0 || s.gap == 3 && strings.HasPrefix(s.src, "\uFEFF") {
		need = 1
	}
	for i := s.gap; i < off; i++ {
		if s.src[i] == '\n' {
			if lines++; lines >= need {
				return true
			}
		}
	}
	return false
}

func (s *scanner) scan() (*token, *syntaxError) {
	for {
		if s.off >= len(s.src) {
			if n := len(s.stack); n > 0 {
				top := s.stack[n-1]
				return nil, errAt(len(s.src), "unexpected end of file: <%s> is not closed", top.name)
			}
			if !s.root {
				return nil, errAt(len(s.src), "no root element: a tree file holds <root BTCPP_format=\"4\">…</root>")
			}
			s.tok = token{kind: tokEOF, off: s.off}
			return &s.tok, nil
		}
		if s.src[s.off] != '<' {
			tok, err := s.charData()
			if err != nil || tok != nil {
				return tok, err
			}
			continue
		}
		rest := s.src[s.off:]
		switch {
		case strings.HasPrefix(rest, "</"):
			return s.endTag()
		case strings.HasPrefix(rest, "<!--"):
			end := strings.Index(rest[4:], "-->")
			if end < 0 {
				return nil, errAt(s.off, "comment is not closed (no -->)")
			}
			text := rest[4 : 4+end]
			s.tok = token{kind: tokComment, off: s.off, text: text, plain: strings.IndexByte(text, '\r') < 0, blank: s.blankBefore(s.off)}
			s.off += 4 + end + 3
			return &s.tok, nil
		case strings.HasPrefix(rest, "<![CDATA["):
			if len(s.stack) == 0 {
				return nil, errAt(s.off, "CDATA section outside the root element")
			}
			end := strings.Index(rest[9:], "]]>")
			if end < 0 {
				return nil, errAt(s.off, "CDATA section is not closed (no ]]>)")
			}
			if end > MaxAttrSize {
				return nil, errAt(s.off, "CDATA section longer than %d bytes (the limit)", MaxAttrSize)
			}
			s.tok = token{kind: tokText, off: s.off + 9, text: rest[9 : 9+end], plain: true}
			s.off += 9 + end + 3
			return &s.tok, nil
		case strings.HasPrefix(rest, "<!DOCTYPE"):
			return nil, errAt(s.off, "DTDs (<!DOCTYPE …>) are refused: a tree file needs none, and the entities a DTD defines can expand without bound")
		case strings.HasPrefix(rest, "<!"):
			return nil, errAt(s.off, "markup declarations such as <!ENTITY> are refused: only elements, comments and CDATA sections may follow '<!'")
		case strings.HasPrefix(rest, "<?"):
			if err := s.procInst(); err != nil {
				return nil, err
			}
		default:
			return s.startTag()
		}
	}
}

// charData reads text up to the next '<'. White space alone (the
// indentation between elements) yields no token; outside the root element
// nothing else is allowed.
func (s *scanner) charData() (*token, *syntaxError) {
	start := s.off
	i := start
	for i < len(s.src) && isSpace(s.src[i]) {
		i++
	}
	if i == len(s.src) || s.src[i] == '<' {
		s.off = i
		return nil, nil
	}
	if len(s.stack) == 0 {
		where := "after"
		if !s.root {
			where = "before"
		}
		return nil, errAt(i, "text %s the root element: %s", where, describeByte(s.src, i))
	}
	end := strings.IndexByte(s.src[i:], '<')
	if end < 0 {
		end = len(s.src)
	} else {
		end += i
	}
	text := s.src[start:end]
	s.off = end
	if len(text) > MaxAttrSize {
		return nil, errAt(start, "text longer than %d bytes (the limit)", MaxAttrSize)
	}
	plain := strings.IndexByte(text, '&') < 0 && strings.IndexByte(text, '\r') < 0
	s.tok = token{kind: tokText, off: start, text: text, plain: plain}
	return &s.tok, nil
}

// procInst skips a processing instruction, checking the XML declaration.
func (s *scanner) procInst() *syntaxError {
	start := s.off
	end := strings.Index(s.src[start+2:], "?>")
	if end < 0 {
		return errAt(start, "processing instruction is not closed (no ?>)")
	}
	body := s.src[start+2 : start+2+end]
	s.off = start + 2 + end + 2
	s.gap = s.off
	target, _, err := s.name(start+2, "a processing instruction name after '<?'")
	if err != nil {
		return err
	}
	if !strings.EqualFold(target, "xml") {
		return nil
	}
	first := 0
	if strings.HasPrefix(s.src, "\uFEFF") {
		first = 3
	}
	if target != "xml" || start != first {
		return errAt(start, "the XML declaration <?xml …?> may only open the file")
	}
	s.decl = true
	if i := strings.Index(body, "encoding"); i >= 0 {
		rest := strings.TrimLeft(body[i+len("encoding"):], " \t\r\n")
		rest = strings.TrimPrefix(rest, "=")
		rest = strings.TrimLeft(rest, " \t\r\n")
		if len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'') {
			if j := strings.IndexByte(rest[1:], rest[0]); j >= 0 {
				enc := rest[1 : 1+j]
				switch strings.ToUpper(enc) {
				case "UTF-8", "UTF8", "US-ASCII", "ASCII":
				default:
					return errAt(start, "encoding %q: tree files are read as UTF-8; save the file as UTF-8", enc)
				}
			}
		}
	}
	return nil
}

func (s *scanner) startTag() (*token, *syntaxError) {
	start := s.off
	if len(s.stack) == 0 && s.root {
		return nil, errAt(start, "a second root element: a tree file holds one <root> element")
	}
	name, i, err := s.name(start+1, "an element name after '<'")
	if err != nil {
		return nil, err
	}
	attrs := s.attrs[:0]
	empty := false
	for {
		j := s.skipSpace(i)
		if j >= len(s.src) {
			return nil, errAt(j, "unexpected end of file inside <%s>", name)
		}
		c := s.src[j]
		if c == '>' {
			i = j + 1
			break
		}
		if c == '/' {
			if j+1 < len(s.src) && s.src[j+1] == '>' {
				empty, i = true, j+2
				break
			}
			return nil, errAt(j, "expected '>' after '/' in <%s>", name)
		}
		if j == i {
			return nil, errAt(j, "expected white space, '>' or '/>' in <%s>, found %s", name, describeByte(s.src, j))
		}
		aname, k, err := s.name(j, "an attribute name")
		if err != nil {
			return nil, err
		}
		k = s.skipSpace(k)
		if k >= len(s.src) || s.src[k] != '=' {
			return nil, errAt(j, "attribute %s of <%s> has no value: write %s=\"…\"", aname, name, aname)
		}
		k = s.skipSpace(k + 1)
		if k >= len(s.src) || (s.src[k] != '"' && s.src[k] != '\'') {
			return nil, errAt(k, "the value of attribute %s must be quoted", aname)
		}
		quote := s.src[k]
		end := strings.IndexByte(s.src[k+1:], quote)
		if end < 0 {
			return nil, errAt(k, "the value of attribute %s is not closed (no matching %c)", aname, quote)
		}
		value := s.src[k+1 : k+1+end]
		if end > MaxAttrSize {
			return nil, errAt(j, "the value of attribute %s is longer than %d bytes (the limit)", aname, MaxAttrSize)
		}
		if lt := strings.IndexByte(value, '<'); lt >= 0 {
			return nil, errAt(k+1+lt, "'<' in the value of attribute %s: write &lt;", aname)
		}
		if len(attrs) == MaxAttrs {
			return nil, errAt(j, "<%s> has more than %d attributes (the limit)", name, MaxAttrs)
		}
		plain := strings.IndexByte(value, '&') < 0 && strings.IndexByte(value, '\r') < 0
		attrs = append(attrs, rawAttr{name: aname, value: value, off: j, valOff: k + 1, plain: plain})
		i = k + 1 + end + 1
	}
	s.attrs = attrs
	if err := s.checkDuplicates(name, attrs); err != nil {
		return nil, err
	}
	if len(s.stack)+1 > MaxDepth {
		return nil, errAt(start, "elements nested more than %d deep (the limit); split the tree into subtrees", MaxDepth)
	}
	s.root = true
	if !empty {
		s.stack = append(s.stack, openElement{name: name, off: start})
	}
	s.off = i
	s.tok = token{kind: tokStart, off: start, name: name, attrs: attrs, empty: empty, blank: s.blankBefore(start)}
	return &s.tok, nil
}

func (s *scanner) checkDuplicates(elem string, attrs []rawAttr) *syntaxError {
	if len(attrs) <= 16 {
		for i := 1; i < len(attrs); i++ {
			for j := 0; j < i; j++ {
				if attrs[i].name == attrs[j].name {
					return errAt(attrs[i].off, "attribute %s appears twice in <%s>", attrs[i].name, elem)
				}
			}
		}
		return nil
	}
	if s.dupe == nil {
		s.dupe = make(map[string]struct{}, len(attrs))
	}
	clear(s.dupe)
	for _, a := range attrs {
		if _, dup := s.dupe[a.name]; dup {
			return errAt(a.off, "attribute %s appears twice in <%s>", a.name, elem)
		}
		s.dupe[a.name] = struct{}{}
	}
	return nil
}

func (s *scanner) endTag() (*token, *syntaxError) {
	start := s.off
	name, i, err := s.name(start+2, "an element name after '</'")
	if err != nil {
		return nil, err
	}
	i = s.skipSpace(i)
	if i >= len(s.src) || s.src[i] != '>' {
		return nil, errAt(i, "expected '>' to end </%s>, found %s", name, describeByte(s.src, i))
	}
	n := len(s.stack)
	if n == 0 {
		return nil, errAt(start, "</%s> closes an element that was never opened", name)
	}
	if top := s.stack[n-1]; top.name != name {
		return nil, errAt(start, "</%s> does not match <%s>: close <%s> first", name, top.name, top.name)
	}
	s.stack = s.stack[:n-1]
	s.off = i + 1
	s.tok = token{kind: tokEnd, off: start, name: name, blank: s.blankBefore(start)}
	return &s.tok, nil
}

// decode resolves the entity and character references of raw text or an
// attribute value and turns line ends into '\n', as XML requires. Other
// white space is kept as written (attribute values are not normalized, as
// in BehaviorTree.CPP, so a multi-line script stays multi-line). The offset
// returned with an error is relative to raw.
func decode(raw string) (string, int, string) {
	var sb strings.Builder
	sb.Grow(len(raw))
	for i := 0; i < len(raw); {
		c := raw[i]
		switch c {
		case '\r':
			sb.WriteByte('\n')
			i++
			if i < len(raw) && raw[i] == '\n' {
				i++
			}
			continue
		case '&':
		default:
			sb.WriteByte(c)
			i++
			continue
		}
		semi := strings.IndexByte(raw[i:], ';')
		if semi < 0 || semi > 12 {
			return "", i, "a bare '&': write &amp;"
		}
		ref := raw[i+1 : i+semi]
		switch ref {
		case "lt":
			sb.WriteByte('<')
		case "gt":
			sb.WriteByte('>')
		case "amp":
			sb.WriteByte('&')
		case "quot":
			sb.WriteByte('"')
		case "apos":
			sb.WriteByte('\'')
		default:
			if !strings.HasPrefix(ref, "#") {
				return "", i, fmt.Sprintf("unknown entity &%s; (only &lt; &gt; &amp; &quot; &apos; and character references like &#10; are read)", ref)
			}
			var n uint64
			var err error
			if strings.HasPrefix(ref, "#x") {
				n, err = strconv.ParseUint(ref[2:], 16, 32)
			} else {
				n, err = strconv.ParseUint(ref[1:], 10, 32)
			}
			r := rune(n)
			if err != nil || !xmlChar(r) {
				return "", i, fmt.Sprintf("&%s; is not a character XML allows", ref)
			}
			sb.WriteRune(r)
		}
		i += semi + 1
	}
	return sb.String(), 0, ""
}

// xmlChar reports whether XML 1.0 allows r in a document.
func xmlChar(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r < 0x20:
		return false
	case r >= 0xD800 && r <= 0xDFFF:
		return false
	case r == 0xFFFE || r == 0xFFFF:
		return false
	default:
		return r <= utf8.MaxRune
	}
}

// lineCounter turns byte offsets into line and column (in characters, from
// 1). Offsets are mostly asked for in increasing order, so it walks forward
// from the last one: the whole file costs one pass.
type lineCounter struct {
	src            string
	off, line, col int
}

func newLineCounter(src string) lineCounter {
	return lineCounter{src: src, line: 1, col: 1}
}

func (lc *lineCounter) pos(off int) (line, col int) {
	if off < lc.off {
		lc.off, lc.line, lc.col = 0, 1, 1
	}
	off = min(off, len(lc.src))
	seg := lc.src[lc.off:off]
	if i := strings.LastIndexByte(seg, '\n'); i >= 0 {
		lc.line += strings.Count(seg, "\n")
		lc.col = 1 + utf8.RuneCountInString(seg[i+1:])
	} else {
		lc.col += utf8.RuneCountInString(seg)
		if lc.off == 0 && strings.HasPrefix(seg, "\uFEFF") {
			lc.col-- // the byte order mark is not a column
		}
	}
	lc.off = off
	return lc.line, lc.col
}
