package ghfake

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The project's own webhook payloads (the events the Action's tests are
// made from) are as GitHub sends them, by GitHub's description; a payload
// with a field of the wrong type, or without one GitHub always sends, is
// refused.
func TestWebhooks_OwnPayloadsAreGitHubs(t *testing.T) {
	t.Parallel()
	if err := WebhooksAvailable(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the webhook contract cannot be checked in CI: %v", err)
		}
		t.Skipf("%v", err)
	}
	dir := filepath.Join("..", "..", "actionenv", "testdata", "webhooks")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) < 8 {
		t.Fatalf("found %d payloads in %s", len(files), dir)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatal(err)
		}
		event := strings.SplitN(filepath.Base(f), ".", 2)[0]
		if err := CheckWebhook(event, p); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
		if event == "push" {
			p["after"] = 42
			if CheckWebhook(event, p) == nil {
				t.Errorf("a push whose after is a number is accepted: the check proves nothing")
			}
			delete(p, "after")
			if CheckWebhook(event, p) == nil {
				t.Errorf("a push without after is accepted: the check proves nothing")
			}
		}
	}
}
