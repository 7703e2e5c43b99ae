package ros

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/ros/master"
	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/ros/tcpros"
)

func heapInuse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestTCPROSWireHostilePublisher: a peer registered as a publisher of a
// topic the Conn subscribes to declares 1 GiB (as its connection header,
// or as a message after a valid header); with the tcpros wire the Conn's
// heap stays bounded and the subscription keeps working with the other
// publishers (issue 24: nothing a peer sends reaches an unbounded
// allocation).
func TestTCPROSWireHostilePublisher(t *testing.T) {
	const gib = 1 << 30
	float64MD5 := "fdb28210bfa9d7c91146260178d9a584"
	cases := []struct {
		name string
		send func(c net.Conn) bool
	}{
		{"a header declaring 1 GiB", func(c net.Conn) bool { return rostest.Declare(c, gib) }},
		{"a message declaring 1 GiB after a valid header", func(c net.Conn) bool {
			h := tcpros.Header{"callerid": "/hostile", "topic": "/odom_x", "type": "std_msgs/Float64", "md5sum": float64MD5}
			return tcpros.WriteHeader(c, h) == nil && rostest.Declare(c, gib)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			c := connectWire(t, uri, WireTCPROS, "btrobot")
			got := make(chan float64, 100)
			_, err := Subscribe(c, "/odom_x", func(m *std_msgs.Float64) {
				select {
				case got <- m.Data:
				default:
				}
			})
			require.NoError(t, err)
			before := heapInuse()
			hostile := rostest.StartHostilePublisher(t, uri, "/odom_x", "std_msgs/Float64", 1, tc.send)
			select {
			case <-hostile.Refused:
			case <-time.After(20 * time.Second):
				require.FailNow(t, "the Conn did not close the hostile publisher's connection within 20 s")

			}
			good := connectWire(t, uri, WireTCPROS, "odometry")
			pub, err := NewPublisher(PublisherConf{Conn: good, Topic: "/odom_x", Msg: &std_msgs.Float64{}})
			require.NoError(t, err)
			require.Eventually(t, func() bool {
				pub.Publish(&std_msgs.Float64{Data: 4.5})
				select {
				case v := <-got:
					return v == 4.5
				default:
					return false
				}
			}, 20*time.Second, 10*time.Millisecond, "the subscription still works with the honest publisher")
			grown := int64(heapInuse()) - int64(before)
			t.Logf("heap in use grew by %d KiB", grown/1024)
			assert.Less(t, grown, int64(64<<20), "the Conn's heap stays bounded (far below the 1 GiB declared)")
		})
	}
}

