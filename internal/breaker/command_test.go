package breaker

import "testing"

func TestParseCommand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body string
		ok   bool
		want Command
	}{
		{"looks good to me", false, Command{}},
		{"please run /breaker debug", false, Command{}},
		{"/breaker debug", true, Command{Kind: CommandDebug}},
		{"\r\n  /breaker DEBUG\r\nthanks", true, Command{Kind: CommandDebug}},
		{"/breaker reset", true, Command{Kind: CommandReset}},
		{"/breaker reset S-3", true, Command{Kind: CommandReset, Slice: "S-3"}},
		{"/breaker reset S-3 --rollback", true, Command{Kind: CommandReset, Slice: "S-3", Rollback: true}},
		{"/breaker reset --rollback use the key", true, Command{Kind: CommandReset, Rollback: true, Guidance: "use the key"}},
		{"/breaker reset try the contract's key\nsee C-12", true, Command{Kind: CommandReset, Guidance: "try the contract's key\nsee C-12"}},
		{"/breaker reset S-3 use C-12\n\nsecond paragraph", true, Command{Kind: CommandReset, Slice: "S-3", Guidance: "use C-12\n\nsecond paragraph"}},
		{"/breaker reset S-3 --force", true, Command{Kind: CommandReset, Slice: "S-3",
			Problem: `unknown option "--force"; the only option is --rollback, right after the slice`}},
		{"/breaker reset team/S-3 use C-12", true, Command{Kind: CommandReset, Slice: "team/S-3",
			Problem: `slice id "team/S-3" is not valid: use letters, digits, '.', '_' and '-', starting with a letter or digit, at most 100 characters, e.g. S-3`}},
		{"/breaker", true, Command{Problem: "say /breaker debug or /breaker reset [slice] [--rollback] [guidance]"}},
		{"/breaker explode", true, Command{Problem: `unknown command "explode"; the commands are /breaker debug and /breaker reset`}},
	}
	for _, tc := range cases {
		got, ok := ParseCommand(tc.body)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseCommand(%q) = %+v, %v; want %+v, %v", tc.body, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/breaker reset S-3 --rollback x", "/breaker debug", "/breaker", "\n/breaker reset --x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		cmd, ok := ParseCommand(body)
		if !ok {
			return
		}
		if cmd.Slice != "" && !looksLikeSlice(cmd.Slice) {
			t.Errorf("slice %q is not a valid slice id", cmd.Slice)
		}
		if cmd.Problem == "" && cmd.Kind != CommandDebug && cmd.Kind != CommandReset {
			t.Errorf("command without kind or problem: %+v", cmd)
		}
	})
}
