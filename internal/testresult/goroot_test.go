package testresult

import (
	"os/exec"
	"strings"
)

// runtimeGOROOT is the toolchain's GOROOT, as `go env GOROOT` says; "" when
// the go command is not at hand.
func runtimeGOROOT() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
