package app_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/greenlight-ci/breaker/internal/app"
)

// The server's settings: each missing or malformed one stops it with a
// line naming it and the fix.
func TestLoadSettings_EachBadSettingIsOneLineNamingIt(t *testing.T) {
	t.Parallel()
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	if err := os.WriteFile(keyFile, []byte(pemOf(appKey())), 0o600); err != nil {
		t.Fatal(err)
	}
	good := map[string]string{"BREAKER_WEBHOOK_SECRET": secret, "GITHUB_APP_ID": "424242", "GITHUB_APP_PRIVATE_KEY_FILE": keyFile}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		m[k] = v
		return m
	}
	s, err := app.LoadSettings("", app.DefaultWorkers, func(k string) string { return good[k] })
	if err != nil || s.Addr != ":8080" || s.AppID != 424242 || s.Key == nil {
		t.Fatalf("good settings: %+v, %v", s, err)
	}
	inline := with("GITHUB_APP_PRIVATE_KEY_FILE", "")
	inline["GITHUB_APP_PRIVATE_KEY"], inline["PORT"] = strings.ReplaceAll(pemOf(appKey()), "\n", `\n`), "9000"
	if s, err := app.LoadSettings("", 1, func(k string) string { return inline[k] }); err != nil || s.Addr != ":9000" || s.Key == nil {
		t.Errorf("the key inline, as one line with \\n: %+v, %v", s.Addr, err)
	}
	cases := []struct {
		env  map[string]string
		want string
	}{
		{with("BREAKER_WEBHOOK_SECRET", ""), "BREAKER_WEBHOOK_SECRET"},
		{with("BREAKER_WEBHOOK_SECRET", "short"), "BREAKER_WEBHOOK_SECRET"},
		{with("GITHUB_APP_ID", "my-app"), "GITHUB_APP_ID"},
		{with("GITHUB_APP_PRIVATE_KEY_FILE", ""), "GITHUB_APP_PRIVATE_KEY_FILE is not set"},
		{with("GITHUB_APP_PRIVATE_KEY_FILE", "/nonexistent/app.pem"), "GITHUB_APP_PRIVATE_KEY_FILE"},
		{with("GITHUB_APP_PRIVATE_KEY", "-----BEGIN"), "both set"},
		{with("GITHUB_API_URL", "ghe.example.com/api/v3"), "GITHUB_API_URL"},
		{with("PORT", "http"), "PORT"},
	}
	for _, c := range cases {
		_, err := app.LoadSettings("", app.DefaultWorkers, func(k string) string { return c.env[k] })
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Count(err.Error(), "\n") != 0 {
			t.Errorf("%v: error %v; want one line naming %s", c.env, err, c.want)
		}
	}
	if _, err := app.LoadSettings("", 0, func(k string) string { return good[k] }); err == nil || !strings.Contains(err.Error(), "--workers") {
		t.Errorf("--workers 0: %v", err)
	}
}

// The manifest holds only the fields GitHub documents for "Registering a
// GitHub App from a manifest" (docs.github.com), with their types; the
// events are webhook events GitHub describes; the permissions are
// permissions of an installation token (GitHub's OpenAPI description,
// app-permissions) with their values.
func TestManifest_HoldsGitHubsDocumentedFields(t *testing.T) {
	t.Parallel()
	m, err := app.NewManifest("greenlight-breaker", "https://breaker.example.com/webhook", "https://github.com/greenlight-ci/breaker", "")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(m.JSON(), &got); err != nil {
		t.Fatal(err)
	}
	documented := map[string]string{"name": "string", "url": "string", "hook_attributes": "object", "redirect_url": "string",
		"callback_urls": "array", "setup_url": "string", "description": "string", "public": "bool", "default_events": "array",
		"default_permissions": "object", "request_oauth_on_install": "bool", "setup_on_update": "bool"}
	for k, v := range got {
		want, ok := documented[k]
		if !ok {
			t.Errorf("field %q is not one GitHub documents", k)
			continue
		}
		var kind string
		switch v.(type) {
		case string:
			kind = "string"
		case bool:
			kind = "bool"
		case []any:
			kind = "array"
		case map[string]any:
			kind = "object"
		}
		if kind != want {
			t.Errorf("field %q is a %s, GitHub documents a %s", k, kind, want)
		}
	}
	if got["url"] == "" || m.HookAttributes.URL != "https://breaker.example.com/webhook" || !m.HookAttributes.Active {
		t.Errorf("url %v, hook %+v; both are required, the hook active", got["url"], m.HookAttributes)
	}
	for _, e := range m.DefaultEvents {
		if !slices.Contains([]string{"check_run", "issue_comment", "pull_request", "workflow_run"}, e) {
			t.Errorf("event %q is not one the server handles", e)
		}
	}
	perms := map[string][]string{"checks": {"read", "write"}, "contents": {"read", "write"}, "pull_requests": {"read", "write"},
		"issues": {"read", "write"}, "actions": {"read", "write"}, "members": {"read", "write"}, "metadata": {"read", "write"}}
	for k, v := range m.DefaultPermissions {
		if !slices.Contains(perms[k], v) {
			t.Errorf("permission %s: %s is not an app-permissions value", k, v)
		}
	}
	if _, err := app.NewManifest("", "breaker.example.com", "https://x.example", ""); err == nil ||
		!strings.Contains(err.Error(), "--webhook-url") || !strings.Contains(err.Error(), "--name") {
		t.Errorf("a bad manifest request: %v; want --webhook-url and --name named", err)
	}
}
