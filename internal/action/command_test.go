package action

import "testing"

func TestParseCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body string
		ok   bool
		want breakerCmd
	}{
		{"looks good to me", false, breakerCmd{}},
		{"please run /breaker debug", false, breakerCmd{}},
		{"/breaker debug", true, breakerCmd{kind: cmdDebug}},
		{"\r\n  /breaker DEBUG\r\nthanks", true, breakerCmd{kind: cmdDebug}},
		{"/breaker reset", true, breakerCmd{kind: cmdReset}},
		{"/breaker reset S-3", true, breakerCmd{kind: cmdReset, slice: "S-3"}},
		{"/breaker reset S-3 --rollback", true, breakerCmd{kind: cmdReset, slice: "S-3", rollback: true}},
		{"/breaker reset --rollback use the key", true, breakerCmd{kind: cmdReset, rollback: true, guidance: "use the key"}},
		{"/breaker reset try the contract's key\nsee C-12", true, breakerCmd{kind: cmdReset, guidance: "try the contract's key\nsee C-12"}},
		{"/breaker reset S-3 use C-12\n\nsecond paragraph", true, breakerCmd{kind: cmdReset, slice: "S-3", guidance: "use C-12\n\nsecond paragraph"}},
		{"/breaker reset S-3 --force", true, breakerCmd{kind: cmdReset, slice: "S-3",
			problem: `unknown option "--force"; the only option is --rollback, right after the slice`}},
		{"/breaker reset team/S-3 use C-12", true, breakerCmd{kind: cmdReset, slice: "team/S-3",
			problem: `slice id "team/S-3" is not valid: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 100 characters, e.g. S-3`}},
		{"/breaker", true, breakerCmd{problem: "say /breaker debug or /breaker reset [slice] [--rollback] [guidance]"}},
		{"/breaker explode", true, breakerCmd{problem: `unknown command "explode"; the commands are /breaker debug and /breaker reset`}},
	}
	for _, tc := range cases {
		got, ok := parseCommand(tc.body)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseCommand(%q) = %+v, %v; want %+v, %v", tc.body, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/breaker reset S-3 --rollback x", "/breaker debug", "/breaker", "\n/breaker reset --x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmd, ok := parseCommand(body)
		if !ok {
			return
		}
		if cmd.slice != "" && !looksLikeSlice(cmd.slice) {
			t.Errorf("slice %q is not a valid slice id", cmd.slice)
		}
		if cmd.problem == "" && cmd.kind != cmdDebug && cmd.kind != cmdReset {
			t.Errorf("command without kind or problem: %+v", cmd)
		}
	})
}
