package action_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// binaryRelease is a release of the breaker as the binary action sees it:
// the archive for this machine, named as goreleaser names it, served by a
// local HTTP server standing for the release downloads, and a copy of
// binary/ whose release.env carries the archive's SHA-256.
type binaryRelease struct {
	actionDir string
	url       string
	hits      *atomic.Int64
	osName    string // RUNNER_OS
	arch      string // RUNNER_ARCH
}

const binaryVersion = "1.2.3"

func newBinaryRelease(t *testing.T, tamper bool) binaryRelease {
	t.Helper()
	runnerOS := map[string]string{"linux": "Linux", "darwin": "macOS"}[runtime.GOOS]
	runnerArch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if runnerOS == "" || runnerArch == "" {
		t.Skipf("the binary action's test runs on Linux or macOS, amd64 or arm64 (here %s/%s)", runtime.GOOS, runtime.GOARCH)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "breaker")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/breaker")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	archive := tarGz(t, map[string]string{"breaker": bin, "README.md": filepath.Join("..", "..", "README.md"), "LICENSE": filepath.Join("..", "..", "LICENSE")})
	sum := sha256.Sum256(archive)
	if tamper {
		archive = append(archive[:len(archive):len(archive)], 0) // one byte more than was released
	}
	name := fmt.Sprintf("breaker_%s_%s_%s.tar.gz", binaryVersion, runtime.GOOS, runtime.GOARCH)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v"+binaryVersion+"/"+name {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		w.Write(archive)
	}))
	t.Cleanup(srv.Close)
	action := filepath.Join(dir, "binary")
	if err := os.MkdirAll(action, 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join("..", "..", "binary", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(action, "run.sh"), string(script))
	writeFile(t, filepath.Join(action, "release.env"), fmt.Sprintf("BREAKER_VERSION=%s\nBREAKER_SHA256_%s_%s=%s\n",
		binaryVersion, runtime.GOOS, runtime.GOARCH, hex.EncodeToString(sum[:])))
	return binaryRelease{actionDir: action, url: srv.URL, hits: &hits, osName: runnerOS, arch: runnerArch}
}

func tarGz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// runBinary runs the binary action's step as the runner would — bash
// run.sh with the step's environment — on event, against the harness's
// fake GitHub, and returns what the run left behind.
func (b binaryRelease) run(t *testing.T, h *actionHarness, toolCache, event string, payload map[string]any) actionResult {
	t.Helper()
	h.pushed(payload)
	dir := t.TempDir()
	data, _ := json.Marshal(payload)
	writeFile(t, filepath.Join(dir, "event.json"), string(data))
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
		"RUNNER_OS=" + b.osName, "RUNNER_ARCH=" + b.arch, "RUNNER_TOOL_CACHE=" + toolCache, "RUNNER_TEMP=" + dir,
		"BREAKER_RELEASES_URL=" + b.url,
		"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=" + event, "GITHUB_EVENT_PATH=" + filepath.Join(dir, "event.json"),
		"GITHUB_REPOSITORY=" + h.srv.Owner() + "/" + h.srv.Repo(), "GITHUB_WORKSPACE=" + h.repo.Dir,
		"GITHUB_OUTPUT=" + filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY=" + filepath.Join(dir, "summary"),
		"GITHUB_RUN_ID=4242", "GITHUB_SERVER_URL=https://github.com",
		"GITHUB_API_URL=" + strings.TrimSuffix(h.srv.URL(), "/"), "GITHUB_GRAPHQL_URL=" + strings.TrimSuffix(h.srv.URL(), "/") + "/graphql",
	}
	for k, v := range h.inputs {
		env = append(env, "INPUT_"+strings.ToUpper(strings.ReplaceAll(k, "-", "_"))+"="+v)
	}
	cmd := exec.Command("bash", filepath.Join(b.actionDir, "run.sh"))
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	res := actionResult{code: code, stdout: stdout.String(), stderr: stderr.String()}
	res.summary = readOptional(t, filepath.Join(dir, "summary"))
	res.outputs = parseOutputs(t, readOptional(t, filepath.Join(dir, "output")))
	return res
}

// The binary variant, run here by bash as the runner runs its step against
// a local server standing for the release downloads: it downloads the
// archive, checks its SHA-256 against release.env, caches it, and runs
// `breaker action` against the fake GitHub — with the verdict the
// container entry point gives on the same pushes. The second and third
// runs use the cache.
func TestBinaryAction_DownloadsVerifiesCachesAndJudges(t *testing.T) {
	t.Parallel()
	rel := newBinaryRelease(t, false)
	toolCache := t.TempDir()
	viaBinary := newTrust(t)
	inProcess := newTrust(t)
	for _, tr := range []*trust{viaBinary, inProcess} {
		tr.h.repo.Git("checkout", "-q", "-b", "agent/fix-login")
	}
	for i := range 3 {
		var got [2]actionResult
		for j, tr := range []*trust{viaBinary, inProcess} {
			tr.commit(fmt.Sprintf("Fix the login, take %d", i+1))
			head := tr.h.repo.Git("rev-parse", "HEAD")
			tr.h.repo.JUnit("junit.xml", map[string]string{"TestLogin": "fail"})
			tr.openPR(7, "agent/fix-login", head, "agent-bot")
			if j == 0 {
				got[j] = rel.run(t, tr.h, toolCache, "push", pushEvent(t, "agent/fix-login", head))
			} else {
				got[j] = tr.h.run("push", pushEvent(t, "agent/fix-login", head))
			}
		}
		b, c := got[0], got[1]
		if b.code != c.code || b.outputs["state"] != c.outputs["state"] || b.outputs["trip-reason"] != c.outputs["trip-reason"] ||
			b.outputs["failed-attempts"] != c.outputs["failed-attempts"] {
			t.Fatalf("push %d: the binary action gave exit %d %v, the container entry point exit %d %v\n%s\n%s",
				i+1, b.code, b.outputs, c.code, c.outputs, b.stdout, b.stderr)
		}
	}
	if n := rel.hits.Load(); n != 1 {
		t.Errorf("the archive was downloaded %d times, want once: later runs use the tool cache", n)
	}
	if _, err := os.Stat(filepath.Join(toolCache, "greenlight-breaker", binaryVersion)); err != nil {
		t.Errorf("nothing in the tool cache: %v", err)
	}
}

// An archive that does not match the SHA-256 written into release.env at
// release time is refused, naming the file and both sums; nothing runs.
func TestBinaryAction_RefusesATamperedArchive(t *testing.T) {
	t.Parallel()
	rel := newBinaryRelease(t, true)
	tr := newTrust(t)
	tr.h.repo.Git("checkout", "-q", "-b", "agent/fix-login")
	tr.commit("Fix the login")
	head := tr.h.repo.Git("rev-parse", "HEAD")
	tr.openPR(7, "agent/fix-login", head, "agent-bot")
	res := rel.run(t, tr.h, t.TempDir(), "push", pushEvent(t, "agent/fix-login", head))
	if res.code == 0 {
		t.Fatalf("a tampered archive ran:\n%s", res.stdout)
	}
	out := res.stdout + res.stderr
	name := fmt.Sprintf("breaker_%s_%s_%s.tar.gz", binaryVersion, runtime.GOOS, runtime.GOARCH)
	if !strings.Contains(out, name) || strings.Count(out, "SHA-256") < 1 || !strings.Contains(out, "release.env says") {
		t.Errorf("the refusal does not name the file and both sums:\n%s", out)
	}
	if len(tr.h.srv.Calls()) != 0 {
		t.Errorf("the breaker reached GitHub from a tampered archive")
	}
}
