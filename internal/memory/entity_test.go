package memory

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNameRuns(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"customer and person", "For anything about Wayne Foods Europe, talk to Paula Kowalski — paula@wayne.example.",
			[]string{"wayne foods europe", "paula kowalski"}},
		{"common first word", "Deploy checkout-v2 with `task deploy:checkout-v2 -- --env production`.", []string{"checkout v2"}},
		{"name opening the note", "Anna Bianchi left Wayne Foods; our new contact there is Farid Bianchi.",
			[]string{"anna bianchi", "wayne foods", "farid bianchi"}},
		{"possessive", "Black Mesa Energy Europe's contract renews on September 9.", []string{"black mesa energy europe", "september"}},
		{"no names", "staging replicas for orders: 2", nil},
		{"a place's code", "South 1C badge reader controller re-IP'd to 10.31.28.83", []string{"south 1c"}}, // re-IP'd is a verb
		{"a code ends the name", "North 4A (North) wall ports are on VLAN 596, clinical", []string{"north 4a", "north", "vlan"}},
		{"a size is no code", "Stark Freight 16GB plan", []string{"stark freight"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range nameRuns(tt.text) {
				got = append(got, strings.Join(r, " "))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("nameRuns(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestLookAlikes(t *testing.T) {
	tests := []struct {
		name, query string
		notes       []string
		want        []bool // marked as a look-alike
	}{
		{"regional branch", "who do I talk to at Wayne Foods?",
			[]string{"Wayne Foods contact: Anna Bianchi, anna@wayne.example", "For anything about Wayne Foods Europe, talk to Paula Kowalski."},
			[]bool{false, true}},
		{"question names the branch", "email of our contact at Blue Sun Europe",
			[]string{"Our contact at Blue Sun is Anna Ahmed (anna@blue.example).", "For anything about Blue Sun Europe, talk to Farid Tanaka."},
			[]bool{false, false}}, // a shorter name is not marked (measured: docs/memory.md)
		{"successor service", "which host has checkout's test database",
			[]string{"checkout talks to pg-staging-03 in staging.", "checkout-v2 staging DB host: pg-test-17"},
			[]bool{false, true}},
		{"first name only", "anything I should know before working with Tamara?",
			[]string{"Tamara Nowak works from Osaka, JST", "Tamara Weber works part-time, Monday to Wednesday."},
			[]bool{false, false}},
		{"short name of a service", "how much memory may push use?",
			[]string{"push-service needs at most 768 MiB RAM.", "Ines Demir knows the iOS push certificates best."},
			[]bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cands []*candidate
			for i, n := range tt.notes {
				cands = append(cands, &candidate{id: uint64(i + 1), rec: &record{Content: n}})
			}
			lookAlikes(tt.query, cands)
			var got []bool
			for _, c := range cands {
				got = append(got, c.other)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lookAlikes(%q) (-want +got):\n%s", tt.query, diff)
			}
		})
	}
}

func TestRestates(t *testing.T) {
	tests := []struct {
		name, older, newer string
		want               bool
	}{
		{"moved port", "audit-log-v2: port 5403 (internal only, the gateway fronts it)", "audit-log-v2 moved to port 7518 (was 5403).", true},
		{"contact left", "Wayne Foods contact: Anna Bianchi, anna@wayne.example", "Anna Bianchi left Wayne Foods; our new contact there is Farid Bianchi.", true},
		{"raised limit", "Stark Freight pays for 700 seats (Enterprise tier).", "Stark Freight upgraded to 1825 seats.", true},
		{"labelled correction", "geo-lookup: port 8009 (internal only, the gateway fronts it)", "Correction: geo-lookup is on port 7451 now, not 8009.", true},
		{"labelled correction of another label", "scheduler: port 8009 (internal only)", "Correction: geo-lookup is on port 7451 now, not 8009.", false},
		{"other attribute", "geo-lookup is scaled to 2 pods in staging.", "Correction: geo-lookup is on port 7451 now, not 8009.", false},
		{"look-alike subject", "Wayne Foods contact: Anna Bianchi", "Correction: our contact at Wayne Foods Europe is Paula now.", false},
		{"a number inside a name", "read replica database for cdn-purger: pg-replica-10", "Bumped the cdn-purger retries to 10.", false},
		{"no longer", "Wingtip Toys contact: Hiro Jovanović", "Wingtip Toys contact Hiro Jovanović no longer works there.", true},
		{"longer alone", "Wingtip Toys contact: Hiro Jovanović", "Wingtip Toys contact calls take longer on Mondays.", false},
		{"two labels", "scheduler: new refund behind refund_batching_enabled (LaunchDarkly), 10% of tenants",
			"returns: new checkout behind checkout_batching_enabled (LaunchDarkly), 10% of tenants", false},
		{"two customers", "Nina Bianchi left Dunder Mifflin Asia; our new contact there is Jonas Costa.",
			"Anna Bianchi left Wayne Foods; our new contact there is Farid Bianchi.", false},
		{"no cue", "audit-log-v2: port 5403 (internal only, the gateway fronts it)", "audit-log-v2 listens on port 7518.", false},
		{"the old contact's name", "Wingtip Toys contact: Hiro Jovanović", "Wingtip Toys: Hiro Jovanović has left, ask Katarina Andersen now", true},
		{"a site in brackets is no look-alike", "North 4A (North) wall ports are on VLAN 596, clinical", "North 4A moved to VLAN 885 after the re-cabling", true},
		{"another place's code", "South 1C badge reader controller re-IP'd to 10.31.28.83 (was wrong in my notes)",
			"South 1A badge reader controller re-IP'd to 10.31.57.44 (was wrong in my notes)", false},
		{"another subject without names", "theatre scheduler test is on version 3.1", "theatre scheduler live upgraded to 30.7.1 (was 3.1)", false},
		{"a thing named in plain words", "sku PS-3183 = navy side plate set, location B12-2", "typo above: navy side plate set is on I3-4, not B12-2", true},
		{"a price rise", "Price ivory cast iron doorstop £24.95 (cost 9.50)", "price rise: ivory cast iron doorstop now £29.50 (was £24.95)", true},
		{"another thing in plain words", "Price terracotta cast iron doorstop £24.95 (cost 9.50)", "price rise: ivory cast iron doorstop now £29.50 (was £24.95)", false},
		{"an attribute of a named thing is no subject", "Endoscopy ward manager: Imran Nolan, ext 6359",
			"new ward manager on South 3B: Una Fitzgerald took over from Kwame Adeyemi, same ext 5031", false},
		{"a shared verb is no subject", "South 1C badge reader controller re-IP'd to 10.31.28.83 (was wrong in my notes)",
			"A&E badge reader controller re-IP'd to 10.31.39.135 (was wrong in my notes)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := restates(tt.older, tt.newer, nameRuns(tt.older), nameRuns(tt.newer)); got != tt.want {
				t.Errorf("restates(%q, %q) = %v, want %v", tt.older, tt.newer, got, tt.want)
			}
		})
	}
}

