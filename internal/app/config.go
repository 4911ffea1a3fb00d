package app

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/greenlight-ci/breaker/internal/actionenv"
)

// ConfigPath is the repository's settings for the App, read from the
// default branch at each delivery: a branch's copy, which the agent
// writes, is never read.
const ConfigPath = ".github/breaker.yml"

// maxConfig caps the settings file.
const maxConfig = 64 << 10

// DefaultWorkflows are the tested workflows when the settings name none:
// the one `breaker init` writes.
var DefaultWorkflows = []string{"Tests"}

// Config is a repository's settings: which workflows' completed runs are
// judged, and the Action's inputs by their names.
type Config struct {
	Workflows []string
	Inputs    map[string]string
}

// serverInputs are the Action's inputs the server sets itself, never a
// repository's file: the credentials, the App's identity, and what a
// delivery decides.
var serverInputs = []string{"token", "app-id", "ledger-key", "mode", "pull-request", "tests-outcome"}

// ParseConfig reads the settings file (nil = none: the defaults). Keys
// are "workflows" and the Action's inputs; a value is a string, a
// number, a boolean or a list (one item a line, as the Action reads
// lists). An unknown key is an error naming it.
func ParseConfig(data []byte) (Config, error) {
	c := Config{Workflows: DefaultWorkflows, Inputs: map[string]string{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	if len(data) > maxConfig {
		return c, fmt.Errorf("%s: %d bytes, over the %d allowed", ConfigPath, len(data), maxConfig)
	}
	var raw map[string]yaml.Node
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return c, fmt.Errorf("%s: %v; it is a YAML mapping of the Action's inputs (see docs/app.md)", ConfigPath, err)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []error
	for _, k := range keys {
		node := raw[k]
		v, err := value(node)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %s: %v", ConfigPath, node.Line, k, err))
			continue
		}
		switch {
		case k == "workflows":
			c.Workflows = lines(v)
			if len(c.Workflows) == 0 {
				errs = append(errs, fmt.Errorf("%s:%d: workflows is empty; name the workflows whose runs test the agent's pushes", ConfigPath, node.Line))
			}
		case slices.Contains(serverInputs, k):
			errs = append(errs, fmt.Errorf("%s:%d: %s is the server's to set, never a repository file's; remove it (docs/app.md)", ConfigPath, node.Line, k))
		case !slices.Contains(actionenv.InputNames, k):
			errs = append(errs, fmt.Errorf("%s:%d: unknown key %q; the keys are workflows and the Action's inputs (docs/action.md)", ConfigPath, node.Line, k))
		default:
			c.Inputs[k] = v
		}
	}
	return c, errors.Join(errs...)
}

// value is a scalar's text, or a list's items one a line.
func value(n yaml.Node) (string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, nil
	case yaml.SequenceNode:
		items := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return "", errors.New("a list holds plain values only")
			}
			items = append(items, c.Value)
		}
		return strings.Join(items, "\n"), nil
	}
	return "", errors.New("want a value or a list of values")
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// Judges reports whether a completed run of the named workflow is one
// the settings judge.
func (c Config) Judges(workflow string) bool {
	return slices.Contains(c.Workflows, workflow)
}
