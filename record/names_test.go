package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/btrobot/btrobot/record"
)

// TestIsRecordingName: the extensions the Recorder writes are the ones
// the command line accepts and the studio lists, in any case.
func TestIsRecordingName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"run.btlog", true},
		{"dir/run.BTLOG", true},
		{"run.db3", true},
		{"run.btdb", true},
		{"run.Db3", true},
		{"run.json", false},
		{"run.btlog.bak", false},
		{"btlog", false},
		{"", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, record.IsRecordingName(tc.name))
		})
	}
}
