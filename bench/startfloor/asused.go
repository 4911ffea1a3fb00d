//go:build asused

package main

import (
	_ "github.com/go-git/go-git/v5"
	_ "github.com/go-git/go-git/v5/plumbing/object"
	_ "github.com/go-git/go-git/v5/storage/filesystem"
)
