package memory

import "testing"

func TestValuesDiffer(t *testing.T) {
	for _, tt := range []struct {
		prev, next string
		want       bool
	}{
		{"Server 1 is at 10.0.0.1.", "Server 2 is at 10.0.0.2.", true},
		{"The user prefers tabs over spaces.", "The user prefers spaces over tabs.", false},
		{"The API server listens on port 8080.", "The API service listens on port 8080.", false},
		{"Ask Alice about billing.", "Ask Bob about billing.", true},
	} {
		if got := valuesDiffer(tt.prev, tt.next); got != tt.want {
			t.Errorf("valuesDiffer(%q, %q) = %v, want %v", tt.prev, tt.next, got, tt.want)
		}
	}
}

func TestCompareFacts(t *testing.T) {
	tests := []struct {
		name       string
		prev, next string
		want       verdict
		kind       ChangeKind
		old, new   string
	}{
		{"port number", "The API server listens on port 8080.", "The API server listens on port 9090.", verdictUpdate, ChangeNumber, "8080", "9090"},
		{"version", "Use Go 1.22 for this project.", "Use Go 1.26 for this project.", verdictUpdate, ChangeNumber, "1.22", "1.26"},
		{"size with unit", "The max upload size is 10 MB.", "The max upload size is 25 MB.", verdictUpdate, ChangeNumber, "10", "25"},
		{"name", "The on-call engineer this week is Alice.", "The on-call engineer this week is Bob.", verdictUpdate, ChangeName, "Alice", "Bob"},
		{"name first", "Alice owns the billing service.", "Bob owns the billing service.", verdictDifferent, "", "", ""},
		{"number in words", "Sync call with Globex every four weeks on Monday.", "Sync call with Globex every two weeks on Monday.", verdictUpdate, ChangeNumber, "four", "two"},
		{"another customer", "Our contact at Acme is Jane Doe.", "Our contact at Globex is Jane Doe.", verdictDifferent, "", "", ""},
		{"another customer, longer name", "Acme Logistics: data residency eu-west-1 only.", "Acme Logistics Asia: data residency eu-west-1 only.", verdictDifferent, "", "", ""},
		{"another service", "billing-api listens on port 8080.", "ledger listens on port 8080.", verdictDifferent, "", "", ""},
		{"new contact", "Our contact at Acme is Jane Doe.", "Our contact at Acme is John Roe.", verdictUpdate, ChangeName, "Jane Doe", "John Roe"},
		{"path", "The config file lives at /etc/app/config.toml.", "The config file lives at /opt/app/config.toml.", verdictUpdate, ChangePath, "/etc/app/config.toml", "/opt/app/config.toml"},
		{"file name", "The entry point is main.go.", "The entry point is server.go.", verdictUpdate, ChangePath, "main.go", "server.go"},
		{"ISO date", "The release is scheduled for 2024-05-01.", "The release is scheduled for 2024-06-15.", verdictUpdate, ChangeDate, "2024-05-01", "2024-06-15"},
		{"month and day", "The release is scheduled for May 1.", "The release is scheduled for June 15.", verdictUpdate, ChangeDate, "May 1", "June 15"},
		{"weekday", "Deploys happen on Tuesdays after standup.", "Deploys happen on Thursdays after standup.", verdictUpdate, ChangeDate, "Tuesdays", "Thursdays"},
		{"negation added", "The cache is enabled in production.", "The cache is not enabled in production.", verdictUpdate, ChangeNegation, "∅", "not"},
		{"negation removed", "Tests do not need network access.", "Tests do need network access.", verdictUpdate, ChangeNegation, "not", "∅"},
		{"negated form", "The cache is enabled in production.", "The cache is disabled in production.", verdictUpdate, ChangeNegation, "enabled", "disabled"},
		{"on and off", "The feature flag new-ui is on.", "The feature flag new-ui is off.", verdictUpdate, ChangeNegation, "on", "off"},
		{"contraction", "The linter can run offline.", "The linter can't run offline.", verdictUpdate, ChangeNegation, "can", "can't"},
		{"identifier", "Set the region with AWS_REGION.", "Set the region with AWS_DEFAULT_REGION.", verdictUpdate, ChangeIdentifier, "AWS_REGION", "AWS_DEFAULT_REGION"},
		{"two values at once", "Staging runs Postgres 16 on port 5432.", "Staging runs Postgres 17 on port 5433.", verdictDifferent, "", "", ""},
		{"parallel facts of a list", "Server 1 is at 10.0.0.1.", "Server 2 is at 10.0.0.2.", verdictDifferent, "", "", ""},
		{"numbered item", "Note 3 about the quarterly budget review", "Note 4 about the quarterly budget review", verdictDifferent, "", "", ""},
		{"generated series", "child process fact number 3 about zebra3 migrations", "child process fact number 4 about zebra4 migrations", verdictDifferent, "", "", ""},

		{"same text, other case and punctuation", "The staging database is read-only on Fridays.", "the staging database is read-only on fridays!", verdictSame, "", "", ""},
		{"inflection", "The API server listens on port 8080.", "The API server is listening on port 8080.", verdictSame, "", "", ""},
		{"small words", "Use tabs for indentation.", "Use tabs for the indentation.", verdictSame, "", "", ""},

		{"different subject (ordinary word)", "The staging database is read-only on Fridays.", "The production database is read-only on Fridays.", verdictDifferent, "", "", ""},
		{"different subject and value", "The API server listens on port 8080.", "The metrics server listens on port 9090.", verdictDifferent, "", "", ""},
		{"different predicate", "The API server listens on port 8080.", "The API server logs to /var/log/api.log.", verdictDifferent, "", "", ""},
		{"different fact, same frame", "The team uses PostgreSQL 15 for the orders database.", "The team uses PostgreSQL 15 for the users database.", verdictDifferent, "", "", ""},
		{"unrelated", "The frontend is written in React.", "The backend is written in Go.", verdictDifferent, "", "", ""},
		{"too little in common", "Port 8080.", "Port 9090.", verdictDifferent, "", "", ""},
		{"mostly new words", "Alice reviews frontend pull requests on Mondays.", "Bob deploys backend services on Fridays.", verdictDifferent, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, change := compareFacts(tt.prev, tt.next)
			if got != tt.want {
				t.Fatalf("compareFacts(%q, %q) = %v (%+v), want %v", tt.prev, tt.next, got, change, tt.want)
			}
			if got == verdictUpdate && (change.Kind != tt.kind || change.Old != tt.old || change.New != tt.new) {
				t.Errorf("compareFacts(%q, %q) change = %+v, want {%s %s %s}", tt.prev, tt.next, change, tt.kind, tt.old, tt.new)
			}
		})
	}
}
