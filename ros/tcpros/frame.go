package tcpros

// Frames: a message on a topic, a service request or response, is a 4-byte
// little-endian length and that many bytes.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// DefaultMaxFrame bounds a frame's declared length unless a topic or
// service says otherwise: 64 MiB holds a 1080p RGB image four times over.
const DefaultMaxFrame = 64 << 20

// frameChunk is how much of a frame is allocated before its bytes arrive:
// a declared length only ever reserves this much, and the buffer doubles
// as bytes come in, so what a frame holds is at most about twice what the
// peer really sent.
const frameChunk = 64 << 10

// ReadFrame reads one frame of at most max bytes (DefaultMaxFrame when max
// is 0 or less) from r and returns its body. The declared length is
// checked before the body is read, and the body's buffer grows only as its
// bytes arrive. Errors about the length wrap ErrMessage.
func ReadFrame(r io.Reader, max int) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxFrame
	}
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := int(binary.LittleEndian.Uint32(n[:]))
	if size > max {
		return nil, fmt.Errorf("%w: a frame declares %d bytes, over the bound of %d", ErrMessage, size, max)
	}
	buf := make([]byte, 0, min(size, frameChunk))
	for len(buf) < size {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, min(size, 2*cap(buf))-len(buf))...)[:len(buf)]
		}
		m, err := io.ReadFull(r, buf[len(buf):min(cap(buf), size)])
		buf = buf[:len(buf)+m]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("tcpros: a frame cut at %d of %d bytes: %w", len(buf), size, err)
		}
	}
	return buf, nil
}

// readBegunFrame waits as long as it takes for a frame's first byte, then
// reads the frame whole within timeout of it: a peer may be quiet between
// frames, but not trickle one. r buffers c: a read takes what has arrived,
// often the whole frame and the next, where reading the length and then the
// body cost three reads of the connection a frame (and a wait for the first
// byte although the rest was there).
func readBegunFrame(c net.Conn, r *bufio.Reader, max int, timeout time.Duration) ([]byte, error) {
	if r.Buffered() == 0 {
		c.SetReadDeadline(time.Time{})
		if _, err := r.Peek(1); err != nil {
			return nil, err
		}
	}
	c.SetReadDeadline(time.Now().Add(timeout))
	frame, err := ReadFrame(r, max)
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		err = fmt.Errorf("a frame begun did not arrive whole within %v: %w", timeout, err)
	}
	return frame, err
}

// AppendFrame appends msg as a frame (its length, then its serialization)
// to b.
func AppendFrame(b []byte, msg any) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0, 0, 0)
	b, err := Append(b, msg)
	if err != nil {
		return b[:start], err
	}
	if uint64(len(b)-start-4) > 0xffffffff {
		return b[:start], fmt.Errorf("tcpros: a message of %d bytes does not fit a frame", len(b)-start-4)
	}
	binary.LittleEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b, nil
}
