package rx_test

import (
	"regexp"
	"testing"

	_ "github.com/greenlight-ci/breaker/internal/actionenv"
	_ "github.com/greenlight-ci/breaker/internal/breaker"
	_ "github.com/greenlight-ci/breaker/internal/ledger"
	_ "github.com/greenlight-ci/breaker/internal/report"
	"github.com/greenlight-ci/breaker/internal/rx"
	_ "github.com/greenlight-ci/breaker/internal/setup"
	_ "github.com/greenlight-ci/breaker/internal/testresult"
)

// Every expression the breaker compiles lazily compiles: none can panic
// on its first use in a run.
func TestLazy_EveryExpressionCompiles(t *testing.T) {
	t.Parallel()
	exprs := rx.Exprs()
	if len(exprs) < 40 {
		t.Fatalf("%d expressions registered; the packages above declare more than 40", len(exprs))
	}
	for _, e := range exprs {
		if _, err := regexp.Compile(e); err != nil {
			t.Errorf("%q: %v", e, err)
		}
	}
	rx.Warm() // compiles each through its own closure: none panics
}

func TestLazy_CompilesOnceAndMatches(t *testing.T) {
	t.Parallel()
	re := rx.Lazy(`^S-[0-9]+$`)
	first, second := re(), re()
	if first != second || !first.MatchString("S-12") || first.MatchString("S-") {
		t.Error("the lazy expression is not the one compiled once")
	}
}
