package ghapi

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

func TestRateLimitWait(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		status      int
		header      map[string]string
		body        string
		want        time.Duration
		wantLimited bool
		prior       int // retries already made
	}{
		{"ok", 200, nil, "", 0, false, 0},
		{"forbidden", 403, nil, ghfake.BodyForbidden, 0, false, 0},
		{"forbidden with quota left", 403, map[string]string{"X-RateLimit-Remaining": "12", "X-RateLimit-Reset": epoch(time.Hour)}, ghfake.BodyForbidden, 0, false, 0},
		{"server error", 502, map[string]string{"Retry-After": "3"}, "", 0, false, 0},
		{"429 bare", 429, nil, "", time.Minute, true, 0},
		{"429 retry-after seconds", 429, map[string]string{"Retry-After": "9"}, "", 9 * time.Second, true, 0},
		{"429 retry-after date", 429, map[string]string{"Retry-After": fixedNow.Add(20 * time.Second).Format(http.TimeFormat)}, "", 20 * time.Second, true, 0},
		// A secondary limit's x-ratelimit-reset is the primary's hour: GitHub
		// says wait at least a minute, then longer (docs: "Handle rate limit
		// errors appropriately"). Waiting for the reset gave up at once.
		{"429 reset only", 429, map[string]string{"X-RateLimit-Reset": epoch(90 * time.Second)}, "", time.Minute, true, 0},
		{"403 secondary, quota left, reset in an hour", 403, map[string]string{"X-RateLimit-Remaining": "4321", "X-RateLimit-Reset": epoch(time.Hour)}, ghfake.BodySecondaryRateLimit, time.Minute, true, 0},
		{"403 secondary, second retry", 403, map[string]string{"X-RateLimit-Remaining": "4321"}, ghfake.BodySecondaryRateLimit, 2 * time.Minute, true, 1},
		{"403 primary waits for the reset", 403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(90 * time.Second)}, "", 91 * time.Second, true, 0},
		{"403 primary, reset passed", 403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(-time.Minute)}, "", time.Second, true, 0},
		{"403 secondary", 403, nil, ghfake.BodySecondaryRateLimit, time.Minute, true, 0},
		{"403 garbage retry-after", 403, map[string]string{"X-RateLimit-Remaining": "0", "Retry-After": "soon"}, "", time.Minute, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := &http.Response{StatusCode: tt.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tt.body))}
			for k, v := range tt.header {
				resp.Header.Set(k, v)
			}
			got, limited := rateLimitWait(resp, fixedNow, tt.prior)
			if got != tt.want || limited != tt.wantLimited {
				t.Errorf("rateLimitWait = %v, %v; want %v, %v", got, limited, tt.want, tt.wantLimited)
			}
			if rest, _ := io.ReadAll(resp.Body); string(rest) != tt.body {
				t.Errorf("body left %q, want %q", rest, tt.body)
			}
		})
	}
}

func TestGraphQLRateLimited(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		header      map[string]string
		body        string
		want        time.Duration
		wantLimited bool
	}{
		{"data", nil, `{"data":{"viewer":{"login":"x"}}}`, 0, false},
		{"other error", nil, `{"data":null,"errors":[{"type":"NOT_FOUND","message":"Could not resolve to a Repository"}]}`, 0, false},
		{"a test name mentioning the limit", nil, `{"data":{"x":"RATE_LIMITED"}}`, 0, false},
		{"rate limited, reset given", map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(30 * time.Second)}, ghfake.BodyGraphQLRateLimited, 31 * time.Second, true},
		{"rate limited, retry-after", map[string]string{"Retry-After": "7"}, ghfake.BodyGraphQLRateLimited, 7 * time.Second, true},
		{"rate limited, nothing said", nil, ghfake.BodyGraphQLRateLimited, time.Minute, true},
		{"RATE_LIMIT spelling", nil, `{"errors":[{"type":"RATE_LIMIT","code":"graphql_rate_limit","message":"API rate limit already exceeded for user ID 1."}]}`, time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tt.body))}
			for k, v := range tt.header {
				resp.Header.Set(k, v)
			}
			got, limited := graphQLRateLimited(resp, fixedNow)
			if got != tt.want || limited != tt.wantLimited {
				t.Errorf("graphQLRateLimited = %v, %v; want %v, %v", got, limited, tt.want, tt.wantLimited)
			}
			if rest, _ := io.ReadAll(resp.Body); string(rest) != tt.body {
				t.Errorf("body left %q, want %q", rest, tt.body)
			}
		})
	}
}
