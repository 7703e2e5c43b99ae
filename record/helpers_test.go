package record

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// patrolXML is a patrol-like mission of built-in nodes only: a subtree per
// step, a Parallel that drives (a Sleep) while a watcher checks the
// battery, scripts that count and write the blackboard.
const patrolXML = `<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4" main_tree_to_execute="Patrol">
  <BehaviorTree ID="Patrol">
    <Sequence name="patrol">
      <Script name="counters" code="rounds := 0; visits := 0; battery := 100.0; place := 'dock'"/>
      <Repeat name="forever" num_cycles="-1">
        <SubTree ID="Step" _autoremap="true"/>
      </Repeat>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Step">
    <Sequence name="step">
      <Parallel name="watched" success_count="1" failure_count="1">
        <Sleep name="drive" msec="30"/>
        <KeepRunningUntilFailure name="battery_watch">
          <ScriptCondition name="battery_ok" code="battery &gt; 15"/>
        </KeepRunningUntilFailure>
      </Parallel>
      <Script name="count" code="visits += 1; battery -= 0.5; here := visits * 2; _local := visits"/>
      <SubTree ID="Arrive" place="{place}"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Arrive">
    <Script name="arrived" code="place = 'waypoint'"/>
  </BehaviorTree>
</root>`

// patrol builds the patrol-like tree on a manual clock.
func patrol(t testing.TB) (*runtime.Tree, *runtime.Document, *runtime.ManualClock) {
	t.Helper()
	doc, err := trees.Parse("patrol.xml", []byte(patrolXML))
	require.NoError(t, err)
	clock := runtime.NewManualClock(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Clock: clock, Seed: 7})
	require.NoError(t, err)
	return tree, doc, clock
}

// truth is the state of a live tree at one instant, to compare a replay
// against.
type truth struct {
	at         time.Time
	statuses   []runtime.Status
	blackboard map[string]map[string]string // scope -> key -> JSON
}

func snapshot(tree *runtime.Tree, at time.Time) truth {
	tr := truth{at: at, blackboard: map[string]map[string]string{}}
	for _, n := range tree.Nodes() {
		tr.statuses = append(tr.statuses, runtime.NodeOf(n).Status())
	}
	for bb, scope := range ScopeNames(tree) {
		for k, v := range bb.Snapshot() {
			b, _ := json.Marshal(v)
			if tr.blackboard[scope] == nil {
				tr.blackboard[scope] = map[string]string{}
			}
			tr.blackboard[scope][k] = string(b)
		}
	}
	return tr
}

func replayedBlackboard(s *State) map[string]map[string]string {
	out := map[string]map[string]string{}
	for scope, kv := range s.Blackboard {
		for k, v := range kv {
			if out[scope] == nil {
				out[scope] = map[string]string{}
			}
			out[scope][k] = string(v.Value)
		}
	}
	return out
}

// requireSQLite3 fails the test when Debian's sqlite3 is missing and
// CI=true, and skips it otherwise (rostest.Require).
func requireSQLite3(t *testing.T) { rostest.Require(t, "sqlite3") }
