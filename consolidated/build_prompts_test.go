package consolidated

import (
	"regexp"
	"slices"
	"testing"

	"toolhost/prompts"
)

// The shipped prompts send the model to build_and_version_control's operations by name; every
// name they use must be a real operation, and the review and diff prompts must use some.
func TestPromptsNameRealBuildOperations(t *testing.T) {
	ops := opNames(BuildTool(BuildConfig{}).Operations)
	list, err := prompts.List("")
	if err != nil {
		t.Fatal(err)
	}
	opName := regexp.MustCompile(`\b(git_[a-z_]+|changed_files|list_tasks|run_task|run_tests|get_errors)\b`)
	for _, p := range list {
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = "x"
		}
		_, text, err := prompts.Get(p.Name, "", args)
		if err != nil {
			t.Fatalf("Get(%s): %v", p.Name, err)
		}
		used := opName.FindAllString(text, -1)
		for _, u := range used {
			if !slices.Contains(ops, u) {
				t.Errorf("prompt %s names %s, which build_and_version_control does not have (%v)", p.Name, u, ops)
			}
		}
		if (p.Name == "code_review" || p.Name == "summarize_diff") && !slices.Contains(used, "git_diff") {
			t.Errorf("prompt %s does not name git_diff", p.Name)
		}
		if p.Name == "fix_error" && (!slices.Contains(used, "run_tests") || !slices.Contains(used, "get_errors")) {
			t.Errorf("prompt fix_error does not name run_tests and get_errors: %v", used)
		}
	}
}
