package report

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/greenlight-ci/breaker/internal/breaker"
)

func TestJSON_EmptyListsAndNulls(t *testing.T) {
	t.Parallel()
	out, err := JSON(breaker.Decision{Diagnostics: []breaker.Diagnostic{{}}, Tests: []breaker.TestSummary{{}}})
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("decode: %v", err)
	}
	for _, key := range []string{"scope_violations", "misreports", "prior_attempts", "notes"} {
		if list, ok := got[key].([]any); !ok || len(list) != 0 {
			t.Errorf("%s = %#v, want []", key, got[key])
		}
	}
	for _, key := range []string{"trip_reason", "tripped_test", "head_infra", "reset"} {
		if v, ok := got[key]; !ok || v != nil {
			t.Errorf("%s = %#v (present %v), want null", key, v, ok)
		}
	}
	diag := got["diagnostics"].([]any)[0].(map[string]any)
	want := []string{"actual_error", "attempt_log", "best_hypothesis", "cumulative_files_modified",
		"recovery_options", "scope_violations", "specific_question", "test", "test_expectation"}
	if diff := cmp.Diff(want, keys(diag)); diff != "" {
		t.Errorf("diagnostic keys mismatch (-want +got):\n%s", diff)
	}
	if attempts := got["tests"].([]any)[0].(map[string]any)["attempts"]; attempts == nil {
		t.Errorf("tests[0].attempts = null, want []")
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestJSON_SchemaAndEscapes(t *testing.T) {
	t.Parallel()
	d := breaker.Decision{Notes: []string{"del\x7f c1\u009b ##[error] <b>"}}
	out, err := JSON(d)
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	for _, raw := range []string{"\x7f", "\u009b", "##[", "<b>"} {
		if strings.Contains(string(out), raw) {
			t.Errorf("JSON output carries %q raw", raw)
		}
	}
	var rep Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if rep.Schema != Schema {
		t.Errorf("schema = %q, want %q", rep.Schema, Schema)
	}
	if got, want := rep.Notes[0], d.Notes[0]; got != want {
		t.Errorf("note = %q, want the exact text %q", got, want)
	}
}

// TestJSON_Documented keeps the documentation in step with the schema:
// every key the report can carry is named in docs/json-report.md, or, for
// a policy's own section, in docs/policies.md.
func TestJSON_Documented(t *testing.T) {
	t.Parallel()
	var doc []byte
	for _, f := range []string{"../../docs/json-report.md", "../../docs/policies.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatalf("read the schema documentation: %v", err)
		}
		doc = append(doc, b...)
	}
	for _, key := range jsonKeys(reflect.TypeFor[Report]()) {
		if !strings.Contains(string(doc), "`"+key+"`") {
			t.Errorf("neither docs/json-report.md nor docs/policies.md documents `%s`", key)
		}
	}
}

// jsonKeys lists the JSON keys of t and of the structs it contains.
func jsonKeys(t reflect.Type) []string {
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		out = append(out, strings.Split(f.Tag.Get("json"), ",")[0])
		out = append(out, jsonKeys(f.Type)...)
	}
	return out
}
