package memory

import "testing"

func TestNoteHasPerson(t *testing.T) {
	tests := []struct {
		note string
		want bool
	}{
		{"Our contact at Acme is Jonas Costa.", true},
		{"Amir Lindqvist from payments owns admin-portal — ask them before changing its schema.", true},
		{"admin-portal contact: ana@acme.example", true},
		{"Daily payments standup starts at 9:30 sharp.", false},
		{"Correction: the Acme sync is every four weeks, not every two.", false},
		{"The release is on Monday March 3.", false},
		{"mem limit gateway-v2: 3072Mi", false},
	}
	for _, tt := range tests {
		if got := noteHas(tt.note, answerPerson); got != tt.want {
			t.Errorf("noteHas(%q, person) = %v, want %v", tt.note, got, tt.want)
		}
	}
}

func TestNoteHasPlace(t *testing.T) {
	tests := []struct {
		note string
		want bool
	}{
		{"orders reads from pg-main-04", true},
		{"PACS (test) runs on pacs-tst04, web port 9667", true},
		{"maternity system live server: maternit-lv01:9579", true},
		{"the bucket lives in eu-west-1", true},
		{"logs go to /var/log/orders", true},
		{"checkout-v2 owner is Anna", false}, // a successor's name is no host
		{"dates follow iso-8601", false},     // nor a standard's number
		{"maternity system live: v22.4.37", false},
	}
	for _, tt := range tests {
		if got := noteHas(tt.note, answerPlace); got != tt.want {
			t.Errorf("noteHas(%q, place) = %v, want %v", tt.note, got, tt.want)
		}
	}
}

func TestQuestionWants(t *testing.T) {
	tests := []struct {
		query string
		want  wanted
	}{
		// The attribute a question names anywhere in it.
		{"document-store port", wanted{answerNone, attrPort}},
		{"phone number for Helix Networks support?", wanted{answerNone, attrPhone}},
		{"what extension is the South 7D manager on?", wanted{answerNone, attrPhone}},
		{"Telefonnummer von Foxton UPS?", wanted{answerNone, attrPhone}},
		{"¿Cuál es el teléfono de soporte de Islay Networks?", wanted{answerNone, attrPhone}},
		{"who owns the mobile app?", wanted{answerPerson, attrNone}}, // "mobile" alone names no phone
		{"who answers the support line?", wanted{answerPerson, attrNone}},
		{"the phone at the nurses' station is dead again, what fixed it?", wanted{answerNone, attrNone}}, // the device
		{"Foxton UPS phone?", wanted{answerNone, attrPhone}},
		{"phone for Foxton UPS support?", wanted{answerNone, attrPhone}},
		{"Nummer vom Telefon bei Foxton UPS?", wanted{answerNone, attrPhone}},
		{"mobile app version", wanted{answerNone, attrVersion}},
		{"port number of fx-rates?", wanted{answerNone, attrPort}},
		{"which port is audit-log on", wanted{answerNumber, attrPort}},
		{"Port von fx-rates?", wanted{answerNone, attrPort}},
		{"¿En qué puerto escucha kyc?", wanted{answerNumber, attrPort}},
		{"kyc runtime version", wanted{answerNone, attrRuntime}},
		{"what tech stack does billing use", wanted{answerNone, attrRuntime}},
		{"which Python version does kyc run", wanted{answerNone, attrRuntime}},
		{"version de kyc ?", wanted{answerNone, attrVersion}},
		{"what postgres version does notifications use", wanted{answerNone, attrVersion}},
		{"Orchid Pharma contact email", wanted{answerNone, attrEmail}},
		{"who do we email at Fourth Coffee?", wanted{answerPerson, attrEmail}},
		{"adresse e-mail de Ana ?", wanted{answerNone, attrEmail}},
		{"how much RAM may gateway use?", wanted{answerNumber, attrMemory}},
		{"Wie viel CPU reserviert stock-levels?", wanted{answerNumber, attrCPU}},
		{"how many seats does Acme pay for?", wanted{answerNumber, attrSeats}},
		{"¿Cuántas licencias tiene Acme?", wanted{answerNumber, attrSeats}},
		{"prod replica count checkout", wanted{answerNone, attrReplicas}},
		{"retry count of audit-trail", wanted{answerNone, attrRetries}},
		{"what is the disk alert threshold?", wanted{answerNone, attrMemory}},
		{"alert threshold of worker-06", wanted{answerNone, attrPercent}},
		{"upstream timeout of shipping-quotes", wanted{answerNone, attrDuration}},
		{"when does the Acme contract end date fall", wanted{answerTime, attrDate}},
		{"backup schedule of ledger", wanted{answerNone, attrSchedule}},
		{"Quel système tourne sur ops-db-13 ?", wanted{answerNone, attrOS}},
		{"what's the internal address of prod-app-1?", wanted{answerNone, attrAddress}},
		{"what URL do customers use for vendor sync?", wanted{answerPlace, attrURL}},
		// The question's start alone, as before.
		{"who is responsible for admin-portal?", wanted{answerPerson, attrNone}},
		{"wann ist das Standup?", wanted{answerTime, attrNone}},
		{"où sont les logs ?", wanted{answerPlace, attrNone}},
		{"how many copies of email-templates run in production?", wanted{answerNumber, attrNone}},
		// Near misses: a subject's name is no attribute, "report" is not "port", and an
		// attribute that does not fit the question's kind is left out.
		{"legacy-partner-portal owner", wanted{answerNone, attrNone}},
		{"who writes the weekly report?", wanted{answerPerson, attrNone}},
		{"what does the export-port-mapper do", wanted{answerNone, attrNone}},
		{"who approves a port change?", wanted{answerPerson, attrNone}},
		{"when was the memory limit raised?", wanted{answerTime, attrNone}},
		{"how do I roll back a release", wanted{answerNone, attrNone}},
		{"when does the Acme contract expire, what date?", wanted{answerTime, attrDate}},
		{"what is our support model", wanted{answerNone, attrNone}},
		{"where do the logs go?", wanted{answerPlace, attrNone}},
		{"Nach wie vielen Sekunden bricht data-exporter ab?", wanted{answerNumber, attrDuration}},
		{"¿Cuánto tiempo guarda ml-scoring las respuestas?", wanted{answerNumber, attrDuration}},
		{"how do other pods call vendor sync?", wanted{answerNone, attrNone}},
		{"Willow Schools seats", wanted{answerNone, attrSeats}},
		{"number of workers of the scheduler", wanted{answerNone, attrReplicas}},
	}
	for _, tt := range tests {
		if got := questionWants(tt.query); got != tt.want {
			t.Errorf("questionWants(%q) = %+v, want %+v", tt.query, got, tt.want)
		}
	}
}

