package packfile

import (
	"encoding/binary"
	"errors"

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

// Graph is a commit-graph file (objects/info/commit-graph) mapped and read
// in place. go-git's reader issues several reads and allocations per commit;
// this one costs a search over mapped memory and a row decode.
type Graph struct {
	release                    func() error
	data                       []byte
	count                      int
	fanout, names, rows, edges int
}

// OpenGraph maps the commit-graph file at path. A file this reader does not
// read (another version or hash, part of a split chain) is an error: the
// caller then walks by commit date.
func OpenGraph(path string) (*Graph, error) {
	data, release, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	g, err := parseGraph(data)
	if err != nil {
		_ = release()
		return nil, err
	}
	g.release = release
	return g, nil
}

// Close unmaps the file. The Graph must not be used afterwards.
func (g *Graph) Close() error {
	if g.release == nil {
		return nil
	}
	err := g.release()
	g.release, g.data = nil, nil
	return err
}

func parseGraph(data []byte) (*Graph, error) {
	if len(data) < 8 || string(data[:4]) != "CGPH" || data[4] != 1 || data[5] != 1 || data[7] != 0 {
		return nil, errGraphFormat // not version 1, not SHA-1, or part of a chain
	}
	g := &Graph{data: data, edges: -1}
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

// Header returns the walk's view of commit h, if the graph holds it.
func (g *Graph) Header(h plumbing.Hash) (Header, bool) {
	i, ok := searchNames(g.data, g.fanout, g.names, g.count, h)
	if !ok {
		return Header{}, false
	}
	row := g.data[g.rows+i*36 : g.rows+i*36+36]
	hd := Header{Gen: uint64(binary.BigEndian.Uint32(row[28:]) >> 2)}
	hd.When = int64(binary.BigEndian.Uint32(row[28:])&3)<<32 | int64(binary.BigEndian.Uint32(row[32:]))
	if hd.Gen == 0 {
		hd.Gen = GenUnknown
	}
	p1, p2 := binary.BigEndian.Uint32(row[20:]), binary.BigEndian.Uint32(row[24:])
	if p1 != graphNoParent {
		if !g.add(&hd, p1) {
			return Header{}, false
		}
	}
	switch {
	case p2 == graphNoParent:
	case p2&graphOctopus == 0:
		ok = g.add(&hd, p2)
	default:
		ok = g.octopus(&hd, int(p2&^graphOctopus))
	}
	return hd, ok
}

// octopus adds the parents listed in the extra-edges chunk from entry i.
func (g *Graph) octopus(hd *Header, i int) bool {
	for ; g.edges >= 0 && g.edges+i*4+4 <= len(g.data); i++ {
		e := binary.BigEndian.Uint32(g.data[g.edges+i*4:])
		if !g.add(hd, e&^graphOctopus) {
			return false
		}
		if e&graphOctopus != 0 {
			return true
		}
	}
	return false
}

// add appends the commit at position i as a parent.
func (g *Graph) add(hd *Header, i uint32) bool {
	if int(i) >= g.count {
		return false
	}
	var p plumbing.Hash
	copy(p[:], g.data[g.names+int(i)*20:])
	hd.Parents = append(hd.Parents, p)
	return true
}
