package report

import (
	"time"

	"github.com/greenlight-ci/breaker/internal/breaker"
)

// ReportPRP is the prp policy's state (seed 002's schema).
type ReportPRP struct {
	Phase              string                    `json:"phase"`
	PhaseSource        string                    `json:"phase_source"`
	Thresholds         ReportPRPThresholds       `json:"thresholds"`
	State              string                    `json:"state"`
	NoProgressCount    int                       `json:"no_progress_count"`
	SameErrorCount     int                       `json:"same_error_count"`
	LastProgressMetric map[string]map[string]int `json:"last_progress_metric"`
	LastErrorHash      *string                   `json:"last_error_hash"`
	LastError          *string                   `json:"last_error"`
	OpenedAt           *string                   `json:"opened_at"`
	OpenReason         *string                   `json:"open_reason"`
	Iterations         int                       `json:"iterations"`
	TestsPassing       int                       `json:"tests_passing"`
	TestsTotal         int                       `json:"tests_total"`
	History            []ReportPRPEvent          `json:"history"`
}

// ReportPRPThresholds are the phase's thresholds.
type ReportPRPThresholds struct {
	NoProgress int `json:"no_progress"`
	SameError  int `json:"same_error"`
}

// ReportPRPEvent is one prp history entry.
type ReportPRPEvent struct {
	Timestamp *string `json:"timestamp"`
	Event     string  `json:"event"`
	FromState string  `json:"from_state"`
	ToState   string  `json:"to_state"`
	Reason    string  `json:"reason"`
}

// ReportBMAD is the bmad policy's state (seed 003).
type ReportBMAD struct {
	Status              string              `json:"status"`
	ConsecutiveFailures int                 `json:"consecutive_failures"`
	Threshold           int                 `json:"threshold"`
	Succeeded           int                 `json:"succeeded"`
	Failed              int                 `json:"failed"`
	FailingTests        []string            `json:"failing_tests"`
	Sessions            []ReportBMADSession `json:"sessions"`
}

// ReportBMADSession is one session (an observed push).
type ReportBMADSession struct {
	Head         string   `json:"head"`
	ObservedAt   *string  `json:"observed_at"`
	Succeeded    bool     `json:"succeeded"`
	NewlyPassing []string `json:"newly_passing"`
	Passing      int      `json:"passing"`
	Failing      int      `json:"failing"`
}

// ReportLiza is what the liza policy found (seed 004).
type ReportLiza struct {
	Status    string            `json:"status"`
	Pattern   *string           `json:"pattern"`
	Severity  *string           `json:"severity"`
	Evidence  []ReportAnomaly   `json:"evidence"`
	Matches   []ReportLizaMatch `json:"matches"`
	Anomalies []ReportAnomaly   `json:"anomalies"`
}

// ReportLizaMatch is a pattern that matched.
type ReportLizaMatch struct {
	Pattern  string `json:"pattern"`
	Severity string `json:"severity"`
	Key      string `json:"key"`
	Count    int    `json:"count"`
}

// ReportAnomaly is one anomaly, logged or derived.
type ReportAnomaly struct {
	Timestamp string            `json:"timestamp"`
	Task      string            `json:"task"`
	Reporter  string            `json:"reporter"`
	Type      string            `json:"type"`
	Details   map[string]string `json:"details"`
	Derived   bool              `json:"derived"`
}

func rfc3339(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

func reportPRP(p *breaker.PRPState) *ReportPRP {
	if p == nil {
		return nil
	}
	out := &ReportPRP{Phase: p.Phase, PhaseSource: p.PhaseSource,
		Thresholds: ReportPRPThresholds{NoProgress: p.NoProgressThreshold, SameError: p.SameErrorThreshold},
		State:      p.State, NoProgressCount: p.NoProgressCount, SameErrorCount: p.SameErrorCount,
		LastProgressMetric: p.LastProgressMetric, LastErrorHash: nullable(p.LastErrorHash), LastError: nullable(p.LastError),
		OpenReason: nullable(p.OpenReason), Iterations: p.Iterations, TestsPassing: p.TestsPassing, TestsTotal: p.TestsTotal,
		History: []ReportPRPEvent{}}
	if out.LastProgressMetric == nil {
		out.LastProgressMetric = map[string]map[string]int{}
	}
	if p.OpenedAt != nil {
		out.OpenedAt = rfc3339(*p.OpenedAt)
	}
	for _, h := range p.History {
		out.History = append(out.History, ReportPRPEvent{Timestamp: rfc3339(h.Timestamp), Event: h.Event, FromState: h.FromState, ToState: h.ToState, Reason: h.Reason})
	}
	return out
}

func reportBMAD(b *breaker.BMADState) *ReportBMAD {
	if b == nil {
		return nil
	}
	out := &ReportBMAD{Status: b.Status, ConsecutiveFailures: b.ConsecutiveFailures, Threshold: b.Threshold,
		Succeeded: b.Succeeded, Failed: b.Failed, FailingTests: nonNil(b.FailingTests), Sessions: []ReportBMADSession{}}
	for _, s := range b.Sessions {
		out.Sessions = append(out.Sessions, ReportBMADSession{Head: s.Head, ObservedAt: rfc3339(s.ObservedAt), Succeeded: s.Succeeded,
			NewlyPassing: nonNil(s.NewlyPassing), Passing: s.Passing, Failing: s.Failing})
	}
	return out
}

func reportLiza(l *breaker.LizaState) *ReportLiza {
	if l == nil {
		return nil
	}
	out := &ReportLiza{Status: l.Status, Pattern: nullable(l.Pattern), Severity: nullable(l.Severity),
		Evidence: reportAnomalies(l.Evidence), Matches: []ReportLizaMatch{}, Anomalies: reportAnomalies(l.Anomalies)}
	for _, m := range l.Matches {
		out.Matches = append(out.Matches, ReportLizaMatch{Pattern: m.Pattern, Severity: m.Severity, Key: m.Key, Count: m.Count})
	}
	return out
}

func reportAnomalies(as []breaker.Anomaly) []ReportAnomaly {
	out := []ReportAnomaly{}
	for _, a := range as {
		d := a.Details
		if d == nil {
			d = map[string]string{}
		}
		out = append(out, ReportAnomaly{Timestamp: a.Timestamp, Task: a.Task, Reporter: a.Reporter, Type: a.Type, Details: d, Derived: a.Derived})
	}
	return out
}
