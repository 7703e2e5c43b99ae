package skills

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/places"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/runtime/script"
)

// TestWaitForCharge: RUNNING while charging below the level, SUCCESS at
// it, FAILURE when the battery stops charging for longer than grace.
func TestWaitForCharge(t *testing.T) {
	cases := []struct {
		name  string
		xml   string
		level func(tick int) (float32, uint8) // the battery at each tick
		want  runtime.Status
		ticks int // the tick that ends it
	}{
		{"charges to the level", `<WaitForCharge percent="80" battery_percent="{p}"/>`,
			func(i int) (float32, uint8) { return 0.5 + 0.01*float32(i), charging }, runtime.Success, 30},
		{"already charged", `<WaitForCharge percent="80"/>`,
			func(int) (float32, uint8) { return 0.9, discharging }, runtime.Success, 1},
		{"not on a dock: fails after grace", `<WaitForCharge percent="80" grace="2s"/>`,
			func(int) (float32, uint8) { return 0.5, discharging }, runtime.Failure, 41},
		{"charging stops midway", `<WaitForCharge percent="80" grace="1s"/>`,
			func(i int) (float32, uint8) {
				if i > 10 {
					return 0.6, discharging
				}
				return 0.5 + 0.01*float32(i), charging
			}, runtime.Failure, 30},
		{"grace 0 waits regardless", `<WaitForCharge percent="80" grace="0"/>`,
			func(int) (float32, uint8) { return 0.5, discharging }, runtime.Running, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBench(t, tc.xml, Deps{})
			st := runtime.Running
			i := 0
			for i < 200 && st == runtime.Running {
				i++
				p, s := tc.level(i)
				b.battery = batteryAt(p, s)
				st = b.tick()
			}
			require.Equal(t, tc.want, st, "%v at tick %d, want %v at tick %d", st, i, tc.want, tc.ticks)
			require.Equal(t, tc.ticks, i, "%v at tick %d, want %v at tick %d", st, i, tc.want, tc.ticks)
			if tc.name == "charges to the level" {
				assert.Equal(t, 80.0, b.get("p"), "battery_percent %v, want 80", b.get("p"))
			}
		})
	}
}

// TestLog: lines go to the sink with {key} replaced, the node's path and
// the tree's time; nothing is printed.
func TestLog(t *testing.T) {
	b := newBench(t, `<Sequence>
		<Script code="target := 'kitchen'; n := 3"/>
		<Log message="heading for {target}, round {n}, {missing}"/>
		<Log message="{target}" level="warn"/>
	</Sequence>`, Deps{})
	st := b.tick()
	require.Equal(t, runtime.Success, st, "%v", st)
	want := []LogEntry{
		{Time: time.Unix(1000, 0), Node: "Main/Sequence/Log", Level: Info, Text: "heading for kitchen, round 3, <no entry missing>"},
		{Time: time.Unix(1000, 0), Node: "Main/Sequence/Log#2", Level: Warn, Text: "kitchen"},
	}
	assert.Equal(t, want, b.logLines, "logged %+v\nwant %+v", b.logLines, want)
	err := buildErr(t, registry(t, Deps{}), `<Log message="x" level="loud"/>`)
	assert.ErrorContains(t, err, `"loud" is not a level`, "bad level: %v", err)
}

