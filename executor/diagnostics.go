package executor

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/diagnostic_msgs"

	"github.com/btrobot/btrobot/ros"
)

// diagnosticsEvery is how often the server's state goes out on
// /diagnostics (and at every change of it).
const diagnosticsEvery = time.Second

// diagnostics publishes the server's Status on /diagnostics, once a
// second and when it changes, until ctx ends: rqt_robot_monitor shows
// "<node>: mission server" (OK; WARN while the last reload was refused).
func (s *Server) diagnostics(ctx context.Context, pub *ros.Publisher) {
	t := time.NewTicker(diagnosticsEvery)
	defer t.Stop()
	var seq uint32
	for {
		seq++
		msg := s.diagnosticArray(seq)
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		_ = pub.PublishWait(pctx, msg) // no subscriber is no error
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.changed:
		}
	}
}

// diagnosticArray is the server's Status as a DiagnosticArray.
func (s *Server) diagnosticArray(seq uint32) *diagnostic_msgs.DiagnosticArray {
	st := s.Status()
	d := diagnostic_msgs.DiagnosticStatus{
		Level: diagnostic_msgs.DiagnosticStatus_OK, Name: s.conn.Name() + ": mission server",
		HardwareId: ros.RobotName(s.conn), Message: st.Summary(),
	}
	if st.LastReloadError != "" {
		d.Level = diagnostic_msgs.DiagnosticStatus_WARN
	}
	ms := func(t time.Duration) string {
		return strconv.FormatFloat(float64(t)/float64(time.Millisecond), 'f', 1, 64)
	}
	for _, kv := range [][2]string{
		{"state", st.State}, {"mission", st.Mission}, {"goal", strconv.FormatUint(st.Goal, 10)},
		{"waiting", strconv.Itoa(st.Waiting)}, {"missions", strconv.Itoa(st.Missions)},
		{"accepted", strconv.FormatUint(st.Accepted, 10)}, {"rejected", strconv.FormatUint(st.Rejected, 10)},
		{"last_result", st.LastResult}, {"last_reload_error", st.LastReloadError},
		{"first_tick_ms", ms(st.FirstTick)},
	} {
		d.Values = append(d.Values, diagnostic_msgs.KeyValue{Key: kv[0], Value: kv[1]})
	}
	msg := &diagnostic_msgs.DiagnosticArray{Status: []diagnostic_msgs.DiagnosticStatus{d}}
	msg.Header.Seq, msg.Header.Stamp = seq, s.conn.Clock().Now()
	return msg
}

// Summary is the state in a line: "idle", "running Patrol (goal 3), 2
// waiting", "paused Patrol (goal 3)", with the reload's trouble.
func (st Status) Summary() string {
	line := st.State
	if st.Mission != "" {
		line += fmt.Sprintf(" %s (goal %d)", st.Mission, st.Goal)
	}
	if st.Waiting > 0 {
		line += fmt.Sprintf(", %d waiting", st.Waiting)
	}
	if st.LastReloadError != "" {
		line += "; the last reload was refused: " + st.LastReloadError
	}
	return line
}
