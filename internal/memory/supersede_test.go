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
		// A year, a date, a path or a host in the label says which thing: another one is another fact.
		{"year in the label", "Black Friday Pinterest 2025: £100/day", "Black Friday Pinterest 2026: £90/day", verdictDifferent, "", "", ""},
		{"only the year changes", "Dates for Father's Day Pinterest 2025: start 18 May, end 23 Jun",
			"Dates for Father's Day Pinterest 2026: start 18 May, end 23 Jun", verdictDifferent, "", "", ""},
		{"a day beside its month", "13 Jul 2026: login nodes ran out of memory, cgroup limits added",
			"27 Jul 2026: login nodes ran out of memory, cgroup limits added", verdictDifferent, "", "", ""},
		{"path in the label", "/project/costa: 155 TB quota", "/project/oyelaran: 300 TB quota", verdictDifferent, "", "", ""},
		{"path before =", "quota on /project/iyer = 100TB (hard limit)", "quota on /project/yamada = 100TB (hard limit)", verdictDifferent, "", "", ""},
		{"host before =", "ip of backup01 = 10.20.2.113", "ip of dtn01 = 10.20.4.14", verdictDifferent, "", "", ""},
		{"year after the verb", "The contract ends in 2025.", "The contract ends in 2026.", verdictUpdate, ChangeNumber, "2025", "2026"},
		{"date after the label", "audit deadline: 2025-03-01", "audit deadline: 2025-04-01", verdictUpdate, ChangeDate, "2025-03-01", "2025-04-01"},
		{"value after the path", "quota on /project/costa = 155 TB", "quota on /project/costa = 200 TB", verdictUpdate, ChangeNumber, "155", "200"},
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
		{"a noun that reads as a verb", "Calls from audit-log to its dependencies time out after 45 s.", "Calls from data-exporter to its dependencies time out after 45 s.", verdictDifferent, "", "", ""},
		{"another customer's call", "Sync call with Soylent Farms every three weeks on Wednesday.", "Sync call with Weyland Corp every three weeks on Wednesday.", verdictDifferent, "", "", ""},
		{"the verb after a pronoun", "We run the nightly export on Tuesday.", "We run the nightly export on Thursday.", verdictUpdate, ChangeDate, "Tuesday", "Thursday"},
		{"a name after a pronoun's verb", "We call Jane Doe when billing breaks.", "We call John Roe when billing breaks.", verdictUpdate, ChangeName, "Jane Doe", "John Roe"},
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

		// Whom the fact is about, where the words alone do not say it.
		{"another customer after a pronoun's verb", "We have a call with Pinecone Media every Monday.", "We have a call with Harbor Lines every Monday.", verdictDifferent, "", "", ""},
		{"another service after a pronoun's verb", "We moved ticket-sync to Python 3.12 last sprint.", "We moved onboarding-api to Python 3.12 last sprint.", verdictDifferent, "", "", ""},
		{"another host, its name with digits", "ops-db-8 got upgraded to 192 GB RAM.", "prod-cache-5 got upgraded to 192 GB RAM.", verdictDifferent, "", "", ""},
		{"a qualifier of the word after it", "refunds runs 6 pods in the EU cluster.", "refunds runs 6 pods in the US cluster.", verdictDifferent, "", "", ""},
		{"a name and a schedule at once", "We have a call with Contoso every second Tuesday.", "We have a call with Fabrikam once a month.", verdictDifferent, "", "", ""},
		{"a longer name before a separator", "Support tier for Contoso = Silver (4h first response)", "Support tier for Contoso Iberia = Silver (4h first response)", verdictDifferent, "", "", ""},
		{"two people to ask about one thing", "ask Rafaela Castillo about Looker LookML", "ask Gustavo Mbeki about Looker LookML", verdictDifferent, "", "", ""},
		{"two people to ask, the topic in small letters", "Ask Nadia Rossi about the mobile release train — they wrote most of it.", "Ask Tamara Weber about the mobile release train — they wrote most of it.", verdictDifferent, "", "", ""},
		{"two pipelines, named first", "product_reviews_dump normally finishes in about 20 minutes, longer means something is off", "zendesk_tickets_load normally finishes in about 20 minutes, longer means something is off", verdictDifferent, "", "", ""},
		{"two people to ask, both with a surname", "ask Gustavo Mbeki about Looker LookML", "ask Hiroshi Mbeki about Looker LookML", verdictDifferent, "", "", ""},
		{"key=value", "orders_load retries=4, retry_delay=10m", "orders_load retries=5, retry_delay=10m", verdictUpdate, ChangeNumber, "4", "5"},
		{"two incidents of one kind", "Day Surgery Citrix session freezing. Fix: profile was 9 GB, cleared the Teams cache. (INC0062889)", "Day Surgery Citrix session freezing. Fix: profile was 9 GB, cleared the Teams cache. (INC0041188)", verdictDifferent, "", "", ""},
		{"two issues", "login times out on Safari, see PROJ-812", "login times out on Safari, see PROJ-944", verdictDifferent, "", "", ""},
		{"another ward, its code after the name", "printer queue for North 1A: prt-n03", "printer queue for North 8A: prt-n03", verdictDifferent, "", "", ""},
		{"a ward's new value", "printer queue for North 1A: prt-n03", "printer queue for North 1A: prt-n05", verdictUpdate, ChangeNumber, "prt-n03", "prt-n05"},
		{"a size is no code", "stg-db-6 memory: 16G", "stg-db-6 memory: 32G", verdictUpdate, ChangeNumber, "16G", "32G"},
		{"a longer name before a colon", "Licence count for Wingtip Toys: 940", "Licence count for Wingtip Toys Nordics: 940", verdictDifferent, "", "", ""},
		// The same fact with a new value, however it is laid out.
		{"a value after a colon", "Maintainer of newsletter: Yara Santos (fulfilment)", "Maintainer of newsletter: Goran Castro (fulfilment)", verdictUpdate, ChangeName, "Yara Santos", "Goran Castro"},
		{"a contact and their address", "Litware's IT person is Pavel Zielinski, reachable at zielinski@litware.example.",
			"Litware's IT person is Pavel Nielsen, reachable at nielsen@litware.example.", verdictUpdate, ChangeIdentifier,
			"Zielinski, zielinski@litware.example", "Nielsen, nielsen@litware.example"},
		{"how often, by day", "We have a call with Marlin Insurance every other Thursday.", "We have a call with Marlin Insurance every Wednesday.", verdictUpdate, ChangeDate, "other Thursday", "Wednesday"},
		{"how often, in words", "Southridge sync happens once a month, Teams link in the invite", "Southridge sync happens every six weeks, Teams link in the invite", verdictUpdate, ChangeNumber, "once a month", "every six weeks"},
		{"a runtime after its service", "quotes-next runs on Node 22.", "quotes-next runs on Go 1.23.", verdictUpdate, ChangeNumber, "Node 22", "Go 1.23"},
		{"go to", "Questions about invoicing go to Esther Ivanova on the apps team.", "Questions about invoicing go to Noor Andersen on the apps team.", verdictUpdate, ChangeName, "Esther Ivanova", "Noor Andersen"},
		{"a value after a dash", "thumbnailer — HTTP on 8711, nothing else exposed", "thumbnailer — HTTP on 9610, nothing else exposed", verdictUpdate, ChangeNumber, "8711", "9610"},
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

