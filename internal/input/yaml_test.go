package input

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

func TestYAML(t *testing.T) {
	cases := []struct {
		name    string
		doc     string
		wantErr string
		kind    yaml.Kind // of the root, when no error
	}{
		{name: "a mapping", doc: "rate: 20\n", kind: yaml.MappingNode},
		{name: "a list", doc: "- 1\n- 2\n", kind: yaml.SequenceNode},
		{name: "empty", doc: ""},
		{name: "only a comment", doc: "# nothing\n"},
		{name: "an unclosed list is placed where it opens", doc: "a: 1\nb: [1, 2\nc: 3\n", wantErr: "f.yaml:2:1: not valid YAML: did not find expected ',' or ']'"},
		{name: "an unclosed list on the first line, where ']' was due", doc: "a: [1, 2\nb: 3\n", wantErr: "f.yaml:2:1: not valid YAML: did not find expected ',' or ']'"},
		{name: "a string left open on the first line", doc: "a: 'x\nb: 1\n", wantErr: "f.yaml:1:4: not valid YAML: found unexpected end of stream"},
		{name: "a string left open on a later line", doc: "a: 1\nb: 'x\nc: 2\n", wantErr: "f.yaml:2:1: not valid YAML: found unexpected end of stream"},
		{name: "a problem at the end is placed on the last line", doc: "rate: [\n", wantErr: "f.yaml:1:1: not valid YAML: did not find expected node content"},
		{name: "a missing key of a block mapping", doc: "a:\n  b: 1\n c\n", wantErr: "f.yaml:3:1: not valid YAML: did not find expected key"},
		{name: "bad indentation", doc: "a: 1\nb: 2\n c: 3\n", wantErr: "f.yaml:3:1: not valid YAML: mapping values are not allowed in this context"},
		{name: "a tab", doc: "a: 1\n\tb: 2\n", wantErr: "f.yaml:2:1: not valid YAML: found a tab character that violates indentation"},
		{name: "a tab after a line with a scalar", doc: "image: x\nres: 0.05\n\torigin: 1\n", wantErr: "f.yaml:3:1: not valid YAML: found a tab character that violates indentation"},
		{name: "an unknown anchor at its use", doc: "a: 1\nb: [2, *nope]\n", wantErr: "f.yaml:2:8: not valid YAML: unknown anchor 'nope' referenced"},
		{name: "bytes that are not UTF-8", doc: "a: 1\nb: x\xff\n", wantErr: "f.yaml:2:5: not valid YAML: invalid leading UTF-8 octet"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, err := YAML("f.yaml", []byte(c.doc))
			if c.wantErr != "" {
				require.EqualError(t, err, c.wantErr)
				return
			}
			require.NoError(t, err)
			if c.kind == 0 {
				assert.Nil(t, root)
				return
			}
			require.NotNil(t, root)
			assert.Equal(t, c.kind, root.Kind)
			assert.Equal(t, "f.yaml:1:1", Pos("f.yaml", root).String())
		})
	}
}
