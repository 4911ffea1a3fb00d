package testresult

import (
	"bufio"
	"errors"
	"io"
)

// eachLine calls fn with every line of r, newline included. A line longer
// than maxLineBytes is cut there (the rest is dropped) and overlong is set.
// The slice passed to fn is only valid during the call.
func eachLine(r io.Reader, fn func(line []byte)) (overlong bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) <= maxLineBytes {
				long = append(long, chunk...)
			} else {
				overlong = true
			}
			continue
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		if len(line) > 0 {
			fn(line)
		}
		if err == io.EOF {
			return overlong, nil
		}
		if err != nil {
			return overlong, err
		}
	}
}
