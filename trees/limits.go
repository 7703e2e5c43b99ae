package trees

import "github.com/btrobot/btrobot/internal/input"

// The limits a file must keep to. They are far above what any mission
// needs and low enough that a hostile file cannot exhaust memory or stack.
const (
	// MaxFileSize bounds one file, in bytes (input.Tree).
	MaxFileSize = input.MaxTreeSize
	// MaxDepth bounds how deep elements nest, <root> included.
	MaxDepth = 256
	// MaxAttrs bounds the attributes of one element.
	MaxAttrs = 256
	// MaxAttrSize bounds one attribute value or text run, in bytes.
	MaxAttrSize = 64 << 10
	// MaxNameSize bounds an element or attribute name, in bytes.
	MaxNameSize = 256
	// MaxElements bounds the elements of one load, includes counted.
	MaxElements = 1 << 20
	// MaxIncludes bounds the files one load reads through <include>.
	MaxIncludes = 256
	// MaxExpandedNodes bounds the nodes one tree becomes once its SubTrees
	// are expanded: ten SubTrees of a tree that holds ten SubTrees of …
	// grow tenfold a level, the tree-file cousin of an entity bomb.
	MaxExpandedNodes = 1 << 20
)
