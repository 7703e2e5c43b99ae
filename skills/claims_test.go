package skills

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
)

// TestClaimsSettleOnePlacePerRobot: three robots claim from the same list
// of two places at the same moment, over real ROS; once the claims have
// settled, the two places are held by two different robots and the third
// finds none free. A halted claim is withdrawn.
func TestClaimsSettleOnePlacePerRobot(t *testing.T) {
	uri := rostest.StartMaster(t)
	names := []string{"robot3", "robot1", "robot2"}
	var treesOf []*runtime.Tree
	var conns []*ros.Conn
	for _, name := range names {
		conn := connectAs(t, uri, "/"+name, "btrobot")
		conns = append(conns, conn)
		reg := registry(t, Deps{Conn: conn, Places: testPlaces})
		tree := buildTree(t, reg, `<Sequence>
			<SetPlace queue="{q}" place="kitchen"/>
			<SetPlace queue="{q}" place="lab"/>
			<ClaimPlace queue="{q}" place="{p}" settle="300ms"/>
		</Sequence>`, runtime.BuildConf{Clock: conn.Clock()})
		treesOf = append(treesOf, tree)
	}
	waitClaimLinks(t, conns...) // before anyone claims
	results := make([]runtime.Status, len(names))
	var wg sync.WaitGroup
	for i, tree := range treesOf {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := tree.TickWhileRunning(10 * time.Millisecond)
			assert.NoError(t, err)
			results[i] = st
		}()
	}
	wg.Wait()
	held := map[string]string{}
	failed := 0
	for i, tree := range treesOf {
		switch results[i] {
		case runtime.Success:
			p, _ := tree.Blackboard().Get("p")
			place := p.(string)
			other, dup := held[place]
			assert.False(t, dup, "%s and %s both hold %s", other, names[i], place)
			held[place] = names[i]
			q, _ := tree.Blackboard().Get("q")
			assert.Len(t, q.([]string), 1, "%s: queue %v, want the claimed place removed", names[i], q)
		case runtime.Failure:
			failed++
		}
	}
	assert.Len(t, held, 2, "held %v, %d failed; want both places held by two robots and one robot without", held, failed)
	assert.Equal(t, 1, failed, "held %v, %d failed; want both places held by two robots and one robot without", held, failed)
}

// TestClaimProtocol: claims as they travel on the topic.
func TestClaimProtocol(t *testing.T) {
	f := &fleet{robot: "robot2", claims: map[string]claim{}}
	at := time.Unix(100, 500000000)
	f.mine = claim{place: "lab", at: at}
	cases := []struct {
		msg       string
		contested bool
	}{
		{"robot1 lab 100.500000000", true},  // as old, and robot1 sorts first
		{"robot3 lab 100.500000000", false}, // as old, robot3 sorts after
		{"robot3 lab 100.400000000", true},  // older
		{"robot1 lab 100.600000000", false}, // newer
		{"robot1 kitchen 99.0", false},      // another place
		{"robot1 - 0", false},               // released
		{"garbage", false},                  // ignored
		{"robot2 lab 1.0", false},           // this robot's own, echoed
		{"robot1 lab not-a-time", false},    // ignored
	}
	for _, tc := range cases {
		f.claims = map[string]claim{}
		f.receive(&std_msgs.String{Data: tc.msg})
		got := f.contested()
		assert.Equal(t, tc.contested, got, "%q: contested %v, want %v", tc.msg, got, tc.contested)
	}
}

// TestClaimHaltWithdraws: a claim halted before it settled is withdrawn, and
// another robot may take the place.
func TestClaimHaltWithdraws(t *testing.T) {
	uri := rostest.StartMaster(t)
	var conns []*ros.Conn
	build := func(name, settle string) *runtime.Tree {
		conn := connectAs(t, uri, "/"+name, "btrobot")
		conns = append(conns, conn)
		return buildTree(t, registry(t, Deps{Conn: conn, Places: testPlaces}), `<Sequence>
			<SetPlace queue="{q}" place="kitchen"/>
			<ClaimPlace queue="{q}" place="{p}" settle="`+settle+`"/>
		</Sequence>`, runtime.BuildConf{Clock: conn.Clock()})
	}
	first, second := build("robot1", "1h"), build("robot2", "200ms")
	waitClaimLinks(t, conns...)
	st, err := first.TickOnce()
	require.Equal(t, runtime.Running, st, "first claim: %v %v", st, err)
	require.NoError(t, err, "first claim: %v %v", st, err)
	time.Sleep(200 * time.Millisecond)
	first.Halt()
	time.Sleep(200 * time.Millisecond)
	st, err = second.TickWhileRunning(10 * time.Millisecond)
	require.NoError(t, err, "second robot: %v %v; the halted claim should be gone", st, err)
	require.Equal(t, runtime.Success, st, "second robot: %v %v; the halted claim should be gone", st, err)
	p, _ := second.Blackboard().Get("p")
	assert.Equal(t, "kitchen", p, "second robot holds %v", p)
}

// waitClaimLinks waits until every robot's claims reach every robot's
// subscriber (its own among them) on the claim topic: a claim published
// before would reach only some.
func waitClaimLinks(t *testing.T, conns ...*ros.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range conns {
		require.NoError(t, c.WaitSubscribers(ctx, DefaultClaimTopic, len(conns)))
	}
}
