package ghfake

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// WebhooksVersion is the @octokit/openapi-webhooks release event
// payloads are checked against: GitHub's description of every webhook
// (github/rest-api-description), OpenAPI 3.1, whose schemas are JSON
// Schema 2020-12.
const WebhooksVersion = "12.1.0"

// WebhooksDir is where the webhook descriptions are looked for.
func WebhooksDir() string {
	if d := os.Getenv("GREENLIGHT_OPENAPI_WEBHOOKS_DIR"); d != "" {
		return d
	}
	return filepath.Join(repoRoot(), ".ci", "npm", "node_modules", "@octokit", "openapi-webhooks", "generated")
}

const webhooksURL = "file:///octokit-openapi-webhooks/api.github.com.json"

// webhookDoc loads the description once into a compiler.
var webhookDoc = sync.OnceValues(func() (*jsonschema.Compiler, error) {
	path := filepath.Join(WebhooksDir(), "api.github.com.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("GitHub's webhook description is not installed (%v); install it with: %s", err, OpenAPIInstall)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(webhooksURL, doc); err != nil {
		return nil, err
	}
	return c, nil
})

var (
	webhookMu      sync.Mutex
	webhookSchemas = map[string]*jsonschema.Schema{}
)

// WebhooksAvailable reports whether the webhook descriptions are
// installed, and why not.
func WebhooksAvailable() error {
	_, err := webhookDoc()
	return err
}

// CheckWebhook validates an event payload (the JSON a workflow's
// GITHUB_EVENT_PATH holds) against GitHub's description of that event
// and action: a field GitHub never sends, or one it always sends and the
// payload lacks, is an error. Without the descriptions it returns nil
// (WebhooksAvailable says why).
func CheckWebhook(event string, payload any) error {
	c, err := webhookDoc()
	if err != nil {
		return nil
	}
	key := strings.ReplaceAll(event, "_", "-")
	if m, ok := payload.(map[string]any); ok {
		if action, ok := m["action"].(string); ok && action != "" {
			key += "-" + strings.ReplaceAll(action, "_", "-")
		}
	}
	webhookMu.Lock()
	defer webhookMu.Unlock()
	sch, ok := webhookSchemas[key]
	if !ok {
		sch, err = c.Compile(webhooksURL + "#/webhooks/" + key + "/post/requestBody/content/application~1json/schema")
		if err != nil {
			return fmt.Errorf("GitHub describes no webhook %q: %w", key, err)
		}
		webhookSchemas[key] = sch
	}
	if err := sch.Validate(payload); err != nil {
		return fmt.Errorf("the %s payload is not one GitHub sends: %w", key, err)
	}
	return nil
}
