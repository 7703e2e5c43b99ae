package inproc

import (
	"fmt"
	"reflect"
	"sync"
	"time"
)

// Copy returns a pointer to a deep copy of msg (a struct, or a pointer to
// one): every slice, array, pointer, map and interface it holds is copied,
// so that nothing the copy holds is shared with msg (strings are immutable
// and shared). A type holding channels, functions or unsafe pointers is not
// a message and is refused. The plan of a Go type is built once and cached.
func Copy(msg any) (any, error) {
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, fmt.Errorf("copy a message: a nil %T", msg)
		}
		v = v.Elem()
	}
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("copy a message: a message is a struct, not %T", msg)
	}
	return copyValue(v)
}

// copyValue returns a pointer to a deep copy of the struct v.
func copyValue(v reflect.Value) (any, error) {
	p, err := planOf(v.Type())
	if err != nil {
		return nil, err
	}
	out := reflect.New(v.Type())
	p.copy(out.Elem(), v)
	return out.Interface(), nil
}

// copyPlan copies a value of one Go type into an addressable value of the
// same type.
type copyPlan struct {
	// flat types hold nothing that could be shared: assignment copies them.
	flat bool
	copy func(dst, src reflect.Value)
}

var plans sync.Map // reflect.Type -> *copyPlan

func planOf(t reflect.Type) (*copyPlan, error) {
	if p, ok := plans.Load(t); ok {
		return p.(*copyPlan), nil
	}
	b := planBuilder{building: map[reflect.Type]*copyPlan{}}
	p, err := b.plan(t)
	if err != nil {
		return nil, fmt.Errorf("copy a %v: %w", t, err)
	}
	for t, p := range b.building {
		plans.LoadOrStore(t, p)
	}
	return p, nil
}

type planBuilder struct {
	// building holds the plans of the types being built, so that a type that
	// holds itself (through a pointer or a slice) refers to its own plan.
	building map[reflect.Type]*copyPlan
}

var timeType = reflect.TypeFor[time.Time]()

func assign(dst, src reflect.Value) { dst.Set(src) }

func (b *planBuilder) plan(t reflect.Type) (*copyPlan, error) {
	if p, ok := plans.Load(t); ok {
		return p.(*copyPlan), nil
	}
	if p, ok := b.building[t]; ok {
		return p, nil
	}
	p := &copyPlan{}
	b.building[t] = p
	if t == timeType {
		// A time.Time is a value: its location is shared and never
		// changed.
		p.flat, p.copy = true, assign
		return p, nil
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		p.flat, p.copy = true, assign
	case reflect.Array:
		e, err := b.plan(t.Elem())
		if err != nil {
			return nil, err
		}
		if e.flat {
			p.flat, p.copy = true, assign
			break
		}
		p.copy = func(dst, src reflect.Value) {
			for i := range src.Len() {
				e.copy(dst.Index(i), src.Index(i))
			}
		}
	case reflect.Slice:
		e, err := b.plan(t.Elem())
		if err != nil {
			return nil, err
		}
		p.copy = func(dst, src reflect.Value) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			n := src.Len()
			s := reflect.MakeSlice(t, n, n)
			if e.flat {
				reflect.Copy(s, src)
			} else {
				for i := range n {
					e.copy(s.Index(i), src.Index(i))
				}
			}
			dst.Set(s)
		}
	case reflect.Pointer:
		e, err := b.plan(t.Elem())
		if err != nil {
			return nil, err
		}
		p.copy = func(dst, src reflect.Value) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			n := reflect.New(t.Elem())
			e.copy(n.Elem(), src.Elem())
			dst.Set(n)
		}
	case reflect.Map:
		k, err := b.plan(t.Key())
		if err != nil {
			return nil, err
		}
		e, err := b.plan(t.Elem())
		if err != nil {
			return nil, err
		}
		p.copy = func(dst, src reflect.Value) {
			if src.IsNil() {
				dst.SetZero()
				return
			}
			m := reflect.MakeMapWithSize(t, src.Len())
			it := src.MapRange()
			for it.Next() {
				kv := reflect.New(t.Key()).Elem()
				k.copy(kv, it.Key())
				ev := reflect.New(t.Elem()).Elem()
				e.copy(ev, it.Value())
				m.SetMapIndex(kv, ev)
			}
			dst.Set(m)
		}
	case reflect.Struct:
		type field struct {
			i    int
			plan *copyPlan
		}
		var deep []field
		for i := range t.NumField() {
			f := t.Field(i)
			fp, err := b.plan(f.Type)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			if !fp.flat {
				if !f.IsExported() {
					return nil, fmt.Errorf("field %s: an unexported field holding a %v cannot be copied", f.Name, f.Type)
				}
				deep = append(deep, field{i, fp})
			}
		}
		if len(deep) == 0 {
			p.flat, p.copy = true, assign
			break
		}
		p.copy = func(dst, src reflect.Value) {
			dst.Set(src) // the flat fields, and the rest replaced below
			for _, f := range deep {
				f.plan.copy(dst.Field(f.i), src.Field(f.i))
			}
		}
	default:
		return nil, fmt.Errorf("a message holds no %v", t.Kind())
	}
	return p, nil
}
