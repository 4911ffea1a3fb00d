package evaluate

import (
	"fmt"
	"slices"

	"github.com/greenlight-ci/breaker/internal/breaker"
	"github.com/greenlight-ci/breaker/internal/forge"
)

// WriterPermissions are the repository permissions that may run /breaker
// commands.
var WriterPermissions = []string{"admin", "maintain", "write"}

// ResetRefused says why comment c, as GitHub serves it now, gives no reset
// of slice on pull request pr ("" when it does): a comment on that pull
// request, unedited, by author (the login the reset's record names), who
// wrote or pushed none of its commits (pushers), a /breaker reset of that
// slice, by a person who has write access now. permission is asked last,
// only when every other check holds. The Action checks a recorded reset so
// at every read, and `breaker replay` a past pull request's reset comment:
// one rule for both.
func ResetRefused(c forge.Comment, pr int, author, slice string, pushers []string, permission func(login string) (string, error)) (string, error) {
	switch {
	case c.Edited:
		return fmt.Sprintf("comment %d was edited", c.ID), nil
	case pr > 0 && c.Issue != 0 && c.Issue != pr:
		return fmt.Sprintf("comment %d is on #%d", c.ID, c.Issue), nil
	case !forge.SameLogin(c.Author, author):
		return fmt.Sprintf("comment %d is by %s, not %s", c.ID, c.Author, author), nil
	case slices.ContainsFunc(pushers, func(p string) bool { return forge.SameLogin(p, c.Author) }):
		return fmt.Sprintf("comment %d is by %s, who wrote or pushed commits of the pull request", c.ID, c.Author), nil
	}
	cmd, ok := breaker.ParseCommand(c.Body)
	if !ok || cmd.Kind != breaker.CommandReset || cmd.Problem != "" || (cmd.Slice != "" && cmd.Slice != slice) {
		return fmt.Sprintf("comment %d is not a /breaker reset of slice %s", c.ID, slice), nil
	}
	perm, err := permission(c.Author)
	if err != nil {
		return "", err
	}
	if !slices.Contains(WriterPermissions, perm) {
		return fmt.Sprintf("%s has %s permission now", c.Author, perm), nil
	}
	return "", nil
}
