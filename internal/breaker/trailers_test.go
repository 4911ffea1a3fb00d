package breaker

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTrailerValues(t *testing.T) {
	t.Parallel()
	ts := []Trailer{
		{Key: "Greenlight-Test", Value: "TestA"},
		{Key: "Signed-off-by", Value: "a"},
		{Key: "greenlight-test", Value: "TestB"},
		{Key: "GREENLIGHT-TEST", Value: "TestC"},
	}
	tests := []struct {
		key  string
		want []string
	}{
		{"Greenlight-Test", []string{"TestA", "TestB", "TestC"}},
		{"greenlight-TEST", []string{"TestA", "TestB", "TestC"}},
		{"signed-off-by", []string{"a"}},
		{"Greenlight-Tes", nil},
		{"Greenlight-Teſt", nil}, // long s folds to s in Unicode, not in git
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, TrailerValues(ts, tt.key)); diff != "" {
				t.Errorf("TrailerValues(%q) mismatch (-want +got):\n%s", tt.key, diff)
			}
		})
	}
}

func TestTrailerValue(t *testing.T) {
	t.Parallel()
	ts := []Trailer{
		{Key: "Greenlight-Result", Value: "fail"},
		{Key: "Other", Value: "x"},
		{Key: "greenlight-result", Value: "pass"},
		{Key: "Empty", Value: ""},
	}
	tests := []struct {
		key    string
		want   string
		wantOK bool
	}{
		{"GREENLIGHT-RESULT", "pass", true}, // the last one wins
		{"other", "x", true},
		{"Empty", "", false}, // an empty value says nothing
		{"Missing", "", false},
		{"Greenlight-Resulτ", "", false},
		{"OtherK", "", false}, // the Kelvin sign folds to k in Unicode, not in git
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			got, ok := TrailerValue(ts, tt.key)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("TrailerValue(%q) = %q, %v; want %q, %v", tt.key, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
