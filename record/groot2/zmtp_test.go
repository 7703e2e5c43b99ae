package groot2

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// peer is a raw TCP peer of the server: it writes whatever bytes a test
// wants, well-formed or not.
type peer struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func dialPeer(t *testing.T, addr string) *peer {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	return &peer{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (p *peer) write(b ...[]byte) {
	p.t.Helper()
	for _, x := range b {
		_, err := p.nc.Write(x)
		require.NoError(p.t, err)
	}
}

// zgreeting is a ZMTP greeting of version major.minor and mechanism.
func zgreeting(major, minor byte, mechanism string) []byte {
	g := make([]byte, 64)
	g[0], g[9], g[10], g[11] = 0xFF, 0x7F, major, minor
	copy(g[12:32], mechanism)
	return g
}

// zframe is one frame with the given flags, a short or long size as it
// needs (long always with flagLong in flags).
func zframe(flags byte, body []byte) []byte {
	if flags&flagLong != 0 || len(body) > 255 {
		b := binary.BigEndian.AppendUint64([]byte{flags | flagLong}, uint64(len(body)))
		return append(b, body...)
	}
	return append([]byte{flags, byte(len(body))}, body...)
}

func zready(socketType string) []byte {
	return zframe(flagCommand, commandBody("READY", property("Socket-Type", socketType)))
}

// handshake does a NULL handshake as a peer of socketType and reads the
// server's greeting and READY.
func (p *peer) handshake(socketType string) {
	p.t.Helper()
	p.write(zgreeting(3, 0, "NULL"), zready(socketType))
	p.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	var g [64]byte
	_, err := io.ReadFull(p.br, g[:])
	require.NoError(p.t, err)
	require.Equal(p.t, byte(0xFF), g[0])
	flags, err := p.br.ReadByte()
	require.NoError(p.t, err)
	require.Equal(p.t, byte(flagCommand), flags)
	n, err := p.br.ReadByte()
	require.NoError(p.t, err)
	_, err = io.ReadFull(p.br, make([]byte, n))
	require.NoError(p.t, err)
}

// closedByServer waits until the server closes the connection (reading
// and forgetting what it sends meanwhile).
func (p *peer) closedByServer() {
	p.t.Helper()
	p.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err := io.Copy(io.Discard, p.br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		require.FailNow(p.t, "the server did not close the connection within 30 s")
	}
}

// answers checks that a libzmq client still gets its answers.
func (s *served) answers(t *testing.T) {
	t.Helper()
	r := s.client.request('S', 77)
	require.Len(t, r, 2, "a STATUS reply: %q", r)
	assert.Equal(t, replyHeader('S', 77, s.id), r[0])
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// What a peer sends on the REP or the PUB port never reaches an
// allocation beyond the bounds, a crash or a hang: the server closes the
// connection, and a libzmq client is answered as before.
func TestMalformedPeers(t *testing.T) {
	tooMany := zgreeting(3, 0, "NULL")
	tooMany = append(tooMany, zready("REQ")...)
	for range maxFrames + 1 {
		tooMany = append(tooMany, zframe(flagMore, nil)...)
	}
	tooBig := append(zgreeting(3, 0, "NULL"), zready("REQ")...)
	for range 15 {
		tooBig = append(tooBig, zframe(flagMore, make([]byte, 8<<10))...)
	}
	const tib = 1 << 40
	hugeHeader := func(flags byte) []byte {
		return append(binary.BigEndian.AppendUint64([]byte{flags | flagLong}, tib), make([]byte, 16)...)
	}
	cases := []struct {
		name string
		pub  bool // on the PUB port
		send [][]byte
	}{
		{"a message frame declaring 1 TiB", false, [][]byte{zgreeting(3, 0, "NULL"), zready("REQ"), hugeHeader(0)}},
		{"a message frame declaring 1 TiB, on the PUB port", true, [][]byte{zgreeting(3, 0, "NULL"), zready("SUB"), hugeHeader(0)}},
		{"a frame one byte over the bound", false, [][]byte{zgreeting(3, 0, "NULL"), zready("REQ"), zframe(0, make([]byte, maxMessage+1))}},
		{"frames over the bound together", false, [][]byte{tooBig}},
		{"more frames than the bound", false, [][]byte{tooMany}},
		{"a READY declaring 1 TiB", false, [][]byte{zgreeting(3, 0, "NULL"), hugeHeader(flagCommand)}},
		{"a READY over the command bound", false, [][]byte{zgreeting(3, 0, "NULL"), zframe(flagCommand, commandBody("READY", property("Socket-Type", string(make([]byte, maxCommand)))))}},
		{"a command declaring 1 TiB after READY", false, [][]byte{zgreeting(3, 0, "NULL"), zready("REQ"), hugeHeader(flagCommand)}},
		{"a command inside a message", false, [][]byte{zgreeting(3, 0, "NULL"), zready("REQ"), zframe(flagMore, nil), zframe(flagCommand, commandBody("PING", nil))}},
		{"reserved frame flags", false, [][]byte{zgreeting(3, 0, "NULL"), zready("REQ"), zframe(0x80, []byte("x"))}},
		{"not a ZMTP greeting", false, [][]byte{[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n" + string(make([]byte, 64)))}},
		{"ZMTP 2.0", false, [][]byte{zgreeting(2, 0, "NULL")}},
		{"the PLAIN mechanism", false, [][]byte{zgreeting(3, 0, "PLAIN")}},
		{"the CURVE mechanism", false, [][]byte{zgreeting(3, 1, "CURVE")}},
		{"a command other than READY first", false, [][]byte{zgreeting(3, 0, "NULL"), zframe(flagCommand, commandBody("PING", nil))}},
		{"a message instead of READY", false, [][]byte{zgreeting(3, 0, "NULL"), zframe(0, []byte("hello"))}},
		{"READY with a cut property", false, [][]byte{zgreeting(3, 0, "NULL"), zframe(flagCommand, commandBody("READY", []byte{11, 'S', 'o'}))}},
		{"READY with a property longer than the command", false, [][]byte{zgreeting(3, 0, "NULL"), zframe(flagCommand, commandBody("READY", append([]byte{1, 'x', 0xff, 0xff, 0xff, 0xff}, "abc"...)))}},
		{"a command without a name", false, [][]byte{zgreeting(3, 0, "NULL"), zframe(flagCommand, []byte{200})}},
		{"a PUB peer on the REP port", false, [][]byte{zgreeting(3, 0, "NULL"), zready("PUB")}},
		{"a REQ peer on the PUB port", true, [][]byte{zgreeting(3, 0, "NULL"), zready("REQ")}},
		{"an ERROR command", false, [][]byte{zgreeting(3, 0, "NULL"), zready("REQ"), zframe(flagCommand, commandBody("ERROR", []byte("\x03bye")))}},
	}
	s := serve(t, 5*time.Second)
	port, err := strconv.Atoi(s.server.Addr()[len("127.0.0.1:"):])
	require.NoError(t, err)
	before := heapInUse()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			addr := s.server.Addr()
			if c.pub {
				addr = "127.0.0.1:" + strconv.Itoa(port+1)
			}
			p := dialPeer(t, addr)
			p.write(c.send...)
			p.closedByServer()
			s.answers(t)
		})
	}
	assert.Less(t, heapInUse(), before+64<<20, "the heap grew by more than 64 MiB")
}

// A peer that connects and says nothing, or stops in the middle of a
// message, holds up no one: others are answered while it waits, and the
// server closes it within its deadlines.
func TestHalfOpenPeers(t *testing.T) {
	cases := []struct {
		name string
		send [][]byte
	}{
		{"connects and sends nothing", nil},
		{"sends half a greeting", [][]byte{zgreeting(3, 0, "NULL")[:10]}},
		{"greets and sends no READY", [][]byte{zgreeting(3, 0, "NULL")}},
		{"stops in the middle of a frame", [][]byte{zgreeting(3, 0, "NULL"), zready("REQ"), {flagMore, 40, 'a', 'b'}}},
		{"stops between the frames of a message", [][]byte{zgreeting(3, 0, "NULL"), zready("REQ"), zframe(flagMore, nil)}},
	}
	s := serve(t, 5*time.Second)
	// Every case's peers stop at once, so that the server's deadlines run
	// out together (one handshake or message timeout in all, not one a
	// case); meanwhile all of them together block no one.
	stuck := map[string][]*peer{}
	for _, c := range cases {
		for range 3 {
			p := dialPeer(t, s.server.Addr())
			p.write(c.send...)
			stuck[c.name] = append(stuck[c.name], p)
		}
	}
	s.answers(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, p := range stuck[c.name] {
				p.t = t
				p.closedByServer()
			}
		})
	}
}

// More connections than the bound: the oldest go, the server holds at
// most maxConns, and a client that comes after them is answered.
func TestManyConnections(t *testing.T) {
	s := serve(t, 5*time.Second)
	cases := []struct {
		name      string
		handshake bool
	}{
		{"connections that say nothing", false},
		{"connections that complete their handshake and fall silent", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var peers []*peer
			for range 3 * maxConns {
				p := dialPeer(t, s.server.Addr())
				if c.handshake {
					p.write(zgreeting(3, 0, "NULL"), zready("DEALER"))
				}
				peers = append(peers, p)
			}
			peers[0].closedByServer()
			assert.LessOrEqual(t, s.server.rep.open(), maxConns)
			// the REQ client's connection may have been the oldest:
			// libzmq reconnects it
			s.answers(t)
			for _, p := range peers {
				p.nc.Close()
			}
		})
	}
}

// A DEALER that floods the server with requests and reads no reply
// starves no one: a REQ client is answered meanwhile.
func TestFloodStarvesNoOne(t *testing.T) {
	s := serve(t, 5*time.Second)
	port, err := strconv.Atoi(s.server.Addr()[len("127.0.0.1:"):])
	require.NoError(t, err)
	cmd := exec.Command(pythonPath, "testdata/flood.py", strconv.Itoa(port), "50000")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	defer func() {
		in.Close()
		require.NoError(t, cmd.Wait())
	}()
	lines := bufio.NewScanner(out)
	require.True(t, lines.Scan(), "the flood did not start")
	var sent struct{ Sent int }
	require.NoError(t, json.Unmarshal(lines.Bytes(), &sent))
	require.Equal(t, 1000, sent.Sent, "requests out before the client asks")
	for i := range 20 {
		r := s.client.request('S', uint32(i))
		require.Len(t, r, 2, "reply %d: %q", i, r)
		require.Equal(t, replyHeader('S', uint32(i), s.id), r[0])
	}
	require.True(t, lines.Scan(), "the flood did not end")
	s.answers(t)
}
