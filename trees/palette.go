package trees

import (
	"bufio"
	"encoding"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/btrobot/btrobot/runtime"
)

// The palette exports read the registry, the one place where node types
// are declared: what Groot2 shows, what an editor validates against and
// what docs/nodes.md says are the same declarations the loader and the
// builder use.

// paletteTypes returns the node types a tree names by element: every
// registered type except the SubTree kind, which is the <SubTree ID="…">
// element itself rather than a node type of the palette.
func paletteTypes(reg *runtime.Registry) []*runtime.NodeType {
	var out []*runtime.NodeType
	for _, t := range reg.Types() {
		if t.Kind == runtime.SubTreeKind {
			continue
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *runtime.NodeType) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// WriteGrootModel writes a Groot2 <TreeNodesModel> of every node type in
// reg, sorted by ID: kind, ports with their type (BehaviorTree.CPP's name
// where natural, see PortTypeName), default and description, and the
// node's summary as its description metadata. Loading it gives one
// runtime.NodeModel per node type.
func WriteGrootModel(w io.Writer, reg *runtime.Registry) error {
	bw := bufio.NewWriter(w)
	x := &xmlWriter{w: bw}
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.raw("<!-- The btrobot node palette for Groot2, generated from the node registry (btrobot nodes, groot format): do not edit. -->\n")
	x.raw(`<root BTCPP_format="4">` + "\n")
	x.indent(1)
	x.raw("<TreeNodesModel>\n")
	for _, t := range paletteTypes(reg) {
		if !xmlName(t.ID) {
			continue
		}
		x.model(&runtime.NodeModel{ID: t.ID, Kind: t.Kind, Ports: t.Ports, Description: t.Summary}, nil)
	}
	x.indent(1)
	x.raw("</TreeNodesModel>\n")
	x.raw("</root>\n")
	return bw.Flush()
}

// commonAttrs are the attributes every node takes besides its ports: the
// instance name, the pre/post-condition scripts, and the editor
// attributes Groot2 writes.
func commonAttrs() []struct{ name, doc string } {
	out := []struct{ name, doc string }{{"name", "The instance name, shown in paths and logs."}}
	for _, c := range runtime.PreConditions {
		out = append(out, struct{ name, doc string }{c, "A pre-condition script."})
	}
	for _, c := range runtime.PostConditions {
		out = append(out, struct{ name, doc string }{c, "A post-condition script."})
	}
	for _, c := range []string{"_uid", "_fullpath", "_description"} {
		out = append(out, struct{ name, doc string }{c, "An editor's attribute, kept and ignored."})
	}
	return out
}

// WriteXSD writes an XML Schema for tree files that use the node types of
// reg: an editor (or xmllint --schema) then flags an unknown node, an
// unknown or missing required port, a literal that is not of its port's
// type (numbers, booleans), an output port given a literal instead of a
// {key}, and a wrong number of children. It cannot see what needs the
// whole document — subtree IDs, scripts, blackboard types — which
// runtime.Check does.
func WriteXSD(w io.Writer, reg *runtime.Registry) error {
	bw := bufio.NewWriter(w)
	x := &xmlWriter{w: bw}
	types := paletteTypes(reg)
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.raw("<!-- XML Schema of BehaviorTree.CPP v4 tree files using the btrobot node palette.\n")
	x.raw("     Generated from the node registry (btrobot nodes, xsd format): do not edit. -->\n")
	x.raw(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="unqualified">` + "\n")

	x.raw(xsdFixed)

	// Every element a tree node may be.
	x.raw("\n  <xs:group name=\"node\">\n    <xs:choice>\n")
	for _, t := range types {
		if !xmlName(t.ID) || explicitKind(t.ID) || t.ID == "SubTree" {
			continue
		}
		fmt.Fprintf(bw, "      <xs:element name=\"%s\" type=\"node.%s\">\n", t.ID, t.ID)
		if t.Summary != "" {
			x.raw("        <xs:annotation><xs:documentation>")
			x.escape(t.Summary, false, false)
			x.raw("</xs:documentation></xs:annotation>\n")
		}
		x.raw("      </xs:element>\n")
	}
	for _, k := range []string{"Action", "Condition", "Control", "Decorator"} {
		fmt.Fprintf(bw, "      <xs:element name=\"%s\" type=\"node.explicit\"/>\n", k)
	}
	x.raw("      <xs:element name=\"SubTree\" type=\"node.SubTree\"/>\n")
	x.raw("    </xs:choice>\n  </xs:group>\n")

	for _, t := range types {
		if !xmlName(t.ID) || explicitKind(t.ID) || t.ID == "SubTree" {
			continue
		}
		fmt.Fprintf(bw, "\n  <xs:complexType name=\"node.%s\">\n", t.ID)
		lo, hi := t.ChildBounds()
		if hi != 0 {
			maxOccurs := "unbounded"
			if hi != runtime.Unbounded {
				maxOccurs = fmt.Sprint(hi)
			}
			fmt.Fprintf(bw, "    <xs:sequence><xs:group ref=\"node\" minOccurs=\"%d\" maxOccurs=\"%s\"/></xs:sequence>\n", lo, maxOccurs)
		}
		for _, p := range t.Ports {
			use := ""
			if p.Required() {
				use = ` use="required"`
			}
			fmt.Fprintf(bw, "    <xs:attribute name=\"%s\" type=\"%s\"%s>\n", p.Name, xsdPortType(p), use)
			doc := p.Description
			if p.HasDefault {
				doc = strings.TrimSpace(doc + " (default: " + p.Default + ")")
			}
			if doc != "" {
				x.raw("      <xs:annotation><xs:documentation>")
				x.escape(doc, false, false)
				x.raw("</xs:documentation></xs:annotation>\n")
			}
			x.raw("    </xs:attribute>\n")
		}
		x.raw("    <xs:attributeGroup ref=\"nodeAttributes\"/>\n")
		x.raw("  </xs:complexType>\n")
	}
	x.raw("</xs:schema>\n")
	return bw.Flush()
}

// xsdPortType is the schema type of a port's attribute: a {key} always
// does; literals are checked for numbers and booleans.
func xsdPortType(p runtime.PortSpec) string {
	if p.Dir == runtime.Output {
		return "port.key"
	}
	if p.Type == nil {
		return "xs:string"
	}
	switch {
	case p.Type == reflect.TypeFor[time.Duration]():
		return "port.duration"
	case p.Type == reflect.TypeFor[runtime.Status]():
		return "port.status"
	case reflect.PointerTo(p.Type).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()):
		return "xs:string" // the type reads its own text
	}
	switch p.Type.Kind() {
	case reflect.Bool:
		return "port.bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "port.int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "port.uint"
	case reflect.Float32, reflect.Float64:
		return "port.double"
	}
	return "xs:string"
}

// xsdFixed is the part of the schema that does not depend on the palette.
func init() {
	var sb strings.Builder
	sb.WriteString(`
  <xs:element name="root">
    <xs:annotation><xs:documentation>A BehaviorTree.CPP v4 tree file.</xs:documentation></xs:annotation>
    <xs:complexType>
      <xs:choice minOccurs="0" maxOccurs="unbounded">
        <xs:element name="BehaviorTree" type="tree"/>
        <xs:element name="TreeNodesModel" type="treeNodesModel"/>
        <xs:element name="include" type="include"/>
      </xs:choice>
      <xs:attribute name="BTCPP_format">
        <xs:simpleType><xs:restriction base="xs:string"><xs:enumeration value="4"/></xs:restriction></xs:simpleType>
      </xs:attribute>
      <xs:attribute name="main_tree_to_execute" type="xs:string"/>
      <xs:attribute name="project_name" type="xs:string"/>
    </xs:complexType>
  </xs:element>

  <xs:complexType name="tree">
    <xs:sequence><xs:group ref="node"/></xs:sequence>
    <xs:attribute name="ID" type="xs:string"/>
    <xs:attribute name="_fullpath" type="xs:string"/>
    <xs:attribute name="_description" type="xs:string"/>
  </xs:complexType>

  <xs:complexType name="include">
    <xs:attribute name="path" type="xs:string" use="required">
      <xs:annotation><xs:documentation>A file relative to the including file.</xs:documentation></xs:annotation>
    </xs:attribute>
  </xs:complexType>

  <xs:complexType name="treeNodesModel">
    <xs:choice minOccurs="0" maxOccurs="unbounded">
      <xs:element name="Action" type="model"/>
      <xs:element name="Condition" type="model"/>
      <xs:element name="Control" type="model"/>
      <xs:element name="Decorator" type="model"/>
      <xs:element name="SubTree" type="model"/>
    </xs:choice>
  </xs:complexType>

  <xs:complexType name="model">
    <xs:choice minOccurs="0" maxOccurs="unbounded">
      <xs:element name="input_port" type="portModel"/>
      <xs:element name="output_port" type="portModel"/>
      <xs:element name="inout_port" type="portModel"/>
      <xs:element name="MetadataFields">
        <xs:complexType>
          <xs:sequence>
            <xs:element name="Metadata" minOccurs="0" maxOccurs="unbounded">
              <xs:complexType><xs:anyAttribute processContents="skip"/></xs:complexType>
            </xs:element>
          </xs:sequence>
        </xs:complexType>
      </xs:element>
    </xs:choice>
    <xs:attribute name="ID" type="xs:string" use="required"/>
    <xs:anyAttribute processContents="skip"/>
  </xs:complexType>

  <xs:complexType name="portModel" mixed="true">
    <xs:attribute name="name" type="xs:string" use="required"/>
    <xs:attribute name="type" type="xs:string"/>
    <xs:attribute name="default" type="xs:string"/>
    <xs:attribute name="description" type="xs:string"/>
  </xs:complexType>

  <xs:simpleType name="port.key">
    <xs:annotation><xs:documentation>A blackboard entry: {key}, {@key} for the root blackboard, {=} for the port's own name.</xs:documentation></xs:annotation>
    <xs:restriction base="xs:string"><xs:pattern value="\{[^{}]+\}"/></xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="port.bool.literal">
    <xs:restriction base="xs:string">
      <xs:pattern value="\s*(true|True|TRUE|false|False|FALSE|1|0)\s*"/>
    </xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="port.bool"><xs:union memberTypes="port.bool.literal port.key"/></xs:simpleType>
  <xs:simpleType name="port.int"><xs:union memberTypes="xs:long port.key"/></xs:simpleType>
  <xs:simpleType name="port.uint"><xs:union memberTypes="xs:unsignedLong port.key"/></xs:simpleType>
  <xs:simpleType name="port.double"><xs:union memberTypes="xs:double port.key"/></xs:simpleType>
  <xs:simpleType name="port.duration.literal">
    <xs:annotation><xs:documentation>Milliseconds, or a Go duration such as 1.5s or 200ms.</xs:documentation></xs:annotation>
    <xs:restriction base="xs:string">
      <xs:pattern value="\s*[0-9]+(\.[0-9]*)?\s*|\s*-?([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+\s*"/>
    </xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="port.duration"><xs:union memberTypes="port.duration.literal port.key"/></xs:simpleType>
  <xs:simpleType name="port.status.literal">
    <xs:restriction base="xs:string">
      <xs:enumeration value="IDLE"/><xs:enumeration value="RUNNING"/><xs:enumeration value="SUCCESS"/>
      <xs:enumeration value="FAILURE"/><xs:enumeration value="SKIPPED"/>
    </xs:restriction>
  </xs:simpleType>
  <xs:simpleType name="port.status"><xs:union memberTypes="port.status.literal port.key"/></xs:simpleType>

  <xs:complexType name="node.explicit">
    <xs:annotation><xs:documentation>The explicit form, &lt;Action ID="Type"/&gt;: its ports are not checked here.</xs:documentation></xs:annotation>
    <xs:sequence><xs:group ref="node" minOccurs="0" maxOccurs="unbounded"/></xs:sequence>
    <xs:attribute name="ID" type="xs:string" use="required"/>
    <xs:anyAttribute processContents="skip"/>
  </xs:complexType>

  <xs:complexType name="node.SubTree">
    <xs:annotation><xs:documentation>Runs the &lt;BehaviorTree&gt; its ID names; other attributes remap its ports.</xs:documentation></xs:annotation>
    <xs:attribute name="ID" type="xs:string" use="required"/>
    <xs:attribute name="_autoremap" type="port.bool"/>
    <xs:attributeGroup ref="nodeAttributes"/>
    <xs:anyAttribute processContents="skip"/>
  </xs:complexType>

  <xs:attributeGroup name="nodeAttributes">
`)
	for _, a := range commonAttrs() {
		fmt.Fprintf(&sb, "    <xs:attribute name=\"%s\" type=\"xs:string\"><xs:annotation><xs:documentation>%s</xs:documentation></xs:annotation></xs:attribute>\n", a.name, a.doc)
	}
	sb.WriteString("  </xs:attributeGroup>\n")
	xsdFixed = sb.String()
}

var xsdFixed string

// categoryOrder lists the built-in categories first, in the order a reader
// meets them; other categories (skills, ros, user nodes) follow by name.
var categoryOrder = []string{"control", "decorator", "action", "condition", "subtree"}

// WriteMarkdown writes the node reference: the node types of reg grouped by
// category, each with its summary, kind and allowed children, its contract
// (NodeType.Doc) and a table of its ports (name, direction, type, default,
// description). docs/nodes.md is this output for the built-in registry.
func WriteMarkdown(w io.Writer, reg *runtime.Registry) error {
	bw := bufio.NewWriter(w)
	byCat := map[string][]*runtime.NodeType{}
	var cats []string
	for _, t := range reg.Types() {
		if _, seen := byCat[t.Category]; !seen {
			cats = append(cats, t.Category)
		}
		byCat[t.Category] = append(byCat[t.Category], t)
	}
	slices.SortFunc(cats, func(a, b string) int {
		ia, ib := slices.Index(categoryOrder, a), slices.Index(categoryOrder, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})

	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("# Node reference\n\n")
	p("<!-- Generated from the node registry by `go run ./cmd/btrobot nodes --format markdown > docs/nodes.md`; do not edit by hand. -->\n\n")
	p("Every node type a tree can use, grouped by category. Each is declared once, in Go, next to its\n")
	p("code; the loader, `btrobot check`, the Groot2 palette (`btrobot nodes --format groot`), the XSD\n")
	p("(`btrobot nodes --format xsd`) and this page all read that declaration.\n\n")
	p("Besides its ports, every node takes a `name` and the pre/post-condition scripts ")
	var conds []string
	for _, c := range runtime.PreConditions {
		conds = append(conds, "`"+c+"`")
	}
	for _, c := range runtime.PostConditions {
		conds = append(conds, "`"+c+"`")
	}
	p("%s. A port is given a literal (`num_cycles=\"3\"`) or a blackboard entry (`{key}`; `{@key}` for the root blackboard; `{=}` for the entry named like the port); an input port without a default is required; an output port takes an entry only.\n\n", strings.Join(conds, ", "))

	for _, c := range cats {
		p("- [%s](#%s):", categoryTitle(c), anchor(categoryTitle(c)))
		for i, t := range byCat[c] {
			sep := ","
			if i == 0 {
				sep = ""
			}
			p("%s [%s](#%s)", sep, t.ID, anchor(t.ID))
		}
		p("\n")
	}
	for _, c := range cats {
		p("\n## %s\n", categoryTitle(c))
		for _, t := range byCat[c] {
			p("\n### %s\n\n", t.ID)
			if t.Summary != "" {
				p("%s\n\n", strings.TrimSpace(t.Summary))
			}
			p("*%s · children: %s*\n\n", kindTitle(t.Kind), childrenText(t))
			if doc := strings.TrimSpace(t.Doc); doc != "" {
				p("%s\n\n", doc)
			}
			if t.Kind == runtime.SubTreeKind {
				p("Written `<SubTree ID=\"Tree\" port=\"{key}\" other=\"literal\" _autoremap=\"false\"/>`: each other attribute remaps a port of the subtree.\n\n")
			}
			if len(t.Ports) == 0 {
				p("No ports.\n")
				continue
			}
			p("| Port | Direction | Type | Default | Description |\n")
			p("|---|---|---|---|---|\n")
			for _, port := range t.Ports {
				def := "*required*"
				switch {
				case port.HasDefault:
					def = "`" + cell(port.Default) + "`"
					if port.Default == "" {
						def = "`\"\"`"
					}
				case !port.Required():
					def = ""
				}
				p("| `%s` | %s | `%s` | %s | %s |\n", port.Name, port.Dir, cell(runtime.TypeName(port.Type)), def, cell(port.Description))
			}
		}
	}
	return bw.Flush()
}

func categoryTitle(c string) string {
	switch c {
	case "":
		return "Other"
	case "control":
		return "Control nodes"
	case "decorator", "action", "condition", "subtree":
		return strings.ToUpper(c[:1]) + c[1:] + "s"
	case "ros":
		return "ROS"
	}
	return strings.ToUpper(c[:1]) + c[1:]
}

func kindTitle(k runtime.Kind) string {
	switch k {
	case runtime.ControlKind:
		return "Control node"
	case runtime.DecoratorKind:
		return "Decorator"
	case runtime.ConditionKind:
		return "Condition"
	case runtime.SubTreeKind:
		return "SubTree"
	}
	return "Action"
}

func childrenText(t *runtime.NodeType) string {
	if t.Kind == runtime.SubTreeKind {
		return "none (it runs the tree its ID names)"
	}
	lo, hi := t.ChildBounds()
	switch {
	case hi == 0:
		return "none"
	case hi == runtime.Unbounded:
		return fmt.Sprintf("%d or more", lo)
	case lo == hi:
		return fmt.Sprintf("exactly %d", lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// anchor is the fragment GitHub gives a heading.
func anchor(heading string) string {
	var sb strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			sb.WriteByte('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", " ")
}
