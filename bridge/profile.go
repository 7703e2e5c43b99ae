package bridge

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/btrobot/btrobot/internal/input"
	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// Profile is a robot profile: how a tree meets a robot, as data. It says the
// tick rate, which topics are latched into the blackboard at the start of
// every tick (inputs), which blackboard entries are published at its end
// (outputs), the action servers and services the tree's nodes use, and how
// to stop the robot. LoadProfile reads one from YAML:
//
//	robot: turtlebot3
//	rate: 20            # ticks per second
//	max_rate: 100       # early ticks on wake-ups, at most this often
//	inputs:
//	  - topic: battery_state
//	    type: sensor_msgs/BatteryState
//	    fields: {battery_pct: percentage}   # blackboard key: field path
//	    max_age: 5s
//	    wake: true
//	outputs:
//	  - topic: cmd_vel
//	    type: geometry_msgs/Twist
//	    key: cmd_vel
//	actions:
//	  navigate: {server: move_base, type: move_base_msgs/MoveBaseAction}
//	safety:
//	  velocity_topic: cmd_vel
//	  watchdog: 3
//	  clock_timeout: 2s   # /clock silent this long under sim time: stop
//
// Staleness: for every blackboard key an input writes (key and fields), the
// bridge also writes "<key>_stale", a bool that is true until the first
// message arrives and whenever the newest message is older than max_age at
// the start of a tick. Until the first message the keys hold their type's
// zero value (with a zero time stamp); a stale value is left as it was. So
// write conditions as `!battery_pct_stale && battery_pct > 0.2`;
// TopicCondition and the skills fail on stale data by themselves.
type Profile struct {
	// File is where the profile was read from ("" when parsed from bytes
	// without a name).
	File string
	// Robot names the robot in reports.
	Robot string
	// Namespace, when set, is where the profile's relative names resolve
	// instead of the node's namespace: ParseProfile makes them global
	// under it.
	Namespace string
	// Rate is the tick rate in Hz.
	Rate float64
	// MaxRate bounds early ticks on wake-ups (0: no early ticks).
	MaxRate  float64
	Inputs   []Input
	Outputs  []Output
	Actions  map[string]ActionConf
	Services map[string]ServiceConf
	Safety   Safety
}

// Input is a topic latched into the blackboard at the start of every tick.
type Input struct {
	Topic string
	Type  ros.MessageType
	// Key receives the whole message (a value of Type.Go), when set.
	Key string
	// Fields copy parts of the message into keys of their own.
	Fields []Field
	// MaxAge is how old the newest message may be at the start of a tick
	// before its keys count as stale (0: never).
	MaxAge time.Duration
	// Wake makes every new message ask for an early tick.
	Wake bool
	Pos  runtime.Pos
}

// Field binds a blackboard key to a field of a message.
type Field struct {
	Key  string
	Path string
	Pos  runtime.Pos
	path fieldPath
}

// PublishMode says when an output is published.
type PublishMode uint8

// The publish modes of outputs.
const (
	// OnChange publishes at the end of a tick in which one of the output's
	// blackboard entries was written.
	OnChange PublishMode = iota
	// EveryTick publishes at the end of every tick.
	EveryTick
	// AtRate publishes at the end of ticks, at most Rate times a second.
	AtRate
)

// Output is a message published at the end of ticks from blackboard entries.
type Output struct {
	Topic string
	Type  ros.MessageType
	// Key holds the whole message (a value or pointer of Type.Go).
	Key string
	// Fields fill parts of the message from keys (the rest is zero).
	Fields  []Field
	Publish PublishMode
	// Rate is the publishing rate in Hz with AtRate.
	Rate float64
	Pos  runtime.Pos
}

// ActionConf is an action server the tree's nodes use, by name.
type ActionConf struct {
	Name   string
	Server string
	Type   ros.MessageType
	// WaitForServerTimeout bounds the wait for the server to be up.
	WaitForServerTimeout time.Duration
	// ServerTimeout bounds the wait for the server to acknowledge a goal.
	ServerTimeout time.Duration
	// Timeout bounds a whole goal (0: none).
	Timeout time.Duration
	Pos     runtime.Pos
}

