package trees

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/btrobot/btrobot/runtime"
)

// The loader, like BehaviorTree.CPP's tinyxml2, reads some files that are
// not well-formed XML: "--" inside a comment, a malformed XML declaration,
// "]]>" in text, names XML does not allow, undeclared namespace prefixes.
// xmllint, browsers' parsers (and so Groot-like web editors), XSLT and
// most XML libraries reject such a file outright. Lint finds these places
// so that `btrobot check` can warn about them; they are warnings, not
// errors, because btrobot and BT.CPP run the tree all the same.

// MaxWarnings bounds the warnings Lint returns for one file.
const MaxWarnings = 100

// Warning is a place in a tree file that btrobot reads but other XML tools
// reject. It prints as "file:line:col: warning: message".
type Warning struct {
	Pos runtime.Pos
	Msg string
}

func (w Warning) String() string { return w.Pos.String() + ": warning: " + w.Msg }

// Lint reads the file at path and returns what in it is not well-formed
// XML although the loader accepts it, in file order, at most MaxWarnings.
// A file that cannot be read gets no warnings (Load reports it); in a file
// the loader rejects, Lint stops quietly where the loader's error is.
func Lint(path string) []Warning {
	data, err := readFile(path)
	if err != nil {
		return nil
	}
	return lint(path, string(data))
}

type linter struct {
	name  string
	src   string
	lines lineCounter
	warns []Warning
	// prefixes are the namespace prefixes declared by open elements, with
	// the depth of the element that declared each.
	prefixes []nsPrefix
	depth    int
}

type nsPrefix struct {
	name  string
	depth int
}

func lint(name, src string) []Warning {
	l := &linter{name: name, src: src, lines: newLineCounter(src)}
	l.walk()
	return l.warns
}

func (l *linter) warn(off int, format string, args ...any) {
	if len(l.warns) >= MaxWarnings {
		return
	}
	line, col := l.lines.pos(off)
	l.warns = append(l.warns, Warning{Pos: runtime.PosAt(l.name, line, col), Msg: fmt.Sprintf(format, args...)})
}

// walk goes through the file markup by markup. It trusts nothing: on
// anything the loader would refuse it stops, so it never loops or panics.
func (l *linter) walk() {
	src := l.src
	i := 0
	if strings.HasPrefix(src, "\uFEFF") {
		i = 3
	}
	for i < len(src) && len(l.warns) < MaxWarnings {
		lt := strings.IndexByte(src[i:], '<')
		if lt < 0 {
			return
		}
		if lt > 0 {
			l.text(i, src[i:i+lt])
		}
		i += lt
		rest := src[i:]
		var next int
		switch {
		case strings.HasPrefix(rest, "<!--"):
			next = l.comment(i)
		case strings.HasPrefix(rest, "<![CDATA["):
			end := strings.Index(rest[9:], "]]>")
			if end < 0 {
				return
			}
			next = i + 9 + end + 3
		case strings.HasPrefix(rest, "<!"):
			return // a DTD: the loader refuses it
		case strings.HasPrefix(rest, "<?"):
			next = l.procInst(i)
		case strings.HasPrefix(rest, "</"):
			next = l.endTag(i)
		default:
			next = l.startTag(i)
		}
		if next <= i {
			return
		}
		i = next
	}
}

// text checks character data: "]]>" may appear only as the end of a CDATA
// section.
func (l *linter) text(off int, s string) {
	if l.depth == 0 {
		return
	}
	for k := 0; ; {
		j := strings.Index(s[k:], "]]>")
		if j < 0 {
			return
		}
		l.warn(off+k+j, `"]]>" in text: XML allows it only as the end of a CDATA section; write ]]&gt;`)
		k += j + 3
	}
}

// comment checks the comment at off and returns where it ends.
func (l *linter) comment(off int) int {
	body := l.src[off+4:]
	end := strings.Index(body, "-->")
	if end < 0 {
		return -1
	}
	body = body[:end]
	if j := strings.Index(body, "--"); j >= 0 {
		l.warn(off+4+j, `"--" inside a comment: XML forbids it, and xmllint, browsers and most XML tools reject the file (write "-" or "—"; a command's --flag as -flag)`)
	} else if strings.HasSuffix(body, "-") {
		l.warn(off+4+end-1, `a comment ending in "--->": XML forbids "--" inside a comment; put a space before -->`)
	}
	return off + 4 + end + 3
}

// procInst checks the XML declaration, the one processing instruction
// whose content XML prescribes, and returns where the instruction ends.
func (l *linter) procInst(off int) int {
	end := strings.Index(l.src[off+2:], "?>")
	if end < 0 {
		return -1
	}
	next := off + 2 + end + 2
	body := l.src[off+2 : off+2+end]
	decl := body == "xml" || strings.HasPrefix(body, "xml") && isSpace(body[3])
	if !decl {
		return next
	}
	l.xmlDecl(off+5, body[3:])
	return next
}

