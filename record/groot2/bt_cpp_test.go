package groot2

import (
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/btrobot/btrobot/ros/rostest"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

type session struct {
	Step    string
	Replies []struct {
		Name    string
		Request []string
		Reply   []string
	}
}

func loadSession(t *testing.T, path string) session {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var s session
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}

// The same Groot2 session, sent through libzmq to BT.CPP 4.10's
// Groot2Publisher (testdata/bt.cpp, see its README) and to btrobot's
// server, on the same tree after the same three ticks, gets the same
// replies field by field: the UUID, the recording's start time and the
// subtree's _fullpath (BT.CPP's "Step::4", btrobot's node path) aside, and
// the tree's XML compared element by element (the node models differ: each
// has its own palette).
func TestSameRepliesAsBTCPP(t *testing.T) {
	rostest.Require(t, "zmq") // libzmq's Python binding, as Groot2 links libzmq
	want := loadSession(t, "testdata/bt.cpp/groot2_session.json")

	src, err := os.ReadFile("testdata/bt.cpp/counter.xml")
	require.NoError(t, err)
	doc, err := trees.Parse("counter.xml", src)
	require.NoError(t, err)
	clock := runtime.NewManualClock(time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{Clock: clock})
	require.NoError(t, err)
	port := rostest.FreePortPair(t)
	id := uuid.New()
	srv, err := New(Conf{Tree: tree, Document: doc, Host: "127.0.0.1", Port: port, TreeID: id})
	require.NoError(t, err)
	detach := srv.Attach()
	defer func() { require.NoError(t, srv.Close()); detach() }()
	for range 3 {
		_, err := tree.TickOnce()
		require.NoError(t, err)
		clock.Advance(2 * time.Millisecond)
	}
	out := filepath.Join(t.TempDir(), "session.json")
	cmd := exec.Command(pythonPath, "testdata/session.py", itoa(port), out)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Run())
	got := loadSession(t, out)

	require.Len(t, got.Replies, len(want.Replies))
	for i, w := range want.Replies {
		g := got.Replies[i]
		t.Run(w.Name, func(t *testing.T) {
			require.Equal(t, w.Name, g.Name)
			wf, gf := unhex(t, w.Reply), unhex(t, g.Reply)
			require.Len(t, gf, len(wf), "frames")
			if len(wf[0]) == 22 { // a reply header: the UUID is each server's own
				assert.Equal(t, wf[0][:6], gf[0][:6], "request echoed")
				assert.Equal(t, id[:], gf[0][6:])
			} else {
				assert.Equal(t, wf[0], gf[0])
			}
			for k := 1; k < len(wf); k++ {
				switch w.Name {
				case "full tree":
					assert.Equal(t, treeElements(t, string(wf[k]), want.Step), treeElements(t, string(gf[k]), got.Step))
				case "blackboards":
					var wd, gd map[string]any
					require.NoError(t, msgpack.Unmarshal(wf[k], &wd))
					require.NoError(t, msgpack.Unmarshal(gf[k], &gd))
					wd[got.Step] = wd[want.Step]
					delete(wd, want.Step)
					assert.Equal(t, wd, gd)
				case "start recording":
					assert.Regexp(t, `^\d{16}$`, string(gf[k]))
				default:
					assert.Equal(t, string(wf[k]), string(gf[k]))
				}
			}
		})
	}
}

func unhex(t *testing.T, frames []string) [][]byte {
	out := make([][]byte, len(frames))
	for i, f := range frames {
		b, err := hex.DecodeString(f)
		require.NoError(t, err)
		out[i] = b
	}
	return out
}

// treeElements lists the elements inside <BehaviorTree>s with their
// attributes (the subtree's _fullpath written as STEP), one per line.
func treeElements(t *testing.T, text, step string) []string {
	d := xml.NewDecoder(strings.NewReader(text))
	var out []string
	inTree := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch e := tok.(type) {
		case xml.StartElement:
			if e.Name.Local == "BehaviorTree" {
				inTree++
			}
			if inTree == 0 {
				continue
			}
			var attrs []string
			for _, a := range e.Attr {
				v := a.Value
				if a.Name.Local == "_fullpath" && v == step {
					v = "STEP"
				}
				attrs = append(attrs, a.Name.Local+"="+v)
			}
			sortStrings(attrs)
			out = append(out, e.Name.Local+" "+strings.Join(attrs, " "))
		case xml.EndElement:
			if e.Name.Local == "BehaviorTree" {
				inTree--
			}
		}
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Every request kind with no argument, an empty argument frame and a
// non-empty one, sent by a libzmq REQ, gets the reply BehaviorTree.CPP
// 4.10's Groot2Publisher gives, frame by frame (testdata/bt.cpp/
// empty_frames.json, see its README: reasoned from BT.CPP's source).
// "=HEADER" is the request's 6 bytes and the tree's UUID, "=TREE" and
// "=STATUS" the server's own answer to a plain request, "=ERROR_TEXT" an
// error message worded by each side's JSON library.
func TestEmptyFramesAsBTCPP(t *testing.T) {
	var want struct {
		Cases []struct {
			Name    string
			Request []string
			Reply   []string
			Why     string
		}
	}
	b, err := os.ReadFile("testdata/bt.cpp/empty_frames.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &want))
	s := serve(t, time.Minute)
	tree := s.client.request('T', 1000)
	status := s.client.request('S', 1001)
	require.Len(t, tree, 2)
	require.Len(t, status, 2)
	for _, c := range want.Cases {
		t.Run(c.Name, func(t *testing.T) {
			req := unhex(t, c.Request)
			got := s.client.raw(req...)
			require.Len(t, got, len(c.Reply), "frames: %q (BT.CPP: %s)", got, c.Why)
			for k, w := range c.Reply {
				switch w {
				case "=HEADER":
					assert.Equal(t, append(slices.Clone(req[0]), s.id[:]...), got[k], "frame %d", k)
				case "=TREE":
					assert.Equal(t, string(tree[1]), string(got[k]), "frame %d", k)
				case "=STATUS":
					assert.Equal(t, status[1], got[k], "frame %d", k)
				case "=ERROR_TEXT":
					assert.NotEmpty(t, got[k], "frame %d", k)
				default:
					assert.Equal(t, w, hex.EncodeToString(got[k]), "frame %d (BT.CPP: %s)", k, c.Why)
				}
			}
		})
	}
}
