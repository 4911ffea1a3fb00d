package ghapi

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/greenlight-ci/breaker/internal/ghapi/ghfake"
)

const testToken = "ghs_0123456789abcdefTOKEN"

var (
	fixedNow = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	shaA     = strings.Repeat("a", 40)
	shaB     = strings.Repeat("b", 40)
	shaC     = strings.Repeat("c", 40)
	treeT    = strings.Repeat("e", 40)
)

// sleeper records the waits asked for and returns at once.
type sleeper struct {
	mu    sync.Mutex
	slept []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slept = append(s.slept, d)
	return ctx.Err()
}

func (s *sleeper) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.slept...)
}

// newFake starts a ghfake server that requires testToken.
func newFake(t *testing.T, opts ...ghfake.Option) *ghfake.Server {
	t.Helper()
	return ghfake.New(t, append([]ghfake.Option{ghfake.WithToken(testToken)}, opts...)...)
}

// newClient returns a Client on srv with a recording sleeper and a
// fixed clock; edit adjusts the Config.
func newClient(t *testing.T, srv *ghfake.Server, edit ...func(*Config)) (*Client, *sleeper) {
	t.Helper()
	s := &sleeper{}
	cfg := Config{
		Token: testToken, APIURL: srv.URL(), Owner: srv.Owner(), Repo: srv.Repo(),
		Sleep: s.sleep, Now: func() time.Time { return fixedNow },
	}
	for _, e := range edit {
		e(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, s
}
