package ros

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"

	"github.com/btrobot/btrobot/ros/rostest"
)

// TestServiceServerHelper: the Go service provider against the Go client,
// with a handler error seen as a failed call.
func TestServiceServerHelper(t *testing.T) {
	uri := rostest.StartMaster(t)
	sc := connect(t, uri, "provider")
	calls := 0
	if _, err := NewServiceServer(ServiceServerConf{Conn: sc, Name: "reset", Srv: std_srvs.Trigger{}, Handler: func(req any) (any, error) {
		calls++
		if calls == 2 {
			return nil, errors.New("not now")
		}
		return std_srvs.TriggerRes{Success: true, Message: "reset"}, nil
	}}); err != nil {
		t.Fatal(err)
	}
	c := connect(t, uri, "caller")
	client, err := NewServiceClient(ServiceClientConf{Conn: c, Name: "/reset", Srv: &std_srvs.Trigger{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := client.Call(ctx, std_srvs.TriggerReq{})
	if err != nil || !res.(*std_srvs.TriggerRes).Success || res.(*std_srvs.TriggerRes).Message != "reset" {
		t.Fatalf("first call: %v, %v", res, err)
	}
	if _, err := client.Call(ctx, &std_srvs.TriggerReq{}); !errors.Is(err, ErrServiceFailed) {
		t.Fatalf("second call: %v, want ErrServiceFailed", err)
	}
	if _, err := client.Call(ctx, std_srvs.SetBoolReq{}); err == nil || !strings.Contains(err.Error(), "want a request of type") {
		t.Fatalf("wrong request type: %v", err)
	}
	if _, err := NewServiceClient(ServiceClientConf{Conn: c, Name: "/reset", Srv: std_srvs.SetBool{}}); err == nil || !strings.Contains(err.Error(), "already calls it as std_srvs/Trigger") {
		t.Fatalf("type clash: %v", err)
	}
	other, err := NewServiceClient(ServiceClientConf{Conn: c, Name: "/absent", Srv: std_srvs.Trigger{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Call(ctx, std_srvs.TriggerReq{}); !errors.Is(err, ErrServiceUnavailable) {
		t.Fatalf("absent service: %v, want ErrServiceUnavailable", err)
	}
}
