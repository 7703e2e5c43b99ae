package script

// NamedValue is the value of one name a script reads, as written in the
// script (battery.percentage, not battery); Err says why it could not be
// read.
type NamedValue struct {
	Name  string
	Value Value
	Err   error
}

// ReadValues reads, in env, every name the script reads, as written and in
// order of first appearance (enums, which are constants, left out): what a
// condition looked at, for a reason or a log line. It allocates; call it
// only when someone asks.
func (p *Program) ReadValues(env Env) []NamedValue {
	var out []NamedValue
	for _, ref := range p.refs {
		if len(ref.path) == 0 {
			if _, isEnum := env.Enum(ref.root); isEnum {
				continue
			}
		}
		nv := NamedValue{Name: ref.text}
		v, ok := env.Lookup(ref.root)
		switch {
		case !ok:
			nv.Err = ErrUnknownVariable
		case len(ref.path) == 0:
			nv.Value = v
		default:
			got, err := readPath(ref, v)
			if err != nil {
				nv.Err = err
			} else {
				nv.Value = got.box()
			}
		}
		out = append(out, nv)
	}
	return out
}

// collectRefs lists the names e reads, as written, each once.
func collectRefs(e *expr, refs *[]*nameRef) {
	if e == nil {
		return
	}
	switch e.kind {
	case eName:
		addRef(refs, e.name)
	case eAssign:
		if e.op != tDefine && e.op != tAssign {
			addRef(refs, e.name)
		}
		collectRefs(e.a, refs)
		return
	}
	for _, o := range e.operands {
		collectRefs(o, refs)
	}
	collectRefs(e.a, refs)
	collectRefs(e.b, refs)
	collectRefs(e.c, refs)
}

func addRef(refs *[]*nameRef, ref *nameRef) {
	if ref == nil {
		return
	}
	for _, r := range *refs {
		if r.text == ref.text {
			return
		}
	}
	*refs = append(*refs, ref)
}
