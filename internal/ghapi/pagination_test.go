package ghapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// RELIABILITY 26: a server whose "next" link points back at the same page
// (or on forever) cannot keep the breaker listing: the page guard ends it
// with an error naming the bound, after at most that many requests.
func TestClient_ListComments_NextLinkLoopIsBounded(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?per_page=100&page=2>; rel="next"`, r.Host, r.URL.Path))
		fmt.Fprint(w, `[{"id":1,"body":"x","user":{"login":"a"}}]`)
	}))
	t.Cleanup(ts.Close)
	c, err := New(Config{Token: testToken, APIURL: ts.URL, Owner: "acme", Repo: "shop",
		Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListComments(context.Background(), 5)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d pages", maxPages)) {
		t.Fatalf("ListComments over a looping next link: %v; want the page bound named", err)
	}
	if n := calls.Load(); n > maxPages {
		t.Errorf("%d requests; want at most %d", n, maxPages)
	}
}