// ServiceConf is a service the tree's nodes use, by name.
type ServiceConf struct {
	Name    string
	Service string
	Type    ros.MessageType
	Timeout time.Duration
	Pos     runtime.Pos
}

// Safety says how to stop the robot: on stop, halt, panic and stalled ticks
// a zero velocity is published on VelocityTopic.
type Safety struct {
	VelocityTopic string
	// VelocityType is geometry_msgs/Twist or geometry_msgs/TwistStamped.
	VelocityType ros.MessageType
	// Watchdog is how many tick periods a tick may run before the robot is
	// stopped (0: no watchdog).
	Watchdog int
	// ClockTimeout is how long (wall time) /clock may stay silent under
	// /use_sim_time before the run stops the robot and fails; a
	// RunConf.ClockTimeout overrides it (0: DefaultClockTimeout).
	ClockTimeout time.Duration
}

// Default timeouts of actions and services a profile does not set.
const (
	DefaultWaitForServerTimeout = 5 * time.Second
	DefaultServerTimeout        = 2 * time.Second
	DefaultServiceTimeout       = 5 * time.Second
)

// Action returns the action called name, or false.
func (p *Profile) Action(name string) (ActionConf, bool) {
	a, ok := p.Actions[name]
	return a, ok
}

// Service returns the service called name, or false.
func (p *Profile) Service(name string) (ServiceConf, bool) {
	s, ok := p.Services[name]
	return s, ok
}

// Period returns the tick period.
func (p *Profile) Period() time.Duration { return time.Duration(float64(time.Second) / p.Rate) }

// The ranges of a profile's numbers: what a real robot needs, and what the
// tick loop can honour (a period and a watchdog that fit a time.Duration
// many times over). ParseProfile refuses a number outside them, naming the
// range; CheckRate does the same for a rate given elsewhere (a flag).
const (
	// MinTickRate and MaxTickRate bound rate, max_rate and the rate of an
	// output, in Hz: a tick every 10 s at the slowest, every millisecond at
	// the fastest.
	MinTickRate = 0.1
	MaxTickRate = 1000
	// MaxWatchdogPeriods bounds safety.watchdog, in tick periods, and
	// MaxWatchdog the time it stands for: a robot moving unchecked for
	// longer has no watchdog worth the name.
	MaxWatchdogPeriods = 1000
	MaxWatchdog        = time.Minute
	// MaxInputAge bounds an input's max_age.
	MaxInputAge = time.Hour
	// MaxServerTimeout bounds the waits for a server (wait_for_server_timeout,
	// server_timeout) and a service call (timeout).
	MaxServerTimeout = time.Hour
	// MaxGoalTimeout bounds the timeout of a whole action goal.
	MaxGoalTimeout = 24 * time.Hour
	// MinClockTimeout and MaxClockTimeout bound safety.clock_timeout: a
	// few of the run's checks of /clock at the shortest, and no longer
	// than a robot may go unchecked (MaxWatchdog) at the longest.
	MinClockTimeout = 200 * time.Millisecond
	MaxClockTimeout = time.Minute
)

// CheckRate returns an error naming the range when hz is not a tick rate
// the loop can keep (MinTickRate to MaxTickRate).
func CheckRate(hz float64) error {
	if math.IsNaN(hz) || hz < MinTickRate || hz > MaxTickRate {
		return fmt.Errorf("rate %v Hz is out of range: want %v to %v Hz", hz, MinTickRate, MaxTickRate)
	}
	return nil
}

// LoadProfile reads and checks a profile file against the built-in message
// types. Every problem found is reported at once, as a runtime.ErrorList of
// errors placed at file:line:col; a file that is not a regular file of at
// most input.MaxDocumentSize bytes is refused before it is read.
func LoadProfile(path string) (*Profile, error) {
	data, err := input.ReadFile(path, input.Profile)
	if be, ok := err.(*runtime.BuildError); ok {
		return nil, runtime.ErrorList{be}
	}
	if err != nil {
		return nil, err
	}
	return ParseProfile(data, path, nil)
}