// TestTCPROSWireInterop: the Conn API on the tcpros wire with rospy's
// tools on Debian's rosmaster and on the embedded master.
func TestTCPROSWireInterop(t *testing.T) {
	rostest.Require(t, "rostopic", "rosservice")
	cases := []struct {
		name string
		run  func(t *testing.T, uri string, c *Conn)
	}{
		{"rostopic pub reaches a Conn's subscription", func(t *testing.T, uri string, c *Conn) {
			sub, err := Subscribe[std_msgs.Float64](c, "/from_rospy", nil)
			require.NoError(t, err)
			rostest.Start(t, uri, "rostopic", "pub", "-r", "10", "/from_rospy", "std_msgs/Float64", "data: 2.5")
			require.Eventually(t, func() bool {
				m, _, n := sub.Newest()
				f, ok := m.(*std_msgs.Float64)
				return n > 0 && ok && f.Data == 2.5
			}, 30*time.Second, 10*time.Millisecond)
		}},
		{"rostopic echo reads a Conn's publisher", func(t *testing.T, uri string, c *Conn) {
			pub, err := NewPublisher(PublisherConf{Conn: c, Topic: "/to_rospy", Msg: &std_msgs.String{}})
			require.NoError(t, err)
			p := rostest.Start(t, uri, "rostopic", "echo", "/to_rospy")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			require.NoError(t, c.WaitSubscribers(ctx, "/to_rospy", 1))
			line := make(chan string, 1)
			go func() { line <- p.WaitLine(t, "data:", 30*time.Second) }()
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				pub.Publish(&std_msgs.String{Data: "hello from btrobot"})
				select {
				case l := <-line:
					assert.Contains(t, l, "hello from btrobot")
					return
				case <-tick.C:
				}
			}
		}},
		{"rosservice call answered by a Conn's service", func(t *testing.T, uri string, c *Conn) {
			_, err := NewServiceServer(ServiceServerConf{Conn: c, Name: "/btrobot_enable", Srv: std_srvs.SetBool{},
				Handler: func(req any) (any, error) {
					r := req.(*std_srvs.SetBoolReq)
					return &std_srvs.SetBoolRes{Success: r.Data, Message: fmt.Sprintf("set %v", r.Data)}, nil
				}})
			require.NoError(t, err)
			out := rostest.Run(t, uri, 60*time.Second, "rosservice", "call", "/btrobot_enable", "data: true")
			assert.Contains(t, out, "success: True")
			assert.Contains(t, out, "set true")
		}},
		{"goroslib calls a Conn's service, and an unknown one is unavailable", func(t *testing.T, uri string, c *Conn) {
			_, err := NewServiceServer(ServiceServerConf{Conn: c, Name: "/echo_back", Srv: std_srvs.Trigger{},
				Handler: func(any) (any, error) { return &std_srvs.TriggerRes{Success: true, Message: "pong"}, nil }})
			require.NoError(t, err)
			other := connectWire(t, uri, WireGoroslib, "goroslib_peer")
			client, err := NewServiceClient(ServiceClientConf{Conn: other, Name: "/echo_back", Srv: std_srvs.Trigger{}})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			res, err := client.Call(ctx, &std_srvs.TriggerReq{})
			require.NoError(t, err, "goroslib calls the tcpros wire's service")
			assert.Equal(t, "pong", res.(*std_srvs.TriggerRes).Message)
			mine, err := NewServiceClient(ServiceClientConf{Conn: c, Name: "/nobody", Srv: std_srvs.Trigger{}})
			require.NoError(t, err)
			_, err = mine.Call(ctx, &std_srvs.TriggerReq{})
			require.True(t, errors.Is(err, ErrServiceUnavailable), "%v", err)
		}},
	}
	rostest.EachMaster(t, func(t *testing.T, uri string) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) { tc.run(t, uri, connectWire(t, uri, WireTCPROS, "btrobot")) })
		}
	})
}

// TestConfWire: the zero Conf runs on btrobot's own TCPROS (issue 24: a
// peer cannot make the default node allocate what it declares); goroslib's
// wire is chosen by name; an unknown wire is a clear error.
func TestConfWire(t *testing.T) {
	uri := rostest.StartMaster(t)
	cases := []struct {
		wire string
		want any
		err  string
	}{
		{"", &tcprosWire{}, ""},
		{WireTCPROS, &tcprosWire{}, ""},
		{WireGoroslib, &rosWire{}, ""},
		{"zeromq", nil, `wire "zeromq": the wires are "tcpros" (the default) and "goroslib"`},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%q", tc.wire), func(t *testing.T) {
			c, err := Connect(Conf{MasterURI: uri, Host: "127.0.0.1", Wire: tc.wire})
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			defer c.Close()
			assert.IsType(t, tc.want, c.wire)
		})
	}
}

// TestTCPROSWireNoLeaks: nodes of the tcpros wire that used every kind of
// endpoint, connected to each other, leave no goroutine behind once closed.
func TestTCPROSWireNoLeaks(t *testing.T) {
	rostest.VerifyNoLeaks(t)
	t.Run("session", func(t *testing.T) {
		uri := rostest.StartMaster(t)
		a := connectWire(t, uri, WireTCPROS, "a")
		require.NoError(t, a.SetParam("/use_sim_time", true))
		b := connectWire(t, uri, WireTCPROS, "b")
		require.NotNil(t, b.SimClock())
		sub, err := Subscribe[std_msgs.Float64](b, "/cmd_vel", nil)
		require.NoError(t, err)
		pub, err := NewPublisher(PublisherConf{Conn: a, Topic: "/cmd_vel", Msg: std_msgs.Float64{}})
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			pub.Publish(&std_msgs.Float64{Data: 1})
			_, _, n := sub.Newest()
			return n > 0
		}, 20*time.Second, 10*time.Millisecond)
		_, err = NewActionClient(ActionClientConf{Conn: b, Name: "move_base", Action: MoveBaseAction{}})
		require.NoError(t, err)
		_, err = NewServiceServer(ServiceServerConf{Conn: a, Name: "/s", Srv: std_srvs.Trigger{},
			Handler: func(any) (any, error) { return std_srvs.TriggerRes{Success: true}, nil }})
		require.NoError(t, err)
		client, err := NewServiceClient(ServiceClientConf{Conn: b, Name: "/s", Srv: std_srvs.Trigger{}})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err = client.Call(ctx, &std_srvs.TriggerReq{})
		require.NoError(t, err)
		require.NoError(t, b.Close())
		require.NoError(t, a.Close())
	})
}

