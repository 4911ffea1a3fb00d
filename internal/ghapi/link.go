package ghapi

import "strings"

// nextLink returns the URL of the rel="next" entry of a Link header
// (RFC 8288, as GitHub writes it for pagination), or "".
func nextLink(header string) string {
	for _, entry := range strings.Split(header, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(entry), ";")
		target = strings.TrimSpace(target)
		if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			key, val, _ := strings.Cut(strings.TrimSpace(p), "=")
			if !strings.EqualFold(strings.TrimSpace(key), "rel") {
				continue
			}
			for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(val), `"`)) {
				if strings.EqualFold(rel, "next") {
					return target[1 : len(target)-1]
				}
			}
		}
	}
	return ""
}