// ParseProfile reads a profile from data; file names it in errors; msgs
// resolves type names (BuiltinMessages when nil).
func ParseProfile(data []byte, file string, msgs *ros.Messages) (*Profile, error) {
	if msgs == nil {
		msgs = ros.BuiltinMessages()
	}
	d := &profileDecoder{file: file, msgs: msgs}
	if err := input.Profile.CheckSize(file, data); err != nil {
		return nil, runtime.ErrorList{err.(*runtime.BuildError)}
	}
	root, err := input.YAML(file, data)
	if err != nil {
		return nil, runtime.ErrorList{err.(*runtime.BuildError)}
	}
	p := &Profile{File: file, Actions: map[string]ActionConf{}, Services: map[string]ServiceConf{}}
	if root == nil {
		d.add(&yaml.Node{Line: 1, Column: 1}, "", "the profile is empty; it needs at least a rate")
		return nil, d.errs
	}
	d.profile(root, p)
	p.applyNamespace()
	if len(d.errs) > 0 {
		sort.SliceStable(d.errs, func(i, j int) bool {
			a, b := d.errs[i].Pos, d.errs[j].Pos
			return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
		})
		return nil, d.errs
	}
	return p, nil
}

// applyNamespace makes the profile's relative names global under its
// namespace, when it has one, so that every user of the profile (the
// bridge, the ROS nodes, the skills) resolves them alike.
func (p *Profile) applyNamespace() {
	if p.Namespace == "" {
		return
	}
	in := func(name string) string {
		if name == "" || strings.HasPrefix(name, "/") || strings.HasPrefix(name, "~") {
			return name
		}
		return ros.JoinName(p.Namespace, name)
	}
	for i := range p.Inputs {
		p.Inputs[i].Topic = in(p.Inputs[i].Topic)
	}
	for i := range p.Outputs {
		p.Outputs[i].Topic = in(p.Outputs[i].Topic)
	}
	for k, a := range p.Actions {
		a.Server = in(a.Server)
		p.Actions[k] = a
	}
	for k, s := range p.Services {
		s.Service = in(s.Service)
		p.Services[k] = s
	}
	p.Safety.VelocityTopic = in(p.Safety.VelocityTopic)
}

type profileDecoder struct {
	file string
	msgs *ros.Messages
	errs runtime.ErrorList
}

func (d *profileDecoder) pos(n *yaml.Node) runtime.Pos { return input.Pos(d.file, n) }

func (d *profileDecoder) add(n *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, &runtime.BuildError{Pos: d.pos(n), Path: path, Msg: fmt.Sprintf(format, args...)})
}

// fields walks a mapping, reporting keys not in known (with the nearest
// names) and calling f for the others in order.
func (d *profileDecoder) fields(n *yaml.Node, path string, known []string, f func(key string, k, v *yaml.Node)) bool {
	if n.Kind != yaml.MappingNode {
		d.add(n, path, "want a mapping of %s, got %s", strings.Join(known, ", "), input.Describe(n))
		return false
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := k.Value
		if prev, dup := seen[name]; dup {
			d.add(k, path, "%s is given twice (first at line %d)", name, prev.Line)
			continue
		}
		seen[name] = k
		if !slices.Contains(known, name) {
			hint := ""
			if near := runtime.NearestNames(name, known, 2); len(near) > 0 {
				hint = "did you mean " + strings.Join(near, " or ") + "? "
			}
			d.add(k, path, "unknown field %q (%sknown: %s)", name, hint, strings.Join(known, ", "))
			continue
		}
		f(name, k, v)
	}
	return true
}

func (d *profileDecoder) scalar(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode {
		d.add(n, path, "want a single value, got %s", input.Describe(n))
		return "", false
	}
	return n.Value, true
}

