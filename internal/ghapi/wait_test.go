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
	}{
		{"ok", 200, nil, "", 0, false},
		{"forbidden", 403, nil, ghfake.BodyForbidden, 0, false},
		{"forbidden with quota left", 403, map[string]string{"X-RateLimit-Remaining": "12", "X-RateLimit-Reset": epoch(time.Hour)}, ghfake.BodyForbidden, 0, false},
		{"server error", 502, map[string]string{"Retry-After": "3"}, "", 0, false},
		{"429 bare", 429, nil, "", time.Minute, true},
		{"429 retry-after seconds", 429, map[string]string{"Retry-After": "9"}, "", 9 * time.Second, true},
		{"429 retry-after date", 429, map[string]string{"Retry-After": fixedNow.Add(20 * time.Second).Format(http.TimeFormat)}, "", 20 * time.Second, true},
		{"429 reset only", 429, map[string]string{"X-RateLimit-Reset": epoch(90 * time.Second)}, "", 91 * time.Second, true},
		{"403 primary, reset passed", 403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": epoch(-time.Minute)}, "", time.Second, true},
		{"403 secondary", 403, nil, ghfake.BodySecondaryRateLimit, time.Minute, true},
		{"403 garbage retry-after", 403, map[string]string{"X-RateLimit-Remaining": "0", "Retry-After": "soon"}, "", time.Minute, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp := &http.Response{StatusCode: tt.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tt.body))}
			for k, v := range tt.header {
				resp.Header.Set(k, v)
			}
			got, limited := rateLimitWait(resp, fixedNow)
			if got != tt.want || limited != tt.wantLimited {
				t.Errorf("rateLimitWait = %v, %v; want %v, %v", got, limited, tt.want, tt.wantLimited)
			}
			if rest, _ := io.ReadAll(resp.Body); string(rest) != tt.body {
				t.Errorf("body left %q, want %q", rest, tt.body)
			}
		})
	}
}
