package workspace

import (
	"archive/zip"
	"bytes"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

type zipEntry struct {
	name string
	body string
	mode fs.FileMode // 0 = a regular file
}

func makeZip(t *testing.T, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e.body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// scratch is an empty directory inside a parent that must stay untouched.
func scratch(t *testing.T) (parent, dir string) {
	parent = t.TempDir()
	dir = filepath.Join(parent, "scratch")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return parent, dir
}

func listTree(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out
}

func TestUnzip_ResultsArtifact(t *testing.T) {
	t.Parallel()
	_, dir := scratch(t)
	data := makeZip(t, zipEntry{name: "reports/"}, zipEntry{name: "reports/junit.xml", body: "<testsuite/>"}, zipEntry{name: "go.json", body: "{}"})
	got, err := Unzip(data, dir, DefaultArtifactLimits)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "reports/junit.xml,go.json" {
		t.Errorf("files = %v", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "reports", "junit.xml")); string(b) != "<testsuite/>" {
		t.Errorf("junit.xml = %q", b)
	}
}

// Every hostile archive is refused whole, with an error naming the entry
// and the limit, and nothing is written outside the scratch directory (nor
// inside it).
func TestUnzip_RefusesHostileArchives(t *testing.T) {
	t.Parallel()
	many := make([]zipEntry, 100_000)
	for i := range many {
		many[i] = zipEntry{name: "f" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "/" + strconv.Itoa(i)}
	}
	tests := []struct {
		name string
		data func(t *testing.T) []byte
		want string
	}{
		{"dot-dot", func(t *testing.T) []byte { return makeZip(t, zipEntry{name: "../x", body: "PWNED"}) }, "climbs out"},
		{"nested dot-dot", func(t *testing.T) []byte { return makeZip(t, zipEntry{name: "a/../../x", body: "PWNED"}) }, "climbs out"},
		{"absolute", func(t *testing.T) []byte { return makeZip(t, zipEntry{name: "/tmp/x", body: "PWNED"}) }, "absolute path"},
		{"drive", func(t *testing.T) []byte { return makeZip(t, zipEntry{name: "C:/x", body: "PWNED"}) }, "absolute path"},
		{"backslash", func(t *testing.T) []byte { return makeZip(t, zipEntry{name: `..\x`, body: "PWNED"}) }, "backslash"},
		{"symlink", func(t *testing.T) []byte {
			return makeZip(t, zipEntry{name: "junit.xml", body: "/etc/passwd", mode: fs.ModeSymlink | 0o777})
		}, "is a symlink"},
		{"100,000 entries", func(t *testing.T) []byte { return makeZip(t, many...) }, "100000 entries, over the limit of 10000"},
		{"10 GiB claimed", func(t *testing.T) []byte { return claimedSize(t, 10<<30) }, "claims 10240 MiB, over the 64 MiB per-file cap"},
		{"not a zip", func(t *testing.T) []byte { return []byte("PK but not really") }, "not a zip archive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			parent, dir := scratch(t)
			_, err := Unzip(tt.data(t), dir, DefaultArtifactLimits)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Unzip error = %v, want it to contain %q", err, tt.want)
			}
			if got := listTree(t, parent); strings.Join(got, ",") != ".,scratch" {
				t.Errorf("files written: %v", got)
			}
		})
	}
}

// A header that claims fewer bytes than its data holds is caught while
// unpacking.
func TestUnzip_DataPastTheClaimedSize(t *testing.T) {
	t.Parallel()
	_, dir := scratch(t)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	body := []byte(strings.Repeat("A", 1000))
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "big.xml", Method: zip.Store, CRC32: crc32.ChecksumIEEE(body),
		CompressedSize64: uint64(len(body)), UncompressedSize64: 10})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	zw.Close()
	if _, err := Unzip(buf.Bytes(), dir, DefaultArtifactLimits); err == nil {
		t.Fatal("an entry larger than its header claims was unpacked")
	}
}

// claimedSize is a zip whose one entry claims n bytes unpacked.
func claimedSize(t *testing.T, n uint64) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "bomb.xml", Method: zip.Store, CompressedSize64: 4, UncompressedSize64: n})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("boom"))
	zw.Close()
	return buf.Bytes()
}
