package report

import "testing"

// BenchmarkMarkdown renders a worst case: hostile text in every field.
func BenchmarkMarkdown(b *testing.B) {
	d := untrustedDecision(hostile)
	for b.Loop() {
		Markdown(d, Options{Marker: true})
	}
}
