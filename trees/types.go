package trees

import (
	"reflect"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// portTypes maps the type names a <TreeNodesModel> may use to Go types:
// BehaviorTree.CPP's C++ spellings, and the Go spellings this package writes
// for types C++ has no natural name for. A name not listed here leaves the
// port untyped (it accepts any value); the name itself is kept in
// NodeModel.TypeNames so that writing the model back loses nothing.
var portTypes = map[string]reflect.Type{
	"bool":                      reflect.TypeFor[bool](),
	"int":                       reflect.TypeFor[int](),
	"unsigned":                  reflect.TypeFor[uint](),
	"unsigned int":              reflect.TypeFor[uint](),
	"long":                      reflect.TypeFor[int64](),
	"long int":                  reflect.TypeFor[int64](),
	"unsigned long":             reflect.TypeFor[uint64](),
	"size_t":                    reflect.TypeFor[uint64](),
	"int8_t":                    reflect.TypeFor[int8](),
	"int16_t":                   reflect.TypeFor[int16](),
	"int32_t":                   reflect.TypeFor[int32](),
	"int64_t":                   reflect.TypeFor[int64](),
	"uint8_t":                   reflect.TypeFor[uint8](),
	"uint16_t":                  reflect.TypeFor[uint16](),
	"uint32_t":                  reflect.TypeFor[uint32](),
	"uint64_t":                  reflect.TypeFor[uint64](),
	"float":                     reflect.TypeFor[float32](),
	"double":                    reflect.TypeFor[float64](),
	"std::string":               reflect.TypeFor[string](),
	"string":                    reflect.TypeFor[string](),
	"std::chrono::milliseconds": reflect.TypeFor[time.Duration](),
	"chrono::milliseconds":      reflect.TypeFor[time.Duration](),
	"std::vector<int>":          reflect.TypeFor[[]int](),
	"std::vector<double>":       reflect.TypeFor[[]float64](),
	"std::vector<std::string>":  reflect.TypeFor[[]string](),
	"std::vector<bool>":         reflect.TypeFor[[]bool](),
	// Go spellings.
	"int8":           reflect.TypeFor[int8](),
	"int16":          reflect.TypeFor[int16](),
	"int32":          reflect.TypeFor[int32](),
	"int64":          reflect.TypeFor[int64](),
	"uint":           reflect.TypeFor[uint](),
	"uint8":          reflect.TypeFor[uint8](),
	"uint16":         reflect.TypeFor[uint16](),
	"uint32":         reflect.TypeFor[uint32](),
	"uint64":         reflect.TypeFor[uint64](),
	"float32":        reflect.TypeFor[float32](),
	"float64":        reflect.TypeFor[float64](),
	"time.Duration":  reflect.TypeFor[time.Duration](),
	"[]int":          reflect.TypeFor[[]int](),
	"[]float64":      reflect.TypeFor[[]float64](),
	"[]string":       reflect.TypeFor[[]string](),
	"[]bool":         reflect.TypeFor[[]bool](),
	"BT::NodeStatus": reflect.TypeFor[runtime.Status](),
	"NodeStatus":     reflect.TypeFor[runtime.Status](),
	// Untyped.
	"":                   nil,
	"any":                nil,
	"BT::AnyTypeAllowed": nil,
}

// btcppNames is how the palette export names Go types: BehaviorTree.CPP's
// spelling where C++ has a natural one, so that Groot2 and BT.CPP users read
// familiar names.
var btcppNames = map[reflect.Type]string{
	reflect.TypeFor[bool]():           "bool",
	reflect.TypeFor[int]():            "int",
	reflect.TypeFor[uint]():           "unsigned int",
	reflect.TypeFor[int8]():           "int8_t",
	reflect.TypeFor[int16]():          "int16_t",
	reflect.TypeFor[int32]():          "int32_t",
	reflect.TypeFor[int64]():          "int64_t",
	reflect.TypeFor[uint8]():          "uint8_t",
	reflect.TypeFor[uint16]():         "uint16_t",
	reflect.TypeFor[uint32]():         "uint32_t",
	reflect.TypeFor[uint64]():         "uint64_t",
	reflect.TypeFor[float32]():        "float",
	reflect.TypeFor[float64]():        "double",
	reflect.TypeFor[string]():         "std::string",
	reflect.TypeFor[time.Duration]():  "std::chrono::milliseconds",
	reflect.TypeFor[[]int]():          "std::vector<int>",
	reflect.TypeFor[[]float64]():      "std::vector<double>",
	reflect.TypeFor[[]string]():       "std::vector<std::string>",
	reflect.TypeFor[[]bool]():         "std::vector<bool>",
	reflect.TypeFor[runtime.Status](): "BT::NodeStatus",
}

// PortTypeName returns the name the palette export gives a port type: the
// BehaviorTree.CPP spelling for bool, the integer and floating-point kinds,
// strings, durations (std::chrono::milliseconds), vectors of those and
// statuses (BT::NodeStatus);
// Go's own spelling (runtime.TypeName) for any other type; "" for a port
// that accepts any type. ParsePortType reads every name it returns back to
// the same Go type, except for the types it does not know, which stay names.
func PortTypeName(t reflect.Type) string {
	if t == nil || t == runtime.AnyType {
		return ""
	}
	if n, ok := btcppNames[t]; ok {
		return n
	}
	return runtime.TypeName(t)
}

// ParsePortType returns the Go type a model's type name stands for, and
// whether the name is known. Unknown names (a ROS message type, a C++ class)
// are not errors: such a port accepts any value.
func ParsePortType(name string) (reflect.Type, bool) {
	t, ok := portTypes[name]
	return t, ok
}
