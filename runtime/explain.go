package runtime

// Cause is one link of a tree's explanation of its outcome: a node on the
// path from the root to the leaf whose result decided it, with the status
// it returned and the reason it stated (empty when it stated none).
type Cause struct {
	Path   string
	Type   string
	Status Status
	Reason string
}

// Explain returns why the tree ended as it did: the chain of nodes from the
// root to the first leaf whose result decided the root's last status, each
// with its reason. Nil before the root has completed.
//
// TODO(reasons): this is the agreed shape; the mechanism lands with the
// reasons work (Base.SetReason and friends).
func (t *Tree) Explain() []Cause { return nil }
