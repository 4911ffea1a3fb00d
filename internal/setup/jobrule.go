package setup

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The project's own rule for the workflows it shows and runs: a job that
// runs repository code (a run: step after a checkout) holds no write
// permission and no persisted credentials — the agent's code runs there,
// and with a write token or the token in .git/config it could reach the
// verdict. The breaker's own job, which runs no repository code, holds the
// write scopes. The workflows init writes keep it, and so does every one
// the project shows (docs/workflows_test.go).

type ruleWorkflow struct {
	Permissions any                 `yaml:"permissions"`
	Jobs        map[string]*ruleJob `yaml:"jobs"`
}

type ruleJob struct {
	Permissions any        `yaml:"permissions"`
	Steps       []ruleStep `yaml:"steps"`
	Uses        string     `yaml:"uses"`
}

type ruleStep struct {
	Uses string         `yaml:"uses"`
	Run  string         `yaml:"run"`
	With map[string]any `yaml:"with"`
}

// UnsafeJobs returns why each job of workflow src breaks the rule.
func UnsafeJobs(src string) ([]string, error) {
	var wf ruleWorkflow
	if err := yaml.Unmarshal([]byte(src), &wf); err != nil {
		return nil, err
	}
	var out []string
	names := make([]string, 0, len(wf.Jobs))
	for n := range wf.Jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		j := wf.Jobs[name]
		checkout, runs := -1, false
		for i, s := range j.Steps {
			switch {
			case strings.HasPrefix(s.Uses, "actions/checkout@"):
				checkout = i
				if v := fmt.Sprint(s.With["persist-credentials"]); v != "false" && runsAfter(j.Steps, i) {
					out = append(out, fmt.Sprintf("job %s: its checkout keeps the token in .git/config (persist-credentials is not false) while repository code runs", name))
				}
			case s.Run != "" && checkout >= 0 && !gitOnly(s.Run):
				runs = true
			}
		}
		if !runs {
			continue
		}
		perms := j.Permissions
		if perms == nil {
			perms = wf.Permissions
		}
		if w := writes(perms); len(w) > 0 {
			out = append(out, fmt.Sprintf("job %s runs repository code with write permissions: %s", name, strings.Join(w, ", ")))
		}
	}
	return out, nil
}

// gitOnly reports whether a run: script is git commands only (the Codex
// recipe's push): git runs no code of the checked-out tree — hooks live in
// .git, which no commit holds, and git apply refuses paths inside it.
func gitOnly(run string) bool {
	n := 0
	for _, l := range strings.Split(run, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if !strings.HasPrefix(l, "git ") || strings.ContainsAny(l, ";|&`") || strings.Contains(l, "$(") {
			return false
		}
		n++
	}
	return n > 0
}

func runsAfter(steps []ruleStep, i int) bool {
	for _, s := range steps[i+1:] {
		if s.Run != "" && !gitOnly(s.Run) {
			return true
		}
	}
	return false
}

// writes lists the write scopes of a permissions value: nil (the
// repository's default, which may be write-all) and "write-all" count.
func writes(p any) []string {
	switch v := p.(type) {
	case nil:
		return []string{"the default token permissions (set permissions: contents: read)"}
	case string:
		if v == "read-all" || v == "{}" || v == "" {
			return nil
		}
		return []string{v}
	case map[string]any:
		var out []string
		for k, x := range v {
			if fmt.Sprint(x) == "write" {
				out = append(out, k+": write")
			}
		}
		sort.Strings(out)
		return out
	}
	return []string{fmt.Sprint(p)}
}

// pinnedUse is how every third-party action is named: a full commit SHA,
// which no one can move, with the release it was cut from in a comment, as
// Dependabot writes and updates it.
var pinnedUse = regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v?\d+\.\d+(\.\d+)?\b`)

// UnpinnedActions lists the uses: lines of a workflow that name a
// third-party action by a movable ref. Local actions, the breaker itself
// (whose pin is the reader's choice, shown in docs/installing.md) and
// docker:// references are left out.
func UnpinnedActions(src string) []string {
	var out []string
	for _, line := range strings.Split(src, "\n") {
		_, ref, ok := strings.Cut(line, "uses: ")
		if !ok || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		ref = strings.TrimSpace(ref)
		if strings.HasPrefix(ref, "./") || strings.HasPrefix(ref, "docker://") || strings.HasPrefix(ref, "your-org/breaker") {
			continue
		}
		if !pinnedUse.MatchString(ref) {
			out = append(out, ref)
		}
	}
	return out
}