// TestTCPROSWireSlaveAPIBounded: the node's slave API answers a hostile
// caller with an error, in bounded memory, and keeps answering others.
func TestTCPROSWireSlaveAPIBounded(t *testing.T) {
	uri := rostest.StartMaster(t)
	c := connectWire(t, uri, WireTCPROS, "btrobot")
	hc := &http.Client{Timeout: 10 * time.Second}
	nested := strings.Repeat("<value><array><data>", 1000)
	cases := []struct {
		name string
		body func() io.Reader
		size int64 // Content-Length, -1 for chunked
	}{
		{"a body declaring 1 GiB", func() io.Reader { return io.LimitReader(zeros{}, 1<<30) }, 1 << 30},
		{"a chunked body of 64 MiB", func() io.Reader { return io.LimitReader(zeros{}, 64<<20) }, -1},
		{"arrays nested 1,000 deep", func() io.Reader {
			return strings.NewReader(`<?xml version="1.0"?><methodCall><methodName>getPid</methodName><params><param>` + nested)
		}, -1},
		{"not XML", func() io.Reader { return strings.NewReader("\x00\x01garbage") }, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := heapInuse()
			req, err := http.NewRequest(http.MethodPost, c.SlaveURI(), tc.body())
			require.NoError(t, err)
			req.ContentLength = tc.size
			res, err := hc.Do(req)
			if err == nil {
				b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
				res.Body.Close()
				ok := res.StatusCode != http.StatusOK || strings.Contains(string(b), "<fault>")
				assert.True(t, ok, "refused: HTTP %d %s", res.StatusCode, b)
			}
			grown := int64(heapInuse()) - int64(before)
			assert.Less(t, grown, int64(16<<20), "bounded memory")
			v, err := master.Call(context.Background(), hc, c.SlaveURI(), "getPid", 1<<20, "/tester")
			require.NoError(t, err, "the slave API still answers")
			assert.Equal(t, []any{1, "", os.Getpid()}, v)
		})
	}
}

// zeros reads as an endless run of '0'.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// TestTCPROSWireSlaveAPIFlood: 500 connections to the slave API that send
// nothing do not keep a caller out: the slave API serves a bounded number
// and makes room.
func TestTCPROSWireSlaveAPIFlood(t *testing.T) {
	uri := rostest.StartMaster(t)
	c := connectWire(t, uri, WireTCPROS, "btrobot")
	addr := strings.TrimSuffix(strings.TrimPrefix(c.SlaveURI(), "http://"), "/")
	var flood []net.Conn
	t.Cleanup(func() {
		for _, f := range flood {
			f.Close()
		}
	})
	for range 500 {
		f, err := net.DialTimeout("tcp", addr, 5*time.Second)
		require.NoError(t, err)
		flood = append(flood, f)
	}
	v, err := master.Call(context.Background(), &http.Client{Timeout: 20 * time.Second}, c.SlaveURI(), "getPid", 1<<20, "/tester")
	require.NoError(t, err, "the slave API answers within 20 s despite the flood")
	assert.Equal(t, []any{1, "", os.Getpid()}, v)
}

// TestTCPROSWirePublisherUpdateBounded: a publisherUpdate naming 10,000
// publishers (all behind a port that accepts and never answers) makes the
// node connect to at most a bounded number of them at once.
func TestTCPROSWirePublisherUpdateBounded(t *testing.T) {
	uri := rostest.StartMaster(t)
	c := connectWire(t, uri, WireTCPROS, "btrobot")
	_, err := Subscribe[std_msgs.Float64](c, "/odom_x", nil)
	require.NoError(t, err)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var held []net.Conn
	accepted := make(chan struct{})
	go func() {
		defer close(accepted)
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, conn)
		}
	}()
	t.Cleanup(func() {
		silent.Close()
		<-accepted
		for _, h := range held {
			h.Close()
		}
	})
	uris := make([]any, 10000)
	for i := range uris {
		uris[i] = fmt.Sprintf("http://%s/p%d", silent.Addr(), i)
	}
	before := runtime.NumGoroutine()
	v, err := master.Call(context.Background(), &http.Client{Timeout: 20 * time.Second}, c.SlaveURI(), "publisherUpdate", 1<<20,
		"/master", "/odom_x", uris)
	require.NoError(t, err)
	assert.Equal(t, []any{1, "", 0}, v)
	grown := runtime.NumGoroutine() - before
	t.Logf("goroutines grew by %d", grown)
	assert.Less(t, grown, 2000, "connections to announced publishers are bounded")
}

