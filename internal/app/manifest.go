package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
)

// Manifest is a GitHub App manifest, the fields GitHub documents for
// "Registering a GitHub App from a manifest" (docs.github.com): url is
// required, hook_attributes.url is where deliveries go.
type Manifest struct {
	Name               string            `json:"name"`
	URL                string            `json:"url"`
	HookAttributes     HookAttributes    `json:"hook_attributes"`
	RedirectURL        string            `json:"redirect_url,omitempty"`
	Description        string            `json:"description"`
	Public             bool              `json:"public"`
	DefaultEvents      []string          `json:"default_events"`
	DefaultPermissions map[string]string `json:"default_permissions"`
}

// HookAttributes is the manifest's webhook.
type HookAttributes struct {
	URL    string `json:"url"`
	Active bool   `json:"active"`
}

// Events are the webhook events the server acts on.
var Events = []string{"check_run", "issue_comment", "pull_request", "workflow_run"}

// Permissions are what the breaker does as the App, each the least that
// does it (docs.github.com, "Permissions required for GitHub Apps"):
// checks (the ledger and the verdict), contents (the settings file, the
// commits, checkpoint tags), pull requests and issues (the comment,
// labels, assignees, reviewers, draft), actions (the tested run's
// artifact and logs; cancel the agent's runs at a trip), members (a team
// asked to review), metadata.
var Permissions = map[string]string{
	"checks": "write", "contents": "write", "pull_requests": "write", "issues": "write",
	"actions": "write", "members": "read", "metadata": "read",
}

// NewManifest is the manifest of an App named name whose deliveries go to
// webhookURL, with homepage (url) and, when set, the manifest flow's
// redirect.
func NewManifest(name, webhookURL, homepage, redirect string) (Manifest, error) {
	var errs []error
	for _, u := range []struct{ flag, v string }{{"--webhook-url", webhookURL}, {"--homepage", homepage}, {"--redirect-url", redirect}} {
		if u.v == "" && u.flag == "--redirect-url" {
			continue
		}
		p, err := url.Parse(u.v)
		if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
			errs = append(errs, fmt.Errorf("%s %q is not an http(s) URL", u.flag, u.v))
		}
	}
	if name == "" || len(name) > 34 {
		errs = append(errs, fmt.Errorf("--name %q: GitHub takes an App name of 1 to 34 characters", name))
	}
	return Manifest{
		Name: name, URL: homepage, RedirectURL: redirect,
		HookAttributes: HookAttributes{URL: webhookURL, Active: true},
		Description:    "Greenlight circuit breaker: stops a coding agent's failing-test loop from CI's evidence.",
		DefaultEvents:  Events, DefaultPermissions: Permissions,
	}, errors.Join(errs...)
}

// JSON is the manifest as GitHub's manifest flow posts it.
func (m Manifest) JSON() []byte {
	b, _ := json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}