// TestPlacesQueue: SetPlace and PopPlace manage a queue of places that
// LoopString and FollowWaypoints can read too.
func TestPlacesQueue(t *testing.T) {
	cases := []struct {
		name      string
		xml       string
		want      runtime.Status
		wantQueue []string
		wantPlace any
	}{
		{"all waypoints in order", `<SetPlace queue="{q}" waypoints="true"/>`, runtime.Success,
			[]string{"kitchen", "lab", "lobby"}, nil},
		{"a place at the back, one at the front", `<Sequence>
			<SetPlace queue="{q}" waypoints="true"/>
			<SetPlace queue="{q}" place="dock_west"/>
			<SetPlace queue="{q}" place="1,2,0" front="true"/>
		</Sequence>`, runtime.Success, []string{"1,2,0", "kitchen", "lab", "lobby", "dock_west"}, nil},
		{"clear and refill", `<Sequence>
			<SetPlace queue="{q}" place="lab"/>
			<SetPlace queue="{q}" place="kitchen" clear="true"/>
		</Sequence>`, runtime.Success, []string{"kitchen"}, nil},
		{"clear alone empties", `<Sequence>
			<SetPlace queue="{q}" place="lab"/>
			<SetPlace queue="{q}" clear="true"/>
		</Sequence>`, runtime.Success, []string{}, nil},
		{"pop takes the first", `<Sequence>
			<SetPlace queue="{q}" waypoints="true"/>
			<PopPlace queue="{q}" place="{p}" remaining="{left}"/>
		</Sequence>`, runtime.Success, []string{"lab", "lobby"}, "kitchen"},
		{"peek leaves the place queued", `<Sequence>
			<SetPlace queue="{q}" waypoints="true"/>
			<PopPlace queue="{q}" place="{p}" peek="true" remaining="{left}"/>
		</Sequence>`, runtime.Success, []string{"kitchen", "lab", "lobby"}, "kitchen"},
		{"pop of an empty queue fails and writes nothing", `<Sequence>
			<SetPlace queue="{q}" clear="true"/>
			<PopPlace queue="{q}" place="{p}"/>
		</Sequence>`, runtime.Failure, []string{}, nil},
		{"pop of a queue never written fails", `<PopPlace queue="{q}" place="{p}"/>`, runtime.Failure, nil, nil},
		{"pop until empty", `<Sequence>
			<SetPlace queue="{q}" waypoints="true"/>
			<KeepRunningUntilFailure><PopPlace queue="{q}" place="{p}"/></KeepRunningUntilFailure>
		</Sequence>`, runtime.Failure, []string{}, "lobby"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newBench(t, tc.xml, Deps{Places: testPlaces})
			st, _ := b.run(10)
			require.Equal(t, tc.want, st, "%v, want %v", st, tc.want)
			q := b.get("q")
			if tc.wantQueue != nil {
				assert.Equal(t, tc.wantQueue, q, "queue %#v, want %#v", q, tc.wantQueue)
			}
			p := b.get("p")
			assert.Equal(t, tc.wantPlace, p, "place %#v, want %#v", p, tc.wantPlace)
		})
	}
	if b := newBench(t, `<Sequence><SetPlace queue="{q}" place="lab;kitchen" /><LoopString queue="{q}" value="{p}"><AlwaysSuccess/></LoopString></Sequence>`, Deps{}); true {
		// A queue entry holds places as LoopString reads them.
		st, _ := b.run(10)
		assert.Equal(t, runtime.Success, st, "LoopString over a SetPlace queue: %v", st)
	}
}

// TestPlacesQueueBound: a queue that SetPlace grows in a loop without
// clearing ends in a tick error once it would pass script.MaxArrayLen,
// rather than growing without end.
func TestPlacesQueueBound(t *testing.T) {
	many := &places.Places{}
	for i := range script.MaxArrayLen/2 + 1 {
		many.Waypoints = append(many.Waypoints, places.Place{Name: fmt.Sprintf("w%d", i), Pose: places.Pose{X: float64(i)}})
	}
	b := newBench(t, `<Repeat num_cycles="-1"><SetPlace queue="{q}" waypoints="true"/></Repeat>`, Deps{Places: many})
	require.NoError(t, b.tickErr())
	err := b.tickErr()
	require.ErrorContains(t, err, "the queue would hold 100002 places, more than the 100000 a value may hold")
	assert.Len(t, b.get("q"), script.MaxArrayLen/2+1)
}

// TestBuildErrors: mistakes in a tree that uses the skills are caught when
// it is built, with what would be right.
func TestBuildErrors(t *testing.T) {
	reg := registry(t, Deps{Places: testPlaces})
	cases := map[string]string{
		`<NavigateTo goal="kitchn"/>`:                      `"kitchn" is neither a place of the world (did you mean kitchen?) nor a pose x;y;yaw`,
		`<NavigateTo goal="1;2;x"/>`:                       `"x" is not a number`,
		`<FollowWaypoints waypoints="lab;nowhere"/>`:       `waypoint 2: "nowhere" is neither a place`,
		`<AtPose goal="attic"/>`:                           `"attic" is neither a place`,
		`<Dock dock="dock_east"/>`:                         `the world has no dock "dock_east" (did you mean dock_west?)`,
		`<SetPlace queue="lab" place="kitchen"/>`:          `port "queue" must name a blackboard entry like {route}, not the literal "lab"`,
		`<PopPlace queue="q" place="{p}"/>`:                `port "queue" must name a blackboard entry`,
		`<TopicFresh key="{odom}"/>`:                       `write the entry's name, key="odom"`,
		`<BatteryAbove percent="130"/>`:                    `port "percent": 130; want a percentage from 0 to 100`,
		`<WaitForCharge percent="-5"/>`:                    `port "percent": -5`,
		`<ObstacleWithin width="0"/>`:                      `port "width": 0`,
		`<SetPlace queue="{q}" place="the moon"/>`:         `"the moon" is neither a place`,
		`<ClaimPlace queue="{q}" place="{p}" settle="x"/>`: `port "settle"`,
	}
	for xml, want := range cases {
		err := buildErr(t, reg, xml)
		assert.ErrorContains(t, err, want, "%s:\n got %v\nwant an error containing %q", xml, err, want)
	}
	// Without the world's places, names cannot be checked and are accepted.
	err := buildErr(t, registry(t, Deps{}), `<NavigateTo goal="kitchen"/>`)
	assert.NoError(t, err, "no places: %v", err)
}
