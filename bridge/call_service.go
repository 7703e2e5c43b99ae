package bridge

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/btrobot/btrobot/ros"
	"github.com/btrobot/btrobot/runtime"
)

// Error codes of CallService besides NONE and TIMEOUT.
const (
	CodeServiceUnavailable = "SERVICE_UNAVAILABLE"
	CodeServiceFailed      = "SERVICE_FAILED"
)

// callServiceDoc is the contract of CallService, as the node reference
// shows it.
const callServiceDoc = `Calls a ROS service: RUNNING while the call is in flight.

    <CallService service_name="make_plan" service_type="nav_msgs/GetPlan"
                 request_fields="goal.pose.position.x={x}; tolerance=0.5" response="{plan}"/>

- ` + "`service_name`" + ` names a service of the robot profile (its service, type and timeout), or a service's ROS name, with ` + "`service_type`" + ` then required.
- The request is the blackboard value of ` + "`request`" + ` when given, else a zero request, with ` + "`request_fields`" + ` set on it; it is made on the tick that starts the call.
- SUCCESS when the service answers; the response goes to ` + "`response`" + `, and fields of it to keys with ` + "`response_fields`" + ` ("path={key}; ..."). FAILURE otherwise, with ` + "`error_code`" + `: SERVICE_UNAVAILABLE (no provider, or it cannot be reached), SERVICE_FAILED (the provider answered that the call failed), TIMEOUT (no answer within ` + "`timeout`" + `). ` + "`error_code`" + ` is NONE on success.
- The answer wakes the tree. Halting abandons the call without blocking the tick: the connection to the provider is closed in the background and the answer, if any, is dropped.`

func callServiceType(deps Deps) runtime.NodeType {
	return runtime.NodeType{
		ID: "CallService", Kind: runtime.ActionKind,
		Summary: "Calls a ROS service; RUNNING while the call is in flight.",
		Doc:     callServiceDoc,
		Ports: []runtime.PortSpec{
			runtime.InputPort[string]("service_name", "service of the robot profile, or a service's ROS name"),
			runtime.InputPort[string]("service_type", "ROS service type, like nav_msgs/GetPlan (from the profile when empty)").WithDefault(""),
			runtime.InputPort[any]("request", "whole request (a value of the service's request type); a zero request when not given").WithDefault(""),
			runtime.InputPort[string]("request_fields", "request fields to set, as path=value; ... (values are literals or {key})").WithDefault(""),
			runtime.OutputPort[any]("response", "the service's response"),
			runtime.InputPort[string]("response_fields", "response fields to copy, as path={key}; ...").WithDefault(""),
			runtime.OutputPort[string]("error_code", "NONE, SERVICE_UNAVAILABLE, SERVICE_FAILED or TIMEOUT"),
			runtime.InputPort[time.Duration]("timeout", "FAILURE (TIMEOUT) when there is no answer within this (0: no limit)").WithDefault(DefaultServiceTimeout.String()),
		},
		New: func(c *runtime.Config) (runtime.Node, error) {
			name, err := literalPort(c, "service_name")
			if err != nil {
				return nil, err
			}
			typeName, err := literalPort(c, "service_type")
			if err != nil {
				return nil, err
			}
			service, timeout := name, DefaultServiceTimeout
			if s, ok := profileService(deps.Profile, name); ok {
				service, timeout = s.Service, s.Timeout
				if typeName == "" {
					typeName = s.Type.Name
				}
			} else if err := ros.CheckName(name); err != nil {
				return nil, fmt.Errorf("port \"service_name\": %v", err)
			}
			if typeName == "" {
				return nil, fmt.Errorf("port \"service_type\": %q is not a service of the robot profile%s, so say its type, like service_type=\"nav_msgs/GetPlan\"", name, profileNames(deps.Profile, name, false))
			}
			t, err := deps.messages().LookupKind(typeName, ros.ServiceKind)
			if err != nil {
				return nil, fmt.Errorf("port \"service_type\": %v", err)
			}
			if d, given := durationPort(c, "timeout"); given {
				timeout = d
			}
			reqT, resT := servicePart(deps.messages(), t, 0), servicePart(deps.messages(), t, 1)
			src, err := literalPort(c, "request_fields")
			if err != nil {
				return nil, err
			}
			reqFields, err := parseAssignments(src, reqT)
			if err != nil {
				return nil, fmt.Errorf("port \"request_fields\": %v", err)
			}
			src, err = literalPort(c, "response_fields")
			if err != nil {
				return nil, err
			}
			resFields, err := parseExtractions(src, resT)
			if err != nil {
				return nil, fmt.Errorf("port \"response_fields\": %v", err)
			}
			_, useReq := c.Attr("request")
			s := &serviceCall{timeout: timeout, resFields: resFields}
			if deps.Conn != nil {
				if s.client, err = ros.NewServiceClient(ros.ServiceClientConf{Conn: deps.Conn, Name: service, Srv: t}); err != nil {
					return nil, err
				}
				s.clock = deps.Conn.Clock()
			}
			s.Leaf = runtime.NewAsyncAction(func(n *runtime.Leaf) (runtime.AsyncWork, error) {
				if s.client == nil {
					return nil, errNoConn
				}
				req, err := buildMessage(n, reqT, "request", useReq, reqFields)
				if err != nil {
					return nil, err
				}
				r := &serviceRun{}
				s.run = r
				return func(ctx context.Context) (runtime.Status, error) {
					r.res, r.code, r.err = s.call(ctx, req.Interface())
					return runtime.Success, nil // decided on the tick
				}, nil
			})
			return s, nil
		},
	}
}

