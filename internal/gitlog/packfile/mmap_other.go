//go:build !unix

package packfile

import "os"

// mapFile reads a file into memory where mapping it is not available.
func mapFile(path string) (data []byte, release func() error, err error) {
	data, err = os.ReadFile(path)
	return data, func() error { return nil }, err
}
