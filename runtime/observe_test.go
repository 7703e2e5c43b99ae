package runtime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestObserveRemove: removing an observer stops its transitions and
// leaves the others; an ObserverFunc (a func, not comparable) can be
// removed too, and removing twice does nothing.
func TestObserveRemove(t *testing.T) {
	tree, _ := buildWith(t, testRegistry(nil), N("AlwaysSuccess", nil))
	var a, b int
	removeA := tree.Observe(ObserverFunc(func(Transition) { a++ }))
	removeB := tree.Observe(ObserverFunc(func(Transition) { b++ }))
	_, err := tree.TickOnce()
	require.NoError(t, err)
	assert.Positive(t, a)
	assert.Positive(t, b)
	require.NotPanics(t, removeA)
	require.NotPanics(t, removeA)
	seenA, seenB := a, b
	_, err = tree.TickOnce()
	require.NoError(t, err)
	assert.Equal(t, seenA, a, "a removed observer still called")
	assert.Greater(t, b, seenB, "the other observer removed too")
	removeB()
	_, err = tree.TickOnce()
	require.NoError(t, err)
}
