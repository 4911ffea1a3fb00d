package packfile

import (
	"bytes"
	"compress/zlib"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// varint encodes n as a delta header size.
func varint(n uint64) []byte {
	var b []byte
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A pack the agent crafted may claim sizes it cannot produce: a delta of a
// few kilobytes announcing 3.3 GB, an entry announcing a gigabyte more than its zlib
// data inflates to. Each is an error, and memory follows what the data
// really makes, not the claim.
func TestPack_ClaimedSizesDoNotAllocate(t *testing.T) {
	base := []byte("hello, world")
	delta := append(varint(uint64(len(base))), varint(3_300_000_000)...)
	for range 50_000 { // 50,000 copy ops of the base: 600 kB really made
		delta = append(delta, 0x90, byte(len(base)))
	}
	var err error
	n := allocated(func() { _, err = applyDelta(base, delta) })
	if err == nil {
		t.Fatal("a delta making 600 kB while claiming 3.3 GB was accepted")
	}
	if n > 16<<20 {
		t.Errorf("the delta's claim cost %d MiB; want what it makes (under 16 MiB)", n>>20)
	}

	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write(bytes.Repeat([]byte("x"), 1<<20))
	_ = w.Close()
	entry := []byte{0x10 | 0x80} // commit, size continues
	entry = append(entry, varint(1_000_000_000>>4)...)
	data := append([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x01"), entry...)
	data = append(data, z.Bytes()...)
	data = append(data, bytes.Repeat([]byte{0}, 1<<20)...) // room for the claim under the ratio guard
	p := &pack{data: data, set: &Set{cache: newLRU(1 << 20)}}
	n = allocated(func() { _, _, err = p.read(12, 0) })
	if err == nil {
		t.Fatal("an entry inflating to 1 MiB while claiming 1 GB was accepted")
	}
	if n > 64<<20 {
		t.Errorf("the entry's claim cost %d MiB; want what it inflates to (under 64 MiB)", n>>20)
	}
}

// A commit-graph-chain file the agent inflated is refused (the walk then
// goes by date) without being read whole.
func TestOpenGraph_HugeChainIsRefused(t *testing.T) {
	t.Parallel()
	info := t.TempDir()
	dir := filepath.Join(info, "commit-graphs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("a", 40) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "commit-graph-chain"), []byte(strings.Repeat(line, 100000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if g, err := OpenGraph(info); err == nil {
		_ = g.Close()
		t.Fatal("OpenGraph accepted a 100,000-layer chain")
	}
}
