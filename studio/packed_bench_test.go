package studio

import (
	"fmt"
	"testing"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// BenchmarkBusyEvent is encoding a busy 5,000-node tree's event, every
// node moved (the root RUNNING, every other node IDLE after SUCCESS, a
// node in ten with a reason, all at one time), packed or a node at a
// time: the time and the bytes an event.
//
//	go test -run '^$' -bench BusyEvent ./studio/
func BenchmarkBusyEvent(b *testing.B) {
	now, since := make([]nodeState, 5000), make([]time.Duration, 5000)
	for i := range now {
		now[i] = nodeState{status: runtime.Idle, last: runtime.Success}
		if i%10 == 1 {
			now[i].reason = fmt.Sprintf("child %d of %d succeeded", 9, 9)
		}
		since[i] = 1234567 * time.Microsecond
	}
	now[0] = nodeState{status: runtime.Running}
	for _, bc := range []struct {
		name   string
		encode func() []byte
	}{
		{name: "packed", encode: func() []byte { return encodeDelta(delta{Packed: packedJSON(now, since)}) }},
		{name: "a node at a time", encode: func() []byte {
			d := delta{Nodes: make([]nodeJSON, 0, len(now))}
			for i := range now {
				d.Nodes = append(d.Nodes, nodeJSON{uint32(i + 1), now[i], durMs(since[i])})
			}
			return encodeDelta(d)
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				n = len(bc.encode())
			}
			b.ReportMetric(float64(n), "bytes")
		})
	}
}