func (d *profileDecoder) str(n *yaml.Node, path string) string {
	s, _ := d.scalar(n, path)
	return s
}

// rate reads a rate in Hz, MinTickRate to MaxTickRate; zero is allowed
// (off) when zeroOK.
func (d *profileDecoder) rate(n *yaml.Node, path string, zeroOK bool) float64 {
	s, ok := d.scalar(n, path)
	if !ok {
		return 0
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "Hz")), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(f):
		d.add(n, path, "%q is not a rate: write a number of Hz, like 20", s)
	case f == 0 && zeroOK:
	case f <= 0:
		want := "a positive number of Hz"
		if zeroOK {
			want = "0 (off) or a positive number of Hz"
		}
		d.add(n, path, "rate %v is not allowed: want %s, %v to %v Hz", f, want, MinTickRate, MaxTickRate)
	case CheckRate(f) != nil:
		want := fmt.Sprintf("%v to %v Hz", MinTickRate, MaxTickRate)
		if zeroOK {
			want = "0 (off) or " + want
		}
		d.add(n, path, "rate %s Hz is out of range: want %s", strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "Hz")), want)
	default:
		return f
	}
	return 0
}

// durationIn reads a duration of at most max; zero means what zero says
// ("never", "no limit"), for the message.
func (d *profileDecoder) durationIn(n *yaml.Node, path string, max time.Duration, zero string) time.Duration {
	dur := d.duration(n, path)
	if dur > max {
		d.add(n, path, "%s is out of range: want 0 (%s) to %v", strings.TrimSpace(n.Value), zero, max)
		return 0
	}
	return dur
}

func (d *profileDecoder) duration(n *yaml.Node, path string) time.Duration {
	s, ok := d.scalar(n, path)
	if !ok {
		return 0
	}
	dur, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil || errors.Is(nerr, strconv.ErrRange) {
			d.add(n, path, "duration %q has no unit: write %ss or %sms", s, s, s)
		} else {
			d.add(n, path, "%q is not a duration: write 1.5s, 500ms or 2m", s)
		}
		return 0
	}
	if dur < 0 {
		d.add(n, path, "duration %s is negative", s)
		return 0
	}
	return dur
}

func (d *profileDecoder) boolean(n *yaml.Node, path string) bool {
	s, ok := d.scalar(n, path)
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		d.add(n, path, "%q is not true or false", s)
	}
	return b
}

func (d *profileDecoder) name(n *yaml.Node, path, what string) string {
	s, ok := d.scalar(n, path)
	if !ok {
		return ""
	}
	if err := ros.CheckName(s); err != nil {
		d.add(n, path, "%s: %v", what, err)
		return ""
	}
	return s
}

func (d *profileDecoder) key(n *yaml.Node, path string) string {
	s, ok := d.scalar(n, path)
	if !ok {
		return ""
	}
	if !ros.ValidKey(s) {
		d.add(n, path, "blackboard key %q: a key is a letter or '_' followed by letters, digits or '_'", s)
		return ""
	}
	return s
}

func (d *profileDecoder) msgType(n *yaml.Node, path string, kind ros.TypeKind) (ros.MessageType, bool) {
	s, ok := d.scalar(n, path)
	if !ok {
		return ros.MessageType{}, false
	}
	t, err := d.msgs.LookupKind(s, kind)
	if err != nil {
		d.add(n, path, "%v", err)
		return ros.MessageType{}, false
	}
	return t, true
}

var profileFields = []string{"robot", "namespace", "rate", "max_rate", "inputs", "outputs", "actions", "services", "safety"}

