package tcpros

// The connection header: what each side of a TCPROS connection says first.
// On the wire it is a 4-byte little-endian length, then fields, each a
// 4-byte little-endian length and "key=value" (wiki.ros.org/ROS/Connection
// Header). The whole header is read, bounded, before any field is parsed.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Header is a connection header: its fields by key.
type Header map[string]string

// HeaderLimits bounds the headers a side accepts. Zero fields take the
// defaults.
type HeaderLimits struct {
	// MaxSize bounds the header's declared length in bytes (default 64
	// KiB: a subscriber's header carries the message definition, which is
	// some 10 KiB for the largest standard messages).
	MaxSize int
	// MaxFields bounds the number of fields (default 64; ROS peers send
	// fewer than 10).
	MaxFields int
}

// Default header bounds.
const (
	DefaultMaxHeader       = 64 << 10
	DefaultMaxHeaderFields = 64
)

func (l HeaderLimits) withDefaults() HeaderLimits {
	if l.MaxSize <= 0 {
		l.MaxSize = DefaultMaxHeader
	}
	if l.MaxFields <= 0 {
		l.MaxFields = DefaultMaxHeaderFields
	}
	return l
}

// ErrHeader is wrapped by every error about a header a peer sent.
var ErrHeader = errors.New("tcpros: bad connection header")

// AppendHeader appends h's wire form to b, fields sorted by key. It fails
// on a key that is empty or holds '=', which no peer could read back.
func AppendHeader(b []byte, h Header) ([]byte, error) {
	keys := make([]string, 0, len(h))
	size := 0
	for k, v := range h {
		if k == "" || strings.Contains(k, "=") {
			return b, fmt.Errorf("tcpros: header key %q: must be non-empty and without '='", k)
		}
		keys = append(keys, k)
		size += 4 + len(k) + 1 + len(v)
	}
	if size > 1<<31 {
		return b, fmt.Errorf("tcpros: header of %d bytes is too large", size)
	}
	sort.Strings(keys)
	b = binary.LittleEndian.AppendUint32(b, uint32(size))
	for _, k := range keys {
		v := h[k]
		b = binary.LittleEndian.AppendUint32(b, uint32(len(k)+1+len(v)))
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, v...)
	}
	return b, nil
}

// WriteHeader writes h to w in one write.
func WriteHeader(w io.Writer, h Header) error {
	b, err := AppendHeader(nil, h)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// ReadHeader reads one header from r. The declared length is checked
// against lim before the header is read; the fields are parsed from the
// bytes read, so nothing beyond lim.MaxSize is ever allocated. Errors wrap
// ErrHeader (or are r's, io.EOF and io.ErrUnexpectedEOF included) and name
// what was wrong.
func ReadHeader(r io.Reader, lim HeaderLimits) (Header, error) {
	lim = lim.withDefaults()
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.LittleEndian.Uint32(n[:])
	if uint64(size) > uint64(lim.MaxSize) {
		return nil, fmt.Errorf("%w: declares %d bytes, over the bound of %d", ErrHeader, size, lim.MaxSize)
	}
	buf := make([]byte, size)
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: cut short before its %d bytes: %w", ErrHeader, size, err)
	}
	return ParseHeader(buf, lim)
}

// ParseHeader parses a header's fields (the bytes after its length).
func ParseHeader(buf []byte, lim HeaderLimits) (Header, error) {
	lim = lim.withDefaults()
	if len(buf) > lim.MaxSize {
		return nil, fmt.Errorf("%w: %d bytes, over the bound of %d", ErrHeader, len(buf), lim.MaxSize)
	}
	h := Header{}
	for off := 0; off < len(buf); {
		if len(h) == lim.MaxFields {
			return nil, fmt.Errorf("%w: more than %d fields", ErrHeader, lim.MaxFields)
		}
		if len(buf)-off < 4 {
			return nil, fmt.Errorf("%w: field %d at byte %d: %d bytes left, a field length needs 4", ErrHeader, len(h)+1, off, len(buf)-off)
		}
		fl := binary.LittleEndian.Uint32(buf[off:])
		off += 4
		if uint64(fl) > uint64(len(buf)-off) {
			return nil, fmt.Errorf("%w: field %d declares %d bytes, %d are left in the header", ErrHeader, len(h)+1, fl, len(buf)-off)
		}
		field := buf[off : off+int(fl)]
		off += int(fl)
		eq := bytes.IndexByte(field, '=')
		if eq <= 0 {
			return nil, fmt.Errorf("%w: field %d %q is not key=value", ErrHeader, len(h)+1, clip(field))
		}
		k := string(field[:eq])
		if _, dup := h[k]; dup {
			return nil, fmt.Errorf("%w: field %q given twice", ErrHeader, clip([]byte(k)))
		}
		h[k] = string(field[eq+1:])
	}
	return h, nil
}

// clip shortens a peer's bytes for an error message.
func clip(b []byte) string {
	const n = 40
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// clipText bounds a peer's error text for our own errors.
func clipText(b []byte) string {
	const n = 1 << 10
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
