package testresult

import (
	"strconv"
	"testing"
)

func TestTestList(t *testing.T) {
	t.Parallel()
	for _, reserve := range []int{0, 10, 5000, 1 << 17} {
		t.Run(strconv.Itoa(reserve), func(t *testing.T) {
			t.Parallel()
			var l testList
			l.reserve(reserve)
			const n = 3*listBlock + 7
			for i := range n {
				if got := l.add(Test{Name: strconv.Itoa(i)}); got != i {
					t.Fatalf("add returned %d, want %d", got, i)
				}
			}
			for _, i := range []int{0, 9, 10, listBlock - 1, listBlock, 2*listBlock + 3, n - 1} {
				if got := l.at(i).Name; got != strconv.Itoa(i) {
					t.Errorf("at(%d) = %q, want %q", i, got, strconv.Itoa(i))
				}
			}
			all := l.slice()
			if len(all) != n || all[n-1].Name != strconv.Itoa(n-1) || cap(all) > n+n/4+listBlock {
				t.Errorf("slice: got len %d cap %d, want %d tests in a right-sized slice", len(all), cap(all), n)
			}
		})
	}
}