// serviceCall is a CallService node: an async leaf whose response is
// written to the blackboard on the tick's goroutine.
type serviceCall struct {
	*runtime.Leaf
	client    *ros.ServiceClient
	clock     runtime.Clock
	timeout   time.Duration
	resFields []extraction
	run       *serviceRun // tick's goroutine only
}

type serviceRun struct {
	halted, collected bool
	res               any
	code              string
	err               error
}

func (s *serviceCall) call(ctx context.Context, req any) (any, string, error) {
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if s.timeout > 0 {
		expired, stop := s.clock.Timer(s.clock.Now().Add(s.timeout))
		defer stop()
		go func() {
			select {
			case <-expired:
				cancel(errTimeout)
			case <-cctx.Done():
			}
		}()
	}
	res, err := s.client.Call(cctx, req)
	switch {
	case err == nil:
		return res, ros.CodeNone, nil
	case errors.Is(context.Cause(cctx), errTimeout):
		return nil, ros.CodeTimeout, err
	case errors.Is(err, ros.ErrServiceFailed):
		return nil, CodeServiceFailed, err
	default:
		return nil, CodeServiceUnavailable, err
	}
}

// Tick runs the call and, on the tick that collects it, writes the outputs.
func (s *serviceCall) Tick() (runtime.Status, error) {
	st, err := s.Leaf.Tick()
	r := s.run
	if err != nil || r == nil || r.halted || !st.Completed() || r.collected {
		return st, err
	}
	r.collected = true
	if err := writeCode(s.Leaf, r.code); err != nil {
		return runtime.Failure, err
	}
	if r.code != ros.CodeNone {
		if r.err != nil && s.Explaining() {
			s.SetReason(r.code + ": " + r.err.Error())
		}
		return runtime.Failure, nil
	}
	if _, bound := runtime.PortKey(s.Leaf, "response"); bound {
		if err := runtime.SetOutput(s.Leaf, "response", reflect.ValueOf(r.res).Elem().Interface()); err != nil {
			return runtime.Failure, err
		}
	}
	if err := writeExtractions(s.Leaf, r.res, s.resFields); err != nil {
		return runtime.Failure, err
	}
	return runtime.Success, nil
}

// Halt abandons the call in the background.
func (s *serviceCall) Halt() {
	if s.run != nil {
		s.run.halted = true
	}
	s.Leaf.Halt()
}

func profileService(p *Profile, name string) (ServiceConf, bool) {
	if p == nil {
		return ServiceConf{}, false
	}
	return p.Service(name)
}

// servicePart returns the request (0) or response (1) of a service type.
func servicePart(m *ros.Messages, srv ros.MessageType, i int) ros.MessageType {
	t := ros.EmbeddedParts(srv.Go)[i]
	name, ok := m.NameOf(t)
	if !ok {
		name = srv.Name + [...]string{"Request", "Response"}[i]
	}
	return ros.MessageType{Name: name, Kind: ros.MessageKind, Go: t}
}
