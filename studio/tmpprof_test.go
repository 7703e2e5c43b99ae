package studio_test

import (
	"testing"

	"github.com/btrobot/btrobot/mission"
	"github.com/btrobot/btrobot/runtime"
	"github.com/btrobot/btrobot/studio"
)

func BenchmarkTmpBusyTight(b *testing.B) {
	for _, withStudio := range []bool{false, true} {
		name := "alone"
		if withStudio {
			name = "studio"
		}
		b.Run(name, func(b *testing.B) {
			tree := bigTree(b, 5000)
			tree.SetExplaining(true)
			tree.Observe(runtime.ObserverFunc(func(runtime.Transition) {}))
			var dbg mission.Debugger = nopDebugger{}
			if withStudio {
				srv, _ := studio.New(studio.Conf{Addr: "127.0.0.1:0"})
				defer srv.Close()
				d, detach := attach(srv, tree)
				defer detach()
				dbg = d
			}
			b.ResetTimer()
			for range b.N {
				tick(b, tree, dbg, 1)
			}
		})
	}
}
