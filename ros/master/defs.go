package master

// Request and response shapes of the Master, Parameter and Slave APIs that
// goroslib's apimaster, apiparam and apislave packages do not define, because
// goroslib only ever needs the client side of them with fixed value types.
// Like goroslib's, each struct lists the XML-RPC parameters in order; a
// response is encoded as the array [code, statusMessage, value].

// requestSetParam is a setParam request: the value may be of any XML-RPC
// type, a dictionary setting a whole namespace.
type requestSetParam struct {
	CallerID string
	Key      string
	Value    any
}

// requestParamKey is a getParam, deleteParam, hasParam or searchParam request.
type requestParamKey struct {
	CallerID string
	Key      string
}

// responseParamValue answers getParam and subscribeParam: a value of any
// XML-RPC type, a dictionary for a namespace.
type responseParamValue struct {
	Code          int
	StatusMessage string
	Value         any
}

// requestSubscribeParam is a subscribeParam or unsubscribeParam request.
type requestSubscribeParam struct {
	CallerID  string
	CallerAPI string
	Key       string
}

// responseCount answers calls whose value is a count or is ignored.
type responseCount struct {
	Code          int
	StatusMessage string
	Count         int
}

// requestShutdownMaster is the master's own shutdown request.
type requestShutdownMaster struct {
	CallerID string
	Reason   string
}

// requestParamUpdate is the slave API's paramUpdate call, pushed by the
// master to parameter subscribers. An empty dictionary means the parameter
// was deleted.
type requestParamUpdate struct {
	CallerID string
	Key      string
	Value    any
}
