package memory

import "testing"

func TestDebug2Scratch(t *testing.T) {
	pairs := [][2]string{
		{"production replicas for cart: 3", "production replicas for shipping-quotes: 5"},
		{"production replicas for export-worker: 6", "production replicas for email-templates: 8"},
		{"The database behind billing-api-v2 is Postgres 11.22; upgrade blocked by the pg_partman extension.", "The database behind recommendations-v2 is Postgres 11.22; upgrade blocked by the pg_partman extension."},
		{"INC-2914: email-templates outage on Jan 13, 148 minutes, caused by a bad feature flag rollout.", "INC-3001: ledger outage on Feb 2, 30 minutes, caused by a bad feature flag rollout."},
		{"The database behind billing-api-v2 is Postgres 11.22; upgrade blocked by the pg_partman extension.", "The database behind recommendations-v2 is Postgres 12.17; upgrade blocked by the pg_partman extension."},
	}
	for _, p := range pairs {
		v, c := compareFacts(p[0], p[1])
		t.Logf("%v %+v corrects=%v/%v", v, c, corrects(p[0], p[1], 0.9), corrects(p[0], p[1], 0.97))
	}
}
