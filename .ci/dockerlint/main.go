// Command dockerlint runs Docker's own Dockerfile checks (the rules of
// `docker build --check`, from BuildKit's Dockerfile frontend) without a
// Docker engine, which the machines that run .ci/run do not have.
//
// Usage: dockerlint DOCKERFILE
//
// It prints each finding as FILE:LINE: RULE: message and exits 1 when there
// is any (or when the file does not parse), 0 when there is none. Base images
// are not pulled: a resolver that answers every FROM with an empty linux/amd64
// configuration stands in for the registry, so the checks that need an
// image's contents (the platform of a base) are the only ones left out.
//
// A module of its own so that BuildKit's dependencies stay out of the
// breaker's go.mod.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb"
	"github.com/moby/buildkit/frontend/dockerui"
	"github.com/opencontainers/go-digest"
)

// offlineResolver answers every base image with a minimal image
// configuration (one layer, linux/amd64), never contacting a registry.
type offlineResolver struct{}

func (offlineResolver) ResolveImageConfig(_ context.Context, ref string, _ sourceresolver.Opt) (string, digest.Digest, []byte, error) {
	cfg, err := json.Marshal(map[string]any{
		"os":           "linux",
		"architecture": "amd64",
		"rootfs":       map[string]any{"type": "layers", "diff_ids": []string{"sha256:" + fmt.Sprintf("%064x", 0)}},
	})
	return ref, "", cfg, err
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dockerlint DOCKERFILE")
		os.Exit(2)
	}
	path := os.Args[1]
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "dockerlint: %v\n", err)
		os.Exit(2)
	}
	// The lint results carry the source for a client to render; an empty
	// definition is enough here (BuildKit's own caller sets one from the
	// build context).
	sm := llb.NewSourceMap(nil, path, "Dockerfile", src)
	sm.Definition = &llb.Definition{}
	res, err := dockerfile2llb.DockerfileLint(context.Background(), src, dockerfile2llb.ConvertOpt{
		Config:       dockerui.Config{},
		MetaResolver: offlineResolver{},
		SourceMap:    sm,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "dockerlint: %s: %v\n", path, err)
		os.Exit(2)
	}
	n := 0
	for _, w := range res.Warnings {
		line := 0
		if len(w.Location.Ranges) > 0 {
			line = int(w.Location.Ranges[0].Start.Line)
		}
		fmt.Printf("%s:%d: %s: %s (%s)\n", path, line, w.RuleName, w.Detail, w.URL)
		n++
	}
	if res.Error != nil {
		fmt.Printf("%s: does not parse: %s\n", path, res.Error.Message)
		n++
	}
	if n > 0 {
		os.Exit(1)
	}
	fmt.Printf("%s: no findings (BuildKit's Dockerfile checks)\n", path)
}
