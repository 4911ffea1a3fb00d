package breaker

// observationNotes says plainly what this run could not observe.
func (e *evaluator) observationNotes() {
	obs := e.in.Observation
	if obs.Infra != "" {
		e.notef("the tests did not run at %s (%s): nothing in this run is counted, "+
			"and the head's attempts are infra", ShortSHA(e.head()), obs.Infra)
	}
	if obs.Head != "" && !e.onBranch(obs.Head) {
		e.notef("CI observed %s, which is not on the branch's commit list: "+
			"no attempt is judged by CI's observation directly", ShortSHA(obs.Head))
	}
	e.notes = append(e.notes, obs.Notes...)
}

// sliceNotes explains a decision with no slice id or nothing to count.
func (e *evaluator) sliceNotes(d Decision, all, current int) {
	testKey := e.p.Key(TrailerTest)
	if d.Slice == "" {
		e.notef("no slice id: no %s trailer, no requested slice and no S-<n> in the branch name",
			e.p.Key(TrailerSlice))
	}
	switch {
	case all == 0 && d.Slice == "":
		e.notef("no attempts: no commit carries a %s trailer", testKey)
	case all == 0 && len(d.Pushes) > 0:
		e.notef("no declared attempts for slice %s (no commit carries a %s trailer): it is judged by CI's observations of its pushes alone", d.Slice, testKey)
	case all == 0:
		e.notef("no attempts for slice %s: no commit of it carries a %s trailer", d.Slice, testKey)
	case current == 0:
		e.notef("every attempt of slice %s is at or before the reset at %s: nothing is counted yet",
			d.Slice, ShortSHA(d.ResetSHA))
	}
}

// onBranch reports whether sha is one of the input commits.
func (e *evaluator) onBranch(sha string) bool {
	for _, c := range e.in.Commits {
		if SameSHA(c.SHA, sha) {
			return true
		}
	}
	return false
}
