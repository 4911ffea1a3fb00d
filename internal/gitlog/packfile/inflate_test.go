package packfile

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"testing"
)

// sampleCommit is shaped like a commit object: hex names compress badly,
// the author and committer lines repeat each other.
func sampleCommit(i int) []byte {
	return fmt.Appendf(nil, "tree %040x\nparent %040x\nauthor A U Thor <author@example.com> %d +0000\n"+
		"committer C O Mitter <committer@example.com> %d +0000\n\nFix %d in the cache\n\nGreenlight-Test: TestCache%d\n",
		i*7919, i*104729, 1700000000+i, 1700000000+i, i, i%5)
}

func deflate(t testing.TB, data []byte, level int) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(data)
	_ = w.Close()
	return b.Bytes()
}

// agreesWithZlib checks inflateHead against compress/zlib on src: when it
// answers, its output is a prefix of what zlib decodes (all of it, or the
// bytes before zlib's error), ends where it says it stops, and is no
// longer than size. zlib is given src and sixteen zero bytes: on a stream
// cut inside a block zlib holds back the last byte it decoded, while
// inflateHead returns every byte whose bits were all in src; the padding
// changes nothing before the cut.
func agreesWithZlib(t *testing.T, src []byte, size int) (ok bool) {
	t.Helper()
	got, ok := inflateHead(src, size, '\n', nil)
	var want []byte
	padded := append(append([]byte{}, src...), make([]byte, 16)...)
	if z, err := zlib.NewReader(bytes.NewReader(padded)); err == nil {
		want, _ = io.ReadAll(z)
	}
	if !ok {
		return false
	}
	if !bytes.HasPrefix(want, got) {
		t.Fatalf("inflateHead = %q\nzlib gives %q", got, want)
	}
	n := len(got)
	if n > size || bytes.Contains(got[:max(n-1, 0)], []byte("\n\n")) {
		t.Fatalf("inflateHead stopped at %d bytes (size %d) of %q", n, size, want)
	}
	return true
}

// Every compression level zlib has, on commit-shaped input: the decoder
// answers (no fallback) and agrees.
func TestInflateHead_AgreesWithZlibOnCommits(t *testing.T) {
	t.Parallel()
	for level := zlib.HuffmanOnly; level <= zlib.BestCompression; level++ {
		for i := range 300 {
			c := sampleCommit(i)
			got, ok := inflateHead(deflate(t, c, level), len(c), '\n', nil)
			want, _, _ := bytes.Cut(c, []byte("\n\n"))
			if !ok || string(got) != string(want)+"\n\n" {
				t.Fatalf("level %d commit %d: inflateHead = %q, %v; want the header through its blank line", level, i, got, ok)
			}
		}
	}
	// Stored blocks, and a stream cut short: a fallback, never a wrong answer.
	c := sampleCommit(1)
	if !agreesWithZlib(t, deflate(t, c, zlib.NoCompression), len(c)) {
		t.Fatal("stored block: gave up")
	}
	z := deflate(t, c, zlib.DefaultCompression)
	for cut := range len(z) {
		agreesWithZlib(t, z[:cut], len(c))
	}
}

// FuzzInflateHead: a differential test against compress/zlib, on streams
// zlib wrote (of the fuzzer's bytes) and on the fuzzer's bytes as a stream.
func FuzzInflateHead(f *testing.F) {
	for i := range 4 {
		f.Add(sampleCommit(i), uint8(i*3), uint16(300))
	}
	f.Add([]byte("x\n\ny"), uint8(0), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, level uint8, size uint16) {
		lv := int(level%11) - 2 // -2 (Huffman only) … 8
		agreesWithZlib(t, deflate(t, data, lv), int(size)+1)
		agreesWithZlib(t, data, int(size)+1)
		if len(data) > 2 { // a valid header over the fuzzer's blocks
			agreesWithZlib(t, append([]byte{0x78, 0x9c}, data...), int(size)+1)
		}
	})
}

func BenchmarkCommitHeader(b *testing.B) {
	var streams [][]byte
	for i := range 256 {
		streams = append(streams, deflate(b, sampleCommit(i), zlib.DefaultCompression))
	}
	b.Run("inflateHead", func(b *testing.B) {
		var buf []byte
		for i := range b.N {
			buf, _ = inflateHead(streams[i%len(streams)], 4096, '\n', buf)
		}
	})
	b.Run("klauspost", func(b *testing.B) {
		p := &pack{}
		var buf []byte
		for i := range b.N {
			p.data = streams[i%len(streams)]
			buf, _ = p.inflatePrefix(0, 4096, []byte("\n\n"), &buf)
		}
	})
}
