package hil

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseSelection: the command line's --seeds, --only, --shard and
// --long, each checked; the first bad one is the error.
func TestParseSelection(t *testing.T) {
	sel, err := ParseSelection("1..3", "seed=2", "2/4", true)
	require.NoError(t, err)
	assert.Equal(t, []uint64{1, 2, 3}, sel.Seeds)
	assert.Equal(t, 2, sel.Shard)
	assert.Equal(t, 4, sel.Shards)
	assert.True(t, sel.Long)
	assert.NotNil(t, sel.Only)
	for _, tc := range []struct{ seeds, only, shard string }{
		{"x", "", ""},
		{"", "nokey", ""},
		{"", "", "5/4"},
	} {
		_, err := ParseSelection(tc.seeds, tc.only, tc.shard, false)
		assert.Error(t, err, "%+v", tc)
	}
	sel, err = ParseSelection("", "", "", false)
	require.NoError(t, err)
	assert.Equal(t, Selection{}, sel)
}