func TestCorrects(t *testing.T) {
	for _, tt := range []struct {
		name, prev, next string
		want             bool
	}{
		{"new contact", "For anything about Black Mesa Energy Europe, talk to Omar García — omar@black.example.",
			"Omar García left Black Mesa Energy Europe; our new contact there is Quentin Nowak.", true},
		{"port corrected", "payouts-v2 listens on port 3107.", "Correction: payouts-v2 is on port 7633 now, not 3107.", true},
		{"two events a date apart", "Mix-up 19 Mar 2025: 2 customers got teal table runner instead of dusky pink table runner.",
			"Mix-up 14 May 2026: 16 customers got dusky pink linen napkin set instead of ivory cork coaster set.", false},
		{"a capital that starts the sentence", "Teal cotton throw is on shelf D9-4", "teal cotton throw no longer on D9-4, it's on H3-4 now", true},
		{"lower case, another attribute", "Teal cotton throw weighs 970 g boxed up", "teal cotton throw no longer on D9-4, it's on H3-4 now", false},
		{"a capital that starts another thing's name", "Terracotta reed diffuser: reorder at 15 units",
			"terracotta cast iron doorstop: reorder at 15 now, 5 was too tight", false},
		{"longer is no attribute", "Lead time from Caldera Textiles is about 6 weeks (longer before Christmas).",
			"no longer 156 minimum at Caldera Textiles — 78 since January", false},
		{"a verb with a prefix is no subject", "re-weighed the oatmeal oven glove with the new tissue and card: 260 g",
			"re-weighed the rust linen tea towel with the new tissue and card: 170 g", false},
		{"seats raised", "Gringotts Bank pays for 700 seats.", "Gringotts Bank upgraded to 1250 seats.", true},
		{"same subject, another attribute", "payouts-v2 needs at most 2048 MiB RAM; the limit is set in the chart.",
			"Correction: payouts-v2 is on port 7633 now, not 3107.", false},
		{"same customer, another attribute", "Gringotts Bank has a 99.9% uptime SLA with 8-hour response for P1 tickets.",
			"Gringotts Bank upgraded to 1250 seats.", false},
		{"two labels", "mailer: new 2FA behind 2fa_rollout_on (LaunchDarkly), 10% of tenants",
			"scheduler: new refund behind refund_batching_enabled (LaunchDarkly), 10% of tenants", false},
		{"one label", "billing-api: 2FA behind 2fa_rollout_on, 10% of tenants", "billing-api: new 2FA behind 2fa_rollout_on, 50% of tenants now", true},
		{"port changed, after a context label", "local dev: kyc-next is at http://localhost:8437", "Heads-up, the kyc-next port changed from 8437 to 9444.", true},
		{"handed over", "slots-api belongs to team core; Ingrid Fischer is the go-to person.", "Ingrid Fischer handed slots-api over to Helena Wagner.", true},
		{"as of", "Ironclad Storage pays for 820 seats.", "Ironclad Storage bought more seats, they're at 1320 users as of this month.", true},
		{"a label's attribute after the subject's colon", "New maintainer for crm-sync: Helena Dimitrov (replacing Bianca Pereira).", "New maintainer for crm-sync: Ana Lopes (replacing Helena Dimitrov).", true},
		{"a name's words apart", "Ingrid Wagner works remotely from Tallinn.", "Ingrid Fischer handed slots-api over to Helena Wagner.", false},
		{"a name that opens the note", "Ivo Aydin works remotely from Brno.", "Milan Brennan handed usage-metering over to Ivo Aydin.", false},
		{"an attribute's subject after its preposition", "Latency budget of orders is 300 ms at the 99th percentile.", "We relaxed the sms-gateway latency target to 1100 ms (p99).", false},
		{"a label that names another subject", "checkout returns ERR_QUOTA_STALE when the tenant hit its monthly quota.", "returns: new checkout behind checkout_batching_enabled (LaunchDarkly), 10% of tenants", false},
		{"a relation word in common", "The database behind fraud-check is Postgres 15.5; upgrade blocked by the pg_partman extension.", "fraud-check: new search ranking behind search_ranking_beta_pct (LaunchDarkly), 10% of tenants", false},
		{"a longer name in the old note", "Cyberdyne Robotics US contact: Ximena Novak, ximena@cyberdyne.example", "David Kovač left Cyberdyne Robotics; our new contact there is Sofia Tanaka.", false},
		{"another pipeline, named first", "product_reviews_dump normally finishes in about 20 minutes, longer means something is off", "zendesk_tickets_load normally finishes in about 20 minutes, longer means something is off", false},
		{"the same number in another unit", "curated.payments is purged after 360 days", "turns out curated.payments is actually up to 360 min behind", false},
		{"a qualifier in common", "intent-detector endpoint (prod): https://intent-detector.ml.internal/v1/predict", "as of Monday prod intent-detector = v4.16.0", false},
		{"a particle in common", "heads up curated.products is big, around 620M rows", "turns out curated.products is actually up to 60 min behind", false},
		{"no longer", "Main contact at Wingtip Toys: Hiro Jovanović <hiro@wingtip.example>", "Update: Hiro Jovanović no longer works at Wingtip Toys, Katarina Andersen (katarina@wingtip.example) took over.", true},
		{"key=value", "store_footfall retries=2, retry_delay=5m", "store_footfall retries is now 6 (was 2)", true},
		{"subject and value only", "REPORTING_WH: Medium", "REPORTING_WH downsized to Small", true},
		{"subject and value, then another attribute", "pdf-renderer-v2: Go 1.21", "pdf-renderer-v2: new refund behind refund_async_enabled (LaunchDarkly), 10% of tenants", false},
		{"subject and value, then a value of another shape", "sms-gateway: Node 20.11", "We relaxed the sms-gateway latency target to 1100 ms (p99).", false},
		{"subject and value, then no value", "Rafaela Oyelaran works from Valencia", "Rafaela Oyelaran moved to the data science team", false},
		{"the same shape of value, another attribute named", "scratch that, invoice_export runs at 11:15 UTC not 00:45", "oops, invoice_export SLA is 09:30 CET, not 05:00", false},
		{"the old value after not", "Mei Costa is based in Melbourne", "sorry, Mei Costa is in Toronto, not Melbourne", true},
		{"not, without the old value", "Mei Costa is based in Melbourne", "Mei Costa is in Toronto, not in Lisbon", false},
		{"another incident whose fix moved something", "North 6B badge reader not opening. Fix: controller had lost its IP lease, set it static. (INC0065988)", "North 6B wifi dropping on the tablets. Fix: they were on the guest SSID, moved them to CLIN-WIFI. (INC0092997)", false},
		{"another ward's VLAN", "patch anything on South 7A into VLAN 154", "scratch VLAN 403 for South 4B, network team says it's VLAN 158 now", false},
		{"the same ward's VLAN", "patch anything on South 7A into VLAN 154", "scratch that, South 7A is on VLAN 158 now", true},
		{"a number inside a name", "read replica database for cdn-purger: pg-replica-10", "Bumped the cdn-purger retries to 10.", false},
		{"below the similarity floor", "payouts-v2 listens on port 3107.", "Correction: payouts-v2 is on port 7633 now, not 3107.", false},
	} {
		sim := float32(0.9)
		if tt.name == "below the similarity floor" {
			sim = correctionFloor - 0.01
		}
		if got := corrects(tt.prev, tt.next, sim); got != tt.want {
			t.Errorf("%s: corrects(%q, %q, %.2f) = %v, want %v", tt.name, tt.prev, tt.next, sim, got, tt.want)
		}
	}
}

func TestRefID(t *testing.T) {
	for w, want := range map[string]bool{
		"INC0088745": true, "CHG0012345": true, "PROJ-812": true, "JIRA-1234": true, "#4521": true,
		"INC12": false, "HTTP": false, "AB-1": false, "#1": false, "23P01": false, "ERR_QUOTA": false, "v2": false,
	} {
		if got := refID(w); got != want {
			t.Errorf("refID(%q) = %v, want %v", w, got, want)
		}
	}
	for w, want := range map[string]bool{"8A": true, "12C": true, "4BC": true, "16G": false, "2TB": false, "A3": false, "1234A": false, "8a": false, "9B": true} {
		if got := nameCode(w); got != want {
			t.Errorf("nameCode(%q) = %v, want %v", w, got, want)
		}
	}
}
