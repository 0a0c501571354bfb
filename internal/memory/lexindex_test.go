package memory

import (
	"slices"
	"testing"
)

func TestSpelledIdentifiers(t *testing.T) {
	x := newLexIndex()
	for i, text := range []string{
		"store_footfall retries=2, retry_delay=5m",
		"payments-gw-next binds to port 8512",
		"payments-gw listens on 8511",
		"curated.reviews is at most 150 minutes behind",
		"the ad_spend_ingest DAG runs daily",
	} {
		x.add(uint64(i+1), "topic:t", nil, text)
	}
	for _, tt := range []struct {
		query string
		have  []string
		want  []string
	}{
		{"how often does store footfall retry", nil, []string{"store_footfall"}},
		{"port of payments gw next?", nil, []string{"payments-gw-next"}}, // the longest run wins
		{"port of payments gw?", nil, []string{"payments-gw"}},
		{"how stale can curated reviews be", nil, []string{"curated.reviews"}},
		{"ad spend ingest schedule", nil, []string{"ad_spend_ingest"}},
		{"is store_footfall late", []string{"store_footfall"}, nil}, // typed as it is: not again
		{"store footfall or payments gw", nil, []string{"store_footfall", "payments-gw"}},
		{"store 42 footfall", nil, nil},     // a number breaks the run
		{"footfall store", nil, nil},        // the order of the words counts
		{"store", nil, nil},                 // one word is no identifier
		{"curated stuff reviews", nil, nil}, // nor words apart
	} {
		if got := x.spelled(tt.query, tt.have); !slices.Equal(got, tt.want) {
			t.Errorf("spelled(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
}
