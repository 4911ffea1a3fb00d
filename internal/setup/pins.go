package setup

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/rx"
)

// pinsTable is every third-party action the breaker's workflows name, one
// row each: action, release, commit, and the record of the check that the
// release's tag points at that commit in the action's own repository.
// internal/setup/pinscheck writes and checks it; no row is typed by hand.
//
//go:embed pins.txt
var pinsTable string

// Pin is one row of the table.
type Pin struct {
	Action, Release, Commit, Checked string
}

// Uses is the pin as a workflow step names it, with the release in a
// comment as Dependabot writes it.
func (p Pin) Uses() string { return p.Action + "@" + p.Commit + " # " + p.Release }

var (
	pinActionRE  = rx.Lazy(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$`)
	pinReleaseRE = rx.Lazy(`^v?[0-9]+\.[0-9]+(\.[0-9]+)?$`)
	pinCommitRE  = rx.Lazy(`^[0-9a-f]{40}$`)
)

// ParsePins reads a pins table: tab-separated rows, # comments and blank
// lines skipped. It names the line of the first bad row.
func ParsePins(text string) ([]Pin, error) {
	var pins []Pin
	seen := map[string]bool{}
	for i, line := range strings.Split(text, "\n") {
		if line = strings.TrimRight(line, "\r"); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("pins.txt:%d: want 4 tab-separated fields (action, release, commit, checked), got %d", i+1, len(f))
		}
		p := Pin{Action: f[0], Release: f[1], Commit: f[2], Checked: f[3]}
		switch {
		case !pinActionRE().MatchString(p.Action):
			return nil, fmt.Errorf("pins.txt:%d: action %q is not OWNER/REPO", i+1, p.Action)
		case !pinReleaseRE().MatchString(p.Release):
			return nil, fmt.Errorf("pins.txt:%d: release %q is not a version tag", i+1, p.Release)
		case !pinCommitRE().MatchString(p.Commit):
			return nil, fmt.Errorf("pins.txt:%d: commit %q is not a 40-hex SHA", i+1, p.Commit)
		case !strings.Contains(p.Checked, "tag "+p.Release+" is this commit in "+p.Action):
			return nil, fmt.Errorf("pins.txt:%d: %s has no record that tag %s is its commit; run go run ./internal/setup/pinscheck -write", i+1, p.Action, p.Release)
		case seen[p.Action]:
			return nil, fmt.Errorf("pins.txt:%d: %s is pinned twice", i+1, p.Action)
		}
		seen[p.Action] = true
		pins = append(pins, p)
	}
	return pins, nil
}

// Pins is the embedded table; the error is pins.txt's first bad row (a test
// keeps it nil).
func Pins() ([]Pin, error) { return ParsePins(pinsTable) }

// uses returns the pinned step reference of action, from the table. An
// action missing from the table (a test forbids it) comes back unpinned
// so that actionlint and the workflow rule tests name it.
func uses(action string) string {
	pins, _ := Pins()
	for _, p := range pins {
		if p.Action == action {
			return p.Uses()
		}
	}
	return action + "@UNPINNED"
}
