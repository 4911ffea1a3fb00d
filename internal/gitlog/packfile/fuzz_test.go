package packfile

import (
	"encoding/binary"
	"testing"
)

// FuzzApplyDelta: any delta either rebuilds an object of the size it
// announces or is an error; it never panics.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("hello, world"), []byte{12, 5, 0x91, 0, 5})
	f.Add([]byte("abc"), []byte{3, 4, 2, 'x', 'y', 0x90, 2})
	f.Add([]byte{}, []byte{0, 0})
	f.Add([]byte("abc"), []byte{3, 1, 0})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta)
		if err != nil {
			return
		}
		src, rest, _ := deltaSize(delta)
		dst, _, _ := deltaSize(rest)
		if src != uint64(len(base)) || dst != uint64(len(out)) {
			t.Fatalf("applied delta: base %d (announced %d), out %d (announced %d)", len(base), src, len(out), dst)
		}
	})
}

// FuzzPackRead: a pack entry built from arbitrary bytes is read or
// rejected, never a panic.
func FuzzPackRead(f *testing.F) {
	f.Add([]byte{0x35, 0x78, 0x9c, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0x02, 0x4d, 0x01, 0x27})
	f.Add([]byte{0x60 | 0x05, 0x01, 0x78, 0x9c})
	f.Add([]byte{0x70 | 0x02, 0xab})
	f.Fuzz(func(t *testing.T, entry []byte) {
		data := make([]byte, 12, 12+len(entry))
		copy(data, "PACK")
		binary.BigEndian.PutUint32(data[4:], 2)
		binary.BigEndian.PutUint32(data[8:], 1)
		data = append(data, entry...)
		set := &Set{cache: newLRU(1 << 20)}
		p := &pack{data: data, set: set}
		_, _, _ = p.read(12, 0)
	})
}