func (d *profileDecoder) profile(n *yaml.Node, p *Profile) {
	var rateNode, maxRateNode *yaml.Node
	var inputs, outputs, safety *yaml.Node
	ok := d.fields(n, "", profileFields, func(key string, k, v *yaml.Node) {
		switch key {
		case "robot":
			p.Robot = d.str(v, key)
		case "namespace":
			if s := d.str(v, key); s != "" {
				ns, err := ros.CleanNamespace(s)
				if err != nil {
					d.add(v, key, "%v", err)
				}
				p.Namespace = ns
			}
		case "rate":
			rateNode = v
			p.Rate = d.rate(v, key, false)
		case "max_rate":
			maxRateNode = v
			p.MaxRate = d.rate(v, key, true)
		case "inputs":
			inputs = v
		case "outputs":
			outputs = v
		case "actions":
			d.actions(v, p)
		case "services":
			d.services(v, p)
		case "safety":
			safety = v
		}
	})
	if !ok {
		return
	}
	if rateNode == nil {
		d.add(n, "", "rate is missing: say how many ticks a second the tree gets, like rate: 20")
	}
	if maxRateNode != nil && p.MaxRate > 0 && p.Rate > 0 && p.MaxRate < p.Rate {
		d.add(maxRateNode, "max_rate", "max_rate %v is below rate %v: early ticks come on top of the periodic ones, so set it above the rate (or 0 for no early ticks)", p.MaxRate, p.Rate)
	}
	keys := map[string]runtime.Pos{}
	if inputs != nil {
		d.inputs(inputs, p, keys)
	}
	if outputs != nil {
		d.outputs(outputs, p, keys)
	}
	if safety != nil {
		d.safety(safety, p)
	}
}

var inputFields = []string{"topic", "type", "key", "fields", "max_age", "wake"}

func (d *profileDecoder) inputs(n *yaml.Node, p *Profile, keys map[string]runtime.Pos) {
	if n.Kind != yaml.SequenceNode {
		d.add(n, "inputs", "want a list of inputs (- topic: ...), got %s", input.Describe(n))
		return
	}
	topics := map[string]int{}
	for i, item := range n.Content {
		path := fmt.Sprintf("inputs[%d]", i)
		in := Input{Pos: d.pos(item)}
		var typeOK bool
		var fieldsNode, topicNode *yaml.Node
		if !d.fields(item, path, inputFields, func(key string, k, v *yaml.Node) {
			switch key {
			case "topic":
				topicNode = v
				in.Topic = d.name(v, path+".topic", "topic")
			case "type":
				in.Type, typeOK = d.msgType(v, path+".type", ros.MessageKind)
			case "key":
				in.Key = d.key(v, path+".key")
				d.claimKey(keys, in.Key, v, path+".key")
			case "fields":
				fieldsNode = v
			case "max_age":
				in.MaxAge = d.durationIn(v, path+".max_age", MaxInputAge, "never stale")
			case "wake":
				in.Wake = d.boolean(v, path+".wake")
				if in.Wake && p.Rate > 0 && p.MaxRate <= p.Rate {
					d.add(v, path+".wake", "wake: true asks for early ticks, which max_rate %v turns off: set max_rate above the rate %v, like max_rate: %v", p.MaxRate, p.Rate, 5*p.Rate)
				}
			}
		}) {
			continue
		}
		d.require(item, path, topicNode != nil, "topic", "the topic to read, like odom")
		d.require(item, path, in.Type.Go != nil || hasKey(item, "type"), "type", "the message type, like nav_msgs/Odometry")
		if fieldsNode != nil {
			in.Fields = d.bindings(fieldsNode, path+".fields", in.Type, typeOK, keys)
		}
		if in.Key == "" && fieldsNode == nil && !hasKey(item, "key") {
			d.add(item, path, "input of %s writes nothing: give a key for the whole message, or fields", in.Topic)
		}
		if in.Topic != "" {
			if prev, dup := topics[in.Topic]; dup {
				d.add(topicNode, path+".topic", "topic %s is already an input (inputs[%d]); give that input more fields instead", in.Topic, prev)
			}
			topics[in.Topic] = i
		}
		p.Inputs = append(p.Inputs, in)
	}
}