func TestNoteHasAttr(t *testing.T) {
	tests := []struct {
		attr attribute
		note string
		want bool
	}{
		{attrPort, "local dev: fx-rates is at http://localhost:8134", true},
		{attrPort, "document-store — HTTP on 8442, nothing else exposed", true},
		{attrPort, "FYI legacy-partner-portal binds to port 8127.", true},
		{attrPort, "Port for kiosk-api is 8071 (same in docker and k8s).", true},
		{attrPort, "Heads-up, the onboarding-api port changed from 8705 to 9817.", true},
		{attrPort, "cache: redis at redis-main:6379", true},
		{attrPort, "the agent listens on :9100", true},
		{attrPort, "public URL of fx-rates: https://fx-rates.shop.example", false},
		{attrPort, "Daily payments standup starts at 9:30 sharp.", false},
		{attrPort, "the backup ran at 2024-05-01T10:30 and took 40 minutes", false},
		{attrPort, "the weekly report lists 4120 tickets", false},
		{attrPort, "otp-sender runs 3 pods in the US cluster.", false},
		{attrPort, "port 70000 is not a port", false},
		// A port's limits: 65535 is the last one.
		{attrPort, "the tunnel listens on port 65534", true},
		{attrPort, "the tunnel listens on port 65535", true},
		{attrPort, "the tunnel listens on port 65536", false},
		{attrPort, "db at pg-main:5432", true},
		{attrPort, "PHP 8.2 on port 80.5", false},
		{attrPort, "kyc API is at version 4.7", false},

		{attrRuntime, "kyc runs on Node 20.", true},
		{attrRuntime, "loyalty-points is pinned to Python 3.10 in the base image", true},
		{attrRuntime, "runtime of wishlist-next: Scala 2.13", true},
		{attrRuntime, "thumbnailer-next runs on Go 1.23.", true},
		{attrRuntime, "vendor-sync runs on .NET 8.", true},
		{attrRuntime, "subscriptions is pinned to PHP 8.2 in the base image", true},
		{attrRuntime, "the scorer is written in Rust", true},
		{attrRuntime, "kyc API is at version 4.7; clients must send the header.", false},
		{attrRuntime, "Current newsletter API version: 3.8", false},
		{attrRuntime, "ask the Python guild before adding a dependency", false},
		{attrRuntime, "we go 2 ways from here", false},
		{attrRuntime, "node 3 of the cluster is down", false},

		{attrOS, "OS of ops-app-10: Amazon Linux 2", true},
		{attrOS, "ops-db-13 = 10.1.232.140 (VPN only)", false},
		{attrEmail, "Main contact at Fabrikam: Nikolai Nakamura <nakamura@fabrikam.example>", true},
		{attrEmail, "Account review with Orchid Pharma: every quarter", false},
		{attrEmail, "ping @oncall in #team-sre", false},
		{attrEmail, "Talk to Tomas Jovanović (jovanović@relecloud.example) for anything Relecloud-related.", true},
		{attrURL, "internal URL of vendor-sync: http://vendor-sync.svc.cluster.local", true},
		{attrURL, "vendor-sync's read replica is db-replica-17", false},
		{attrURL, "mailer health check: GET /ping (200 when the DB answers).", true},
		{attrURL, "Prod settings for kyc live in helm/kyc/values-prod.yaml", false},
		{attrIP, "prod-batch-12 has the private IP 10.3.237.163.", true},
		{attrIP, "catalog uses PostgreSQL 14.10.", false},
		{attrCPU, "search-suggest-next requests 750m CPU per pod.", true},
		{attrCPU, "the build agent has 8 cores", true},
		{attrCPU, "runtime of legacy-otp-sender: Node 20", false},
		{attrMemory, "prod-cache-5 got upgraded to 192 GB RAM.", true},
		{attrMemory, "memory on ops-build-7: 8G", true},
		{attrMemory, "cart needs at most 256 MiB RAM", true},
		{attrMemory, "search-suggest-next requests 750m CPU per pod.", false},
		{attrMemory, "catalog runs 6 replicas in production.", false},
		{attrSeats, "Willow Schools — 1800 user licences, billed yearly", true},
		{attrSeats, "Bluebird Clinics Iberia has 1940 licensed users.", true},
		{attrSeats, "Acme Logistics is on the Business plan with 575 seats.", true},
		{attrSeats, "legacy-partner-portal runs 6 pods in the EU cluster.", false},
		{attrReplicas, "legacy-partner-portal runs 6 pods in the EU cluster.", true},
		{attrReplicas, "production replicas for export-worker: 6", true},
		{attrReplicas, "EU cluster: translations-next scaled to 9 instances", true},
		{attrReplicas, "vendor-sync's read replica is db-replica-17", false},
		{attrReplicas, "subscriptions-next gives up after 10 retries and alerts.", false},
		{attrRetries, "subscriptions-next gives up after 10 retries and alerts.", true},
		{attrRetries, "retry policy legacy-ticketing: 9 attempts, jittered backoff", true},
		{attrRetries, "Jobs for ticketing-next are queued on ticketing-next.inbox; DLQ after 5 tries.", true},
		{attrRetries, "catalog runs 6 replicas in production.", false},
		// A count's noun at most four words from its number (three between), not five.
		{attrReplicas, "6 of them are pods", true},
		{attrReplicas, "6 of them are really pods", false},
		{attrReplicas, "pods: one, two, three, 4", true},
		{attrReplicas, "pods: one, two, three, four, 5", false},
		{attrPercent, "disk worker-06: 500G, alert 85%", true},
		{attrPercent, "checkout pages on-call when p99 > 500ms", true},
		{attrPercent, "catalog runs 6 replicas in production.", false},
		{attrDuration, "shipping-quotes upstream timeout = 10s (hardcoded in client.go)", true},
		{attrDuration, "Note: legacy-audit-trail → search-suggest (blocking call, 2 s timeout)", true},
		{attrDuration, "catalog runs 6 replicas in production.", false},
		{attrDuration, "prod-cache-5 got upgraded to 192 GB RAM.", false},
		{attrSchedule, "pdf-renderer retries failed webhooks on the schedule */15 * * * *.", true},
		{attrSchedule, "Account review with Saffron Foods: every other Thursday", true},
		{attrSchedule, "We have a call with Adventure Works on Mondays.", true},
		{attrSchedule, "Data of Adventure Works may only live in Frankfurt (DPA).", false},
		{attrDate, "Heads-up: the Ironclad Storage Nordics deal expires on May 13.", true},
		{attrDate, "the cert expires 2026-03-01", true},
		{attrDate, "Data of Adventure Works may only live in Frankfurt (DPA).", false},
		{attrAddress, "ops-db-13 = 10.1.232.140 (VPN only)", true},
		{attrAddress, "Shell access to prod-app-1: platform on-call.", false},
		{attrVersion, "The database behind mailer is Postgres 12.17.", true},
		{attrVersion, "kyc runs on Node 20.", true},
		{attrVersion, "catalog runs 6 replicas in production.", false},
		{attrVersion, "the client sends API v2 headers", true},
		{attrVersion, "image-resizer-v2 changed hands: Ines Ahmed is the lead now.", false},
		{attrVersion, "image-resizer-v2 listens on port 7909.", false},

		{attrPhone, "ring Helix Networks on 0128 104 1420 for faults", true},
		{attrPhone, "Kwame Mensah's work mobile: 07920 376823 — text first", true},
		{attrPhone, "US support: +1 415 555 0134", true},
		{attrPhone, "(555) 123-4567 after hours", true},
		{attrPhone, "Stroke Unit nurses' station: x3965", true},
		{attrPhone, "Sign-off comes from Gareth Okoro (ext 5367).", true},
		{attrPhone, "Vertrieb: Durchwahl 412", true},
		{attrPhone, "our account with Helix Networks is ACC-24440 (quote it on every call)", false},
		{attrPhone, "controller on 10.31.51.86", false},
		{attrPhone, "ports 8080-8090 are free", false},
		{attrPhone, "the 2024-2025 budget", false},
		{attrPhone, "ticket INC0050256 is closed", false},
		{attrPhone, "6 digits: 123 456", false},
		// A number's limits: 7 digits in three groups, 10 in any.
		{attrPhone, "call 555 12 34", true},
		{attrPhone, "call 555 12 3", false},
		{attrPhone, "call 0123456789", true},
		{attrPhone, "call 012345678", false},
		{attrPhone, "hex 0x3965 is not an extension", false},
	}
	for _, tt := range tests {
		if got := noteHasAttr(tt.note, tt.attr); got != tt.want {
			t.Errorf("noteHasAttr(%q, %d) = %v, want %v", tt.note, tt.attr, got, tt.want)
		}
	}
}