// TestCorrectionRanksFirst: a correction the store keeps beside its note (it cannot prove it a
// version: the wording differs too much) answers first, and only with SignalNewer on.
func TestCorrectionRanksFirst(t *testing.T) {
	for _, off := range []bool{false, true} {
		s, _ := newLexical(t, Config{off: map[string]bool{SignalNewer: off}})
		for _, text := range []string{
			"audit-log-v2: port 5403 (internal only, the gateway fronts it)",
			"audit-log-v2 cache TTL: 90 min (redis, key prefix audit-log-v2:)",
			// Long enough that the store's similarity floor keeps it from being compared.
			"from the platform sync this morning, after the ingress rework and the security review: audit-log-v2 moved to port 7518 (was 5403).",
		} {
			if r := mustStore(t, s, StoreRequest{Conversation: "c", Scope: "topic:p", Content: text}); r.Superseded != 0 {
				t.Fatalf("Store(%q) superseded %d; the test needs both notes current", text, r.Superseded)
			}
		}
		hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: "audit-log-v2 port, internal only behind the gateway?", Scopes: []string{"p"}, Limit: 3})
		first := strings.Contains(hits[0].Content, "7518")
		if first == off {
			t.Errorf("newer off=%v: first hit %q", off, hits[0].Content)
		}
	}
}