func hasKey(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

func (d *profileDecoder) require(n *yaml.Node, path string, present bool, field, what string) {
	if !present && !hasKey(n, field) {
		d.add(n, path, "%s is missing: %s", field, what)
	}
}

// claimKey reports a blackboard key bound twice in the profile.
func (d *profileDecoder) claimKey(keys map[string]runtime.Pos, key string, n *yaml.Node, path string) {
	if key == "" {
		return
	}
	if prev, dup := keys[key]; dup {
		d.add(n, path, "blackboard key %q is already bound at line %d; one key holds one value", key, prev.Line)
		return
	}
	keys[key] = d.pos(n)
	keys[key+"_stale"] = d.pos(n)
}

// bindings reads a mapping of blackboard key: field path, compiled against
// the message type when it is known.
func (d *profileDecoder) bindings(n *yaml.Node, path string, t ros.MessageType, typeOK bool, keys map[string]runtime.Pos) []Field {
	if n.Kind != yaml.MappingNode {
		d.add(n, path, "want a mapping of blackboard key: field path (battery_pct: percentage), got %s", input.Describe(n))
		return nil
	}
	var out []Field
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f := Field{Key: d.key(k, path), Pos: d.pos(k)}
		d.claimKey(keys, f.Key, k, path)
		f.Path, _ = d.scalar(v, path+"."+k.Value)
		if typeOK && f.Path != "" {
			fp, err := compilePath(t.Go, t.Name, f.Path)
			if err != nil {
				d.add(v, path+"."+k.Value, "%v", err)
			}
			f.path = fp
		}
		out = append(out, f)
	}
	return out
}

var outputFields = []string{"topic", "type", "key", "fields", "publish", "rate"}

func (d *profileDecoder) outputs(n *yaml.Node, p *Profile, keys map[string]runtime.Pos) {
	if n.Kind != yaml.SequenceNode {
		d.add(n, "outputs", "want a list of outputs (- topic: ...), got %s", input.Describe(n))
		return
	}
	topics := map[string]int{}
	for i, item := range n.Content {
		path := fmt.Sprintf("outputs[%d]", i)
		out := Output{Pos: d.pos(item)}
		var typeOK bool
		var fieldsNode, topicNode, publishNode, rateNode *yaml.Node
		if !d.fields(item, path, outputFields, func(key string, k, v *yaml.Node) {
			switch key {
			case "topic":
				topicNode = v
				out.Topic = d.name(v, path+".topic", "topic")
			case "type":
				out.Type, typeOK = d.msgType(v, path+".type", ros.MessageKind)
			case "key":
				out.Key = d.key(v, path+".key")
			case "fields":
				fieldsNode = v
			case "publish":
				publishNode = v
				switch s := d.str(v, path+".publish"); s {
				case "on_change":
					out.Publish = OnChange
				case "every_tick":
					out.Publish = EveryTick
				case "":
				default:
					hint := ""
					if near := runtime.NearestNames(s, []string{"on_change", "every_tick"}, 1); len(near) > 0 {
						hint = "did you mean " + near[0] + "? "
					}
					d.add(v, path+".publish", "publish %q: %swant on_change or every_tick (or a rate)", s, hint)
				}
			case "rate":
				rateNode = v
				out.Rate = d.rate(v, path+".rate", false)
				out.Publish = AtRate
			}
		}) {
			continue
		}
		d.require(item, path, topicNode != nil, "topic", "the topic to publish, like cmd_vel")
		d.require(item, path, out.Type.Go != nil, "type", "the message type, like geometry_msgs/Twist")
		if fieldsNode != nil {
			out.Fields = d.bindings(fieldsNode, path+".fields", out.Type, typeOK, map[string]runtime.Pos{})
		}
		switch {
		case out.Key == "" && fieldsNode == nil && !hasKey(item, "key"):
			d.add(item, path, "output on %s publishes nothing: give the key holding the message, or fields", out.Topic)
		case out.Key != "" && fieldsNode != nil:
			d.add(fieldsNode, path+".fields", "an output takes its message from a key or from fields, not both")
		}
		if publishNode != nil && rateNode != nil {
			d.add(rateNode, path+".rate", "an output is published on change, every tick or at a rate: give publish or rate, not both")
		}
		if out.Publish == AtRate && out.Rate > 0 && p.Rate > 0 && out.Rate > p.Rate {
			d.add(rateNode, path+".rate", "rate %v Hz is above the tick rate %v Hz: outputs are published at the end of ticks; use publish: every_tick", out.Rate, p.Rate)
		}
		if out.Topic != "" {
			if prev, dup := topics[out.Topic]; dup {
				d.add(topicNode, path+".topic", "topic %s is already an output (outputs[%d])", out.Topic, prev)
			}
			topics[out.Topic] = i
		}
		p.Outputs = append(p.Outputs, out)
	}
}

