package testresult

// listBlock is how many tests a testList block holds when no size is known.
const listBlock = 1024

// testList accumulates tests in blocks, so that a growing result never
// copies itself: the garbage of append's doublings would otherwise make a
// large file's peak memory several times its size. Pointers from at stay
// valid while the list grows.
type testList struct {
	blocks [][]Test
	n      int
}

// reserve sizes the first block for n tests, when nothing was added yet.
func (l *testList) reserve(n int) {
	if l.n == 0 && len(l.blocks) == 0 && n > 0 {
		l.blocks = append(l.blocks, make([]Test, 0, n))
	}
}

func (l *testList) add(t Test) int {
	last := len(l.blocks) - 1
	if last < 0 || len(l.blocks[last]) == cap(l.blocks[last]) {
		l.blocks = append(l.blocks, make([]Test, 0, listBlock))
		last++
	}
	l.blocks[last] = append(l.blocks[last], t)
	l.n++
	return l.n - 1
}

// at returns the i-th test added (0 <= i < l.n). Every block but the last
// is full, and every block after the first holds listBlock tests.
func (l *testList) at(i int) *Test {
	if first := cap(l.blocks[0]); i >= first {
		j := i - first
		return &l.blocks[1+j/listBlock][j%listBlock]
	}
	return &l.blocks[0][i]
}

// slice returns every test in one slice; the list must not be used after.
func (l *testList) slice() []Test {
	switch {
	case l.n == 0:
		return nil
	case len(l.blocks) == 1 && cap(l.blocks[0]) <= l.n+l.n/4+listBlock:
		return l.blocks[0]
	}
	out := make([]Test, 0, l.n)
	for i, b := range l.blocks {
		out = append(out, b...)
		l.blocks[i] = nil
	}
	return out
}
