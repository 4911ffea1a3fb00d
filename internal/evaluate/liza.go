package evaluate

import (
	"errors"
	"fmt"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/workspace"
)

// LizaState is where Liza keeps its blackboard, relative to the repository.
const LizaState = ".liza/state.yaml"

// maxLizaState caps the blackboard read.
const maxLizaState = 4 << 20

// lizaBoard is the part of the blackboard the breaker reads (seed 004).
type lizaBoard struct {
	Anomalies []struct {
		Timestamp any            `yaml:"timestamp"`
		Task      string         `yaml:"task"`
		Reporter  string         `yaml:"reporter"`
		Type      string         `yaml:"type"`
		Details   map[string]any `yaml:"details"`
	} `yaml:"anomalies"`
}

// readAnomalies reads the anomalies of .liza/state.yaml at the head,
// through the workspace root (contained, capped). No file means none were
// logged; a file that is not the blackboard's YAML is an error naming it.
func readAnomalies(ws *workspace.Workspace) ([]breaker.Anomaly, string, error) {
	data, err := ws.ReadFile(LizaState, maxLizaState)
	switch {
	case errors.Is(err, workspace.ErrNotExist):
		return nil, fmt.Sprintf("liza: no %s at the head: only the anomalies derived from CI's evidence count", LizaState), nil
	case err != nil:
		return nil, "", fmt.Errorf("read %s: %w", LizaState, err)
	}
	var board lizaBoard
	if err := yaml.Unmarshal(data, &board); err != nil {
		return nil, "", fmt.Errorf("read %s: not the blackboard's YAML: %w", LizaState, err)
	}
	var out []breaker.Anomaly
	for i, a := range board.Anomalies {
		if a.Type == "" {
			return nil, "", fmt.Errorf("read %s: anomalies[%d] has no type", LizaState, i)
		}
		an := breaker.Anomaly{Timestamp: scalar(a.Timestamp), Task: a.Task, Reporter: a.Reporter, Type: a.Type, Details: map[string]string{}}
		for k, v := range a.Details {
			an.Details[k] = scalar(v)
		}
		out = append(out, an)
	}
	return out, "", nil
}

// scalar words a YAML value as text; nested values are not the seed's and
// read as empty.
func scalar(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case time.Time:
		return v.UTC().Format(time.RFC3339)
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(v)
	}
	return ""
}
