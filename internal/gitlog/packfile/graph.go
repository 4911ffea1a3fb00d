package packfile

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

var errGraphFormat = errors.New("unsupported commit-graph file")

// Commit-graph chunk ids.
const (
	chunkFanout = 0x4f494446 // OIDF
	chunkNames  = 0x4f49444c // OIDL
	chunkData   = 0x43444154 // CDAT
	chunkEdges  = 0x45444745 // EDGE
)

// Parent slots of a CDAT row.
const (
	graphNoParent = 0x70000000
	graphOctopus  = 0x80000000
)

// Graph is a repository's commit-graph: one file (objects/info/commit-graph)
// or a split chain of layers (objects/info/commit-graphs), mapped and read
// in place. go-git's reader issues several reads and allocations per
// commit; this one costs a search over mapped memory and a row decode.
type Graph struct {
	layers []*graphLayer // base layer first
}

// graphLayer is one commit-graph file. Parent positions count across the
// layers: below base they are in a lower layer.
type graphLayer struct {
	release                    func() error
	data                       []byte
	base                       int // commits in the layers below
	count                      int
	fanout, names, rows, edges int
}

// maxGraphLayers bounds a split chain; git merges layers long before this.
const maxGraphLayers = 64

// OpenGraph maps the commit-graph of an objects/info directory: the single
// file when there is one, else the split chain, as git reads them. A graph
// this reader does not read (another version or hash, a chain whose layers
// do not fit together) is an error: the caller then walks by commit date.
func OpenGraph(info string) (*Graph, error) {
	g := &Graph{}
	if l, err := openLayer(filepath.Join(info, "commit-graph"), 0, 0); err == nil {
		g.layers = append(g.layers, l)
		return g, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	dir := filepath.Join(info, "commit-graphs")
	raw, err := readChain(filepath.Join(dir, "commit-graph-chain"))
	if err != nil {
		return nil, err
	}
	names := strings.Fields(string(raw))
	if len(names) == 0 || len(names) > maxGraphLayers {
		return nil, errGraphFormat
	}
	base := 0
	for i, name := range names {
		if len(name) != 40 || strings.Trim(name, "0123456789abcdef") != "" {
			_ = g.Close()
			return nil, errGraphFormat
		}
		l, err := openLayer(filepath.Join(dir, "graph-"+name+".graph"), i, base)
		if err != nil {
			_ = g.Close()
			return nil, err
		}
		g.layers = append(g.layers, l)
		base += l.count
	}
	return g, nil
}

// readChain reads a commit-graph-chain file: at most maxGraphLayers names
// of 41 bytes; anything larger (the agent can write .git) is refused
// without reading it whole.
func readChain(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	const limit = maxGraphLayers * 42
	raw, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > limit {
		return nil, errGraphFormat
	}
	return raw, nil
}

// openLayer maps one commit-graph file that sits on bases layers holding
// base commits.
func openLayer(path string, bases, base int) (*graphLayer, error) {
	data, release, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	l, err := parseGraph(data, bases)
	if err != nil {
		_ = release()
		return nil, err
	}
	l.release, l.base = release, base
	return l, nil
}

// Close unmaps the files. The Graph must not be used afterwards.
func (g *Graph) Close() error {
	var errs []error
	for _, l := range g.layers {
		if l.release != nil {
			errs = append(errs, l.release())
		}
		l.release, l.data = nil, nil
	}
	g.layers = nil
	return errors.Join(errs...)
}

// parseGraph reads the header and chunk table of a commit-graph file that
// sits on bases layers.
func parseGraph(data []byte, bases int) (*graphLayer, error) {
	if len(data) < 8 || string(data[:4]) != "CGPH" || data[4] != 1 || data[5] != 1 || int(data[7]) != bases {
		return nil, errGraphFormat // not version 1, not SHA-1, or not where it says it sits in a chain
	}
	g := &graphLayer{data: data, edges: -1}
	chunks := int(data[6])
	if len(data) < 8+(chunks+1)*12 {
		return nil, errGraphFormat
	}
	for i := range chunks {
		entry := data[8+i*12:]
		off := binary.BigEndian.Uint64(entry[4:])
		if off >= uint64(len(data)) {
			return nil, errGraphFormat
		}
		switch binary.BigEndian.Uint32(entry) {
		case chunkFanout:
			g.fanout = int(off)
		case chunkNames:
			g.names = int(off)
		case chunkData:
			g.rows = int(off)
		case chunkEdges:
			g.edges = int(off)
		}
	}
	if g.fanout == 0 || g.names == 0 || g.rows == 0 || g.fanout+256*4 > len(data) {
		return nil, errGraphFormat
	}
	g.count = int(binary.BigEndian.Uint32(data[g.fanout+255*4:]))
	if g.names+g.count*20 > len(data) || g.rows+g.count*36 > len(data) {
		return nil, errGraphFormat
	}
	return g, nil
}

// Header returns the walk's view of commit h, if the graph holds it, with
// its parents named (Parents).
func (g *Graph) Header(h plumbing.Hash) (Header, bool) {
	pos, ok := g.Lookup(h)
	if !ok {
		return Header{}, false
	}
	var hd Header
	if !g.Row(pos, &hd) {
		return Header{}, false
	}
	for _, p := range hd.ParentPos {
		ph, _ := g.HashAt(p)
		hd.Parents = append(hd.Parents, ph)
	}
	hd.InGraph, hd.Pos, hd.ParentPos = false, 0, nil
	return hd, true
}

// Count is how many commits the graph holds: positions are below it.
func (g *Graph) Count() int {
	if len(g.layers) == 0 {
		return 0
	}
	l := g.layers[len(g.layers)-1]
	return l.base + l.count
}

// Lookup is commit h's position in the graph, searched once: a walk then
// follows parent positions (Row).
func (g *Graph) Lookup(h plumbing.Hash) (uint32, bool) {
	for i := len(g.layers) - 1; i >= 0; i-- {
		l := g.layers[i]
		if at, ok := searchNames(l.data, l.fanout, l.names, l.count, h); ok {
			return uint32(l.base + at), true
		}
	}
	return 0, false
}

// HashAt names the commit at position pos.
func (g *Graph) HashAt(pos uint32) (plumbing.Hash, bool) {
	var h plumbing.Hash
	l, at, ok := g.layerOf(pos)
	if ok {
		copy(h[:], l.data[l.names+at*20:])
	}
	return h, ok
}

// Row is the walk's view of the commit at position pos, read into hd: its
// generation, committer time and parents' positions (ParentPos, appended
// to hd.ParentPos[:0], whose backing array the caller may lend: a walk
// then allocates nothing a commit). False when pos or a parent slot lies
// outside the graph (a file the agent wrote: the caller then reads the
// commit object).
func (g *Graph) Row(pos uint32, hd *Header) bool {
	l, at, ok := g.layerOf(pos)
	if !ok {
		return false
	}
	return g.row(l, at, pos, hd)
}

// layerOf finds the layer holding position pos and the row within it.
func (g *Graph) layerOf(pos uint32) (*graphLayer, int, bool) {
	for _, l := range g.layers {
		if int(pos) < l.base+l.count {
			if int(pos) < l.base {
				return nil, 0, false
			}
			return l, int(pos) - l.base, true
		}
	}
	return nil, 0, false
}

// row decodes the row at position at of layer l (global position pos)
// into hd.
func (g *Graph) row(l *graphLayer, at int, pos uint32, hd *Header) bool {
	row := l.data[l.rows+at*36 : l.rows+at*36+36]
	hd.Parents, hd.InGraph, hd.Pos = nil, true, pos
	hd.Gen = uint64(binary.BigEndian.Uint32(row[28:]) >> 2)
	hd.When = int64(binary.BigEndian.Uint32(row[28:])&3)<<32 | int64(binary.BigEndian.Uint32(row[32:]))
	if hd.Gen == 0 {
		hd.Gen = GenUnknown
	}
	hd.ParentPos = hd.ParentPos[:0]
	p1, p2 := binary.BigEndian.Uint32(row[20:]), binary.BigEndian.Uint32(row[24:])
	switch {
	case p1 == graphNoParent:
		return true
	case !g.has(p1):
		return false
	}
	hd.ParentPos = append(hd.ParentPos, p1)
	switch {
	case p2 == graphNoParent:
		return true
	case p2&graphOctopus == 0:
		hd.ParentPos = append(hd.ParentPos, p2)
		return g.has(p2)
	default:
		return g.octopus(l, hd, int(p2&^graphOctopus))
	}
}

// has reports whether position i lies in the graph.
func (g *Graph) has(i uint32) bool {
	_, _, ok := g.layerOf(i)
	return ok
}

// octopus adds the parents listed in layer l's extra-edges chunk from entry i.
func (g *Graph) octopus(l *graphLayer, hd *Header, i int) bool {
	for ; l.edges >= 0 && l.edges+i*4+4 <= len(l.data); i++ {
		e := binary.BigEndian.Uint32(l.data[l.edges+i*4:])
		p := e &^ graphOctopus
		if !g.has(p) {
			return false
		}
		hd.ParentPos = append(hd.ParentPos, p)
		if e&graphOctopus != 0 {
			return true
		}
	}
	return false
}
