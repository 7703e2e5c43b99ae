package tcpros_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/tcpros"
)

// TestChurn: publishers publishing while subscribers come and go and the
// server closes under them: no race, no goroutine left (newServer's
// check), every subscription ends.
func TestChurn(t *testing.T) {
	s := newServer(t, tcpros.ServerConf{})
	pubs := []*tcpros.Publisher{
		publish(t, s, "/a", &geometry_msgs.Twist{}, true),
		publish(t, s, "/b", &geometry_msgs.Twist{}, false),
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range pubs {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				p.Publish(&geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: 1}})
				time.Sleep(100 * time.Microsecond)
			}
		})
	}
	var subs []*tcpros.Subscription
	var mu sync.Mutex
	for i := range 40 {
		topic := []string{"/a", "/b"}[i%2]
		sub, _, err := subscribe(t, s, topic, &geometry_msgs.Twist{}, tcpros.SubscriberConf{})
		require.NoError(t, err)
		if i%3 == 0 {
			sub.Close()
			continue
		}
		mu.Lock()
		subs = append(subs, sub)
		mu.Unlock()
	}
	pubs[1].Close()
	require.NoError(t, s.Close())
	close(stop)
	wg.Wait()
	for _, sub := range subs {
		select {
		case <-sub.Done():
		case <-time.After(10 * time.Second):
			require.FailNow(t, "every subscription ends within 10 s of the server's close")
		}
	}
	assert.Error(t, pubs[0].Publish(&geometry_msgs.Twist{}), "publishing after close")
}

// TestServiceCallCancelled: a call whose context ends while the handler
// still works returns the context's error at once, and the client can call
// again.
func TestServiceCallCancelled(t *testing.T) {
	s := newServer(t, tcpros.ServerConf{})
	release := make(chan struct{})
	defer close(release)
	first := true
	var mu sync.Mutex
	md5 := provideSetBool(t, s, tcpros.ServiceConf{Handler: func(any) (any, error) {
		mu.Lock()
		wait := first
		first = false
		mu.Unlock()
		if wait {
			<-release
		}
		return std_srvs.SetBoolRes{Success: true}, nil
	}})
	cl := tcpros.NewServiceClient(tcpros.ServiceClientConf{Addr: s.Addr().String(), CallerID: "/me", Service: "/set", MD5: md5, Persistent: true})
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	var res std_srvs.SetBoolRes
	err := cl.Call(ctx, &std_srvs.SetBoolReq{Data: true}, &res)
	require.Error(t, err)
	assert.ErrorContains(t, err, "i/o timeout")
	assert.Less(t, time.Since(start), 10*time.Second, "returns within 10 s")
	require.NoError(t, cl.Call(context.Background(), &std_srvs.SetBoolReq{Data: true}, &res), "a new connection")
	assert.True(t, res.Success)
}
