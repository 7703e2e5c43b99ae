package trees

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/btrobot/btrobot/runtime"
)

// TestNav2Trees: Nav2's own behavior trees load, and pass runtime.Check
// when the models of Nav2's nodes are supplied (testdata/nav2/README.md
// says where they come from). Without the models, every Nav2 node is
// reported unknown: the check is not vacuous.
func TestNav2Trees(t *testing.T) {
	models, err := Load("testdata/nav2/nav2_models.xml")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(models.Models), 25, "%d Nav2 models, want the nodes the trees use", len(models.Models))
	files, _ := filepath.Glob("testdata/nav2/*.xml")
	reg := runtime.NewRegistry()
	trees := 0
	for _, path := range files {
		base := filepath.Base(path)
		if base == "nav2_models.xml" || base == "with_models.xml" {
			continue
		}
		trees++
		t.Run(strings.TrimSuffix(base, ".xml"), func(t *testing.T) {
			doc, err := Load(path)
			require.NoError(t, err)
			err = runtime.Check(reg, doc, runtime.BuildConf{})
			assert.ErrorContains(t, err, "unknown node type", "without models the tree should have unknown nodes; Check said %v", err)
			doc.Models = append(doc.Models, models.Models...)
			err = runtime.Check(reg, doc, runtime.BuildConf{})
			assert.NoError(t, err, "with Nav2's models:\n%v", err)
		})
	}
	assert.GreaterOrEqual(t, trees, 5, "%d Nav2 trees, want at least 5", trees)
}

// TestNav2WithIncludes: a mission file that includes the models and a tree
// checks clean as one file, as `btrobot check` sees it.
func TestNav2WithIncludes(t *testing.T) {
	require.NoError(t, CheckFile(runtime.NewRegistry(), "testdata/nav2/with_models.xml"))
	doc, err := Load("testdata/nav2/with_models.xml")
	require.NoError(t, err)
	if assert.Equal(t, "NavigateToPoseWReplanningAndRecovery", doc.Main, "included tree or models missing: main %q, %d trees, %d models", doc.Main, len(doc.Trees), len(doc.Models)) {
		assert.NotNil(t, doc.Tree(doc.Main), "included tree or models missing: main %q, %d trees, %d models", doc.Main, len(doc.Trees), len(doc.Models))
		assert.NotNil(t, doc.Model("FollowPath"), "included tree or models missing: main %q, %d trees, %d models", doc.Main, len(doc.Trees), len(doc.Models))
	}
}

// TestNav2ModelMistakes: with the models, the checker catches what a Nav2
// user gets wrong.
func TestNav2ModelMistakes(t *testing.T) {
	src := `<root BTCPP_format="4" main_tree_to_execute="M">
  <include path="nav2_models.xml"/>
  <BehaviorTree ID="M">
    <PipelineSequence>
      <ComputePathToPose goal="{goal}" path="{path}" planer_id="GridBased"/>
      <FollowPath path="{path}" error_code_id="{code}" server_timeout="soon"/>
      <WouldAPlannerRecoveryHelp error_code="{code}" error_codes_to_check="1;x"/>
      <Spin spin_dist="{code}"/>
    </PipelineSequence>
  </BehaviorTree>
</root>`
	doc := mustParse(t, "testdata/nav2/mistakes.xml", src)
	err := runtime.Check(runtime.NewRegistry(), doc, runtime.BuildConf{})
	want := []string{
		`testdata/nav2/mistakes.xml:5:54: M/PipelineSequence/ComputePathToPose: ComputePathToPose has no port "planer_id" (did you mean planner_id?)`,
		`testdata/nav2/mistakes.xml:6:56: M/PipelineSequence/FollowPath: port "server_timeout" (time.Duration): "soon" is not a duration (write 1.5s, 200ms, or a number of milliseconds)`,
		`testdata/nav2/mistakes.xml:7:54: M/PipelineSequence/WouldAPlannerRecoveryHelp: port "error_codes_to_check" ([]int): element 2: "x" is not an integer that fits int`,
		`testdata/nav2/mistakes.xml:8:13: M/PipelineSequence/Spin: port "spin_dist" wants blackboard entry "code" as float64, but M/PipelineSequence/FollowPath port "error_code_id" declared it uint16 at testdata/nav2/mistakes.xml:6:33`,
	}
	got := errorTexts(t, err)
	assert.Equal(t, strings.Join(want, "\n"), strings.Join(got, "\n"), "got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
}
