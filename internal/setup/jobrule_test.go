package setup

import "testing"

// A git-only step is git's commands alone, nothing chained to them: git
// runs no code of the checked-out tree.
func TestGitOnly_GitsCommandsAlone(t *testing.T) {
	t.Parallel()
	for run, want := range map[string]bool{"git apply p\ngit push origin HEAD": true, "git apply p && ./build.sh": false, "git log $(./x)": false, "make\n": false, "": false} {
		if gitOnly(run) != want {
			t.Errorf("gitOnly(%q) = %v", run, !want)
		}
	}
}
