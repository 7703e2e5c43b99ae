package tcpros_test

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/protocommon"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/tcpros"
)

// benchMessages are the messages a controller sends and receives most:
// a Twist (cmd_vel), an Odometry (covariances), a 720-ray LaserScan, the
// transitions of a tick.
func benchMessages(b *testing.B) map[string]any {
	r := rand.New(rand.NewPCG(3, 4))
	scan := &sensor_msgs.LaserScan{Ranges: make([]float32, 720), Intensities: make([]float32, 720)}
	for i := range scan.Ranges {
		scan.Ranges[i] = r.Float32() * 10
	}
	odom := &nav_msgs.Odometry{}
	fill(r, reflect.ValueOf(odom).Elem(), 0)
	tr := &ros.Transitions{RunId: "0b9a6f1e-2f0c-4bb3-9d0e-4f7d61a2c1d0", Transitions: make([]ros.Transition, 8)}
	for i := range tr.Transitions {
		fill(r, reflect.ValueOf(&tr.Transitions[i]).Elem(), 0)
	}
	return map[string]any{
		"Twist":       &geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 0.4}, Angular: geometry_msgs.Vector3{Z: 0.1}},
		"Odometry":    odom,
		"LaserScan":   scan,
		"Transitions": tr,
	}
}

// BenchmarkEncode: btrobot's codec and goroslib's, side by side.
func BenchmarkEncode(b *testing.B) {
	for name, m := range benchMessages(b) {
		b.Run(name+"/btrobot", func(b *testing.B) {
			buf, err := tcpros.AppendFrame(nil, m)
			require.NoError(b, err)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = tcpros.AppendFrame(buf[:0], m)
			}
		})
		b.Run(name+"/goroslib", func(b *testing.B) {
			var buf bytes.Buffer
			require.NoError(b, protocommon.MessageEncode(&buf, m))
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				buf.Reset()
				protocommon.MessageEncode(&buf, m)
			}
		})
	}
}

// BenchmarkDecode: btrobot's codec and goroslib's, side by side, each
// decoding a whole frame into a new message.
func BenchmarkDecode(b *testing.B) {
	for name, m := range benchMessages(b) {
		typ := reflect.TypeOf(m).Elem()
		frame, err := tcpros.AppendFrame(nil, m)
		require.NoError(b, err)
		b.Run(name+"/btrobot", func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				body, err := tcpros.ReadFrame(bytes.NewReader(frame), 0)
				if err != nil {
					require.NoError(b, err) // guarded: the loop pays for the check only on failure
				}
				if err := tcpros.Unmarshal(body, reflect.New(typ).Interface()); err != nil {
					require.NoError(b, err) // guarded: the loop pays for the check only on failure
				}
			}
		})
		b.Run(name+"/goroslib", func(b *testing.B) {
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				if err := protocommon.MessageDecode(bytes.NewReader(frame), reflect.New(typ).Interface()); err != nil {
					require.NoError(b, err) // guarded: the loop pays for the check only on failure
				}
			}
		})
	}
}