func TestTypedNames(t *testing.T) {
	notes := []string{
		"Vikram Pereira on GitHub: @vpereiradev",
		"@vcosta = Vikram Costa",
		"We have a call with Blue Yonder Airlines every Monday.",
		"Data Freshness = Grafana dashboard 962",
		"North 3C prints to \\\\prt-n03\\3C-MONO",
	}
	var cands []*candidate
	for i, n := range notes {
		cands = append(cands, &candidate{id: uint64(i + 1), rec: &record{Content: n}})
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"Wie heißt Vikram Costa auf GitHub?", []string{"vikram costa"}},
		{"what is Vikram Costa's GitHub handle?", []string{"vikram costa"}},
		{"when do we meet Blue Yonder Airlines?", []string{"blue yonder airlines"}},
		{"Vikram Costa", nil},                             // the opening capital is no part of a name
		{"who is Vikram?", nil},                           // one word is no full name
		{"Wer pflegt das Data Freshness Dashboard?", nil}, // no note holds it whole
		{"what about Vikram, Costa and the rest?", nil},   // punctuation ends a name
		{"printer queue for North 3C?", []string{"north 3c"}},
		{"printer queue for 3C?", nil}, // a code alone is no full name
	} {
		if got := typedNames(tt.query, cands); !slices.Equal(got, tt.want) {
			t.Errorf("typedNames(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
	// A name every candidate holds tells them nothing apart.
	if got := typedNames("when is Blue Yonder Airlines?", cands[2:3]); got != nil {
		t.Errorf("typedNames with one candidate holding it = %q, want nil", got)
	}
}

func TestOtherSubjects(t *testing.T) {
	mk := func(texts ...string) []*candidate {
		var out []*candidate
		for i, s := range texts {
			out = append(out, &candidate{id: uint64(i + 1), rec: &record{Content: s}})
		}
		return out
	}
	others := func(cands []*candidate) []bool {
		var out []bool
		for _, c := range cands {
			out = append(out, c.other)
		}
		return out
	}
	for _, tt := range []struct {
		query string
		notes []string
		want  []bool
	}{
		{"p99 latency objective of pdf-renderer",
			[]string{"support-desk: p99 latency under 500 ms", "Latency budget of pdf-renderer is 350 ms", "p99 is what we page on"},
			[]bool{true, false, false}}, // a note naming no identifier is not about another one
		{"port of pdf-renderer", // no note names the question's: nothing to tell apart
			[]string{"support-desk listens on 8080", "billing-api listens on 8081"},
			[]bool{false, false}},
		{"what is the p99 target", // the question names no identifier
			[]string{"support-desk: p99 latency under 500 ms", "pdf-renderer: p99 under 350 ms"},
			[]bool{false, false}},
		{"does auth-service call pdf-renderer?", // a note naming either is about the question
			[]string{"auth-service calls pdf-renderer synchronously", "pdf-renderer talks to pg-main-36", "support-desk calls ledger"},
			[]bool{false, false, true}},
		{"badge reader controller IP for South 7D?", // another place's code
			[]string{"South 1C badge reader controller re-IP'd to 10.31.28.83", "South 7D entrance badge reader = BR-S501, controller on 10.31.51.86",
				"A&E badge reader controller re-IP'd to 10.31.39.135"},
			[]bool{true, false, false}},
		{"badge reader controller IP for south 7d?", // typed in lower case, no code is certain
			[]string{"South 1C badge reader controller re-IP'd to 10.31.28.83", "South 7D entrance badge reader = BR-S501, controller on 10.31.51.86"},
			[]bool{false, false}},
		{"what fixed INC0050256?", // another ticket
			[]string{"INC0048969 — monitor flickering: replaced the DisplayPort cable", "INC0050256 — label printer: swapped the ribbon", "label printer ribbons are in the store room"},
			[]bool{true, false, false}},
		{"which plan has 16GB?", // a size is no code
			[]string{"Plan 32GB costs 20", "Plan 16GB costs 10"},
			[]bool{false, false}},
	} {
		cands := mk(tt.notes...)
		otherSubjects(tt.query, cands)
		if got := others(cands); !slices.Equal(got, tt.want) {
			t.Errorf("otherSubjects(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
}

func TestOtherCopies(t *testing.T) {
	for _, tt := range []struct {
		query string
		notes []string
		want  []bool
	}{
		{"PACS test server?", // another environment
			[]string{"PACS live server: pacs-lv01:9547", "PACS (test) runs on pacs-tst04, web port 9667", "PACS owner is Imran Patel"},
			[]bool{true, false, false}}, // a note naming no copy is not about another one
		{"JupyterHub version in Staging", // any case for an environment; prod and production are one
			[]string{"JupyterHub prod: 4.1", "jupyterhub staging runs 4.2", "JupyterHub production runs 4.1"},
			[]bool{true, false, true}},
		{"which bucket holds the US exports?", // a region in capitals
			[]string{"EU exports go to s3://exports-eu", "US exports go to s3://exports-us"},
			[]bool{true, false}},
		{"can you tell us which bucket holds exports?", // "us" is a pronoun
			[]string{"EU exports go to s3://exports-eu", "US exports go to s3://exports-us"},
			[]bool{false, false}},
		{"staging database host?", // no note names the question's copy: nothing to tell apart
			[]string{"prod database: pg-main-01", "test database: pg-test-02"},
			[]bool{false, false}},
	} {
		var cands []*candidate
		for i, n := range tt.notes {
			cands = append(cands, &candidate{id: uint64(i + 1), rec: &record{Content: n}})
		}
		otherCopies(tt.query, cands)
		var got []bool
		for _, c := range cands {
			got = append(got, c.other)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("otherCopies(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
}
