package studio

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestDeltaEncoding: the hand-written JSON of a delta's transitions and
// nodes is what encoding/json and strconv would write, for times and
// reasons of every shape.
func TestDeltaEncoding(t *testing.T) {
	for _, tc := range []struct {
		name   string
		at     float64
		reason string
	}{
		{name: "a whole ms", at: 12},
		{name: "µs", at: 12.345},
		{name: "trailing zeros dropped", at: 12.5},
		{name: "zero", at: 0},
		{name: "before the start", at: -3.25},
		{name: "a long run", at: float64(36*time.Hour/time.Microsecond) / 1000},
		{name: "not to the µs", at: 0.1234567},
		{name: "a reason", at: 1, reason: "!need_charge is true (need_charge = false)"},
		{name: "a reason to escape", at: 1, reason: "say \"hi\"\n\t<b> & ünïcode \\"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := trans{N: 7, UID: 3, From: runtime.Idle, To: runtime.Success, At: tc.at, Reason: tc.reason}
			got := tr.appendJSON(nil)
			want, err := json.Marshal([]any{7, 3, "IDLE", "SUCCESS", json.Number(strconv.FormatFloat(tc.at, 'f', -1, 64)), tc.reason})
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
			assert.Equal(t, strconv.FormatFloat(tc.at, 'f', -1, 64), string(appendMs(nil, tc.at)))

			n := nodeJSON{uid: 3, state: nodeState{runtime.Idle, runtime.Success, tc.reason}, since: tc.at}
			want, err = json.Marshal([]any{3, "IDLE", "SUCCESS", tc.reason, json.Number(strconv.FormatFloat(tc.at, 'f', -1, 64))})
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(n.appendJSON(nil)))
		})
	}
}
