package runtime

// RegisterCondition registers a condition node type whose instances call
// f on every tick (see ConditionFunc):
//
//	err := reg.RegisterCondition("IsDocked", nil, func(n *runtime.Leaf) (bool, error) {
//		return dock.Contact(), nil
//	})
func (r *Registry) RegisterCondition(id string, ports []PortSpec, f ConditionFunc) error {
	return r.Register(ConditionType(id, ports, f))
}

// RegisterAction registers a synchronous action node type whose instances
// call f on every tick (see ActionFunc).
func (r *Registry) RegisterAction(id string, ports []PortSpec, f ActionFunc) error {
	return r.Register(ActionType(id, ports, f))
}

// RegisterStatefulAction registers an action node type whose instances
// each run their own StatefulAction, made by newAction when a tree is
// built.
func (r *Registry) RegisterStatefulAction(id string, ports []PortSpec, newAction func(c *Config) (StatefulAction, error)) error {
	return r.Register(StatefulActionType(id, ports, newAction))
}

// RegisterAsyncAction registers an action node type whose instances run
// the work start returns in a goroutine (see AsyncStart and AsyncWork).
func (r *Registry) RegisterAsyncAction(id string, ports []PortSpec, start AsyncStart) error {
	return r.Register(AsyncActionType(id, ports, start))
}
