package actionenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/greenlight-ci/breaker/internal/golden"
)

// binaryAction renders binary/action.yml from the root action.yml: the same
// inputs (names, descriptions, defaults) and outputs, run by a composite
// step that downloads the released binary (binary/run.sh) and runs
// `breaker action` with each input passed as GitHub passes a container
// action's: INPUT_<NAME>. One source for the input list.
func binaryAction(root []byte) (string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(root, &doc); err != nil {
		return "", err
	}
	top := doc.Content[0]
	get := func(m *yaml.Node, key string) *yaml.Node {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1]
			}
		}
		return &yaml.Node{} // absent: empty
	}
	inputs, outputs := get(top, "inputs"), get(top, "outputs")
	if len(inputs.Content) == 0 || len(outputs.Content) == 0 {
		return "", fmt.Errorf("action.yml has no inputs or outputs")
	}
	var b strings.Builder
	b.WriteString("# GENERATED from the root action.yml by internal/actionenv/binary_action_test.go\n" +
		"# (go test ./internal/actionenv -run TestBinaryAction -update): do not edit.\n" +
		"#\n" +
		"# The Greenlight Circuit Breaker as a composite action, for runners without\n" +
		"# Docker (macOS, Windows, self-hosted runners without Docker): it downloads\n" +
		"# the release archive for the runner's OS and architecture, verifies it\n" +
		"# against the SHA-256 sums written into binary/release.env at release time,\n" +
		"# caches it in the runner's tool cache and runs `breaker action` with the same\n" +
		"# inputs and outputs as the container action. Use it at a release tag:\n" +
		"#   uses: greenlight-ci/breaker/binary@vX.Y.Z\n")
	b.WriteString("name: Greenlight Circuit Breaker (binary)\n")
	b.WriteString("description: >-\n  " + get(top, "description").Value + " Runs the released binary: no Docker needed.\n")
	b.WriteString("author: " + get(top, "author").Value + "\n")
	b.WriteString("branding:\n  icon: zap-off\n  color: orange\n\ninputs:\n")
	var env []string
	for i := 0; i+1 < len(inputs.Content); i += 2 {
		name, in := inputs.Content[i].Value, inputs.Content[i+1]
		fmt.Fprintf(&b, "  %s:\n    description: >-\n%s\n    required: false\n    default: %s\n",
			name, indent(get(in, "description").Value, "      "), quote(get(in, "default").Value))
		env = append(env, fmt.Sprintf("        INPUT_%s: ${{ inputs.%s }}", strings.ToUpper(strings.ReplaceAll(name, "-", "_")), name))
	}
	b.WriteString("\noutputs:\n")
	for i := 0; i+1 < len(outputs.Content); i += 2 {
		name, out := outputs.Content[i].Value, outputs.Content[i+1]
		fmt.Fprintf(&b, "  %s:\n    description: >-\n%s\n    value: ${{ steps.breaker.outputs.%s }}\n",
			name, indent(get(out, "description").Value, "      "), name)
	}
	b.WriteString("\nruns:\n  using: composite\n  steps:\n    - name: circuit breaker (released binary)\n      id: breaker\n      shell: bash\n" +
		"      run: bash \"$GITHUB_ACTION_PATH/run.sh\"\n      env:\n")
	b.WriteString(strings.Join(env, "\n") + "\n")
	return b.String(), nil
}

func indent(s, pad string) string {
	words := strings.Fields(s)
	var lines []string
	line := ""
	for _, w := range words {
		if line != "" && len(line)+1+len(w) > 72 {
			lines = append(lines, pad+line)
			line = w
			continue
		}
		if line == "" {
			line = w
		} else {
			line += " " + w
		}
	}
	if line != "" {
		lines = append(lines, pad+line)
	}
	return strings.Join(lines, "\n")
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// binary/action.yml is the root action.yml's inputs and outputs as a
// composite action, kept in step by this test (-update rewrites it).
func TestBinaryAction_InStepWithTheRootAction(t *testing.T) {
	t.Parallel()
	root, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := binaryAction(root)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "binary", "action.yml")
	if updateBinary() {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/actionenv -run TestBinaryAction -update writes it)", err)
	}
	if string(got) != want {
		t.Errorf("binary/action.yml is not the root action.yml's inputs and outputs: go test ./internal/actionenv -run TestBinaryAction -update")
	}
	for _, name := range InputNames {
		if !strings.Contains(string(got), "INPUT_"+strings.ToUpper(strings.ReplaceAll(name, "-", "_"))+": ${{ inputs."+name+" }}") {
			t.Errorf("binary/action.yml does not pass input %s to the breaker", name)
		}
	}
}

func updateBinary() bool { return golden.Updating() }

// The release builds the six archives binary/run.sh downloads: every
// RUNNER_OS × RUNNER_ARCH it maps (linux, darwin, windows × amd64, arm64),
// a zip for windows and a tar.gz for the others, named as run.sh names
// them. .ci/run builds only the host's archive (goreleaser --single-target,
// the whole pipeline for one); this holds the matrix to what run.sh needs.
func TestBinaryAction_TheReleaseBuildsEveryArchiveRunShDownloads(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../.goreleaser.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Builds []struct {
			Goos   []string `yaml:"goos"`
			Goarch []string `yaml:"goarch"`
		} `yaml:"builds"`
		Archives []struct {
			Formats         []string `yaml:"formats"`
			NameTemplate    string   `yaml:"name_template"`
			FormatOverrides []struct {
				Goos    string   `yaml:"goos"`
				Formats []string `yaml:"formats"`
			} `yaml:"format_overrides"`
		} `yaml:"archives"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if len(cfg.Builds) != 1 || len(cfg.Archives) != 1 {
		t.Fatalf(".goreleaser.yaml: %d builds and %d archives, want one of each", len(cfg.Builds), len(cfg.Archives))
	}
	script, err := os.ReadFile("../../binary/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	b, a := cfg.Builds[0], cfg.Archives[0]
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if !strings.Contains(strings.Join(b.Goos, " "), goos) || !strings.Contains(string(script), "os="+goos) {
			t.Errorf("goos %v and run.sh must both have %s", b.Goos, goos)
		}
	}
	for _, arch := range []string{"amd64", "arm64"} {
		if !strings.Contains(strings.Join(b.Goarch, " "), arch) || !strings.Contains(string(script), "arch="+arch) {
			t.Errorf("goarch %v and run.sh must both have %s", b.Goarch, arch)
		}
	}
	if len(b.Goos)*len(b.Goarch) != 6 {
		t.Errorf("the release builds %d targets, want the six run.sh downloads", len(b.Goos)*len(b.Goarch))
	}
	if strings.Join(a.Formats, ",") != "tar.gz" || len(a.FormatOverrides) != 1 || a.FormatOverrides[0].Goos != "windows" ||
		strings.Join(a.FormatOverrides[0].Formats, ",") != "zip" || !strings.Contains(string(script), "ext=zip") {
		t.Errorf("archives: %v, overrides %+v; want tar.gz, and zip for windows, as run.sh unpacks them", a.Formats, a.FormatOverrides)
	}
	if a.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" || !strings.Contains(string(script), `archive="breaker_${version}_${os}_${arch}.${ext}"`) {
		t.Errorf("archive names: %q; run.sh downloads breaker_<version>_<os>_<arch>.<ext>", a.NameTemplate)
	}
}