func TestRestatesAttr(t *testing.T) {
	tests := []struct {
		older, newer string
		want         bool
	}{
		{"legacy-onboarding-api is pinned to Python 3.10 in the base image", "We moved legacy-onboarding-api to Python 3.12 last sprint.", true},
		{"Main contact at Wingtip Toys: Hiro Jovanović <jovanović@wingtip.example>",
			"Update: Hiro Jovanović no longer works at Wingtip Toys, Katarina Andersen (andersen@wingtip.example) took over.", true},
		// No correction cue: two facts side by side.
		{"returns-portal runs on Node 22.", "returns-portal has a worker on Java 21.", false},
		// Another subject first, or a look-alike of it.
		{"returns-portal runs on Node 22.", "We moved checkout to Java 21 last sprint.", false},
		{"returns-portal runs on Node 22.", "We moved returns-portal-next to Java 21 last sprint.", false},
		// A subject without names: the store's subject.
		{"theatre scheduler live is on version 19.3.10", "theatre scheduler live upgraded to 30.7.1 last night", true},
		{"theatre scheduler test is on version 3.1", "theatre scheduler live upgraded to 30.7.1 last night", false},
	}
	for _, tt := range tests {
		if got := restatesAttr(tt.older, tt.newer, nameRuns(tt.older), nameRuns(tt.newer)); got != tt.want {
			t.Errorf("restatesAttr(%q, %q) = %v, want %v", tt.older, tt.newer, got, tt.want)
		}
	}
}