var actionFields = []string{"server", "type", "wait_for_server_timeout", "server_timeout", "timeout"}

func (d *profileDecoder) actions(n *yaml.Node, p *Profile) {
	if n.Kind != yaml.MappingNode {
		d.add(n, "actions", "want a mapping of name: {server, type, ...}, got %s", input.Describe(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := "actions." + k.Value
		a := ActionConf{Name: k.Value, WaitForServerTimeout: DefaultWaitForServerTimeout, ServerTimeout: DefaultServerTimeout, Pos: d.pos(k)}
		if !ros.ValidKey(k.Value) {
			d.add(k, path, "action name %q: a name is a letter or '_' followed by letters, digits or '_'", k.Value)
		}
		var server bool
		if !d.fields(v, path, actionFields, func(key string, _, x *yaml.Node) {
			switch key {
			case "server":
				server = true
				a.Server = d.name(x, path+".server", "server")
			case "type":
				a.Type, _ = d.msgType(x, path+".type", ros.ActionKind)
			case "wait_for_server_timeout":
				a.WaitForServerTimeout = d.durationIn(x, path+"."+key, MaxServerTimeout, "no limit")
			case "server_timeout":
				a.ServerTimeout = d.durationIn(x, path+"."+key, MaxServerTimeout, "no limit")
			case "timeout":
				a.Timeout = d.durationIn(x, path+"."+key, MaxGoalTimeout, "no limit")
			}
		}) {
			continue
		}
		d.require(v, path, server, "server", "the action server's name, like move_base")
		d.require(v, path, a.Type.Go != nil, "type", "the action type, like move_base_msgs/MoveBaseAction")
		p.Actions[a.Name] = a
	}
}

var serviceFields = []string{"service", "type", "timeout"}

func (d *profileDecoder) services(n *yaml.Node, p *Profile) {
	if n.Kind != yaml.MappingNode {
		d.add(n, "services", "want a mapping of name: {service, type, timeout}, got %s", input.Describe(n))
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		path := "services." + k.Value
		s := ServiceConf{Name: k.Value, Timeout: DefaultServiceTimeout, Pos: d.pos(k)}
		if !ros.ValidKey(k.Value) {
			d.add(k, path, "service name %q: a name is a letter or '_' followed by letters, digits or '_'", k.Value)
		}
		var service bool
		if !d.fields(v, path, serviceFields, func(key string, _, x *yaml.Node) {
			switch key {
			case "service":
				service = true
				s.Service = d.name(x, path+".service", "service")
			case "type":
				s.Type, _ = d.msgType(x, path+".type", ros.ServiceKind)
			case "timeout":
				s.Timeout = d.durationIn(x, path+".timeout", MaxServerTimeout, "no limit")
			}
		}) {
			continue
		}
		d.require(v, path, service, "service", "the service's name, like move_base/clear_costmaps")
		d.require(v, path, s.Type.Go != nil, "type", "the service type, like std_srvs/Empty")
		p.Services[s.Name] = s
	}
}

var safetyFields = []string{"velocity_topic", "velocity_type", "watchdog", "clock_timeout"}

// velocityTypes are the messages a zero velocity can be sent as.
var velocityTypes = []string{"geometry_msgs/Twist", "geometry_msgs/TwistStamped"}

func (d *profileDecoder) safety(n *yaml.Node, p *Profile) {
	s := &p.Safety
	var typeNode, topicNode *yaml.Node
	var watchdogNode *yaml.Node
	d.fields(n, "safety", safetyFields, func(key string, _, v *yaml.Node) {
		switch key {
		case "velocity_topic":
			topicNode = v
			s.VelocityTopic = d.name(v, "safety.velocity_topic", "velocity topic")
		case "velocity_type":
			typeNode = v
			t, ok := d.msgType(v, "safety.velocity_type", ros.MessageKind)
			if ok && !slices.Contains(velocityTypes, t.Name) {
				d.add(v, "safety.velocity_type", "a zero velocity is sent as %s, not %s", strings.Join(velocityTypes, " or "), t.Name)
			}
			s.VelocityType = t
		case "watchdog":
			str, ok := d.scalar(v, "safety.watchdog")
			if !ok {
				return
			}
			w, err := strconv.Atoi(strings.TrimSpace(str))
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				d.add(v, "safety.watchdog", "watchdog %q: want how many tick periods a tick may take before the robot is stopped, a whole number from 0 (off) to %d", str, MaxWatchdogPeriods)
				return
			}
			if err != nil || w < 0 || w > MaxWatchdogPeriods {
				d.add(v, "safety.watchdog", "watchdog %s periods is out of range: want 0 (off) to %d tick periods", strings.TrimSpace(str), MaxWatchdogPeriods)
				return
			}
			s.Watchdog, watchdogNode = w, v
		case "clock_timeout":
			dur := d.duration(v, "safety.clock_timeout")
			if dur == 0 {
				// Zero is an error reported already, or 0s: too short.
				if _, err := time.ParseDuration(strings.TrimSpace(v.Value)); err != nil {
					return
				}
			}
			if dur < MinClockTimeout || dur > MaxClockTimeout {
				d.add(v, "safety.clock_timeout", "clock_timeout %s is out of range: want %v to %v of /clock's silence (default %v)", strings.TrimSpace(v.Value), MinClockTimeout, MaxClockTimeout, DefaultClockTimeout)
				return
			}
			s.ClockTimeout = dur
		}
	})
	if watchdogNode != nil && p.Rate > 0 && s.Watchdog > 0 {
		if t := time.Duration(s.Watchdog) * p.Period(); t > MaxWatchdog {
			d.add(watchdogNode, "safety.watchdog", "watchdog %d periods at %v Hz is %v: a robot left moving that long unchecked has no watchdog; want at most %v (%d periods)", s.Watchdog, p.Rate, t, MaxWatchdog, int(MaxWatchdog/p.Period()))
		}
	}
	if s.VelocityTopic == "" {
		if typeNode != nil && topicNode == nil {
			d.add(typeNode, "safety.velocity_type", "velocity_type without velocity_topic: say which topic to send the zero velocity on")
		}
		return
	}
	if s.VelocityType.Go == nil && typeNode == nil {
		// The type of the output on that topic, else a Twist.
		s.VelocityType, _ = d.msgs.Lookup("geometry_msgs/Twist")
		for _, o := range p.Outputs {
			if o.Topic == s.VelocityTopic && slices.Contains(velocityTypes, o.Type.Name) {
				s.VelocityType = o.Type
			}
		}
	}
	for i, o := range p.Outputs {
		if o.Topic == s.VelocityTopic && o.Type.Go != nil && s.VelocityType.Go != nil && o.Type.Go != s.VelocityType.Go {
			d.add(topicNode, "safety.velocity_topic", "velocity topic %s is published as %s by outputs[%d], not %s", o.Topic, o.Type.Name, i, s.VelocityType.Name)
		}
	}
}

// get reads the field from a message (a value or a pointer).
func (f *Field) get(msg any) (any, error) {
	v, err := f.path.get(reflect.ValueOf(msg))
	if err != nil {
		return nil, err
	}
	return v.Interface(), nil
}
