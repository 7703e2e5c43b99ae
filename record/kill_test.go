package record

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/trees"
)

// recordForever is the child of TestKilledRecordingKeepsAllButTheLastSecond:
// it records the patrol tree on the wall clock at 100 Hz and prints the
// time of every tick until it is killed.
func recordForever(path string) {
	doc, err := trees.Parse("patrol.xml", []byte(patrolXML))
	if err != nil {
		panic(err)
	}
	tree, err := runtime.Build(runtime.NewRegistry(), doc, runtime.BuildConf{})
	if err != nil {
		panic(err)
	}
	rec, err := New(Conf{Path: path, Tree: tree, Document: doc})
	if err != nil {
		panic(err)
	}
	rec.Attach()
	for seq := uint64(1); ; seq++ {
		start := time.Now()
		st, err := tree.TickExactlyOnce()
		if err != nil {
			panic(err)
		}
		rec.OnTick(runtime.TickReport{Seq: seq, Start: start, Status: st})
		fmt.Printf("tick %d %d\n", seq, start.UnixMicro())
		time.Sleep(10 * time.Millisecond)
	}
}

// A recorder whose process is killed (SIGKILL: no Close, no deferred
// flush) leaves a file that opens and holds every tick but those of the
// last second.
func TestKilledRecordingKeepsAllButTheLastSecond(t *testing.T) {
	if path := os.Getenv("BTROBOT_RECORD_CHILD"); path != "" {
		recordForever(path)
		return
	}
	for _, file := range []string{"killed.btlog", "killed.db3"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), file)
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledRecordingKeepsAllButTheLastSecond$")
			cmd.Env = append(os.Environ(), "BTROBOT_RECORD_CHILD="+path)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			// Killed once it has ticked for 2 s at 100 Hz, counted in ticks
			// rather than from its start: a child slow to start under load
			// still ticks enough. A child that never gets there is killed
			// after a minute, and fails.
			stuck := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
			defer stuck.Stop()
			lines := bufio.NewScanner(out)
			var lastSeq, lastAt int64
			for lastSeq < 200 && lines.Scan() {
				f := strings.Fields(lines.Text())
				if len(f) == 3 && f[0] == "tick" {
					lastSeq, _ = strconv.ParseInt(f[1], 10, 64)
					lastAt, _ = strconv.ParseInt(f[2], 10, 64)
				}
			}
			cmd.Process.Kill()
			cmd.Wait()
			require.Equal(t, int64(200), lastSeq, "the child ticked")

			r, err := Open(path)
			require.NoError(t, err)
			defer r.Close()
			_, last := r.Span()
			lost := time.UnixMicro(lastAt).Sub(last)
			assert.Less(t, lost, time.Second, "the recording ends %v before the last tick the child reported", lost)
			s, err := r.StateAt(last)
			require.NoError(t, err)
			assert.Equal(t, runtime.Running, s.Statuses[0], "the patrol was running")
			if r.Format() == "sqlite" {
				ticks, err := r.Ticks(r.Header().Start, last.Add(time.Microsecond))
				require.NoError(t, err)
				assert.Greater(t, int64(len(ticks)), lastSeq-100, "ticks recorded, of %d", lastSeq)
			}
		})
	}
}