// xmlDecl checks the pseudo-attributes of <?xml …?>: version, then
// optionally encoding, then optionally standalone, each after white space.
func (l *linter) xmlDecl(off int, s string) {
	const want = `write <?xml version="1.0" encoding="UTF-8"?>`
	type pseudo struct {
		name, value string
		off         int
	}
	var attrs []pseudo
	for i := 0; ; {
		j := i
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		if j == len(s) {
			break
		}
		if j == i {
			l.warn(off+j, "the XML declaration needs white space before %s; %s", describeByte(s, j), want)
			return
		}
		k := j
		for k < len(s) && s[k] != '=' && !isSpace(s[k]) {
			k++
		}
		name := s[j:k]
		for k < len(s) && isSpace(s[k]) {
			k++
		}
		if k == len(s) || s[k] != '=' {
			l.warn(off+j, "%q in the XML declaration has no value; %s", name, want)
			return
		}
		k++
		for k < len(s) && isSpace(s[k]) {
			k++
		}
		if k == len(s) || (s[k] != '"' && s[k] != '\'') {
			l.warn(off+k, "the value of %q in the XML declaration must be quoted; %s", name, want)
			return
		}
		q := strings.IndexByte(s[k+1:], s[k])
		if q < 0 {
			l.warn(off+k, "the value of %q in the XML declaration is not closed; %s", name, want)
			return
		}
		attrs = append(attrs, pseudo{name: name, value: s[k+1 : k+1+q], off: off + j})
		i = k + 1 + q + 1
	}
	if len(attrs) == 0 || attrs[0].name != "version" {
		l.warn(off-5, "the XML declaration must start with its version; %s", want)
		return
	}
	if v := attrs[0].value; !versionOK(v) {
		l.warn(attrs[0].off, "XML version %q: XML 1.x is read; %s", v, want)
	}
	rest := attrs[1:]
	if len(rest) > 0 && rest[0].name == "encoding" {
		if !encodingNameOK(rest[0].value) {
			l.warn(rest[0].off, "%q is not an encoding name; %s", rest[0].value, want)
		}
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0].name == "standalone" {
		if v := rest[0].value; v != "yes" && v != "no" {
			l.warn(rest[0].off, `standalone=%q: it is "yes" or "no" (or left out)`, v)
		}
		rest = rest[1:]
	}
	if len(rest) > 0 {
		l.warn(rest[0].off, "%q in the XML declaration: it holds version, encoding and standalone, in that order; %s", rest[0].name, want)
	}
}

func versionOK(v string) bool {
	if !strings.HasPrefix(v, "1.") || len(v) == 2 {
		return false
	}
	for _, c := range v[2:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func encodingNameOK(v string) bool {
	for i, c := range v {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-')) {
			return false
		}
	}
	return v != ""
}

// startTag checks an element's name, its attributes' names and its
// namespace prefixes, and returns where the tag ends.
func (l *linter) startTag(off int) int {
	src := l.src
	i := off + 1
	nameEnd := l.nameEnd(i)
	if nameEnd == i {
		return -1
	}
	elem, elemOff := src[i:nameEnd], i
	type attr struct {
		name string
		off  int
	}
	var attrs []attr
	i = nameEnd
	empty := false
	for {
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i >= len(src) {
			return -1
		}
		if src[i] == '>' {
			i++
			break
		}
		if strings.HasPrefix(src[i:], "/>") {
			i += 2
			empty = true
			break
		}
		e := l.nameEnd(i)
		if e == i {
			return -1
		}
		attrs = append(attrs, attr{src[i:e], i})
		i = e
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i >= len(src) || src[i] != '=' {
			return -1
		}
		i++
		for i < len(src) && isSpace(src[i]) {
			i++
		}
		if i >= len(src) || (src[i] != '"' && src[i] != '\'') {
			return -1
		}
		q := strings.IndexByte(src[i+1:], src[i])
		if q < 0 {
			return -1
		}
		i += 1 + q + 1
	}
	l.depth++
	for _, a := range attrs {
		if p, ok := strings.CutPrefix(a.name, "xmlns:"); ok {
			l.prefixes = append(l.prefixes, nsPrefix{name: p, depth: l.depth})
		}
	}
	l.checkName(elem, elemOff, "element")
	for _, a := range attrs {
		l.checkName(a.name, a.off, "attribute")
	}
	if empty {
		l.closeElement()
	}
	return i
}

func (l *linter) endTag(off int) int {
	end := strings.IndexByte(l.src[off:], '>')
	if end < 0 {
		return -1
	}
	l.closeElement()
	return off + end + 1
}

func (l *linter) closeElement() {
	for n := len(l.prefixes); n > 0 && l.prefixes[n-1].depth == l.depth; n-- {
		l.prefixes = l.prefixes[:n-1]
	}
	l.depth--
}

// nameEnd returns where the name starting at i ends, as the loader's
// scanner reads names (any byte from 0x80 on is part of a name).
func (l *linter) nameEnd(i int) int {
	j := i
	for j < len(l.src) && nameChar[l.src[j]] {
		j++
	}
	return j
}

// checkName warns about a name XML 1.0 does not allow (the loader takes
// any non-ASCII character) and about a namespace prefix nothing declares.
func (l *linter) checkName(name string, off int, what string) {
	for k, r := range name {
		if r < utf8.RuneSelf {
			continue
		}
		if !(k == 0 && nameStartRune(r) || k > 0 && nameRune(r)) {
			l.warn(off+k, "%s name %q: XML does not allow %q in a name", what, name, r)
			return
		}
	}
	prefix, local, ok := strings.Cut(name, ":")
	if !ok {
		return
	}
	if prefix == "" || local == "" || strings.Contains(local, ":") {
		l.warn(off, `%s name %q: a ':' in a name separates a namespace prefix from the local name, once`, what, name)
		return
	}
	if prefix == "xml" || what == "attribute" && prefix == "xmlns" {
		return
	}
	for _, p := range l.prefixes {
		if p.name == prefix {
			return
		}
	}
	l.warn(off, `%s name %q: namespace prefix %q is not declared (xmlns:%s="…"), and browsers and namespace-aware XML tools reject the file`, what, name, prefix, prefix)
}

// nameStartRune and nameRune are XML 1.0's NameStartChar and NameChar
// beyond ASCII.
func nameStartRune(r rune) bool {
	switch {
	case r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

func nameRune(r rune) bool {
	return nameStartRune(r) || r == 0xB7 || r >= 0x300 && r <= 0x36F || r >= 0x203F && r <= 0x2040
}
