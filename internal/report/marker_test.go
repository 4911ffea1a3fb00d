package report

import "testing"

func TestMarker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		slice, want string
	}{
		{"S-3", "<!-- greenlight-breaker:S-3 -->"},
		{"auth.v2_x", "<!-- greenlight-breaker:auth.v2_x -->"},
		{"S 3 --><b>", "<!-- greenlight-breaker:S_3_-__b_ -->"},
		{"a---b", "<!-- greenlight-breaker:a-b -->"},
		{"", "<!-- greenlight-breaker:_ -->"},
		{"é", "<!-- greenlight-breaker:_ -->"},
	}
	for _, tt := range tests {
		t.Run(tt.slice, func(t *testing.T) {
			t.Parallel()
			if got := Marker(tt.slice); got != tt.want {
				t.Errorf("Marker(%q) = %q, want %q", tt.slice, got, tt.want)
			}
		})
	}
}

func TestHasMarker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, slice string
		want              bool
	}{
		{"ours", Marker("S-3") + "\n## Stopped: the agent is looping on `TestLogin`", "S-3", true},
		{"leading blank lines", "\r\n\n" + Marker("S-3") + "\nx", "S-3", true},
		{"another slice", Marker("S-3") + "\nx", "S-4", false},
		{"prefix of a longer slice", Marker("S-31") + "\nx", "S-3", false},
		{"quoted in a reply", "> " + Marker("S-3") + "\n> x", "S-3", false},
		{"pasted mid-comment", "I saw this:\n" + Marker("S-3"), "S-3", false},
		{"empty body", "", "S-3", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := HasMarker(tt.body, tt.slice); got != tt.want {
				t.Errorf("HasMarker(%q, %q) = %v, want %v", tt.body, tt.slice, got, tt.want)
			}
		})
	}
}
