package master

import (
	"fmt"

	"github.com/bluenviron/goroslib/v2/pkg/apislave"
)

// ShutdownNode asks the node registered as name (a global name, such as
// /robot1/btrobot) to shut down, with reason, by the call a master makes on
// a node's slave API when another node takes its name (rosnode kill makes
// the same call). The call is queued and made in the background, as the
// master's other calls to nodes are: ShutdownNode does not wait for the
// node's answer. The error says that no node of that name is registered.
func (m *Master) ShutdownNode(name, reason string) error {
	if err := checkGraphName("node", name); err != nil {
		return err
	}
	name = resolveName(name, "/")
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.graph.nodes[name]
	if !ok {
		return fmt.Errorf("no node named %s is registered", name)
	}
	m.slaves.send(n.api, slaveCall{
		method: "shutdown",
		params: apislave.RequestShutdown{CallerID: masterCallerID, Reason: reason},
	})
	return nil
}