// TestTCPROSWireReconnects: a subscription connects again to a publisher
// the master lists after a failed attempt (its slave API refused, as a
// node too slow to answer on a loaded machine does) or after its
// connection dropped, as roscpp does: before, one failed requestTopic left
// the subscription without that publisher for good (a hil fleet run waited
// three minutes for two robots' lockstep acknowledgements that never came).
func TestTCPROSWireReconnects(t *testing.T) {
	cases := []struct {
		name    string
		refuse  int  // requestTopic calls refused first
		dropOne bool // the first connection is cut
	}{
		{"requestTopic refused twice", 2, false},
		{"the first connection cut", 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			uri := rostest.StartMaster(t)
			talker := connectWire(t, uri, WireTCPROS, "talker")
			pub, err := NewPublisher(PublisherConf{Conn: talker, Topic: "/chatter", Msg: &std_msgs.Float64{}})
			require.NoError(t, err)
			// Only the front lists the talker: a slave API of its own and
			// a TCP relay to the talker's port, whose first connection
			// can be cut.
			_, err = master.Call(context.Background(), &http.Client{Timeout: 5 * time.Second}, uri, "unregisterPublisher", 1<<20,
				"/talker", "/chatter", talker.SlaveURI())
			require.NoError(t, err)
			relay, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			t.Cleanup(func() { relay.Close() })
			first := make(chan net.Conn, 1)
			go func() {
				for {
					c, err := relay.Accept()
					if err != nil {
						return
					}
					up, err := net.Dial("tcp", talker.wire.(*tcprosWire).srv.Addr().String())
					if err != nil {
						c.Close()
						continue
					}
					select {
					case first <- c:
					default:
					}
					go func() { io.Copy(up, c); up.Close() }() //nolint:errcheck
					go func() { io.Copy(c, up); c.Close() }()  //nolint:errcheck
				}
			}()
			api, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			var calls atomic.Int32
			srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				method, _, err := master.ReadCall(http.MaxBytesReader(w, r.Body, 1<<20))
				switch {
				case err != nil:
					master.WriteFault(w, 1, err.Error())
				case method == "requestTopic" && int(calls.Add(1)) <= tc.refuse:
					master.WriteResponse(w, []any{-1, "not now", 0})
				case method == "requestTopic":
					master.WriteResponse(w, []any{1, "", []any{"TCPROS", "127.0.0.1", relay.Addr().(*net.TCPAddr).Port}})
				default:
					master.WriteResponse(w, []any{1, "", 0})
				}
			})}
			go srv.Serve(api) //nolint:errcheck
			t.Cleanup(func() { srv.Close() })
			_, err = master.Call(context.Background(), &http.Client{Timeout: 5 * time.Second}, uri, "registerPublisher", 1<<20,
				"/front", "/chatter", "std_msgs/Float64", "http://"+api.Addr().String()+"/")
			require.NoError(t, err)

			listener := connectWire(t, uri, WireTCPROS, "listener")
			got := make(chan float64, 100)
			_, err = Subscribe(listener, "/chatter", func(m *std_msgs.Float64) {
				select {
				case got <- m.Data:
				default:
				}
			})
			require.NoError(t, err)
			received := func() bool {
				pub.Publish(&std_msgs.Float64{Data: 1})
				select {
				case <-got:
					return true
				case <-time.After(20 * time.Millisecond):
					return false
				}
			}
			require.Eventually(t, received, 15*time.Second, 10*time.Millisecond, "messages through the front")
			if tc.dropOne {
				(<-first).Close()
				require.Eventually(t, func() bool { return listener.PublisherDrops("/chatter") > 0 }, 10*time.Second, 5*time.Millisecond, "the cut seen")
				for len(got) > 0 {
					<-got
				}
				require.Eventually(t, received, 15*time.Second, 10*time.Millisecond, "messages after the cut")
			}
		})
	}
}
