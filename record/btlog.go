package record

// BT.CPP's FileLogger2 format (.btlog), as BehaviorTree.CPP 4.10 writes it
// and Groot2 reads it; every integer is little-endian:
//
//	"BTCPP4-FileLogger2"  18 bytes, the magic
//	0x01                  1 byte, the protocol
//	N                     int32, the length of the tree's XML
//	XML                   N bytes (see TreeXML)
//	T0                    int64, the first timestamp, µs since the epoch
//	then one 9-byte record per transition to the end of the file:
//	  offset  6 bytes, µs since T0
//	  uid     uint16
//	  status  uint8 (IDLE 0, RUNNING 1, SUCCESS 2, FAILURE 3, SKIPPED 4)
//
// The records hold the new status only; the previous one is the node's
// last (IDLE at first).

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"time"
)

const (
	btlogMagic    = "BTCPP4-FileLogger2"
	btlogProtocol = 1
	btlogRecord   = 9
	// btlogMaxOffset is the largest offset 6 bytes hold (8.9 years).
	btlogMaxOffset = 1<<48 - 1
)

type btlogSink struct {
	f     *os.File
	w     *bufio.Writer
	t0    int64 // µs since the epoch
	last  int64 // the last offset written: offsets never go back
	nodes int
}

func newBTLogSink(path string) (*btlogSink, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return &btlogSink{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

func (s *btlogSink) begin(h *Header) error {
	if len(h.Nodes) > MaxNodes {
		return &TooManyNodesError{Nodes: len(h.Nodes)}
	}
	s.nodes = len(h.Nodes)
	s.t0 = h.Start.UnixMicro()
	var buf [8]byte
	s.w.WriteString(btlogMagic)
	s.w.WriteByte(btlogProtocol)
	binary.LittleEndian.PutUint32(buf[:4], uint32(len(h.TreeXML)))
	s.w.Write(buf[:4])
	s.w.WriteString(h.TreeXML)
	binary.LittleEndian.PutUint64(buf[:], uint64(s.t0))
	s.w.Write(buf[:])
	return s.w.Flush()
}

func (s *btlogSink) write(b *batch) error {
	var rec [btlogRecord]byte
	for i := range b.transitions {
		t := &b.transitions[i]
		off := t.at/1000 - s.t0
		off = min(max(off, s.last), btlogMaxOffset)
		s.last = off
		putUint48(rec[:6], uint64(off))
		binary.LittleEndian.PutUint16(rec[6:8], uint16(t.uid))
		rec[8] = byte(t.to)
		s.w.Write(rec[:])
	}
	return s.w.Flush()
}

func (s *btlogSink) close() error {
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func putUint48(b []byte, v uint64) {
	_ = b[5]
	b[0], b[1], b[2], b[3], b[4], b[5] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24), byte(v>>32), byte(v>>40)
}

func uint48(b []byte) int64 {
	_ = b[5]
	return int64(b[0]) | int64(b[1])<<8 | int64(b[2])<<16 | int64(b[3])<<24 | int64(b[4])<<32 | int64(b[5])<<40
}

// usecTime converts µs since the epoch to a time.
func usecTime(us int64) time.Time { return time.UnixMicro(us) }
