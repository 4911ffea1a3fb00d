package actionenv_test

import (
	"fmt"
	"strings"

	"github.com/greenlight-ci/breaker/internal/actionenv"
)

// An event the Action acts on is read from its payload here (ParseEvent
// keeps only the fields the breaker uses), then routed to its use case by
// internal/action's route. A new event is a field of Event and a case of
// ParseEvent, a case of route, and its use case with its tests beside it
// in internal/action (docs/architecture.md). The pull cord's
// workflow_dispatch, read from the payload GitHub sends:
func ExampleParseEvent() {
	payload := `{"ref": "refs/heads/copilot/fix-login", "inputs": {"slice": "S-3"},
		"repository": {"full_name": "octo/app"}, "sender": {"login": "octocat"}}`
	ev, err := actionenv.ParseEvent(actionenv.EventWorkflowDispatch, "octo/app", strings.NewReader(payload))
	if err != nil {
		panic(err)
	}
	fmt.Println(ev.Name, ev.Dispatch.Ref, ev.Dispatch.Inputs["slice"])
	// Output:
	// workflow_dispatch refs/heads/copilot/fix-login S-3
}
