package main

// The blind set (-set blind, testdata/recall/blind) is a data and ML platform team's notes:
// Airflow pipelines, warehouse tables, buckets, dashboards, models, vendors and their
// contracts, people and their laptops, offices, on-call rotations, warehouses and clusters,
// tool versions. It was written without reading the ranking code or the other sets'
// templates, and it is never tuned on: it is run to report figures, not to move them.
// Notes are jotted the way people write in Slack or a notes app (terse fragments, chatty
// sentences, bullets, the odd typo); corrections come in the wordings people use ("scratch
// that", "as of Monday", "bumped ... to", "turns out", "per Ana") and are stored some time
// after the note they correct, right after it when they fix a slip just made.

import (
	"fmt"
	"slices"
	"strings"
)

var (
	bFirst = []string{"Ana", "Bilal", "Chiara", "Dmitri", "Efua", "Farah", "Gustavo", "Hana", "Ines", "Jonas",
		"Kofi", "Leila", "Mateo", "Nadia", "Oskar", "Paula", "Quentin", "Rafaela", "Sanjay", "Tomasz", "Ulla",
		"Vikram", "Wanjiru", "Xavier", "Yuki", "Zeynep", "Aoife", "Bruno", "Camille", "Dario", "Emeka", "Freya",
		"Goran", "Hiroshi", "Ilse", "Joaquin", "Kasia", "Lars", "Mei", "Nikhil", "Olu", "Pilar", "Rhys",
		"Siobhan", "Tariq", "Valentina"}
	bLast = []string{"Okafor", "Lindqvist", "Moreau", "Castillo", "Brennan", "Sato", "Kowalczyk", "Fitzgerald",
		"Rossi", "Nakamura", "Oyelaran", "Petrov", "Quispe", "Rahman", "Schultz", "Teixeira", "Vasquez", "Walsh",
		"Yilmaz", "Zhou", "Abara", "Bauer", "Costa", "Dufresne", "Ekström", "Ferreira", "Gallagher", "Horvat",
		"Ivanova", "Jensen", "Kaur", "Lemaire", "Mbeki", "Ortega", "Pereira", "Reyes", "Silva", "Tan"}

	bPipelines = []string{"orders_daily", "clickstream_sessionize", "attribution_touchpoints", "churn_features",
		"invoice_export", "crm_contacts_sync", "ad_spend_ingest", "inventory_snapshot", "zendesk_tickets_load",
		"app_events_rollup", "fx_rates_fetch", "payroll_extract", "sensor_readings_etl", "search_logs_compact",
		"nps_responses_import", "eta_training_set", "ltv_scoring", "fraud_features_hourly", "sku_embeddings",
		"weather_enrich", "returns_reconcile", "email_bounces_ingest", "partner_feed_push", "gdpr_erasure",
		"subscriptions_mrr", "trial_conversion", "store_footfall", "price_elasticity", "review_sentiment",
		"warehouse_costs", "carrier_tracking", "loyalty_points", "web_vitals_ingest", "ab_test_results",
		"refunds_ledger", "catalog_dedupe", "geo_enrichment", "session_replay_sample", "call_transcripts",
		"marketing_consent", "supplier_invoices", "forecast_demand", "device_telemetry", "push_open_rates",
		"survey_panel", "affiliate_payouts", "tax_reports_monthly", "product_reviews_dump"}

	bEntities = []string{"orders", "customers", "sessions", "payments", "devices", "subscriptions", "events",
		"tickets", "products", "refunds", "shipments", "invoices", "leads", "reviews", "readings", "clicks",
		"carts", "coupons", "merchants", "payouts"}

	bMarts = []string{"mart.revenue_daily", "mart.cohort_retention", "mart.funnel_steps", "mart.support_kpis",
		"mart.marketing_roi", "mart.inventory_health", "mart.churn_scores", "mart.delivery_sla",
		"mart.merchant_risk", "mart.device_health", "mart.basket_stats", "mart.cash_collections",
		"mart.experiment_readouts", "mart.store_traffic", "mart.partner_payouts"}

	bBuckets = []string{"acme-lake-raw", "acme-lake-curated", "acme-ml-artifacts", "acme-ml-training",
		"acme-logs-archive", "acme-dbt-docs", "acme-airflow-logs", "acme-wh-backups", "acme-scratch",
		"acme-iot-firmware", "acme-media-uploads", "acme-feature-snapshots", "acme-label-queue",
		"acme-model-cards", "acme-query-results", "acme-cdc-landing", "acme-finance-drop", "acme-legal-hold",
		"acme-notebook-home", "acme-tf-state"}

	bDashboards = []string{"Weekly Revenue", "Exec KPIs", "Funnel Health", "Support Backlog", "Marketing ROI",
		"Inventory Aging", "Churn Watch", "Delivery SLA", "Device Fleet", "Experiment Readout",
		"Cohort Retention", "Cash Collections", "Data Freshness", "Warehouse Spend", "Pricing Tests",
		"NPS Tracker", "Fraud Monitor", "Partner Payouts", "Store Traffic", "Hiring Funnel", "Merchant Health",
		"Search Quality", "App Crashes", "Courier Performance", "Subscription Health", "Trial Funnel",
		"Refund Reasons", "Ad Spend Pacing"}

	bModels = []string{"churn-xgb", "ltv-gbm", "fraud-scorer", "eta-regressor", "demand-forecast", "reco-two-tower",
		"search-rerank", "price-optimizer", "ticket-router", "sentiment-bert", "anomaly-iforest", "lead-scoring",
		"image-tagger", "address-normalizer", "dedupe-matcher", "spam-filter", "credit-limit", "upsell-propensity",
		"sku-classifier", "intent-detector"}

	bVendors = []string{"Snowflake", "Fivetran", "Databricks", "Datadog", "PagerDuty", "Looker", "Segment",
		"Monte Carlo", "Hightouch", "dbt Cloud", "Labelbox", "Weights & Biases", "Astronomer", "Hex", "Census",
		"Airbyte", "Sigma", "Atlan"}

	bOffices = []string{"Berlin", "Lisbon", "Austin", "Toronto", "Singapore", "Nairobi", "Kraków", "Melbourne"}

	bRotations = []string{"data-platform", "ml-serving", "analytics-eng", "iot-ingest", "warehouse", "streaming",
		"bi-tools", "data-quality", "mlops", "feature-store"}

	bWarehouses = []string{"TRANSFORM_WH", "REPORTING_WH", "LOADING_WH", "ADHOC_WH", "ML_WH", "DBT_CI_WH",
		"FINANCE_WH", "REVERSE_ETL_WH"}

	bClusters = []string{"spark-etl-large", "spark-adhoc", "gpu-train-a100", "gpu-infer-t4", "ray-tune",
		"flink-streams", "trino-interactive", "spark-backfill"}

	bTeamNames = []string{"analytics eng", "data platform", "ML infra", "growth analytics", "finance data",
		"IoT ingest", "BI", "data science"}

	bCities = []string{"Lisbon", "Berlin", "Toronto", "Austin", "Nairobi", "Kraków", "Singapore", "Melbourne",
		"Porto", "Lagos", "Montréal", "Bogotá", "Valencia", "Hamburg", "Lyon", "Denver", "Accra", "Osaka"}

	bSlackFix = []string{"Ana", "Bilal", "Chiara", "Mateo", "Yuki", "Kofi", "Freya"}
)

// blindLater holds notes written later in the project (the second of two look-alikes).
var blindLater []func()

func (g *gen) bPerson() string { return g.pick(bFirst) + " " + g.pick(bLast) }

// bTypo swaps two letters of one plain word in a few notes, as fast typing does.
func (g *gen) bTypo(s string) string {
	if g.r.IntN(100) >= 5 {
		return s
	}
	words := strings.Split(s, " ")
	var cands []int
	for i, w := range words {
		if len(w) >= 6 && strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return s
	}
	i := cands[g.r.IntN(len(cands))]
	w := []byte(words[i])
	j := 1 + g.r.IntN(len(w)-3)
	w[j], w[j+1] = w[j+1], w[j]
	words[i] = string(w)
	return strings.Join(words, " ")
}

// bNote adds a note in one of its phrasings.
func (g *gen) bNote(texts []string, f *fact) *fact {
	f.text = g.bTypo(g.pick(texts))
	return g.add(f)
}

// bTwins adds two look-alike notes (one template, two subjects or qualifiers); the second is
// sometimes written much later. Each one's questions name which.
func (g *gen) bTwins(a, b string, da, db []string) {
	fa := g.add(&fact{text: g.bTypo(a), dist: da})
	later := func() {
		fb := g.add(&fact{text: g.bTypo(b), dist: db})
		if fa != nil && fb != nil {
			fa.twin, fb.twin = fb.key, fa.key
		}
	}
	if g.r.IntN(2) == 0 {
		blindLater = append(blindLater, later)
	} else {
		later()
	}
}

func qs(xs ...string) []string { return xs }

// bOther draws a value of f that differs from old.
func (g *gen) bOther(old string, f func() string) string {
	for range 100 {
		if v := f(); v != old {
			return v
		}
	}
	panic("bOther: no other value")
}

func (g *gen) bWho() string { return g.pick(bSlackFix) }

func (g *gen) bTime() string {
	return fmt.Sprintf("%02d:%02d", g.r.IntN(24), []int{0, 5, 10, 15, 20, 30, 40, 45, 50}[g.r.IntN(9)])
}

func (g *gen) bDay() string {
	return g.pick([]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"})
}

func (g *gen) bDate() string {
	return fmt.Sprintf("%s %d", g.pick([]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}), 1+g.r.IntN(28))
}

// bPipeline: an Airflow pipeline (DAG).
func (g *gen) bPipeline(p string) {
	sp := strings.ReplaceAll(p, "_", " ")
	owner := g.bPerson()
	// Schedule: a plain note, or a prod and a staging look-alike.
	at := g.bTime()
	if g.r.IntN(2) == 0 {
		at2 := g.bOther(at, g.bTime)
		g.bTwins(
			sub(g.pick(qs("{p} (prod) runs daily at {t} UTC", "prod schedule for {p}: {t} UTC every day", "{p} in prod kicks off at {t} UTC")), "{p}", p, "{t}", at),
			sub(g.pick(qs("{p} (staging) runs daily at {t} UTC", "staging schedule for {p}: {t} UTC every day", "{p} in staging kicks off at {t} UTC")), "{p}", p, "{t}", at2),
			qs("when does the prod "+p+" run?", "what time does "+sp+" run in production", p+" prod schedule?"),
			qs("when does "+p+" run on staging", "staging "+sp+" time?", "what time is the staging run of "+p),
		)
	} else {
		g.bNote(subAll(qs("{p} runs every day at {t} UTC", "{p}: daily @ {t} UTC", "fyi {p} is scheduled for {t} UTC each night"), "{p}", p, "{t}", at), &fact{
			para: qs("when does "+sp+" kick off?", "what time does the "+p+" DAG start"),
			ask:  qs("what time is " + p + " scheduled"),
			de:   qs("Wann läuft der " + p + " DAG?"),
			fr:   qs("À quelle heure tourne le DAG " + p + " ?"),
			es:   qs("¿A qué hora corre el DAG " + p + "?"),
			fixes: func() []string {
				n1, n2 := g.bOther(at, g.bTime), g.bOther(at, g.bTime)
				return qs(
					sub("scratch that, {p} runs at {n} UTC not {o}", "{p}", p, "{n}", n1, "{o}", at),
					sub("as of Monday {p} is scheduled for {n} UTC (upstream export lands later now)", "{p}", p, "{n}", n2),
					sub("{p} moved from {o} to {n} UTC", "{p}", p, "{n}", n1, "{o}", at),
				)
			}(),
		})
	}
	// Owner.
	owner2 := g.bOther(owner, g.bPerson)
	g.bNote(subAll(qs("owner of {p}: {o}", "{o} owns the {p} DAG", "{p} -> {o} is the owner, ping them if it breaks"), "{p}", p, "{o}", owner), &fact{
		para: qs("who do I ping when "+sp+" breaks?", "who's responsible for "+p),
		de:   qs("Wer ist Owner von "+p+"?", "Wen frag ich wenn "+p+" kaputt ist?"),
		fr:   qs("Qui est owner du pipeline " + p + " ?"),
		es:   qs("¿Quién es el owner del pipeline " + p + "?"),
		fixes: qs(
			sub("{p} is now owned by {n} (was {o})", "{p}", p, "{n}", owner2, "{o}", owner),
			sub("per {w}, {n} took over {p} from {o}", "{p}", p, "{n}", owner2, "{o}", owner, "{w}", g.bWho()),
			sub("{o} no longer owns {p}, {n} does", "{p}", p, "{n}", owner2, "{o}", owner),
			sub("scratch that - {p} owner is {n}, {o} only reviewed it", "{p}", p, "{n}", owner2, "{o}", owner),
		),
	})
	// Destination and source.
	dest := "analytics." + p
	src := g.pick(qs("the shop Postgres replica", "the Kafka topic "+p+".v1", "the vendor SFTP drop", "the Segment export", "the Salesforce API", "the MQTT bridge"))
	g.bNote(subAll(qs("{p} reads {s} and writes {d}", "{p}: {s} -> {d}", "{d} is filled by {p}, source is {s}"), "{p}", p, "{s}", src, "{d}", dest), &fact{
		para:  qs("where does " + sp + " get its data from?"),
		ident: qs("which DAG fills "+dest+"?", "what writes "+dest),
		de:    qs("Woher kommen die Daten für " + p + "?"),
		fr:    qs("D'où viennent les données de " + p + " ?"),
		es:    qs("¿De dónde saca los datos " + p + "?"),
	})
	// Retries.
	rt := 1 + g.r.IntN(6)
	delay := g.pick(qs("5m", "10m", "15m", "30m"))
	g.bNote(subAll(qs("{p} retries={r}, retry_delay={d}", "{p} gets {r} retries, {d} apart", "- {p}: {r} retries / {d} delay"), "{p}", p, "{r}", fmt.Sprint(rt), "{d}", delay), &fact{
		ask: qs("how many retries does "+p+" get?", "how often does "+sp+" retry before failing"),
		de:  qs("Wie viele Retries hat " + p + "?"),
		fr:  qs("Combien de retries pour " + p + " ?"),
		es:  qs("¿Cuántos retries tiene " + p + "?"),
		fixes: func() []string {
			up := fmt.Sprint(rt + 1 + g.r.IntN(3))
			n := g.bOther(fmt.Sprint(rt), func() string { return fmt.Sprint(1 + g.r.IntN(8)) })
			return qs(
				sub("bumped {p} retries to {n}", "{p}", p, "{n}", up),
				sub("{p} retries is now {n} (was {o})", "{p}", p, "{n}", n, "{o}", fmt.Sprint(rt)),
			)
		}(),
	})
	// Alert channel.
	ch := "#alerts-" + strings.ReplaceAll(p, "_", "-")
	g.bNote(subAll(qs("{p} failures post to {c}", "alerts for {p} go to {c} in Slack", "if {p} fails you'll see it in {c}"), "{p}", p, "{c}", ch), &fact{
		para:  qs("where do I see it when " + sp + " fails?"),
		ident: qs("what posts to "+ch+"?", ch+" is for which pipeline"),
		de:    qs("In welchen Slack-Channel gehen die Alerts von " + p + "?"),
		fr:    qs("Les alertes de " + p + " partent sur quel channel Slack ?"),
		es:    qs("¿A qué canal de Slack van las alertas de " + p + "?"),
	})
	// SLA.
	sla := fmt.Sprintf("%02d:00", 5+g.r.IntN(6))
	g.bNote(subAll(qs("{p} SLA: data ready by {s} CET", "{p} has to land by {s} CET, execs look at it first thing", "SLA for {p} is {s} CET"), "{p}", p, "{s}", sla), &fact{
		para: qs("by when does " + sp + " need to be done?"),
		ask:  qs("what's the deadline for " + p + " to finish"),
		de:   qs("Bis wann muss " + p + " fertig sein?"),
		fr:   qs("Pour quelle heure " + p + " doit être fini ?"),
		es:   qs("¿Para qué hora tiene que estar listo " + p + "?"),
		fixes: qs(
			sub("{p} SLA moved to {n} CET", "{p}", p, "{n}", fmt.Sprintf("%02d:30", 5+g.r.IntN(6))),
			sub("oops, {p} SLA is {n} CET, not {o}", "{p}", p, "{n}", fmt.Sprintf("%02d:30", 5+g.r.IntN(6)), "{o}", sla),
		),
	})
	// Runtime.
	mins := 8 + g.r.IntN(110)
	g.bNote(subAll(qs("{p} usually takes ~{m} min", "{p} normally finishes in about {m} minutes, longer means something is off", "typical runtime {p}: {m}min"), "{p}", p, "{m}", fmt.Sprint(mins)), &fact{
		ask: qs("how long does "+p+" normally take?", "is "+sp+" slow today or is that normal, what's its usual duration"),
		val: fmt.Sprint(mins) + " min",
		num: qs("which pipeline takes about " + fmt.Sprint(mins) + " min?"),
		de:  qs("Wie lange braucht " + p + " normalerweise?"),
		fr:  qs("Combien de temps prend " + p + " d'habitude ?"),
		es:  qs("¿Cuánto tarda normalmente " + p + "?"),
	})
	// Backfill command.
	flag := g.uniq(func() string {
		return "--" + g.pick(qs("skip", "only", "reset", "force", "no", "keep", "dry")) + "-" + g.pick(qs("dedupe", "snapshots", "late-rows", "partitions", "vendor-check", "schema-check", "fx", "pii-mask", "watermark", "archive", "sensors", "notify"))
	})
	g.bNote(subAll(qs("backfill {p}: `make backfill DAG={p} START=... END=...` then rerun with {f}", "to backfill {p} run the backfill make target and pass {f}, otherwise it chokes", "{p} backfills need {f} (learned the hard way)"), "{p}", p, "{f}", flag), &fact{
		para:  qs("how do I backfill " + sp + "?"),
		ident: qs("what is "+flag+" for", "which backfill needs "+flag),
		de:    qs("Wie mache ich ein Backfill von " + p + "?"),
		fr:    qs("Comment on fait un backfill de " + p + " ?"),
		es:    qs("¿Cómo hago un backfill de " + p + "?"),
	})
	// A known failure.
	if g.r.IntN(2) == 0 {
		failures := [][2]string{
			{"SnowflakeTimeout", "rerun on a bigger warehouse, it's the month-end load"},
			{"DuplicateKeyError", "clear the dedupe task and rerun"},
			{"SchemaDrift", "check #data-contracts, someone changed a column upstream"},
			{"QuotaExceeded", "ask #data-platform to raise the API quota"},
			{"SFTPAuthFailed", "rotate the service user's key"},
			{"EmptyPartition", "wait 20 min, the vendor drop is late, then clear the sensor"},
			{"S3AccessDenied", "re-apply the lake-writer Terraform module"},
		}
		var fix string
		code := g.uniq(func() string {
			f := failures[g.r.IntN(len(failures))]
			fix = f[1]
			return f[0] + fmt.Sprintf("-%03d", g.r.IntN(1000))
		})
		g.bNote(subAll(qs("{p} sometimes dies with {c}: {x}", "if {p} throws {c} -> {x}", "known issue: {c} in {p}; fix: {x}"), "{p}", p, "{c}", code, "{x}", fix), &fact{
			para:  qs("what do I do when " + sp + " crashes with that known error?"),
			ident: qs("how do I fix "+code+"?", code+" what do I do"),
			de:    qs("Was tun, wenn " + p + " mit " + code + " abbricht?"),
			fr:    qs("Que faire quand " + p + " plante avec " + code + " ?"),
			es:    qs("¿Qué hago si " + p + " falla con " + code + "?"),
		})
	}
}

// bTable: a raw table and its curated counterpart.
func (g *gen) bTable(e string) {
	raw, cur := "raw."+e, "curated."+e
	rd, cd := fmt.Sprint(7*(1+g.r.IntN(8))), fmt.Sprint(180*(1+g.r.IntN(4)))
	g.bTwins(
		sub(g.pick(qs("{t} retention: {d} days", "we keep {t} for {d} days", "{t} is purged after {d} days")), "{t}", raw, "{d}", rd),
		sub(g.pick(qs("{t} retention: {d} days", "we keep {t} for {d} days", "{t} is purged after {d} days")), "{t}", cur, "{d}", cd),
		qs("how long do we keep raw "+e+"?", "retention on "+raw+"?"),
		qs("how long is curated "+e+" kept", "retention of the curated "+e+" table"),
	)
	fmtRaw := g.pick(qs("json.gz", "avro", "parquet", "csv"))
	g.bTwins(
		sub("{t} lives in s3://acme-lake-raw/{e}/ as {f}", "{t}", raw, "{e}", e, "{f}", fmtRaw),
		sub("{t} lives in s3://acme-lake-curated/{e}/ as delta", "{t}", cur, "{e}", e),
		qs("where are the files for raw "+e+"?", "what format is raw "+e+" stored in"),
		qs("where do the curated "+e+" files live", "what format is curated "+e+" in"),
	)
	pk := g.pick(qs("event_date", "created_at::date", "ingest_day", "region, event_date", "merchant_id bucket"))
	g.bNote(subAll(qs("{t} is partitioned by {k}", "partition key of {t} = {k}", "{t}: partitions on {k}, filter on it or the query scans everything"), "{t}", cur, "{k}", pk), &fact{
		para: qs("what should I filter on so a query on curated " + e + " doesn't scan it all?"),
		de:   qs("Nach was ist " + cur + " partitioniert?"),
		fr:   qs("Quelle est la clé de partition de " + cur + " ?"),
		es:   qs("¿Por qué columna está particionada " + cur + "?"),
	})
	rows := fmt.Sprintf("%d.%dB", 1+g.r.IntN(9), g.r.IntN(10))
	if g.r.IntN(2) == 0 {
		rows = fmt.Sprintf("%dM", 10*(1+g.r.IntN(90)))
	}
	g.bNote(subAll(qs("{t} has ~{n} rows", "{t} row count ≈ {n}", "heads up {t} is big, around {n} rows"), "{t}", cur, "{n}", rows), &fact{
		ask: qs("how many rows are in curated "+e+"?", "how big is "+cur),
		val: rows,
		num: qs("which table has about " + rows + " rows?"),
		de:  qs("Wie viele Zeilen hat " + cur + "?"),
		fr:  qs("Combien de lignes dans " + cur + " ?"),
		es:  qs("¿Cuántas filas tiene " + cur + "?"),
	})
	steward := g.bPerson()
	g.bNote(subAll(qs("data steward for {t}: {s}", "{s} is the steward of {t}, ask before adding columns", "{t} steward = {s}"), "{t}", cur, "{s}", steward), &fact{
		para: qs("who approves new columns on curated " + e + "?"),
		de:   qs("Wer ist Data Steward für " + cur + "?"),
		fr:   qs("Qui est le data steward de " + cur + " ?"),
		es:   qs("¿Quién es el data steward de " + cur + "?"),
		fixes: qs(
			sub("{t} steward is now {n}", "{t}", cur, "{n}", g.bOther(steward, g.bPerson)),
			sub("we moved stewardship of {t} to {n}", "{t}", cur, "{n}", g.bOther(steward, g.bPerson)),
		),
	})
	pii := g.pick(qs("PII tier 1 (emails, phone)", "PII tier 2 (hashed ids only)", "PII tier 3 (no personal data)", "PII tier 1 (addresses)"))
	g.bNote(subAll(qs("{t} classification: {c}", "{t} -> {c}", "careful, {t} is {c}"), "{t}", cur, "{c}", pii), &fact{
		para: qs("is there personal data in curated " + e + "?"),
		de:   qs("Sind in " + cur + " personenbezogene Daten drin?"),
		fr:   qs("Est-ce que " + cur + " contient des données perso ?"),
		es:   qs("¿" + cur + " tiene datos personales?"),
	})
	lag := 15 * (1 + g.r.IntN(12))
	g.bNote(subAll(qs("{t} freshness: lags source by up to {m} min", "{t} is at most {m} minutes behind", "expect {t} to be ~{m} min stale"), "{t}", cur, "{m}", fmt.Sprint(lag)), &fact{
		ask: qs("how stale can curated "+e+" be?", "how far behind is "+cur),
		de:  qs("Wie aktuell ist " + cur + "?"),
		fr:  qs("Quel est le retard max de " + cur + " ?"),
		es:  qs("¿Con cuánto retraso llega " + cur + "?"),
		fixes: qs(
			sub("{t} now lags by at most {n} min (was {o})", "{t}", cur, "{n}", fmt.Sprint(lag/3+5), "{o}", fmt.Sprint(lag)),
			sub("turns out {t} is actually up to {n} min behind", "{t}", cur, "{n}", fmt.Sprint(lag*2)),
		),
	})
}

// bMart: a reporting table.
func (g *gen) bMart(m string) {
	short := strings.TrimPrefix(m, "mart.")
	sp := strings.ReplaceAll(short, "_", " ")
	grain := g.pick(qs("one row per day", "one row per customer per month", "one row per merchant per week", "one row per order", "one row per store per hour"))
	g.bNote(subAll(qs("{m} grain: {g}", "{m} is {g}", "fyi {m} = {g}, don't double count"), "{m}", m, "{g}", grain), &fact{
		para: qs("what is one row of the " + sp + " mart?"),
		de:   qs("Was ist die Granularität von " + m + "?"),
		fr:   qs("Quel est le grain de " + m + " ?"),
		es:   qs("¿Cuál es la granularidad de " + m + "?"),
	})
	tests := 3 + g.r.IntN(40)
	g.bNote(subAll(qs("{m} has {n} dbt tests", "{n} dbt tests on {m}", "{m}: {n} tests, all must pass before the exec refresh"), "{m}", m, "{n}", fmt.Sprint(tests)), &fact{
		ask: qs("how many dbt tests does " + m + " have?"),
		de:  qs("Wie viele dbt Tests hat " + m + "?"),
		fr:  qs("Combien de tests dbt sur " + m + " ?"),
		es:  qs("¿Cuántos tests de dbt tiene " + m + "?"),
	})
	model := "models/marts/" + short + ".sql"
	g.bNote(subAll(qs("{m} is defined in {p}", "sql for {m}: {p}", "{p} builds {m}"), "{m}", m, "{p}", model), &fact{
		para:  qs("where's the SQL for the " + sp + " mart?"),
		ident: qs("what does " + model + " build?"),
		de:    qs("Wo liegt das SQL für " + m + "?"),
		fr:    qs("Où est le SQL de " + m + " ?"),
		es:    qs("¿Dónde está el SQL de " + m + "?"),
	})
	sel := "+" + short + "+"
	g.bNote(subAll(qs("rebuild {m} and downstream: dbt build --select {s} --full-refresh", "to rebuild {m}: `dbt build --select {s}`"), "{m}", m, "{s}", sel), &fact{
		para:  qs("how do I rebuild the " + sp + " mart and everything after it?"),
		ident: qs("what does dbt build --select " + sel + " do"),
		de:    qs("Wie baue ich " + m + " neu?"),
		fr:    qs("Comment reconstruire " + m + " ?"),
		es:    qs("¿Cómo reconstruyo " + m + "?"),
	})
	cons := g.pick(bTeamNames)
	g.bNote(subAll(qs("main consumer of {m}: {c} team", "{m} is mostly used by {c}", "{c} depends on {m}, tell them before changing it"), "{m}", m, "{c}", cons), &fact{
		para: qs("who should I warn before changing the " + sp + " mart?"),
		de:   qs("Wer nutzt " + m + " hauptsächlich?"),
		fr:   qs("Qui utilise surtout " + m + " ?"),
		es:   qs("¿Quién usa principalmente " + m + "?"),
	})
}

// bBucket: an object storage bucket.
func (g *gen) bBucket(b string) {
	regions := qs("eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-southeast-1")
	reg := g.pick(regions)
	g.bNote(subAll(qs("{b} is in {r}", "s3://{b} -> region {r}", "bucket {b} lives in {r}"), "{b}", b, "{r}", reg), &fact{
		para: qs("which region is " + b + " in?"),
		de:   qs("In welcher Region liegt der Bucket " + b + "?"),
		fr:   qs("Le bucket " + b + " est dans quelle région ?"),
		es:   qs("¿En qué región está el bucket " + b + "?"),
		fixes: qs(
			sub("we moved {b} to {n} (was {o}) for the data residency thing", "{b}", b, "{n}", g.bOther(reg, func() string { return g.pick(regions) }), "{o}", reg),
			sub("as of this week {b} is in {n}", "{b}", b, "{n}", g.bOther(reg, func() string { return g.pick(regions) })),
		),
	})
	days := 30 * (1 + g.r.IntN(14))
	if g.r.IntN(3) == 0 {
		days = 7 + g.r.IntN(20)
	}
	g.bNote(subAll(qs("{b} lifecycle: objects expire after {d} days", "{b} deletes stuff older than {d} days", "lifecycle rule on {b} = {d}d"), "{b}", b, "{d}", fmt.Sprint(days)), &fact{
		ask: qs("how long do objects survive in "+b+"?", "when does stuff in "+b+" get deleted"),
		val: fmt.Sprint(days) + " days",
		num: qs("which bucket deletes objects after " + fmt.Sprint(days) + " days?"),
		de:  qs("Nach wie vielen Tagen löscht " + b + " die Objekte?"),
		fr:  qs("Au bout de combien de jours " + b + " supprime les objets ?"),
		es:  qs("¿Después de cuántos días se borran los objetos de " + b + "?"),
		fixes: qs(
			sub("bumped the {b} lifecycle to {n} days", "{b}", b, "{n}", fmt.Sprint(days+30)),
			sub("{b} lifecycle is now {n} days (was {o})", "{b}", b, "{n}", fmt.Sprint(days*2), "{o}", fmt.Sprint(days)),
			sub("scratch that, the {b} lifecycle is {n} days", "{b}", b, "{n}", fmt.Sprint(days+7)),
		),
	})
	kms := "alias/" + b + "-key"
	g.bNote(subAll(qs("{b} is encrypted with {k}", "KMS key for {b}: {k}", "{b} SSE-KMS, key {k}"), "{b}", b, "{k}", kms), &fact{
		para:  qs("which key encrypts " + b + "?"),
		ident: qs("what uses " + kms + "?"),
		de:    qs("Mit welchem KMS Key ist " + b + " verschlüsselt?"),
		fr:    qs("Quelle clé KMS chiffre " + b + " ?"),
		es:    qs("¿Con qué clave KMS está cifrado " + b + "?"),
	})
	role := g.uniq(func() string {
		return "arn:aws:iam::" + fmt.Sprintf("%012d", 100000000000+g.r.Int64N(899999999999)) + ":role/" + g.pick(qs("airflow-worker", "dbt-runner", "ml-trainer", "fivetran-loader", "lake-writer", "sagemaker-exec"))
	})
	g.bNote(subAll(qs("only {r} can write to {b}", "write access on {b}: {r}", "{b} writers -> {r} (everyone else read-only)"), "{b}", b, "{r}", role), &fact{
		para:  qs("who is allowed to put files into " + b + "?"),
		ident: qs("what can " + role + " write to?"),
		de:    qs("Wer darf in " + b + " schreiben?"),
		fr:    qs("Qui a le droit d'écrire dans " + b + " ?"),
		es:    qs("¿Quién puede escribir en " + b + "?"),
	})
	cost := 20 * (1 + g.r.IntN(200))
	g.bNote(subAll(qs("{b} costs ~${c}/month", "{b} storage bill is about ${c} a month", "${c}/mo for {b} last time finance checked"), "{b}", b, "{c}", fmt.Sprint(cost)), &fact{
		ask: qs("how much do we pay per month for " + b + "?"),
		val: "$" + fmt.Sprint(cost),
		num: qs("which bucket costs $" + fmt.Sprint(cost) + " a month?"),
		de:  qs("Was kostet uns " + b + " im Monat?"),
		fr:  qs("Combien coûte " + b + " par mois ?"),
		es:  qs("¿Cuánto cuesta " + b + " al mes?"),
	})
}

// bRegionalBuckets: the partner export buckets, one per region, written alike.
func (g *gen) bRegionalBuckets(base string) {
	eu, us := base+"-eu", base+"-us"
	d1, d2 := 14+g.r.IntN(30), 45+g.r.IntN(60)
	g.bTwins(
		sub("{b} lifecycle: objects expire after {d} days", "{b}", eu, "{d}", fmt.Sprint(d1)),
		sub("{b} lifecycle: objects expire after {d} days", "{b}", us, "{d}", fmt.Sprint(d2)),
		qs("how long do files stay in the EU "+base+" bucket?"),
		qs("how long do files stay in the US "+base+" bucket?"),
	)
	p1, p2 := g.bPerson(), g.bPerson()
	g.bTwins(
		sub("{b} access requests go to {p}", "{b}", eu, "{p}", p1),
		sub("{b} access requests go to {p}", "{b}", us, "{p}", p2),
		qs("who grants access to the EU "+base+" bucket?"),
		qs("who grants access to the US "+base+" bucket?"),
	)
}

// bDashboard: a BI dashboard.
func (g *gen) bDashboard(d string) {
	tool := g.pick(qs("Looker", "Superset", "Metabase", "Grafana", "Tableau"))
	id := g.uniq(func() string { return fmt.Sprint(100 + g.r.IntN(900)) })
	lower := strings.ToLower(d)
	g.bNote(subAll(qs("{d} dashboard is {t} #{i}", "{d} = {t} dashboard {i}", "the {d} board lives in {t} (id {i})"), "{d}", d, "{t}", tool, "{i}", id), &fact{
		para:  qs("where do I find the " + lower + " dashboard?"),
		ident: qs("what is " + tool + " dashboard " + id + "?"),
		de:    qs("Wo finde ich das " + d + " Dashboard?"),
		fr:    qs("Il est où le dashboard " + d + " ?"),
		es:    qs("¿Dónde está el dashboard " + d + "?"),
	})
	owner := g.bPerson()
	g.bNote(subAll(qs("{d} dashboard owner: {o}", "{o} maintains the {d} dashboard", "questions about {d} -> {o}"), "{d}", d, "{o}", owner), &fact{
		para: qs("who maintains "+lower+"?", "who should I ask about the numbers on "+d),
		de:   qs("Wer pflegt das " + d + " Dashboard?"),
		fr:   qs("Qui maintient le dashboard " + d + " ?"),
		es:   qs("¿Quién mantiene el dashboard " + d + "?"),
		fixes: qs(
			sub("{d} dashboard is now owned by {n} (was {o})", "{d}", d, "{n}", g.bOther(owner, g.bPerson), "{o}", owner),
			sub("{o} handed the {d} dashboard over to {n}", "{d}", d, "{n}", g.bOther(owner, g.bPerson), "{o}", owner),
		),
	})
	ref := g.pick(qs("every hour", "every 4 hours", "every 15 minutes", "once a day at 06:00", "every 30 minutes"))
	g.bNote(subAll(qs("{d} refreshes {r}", "{d}: refresh {r}", "data on {d} updates {r}"), "{d}", d, "{r}", ref), &fact{
		para: qs("how up to date is "+lower+"?", "how often do the "+d+" numbers update"),
		de:   qs("Wie oft aktualisiert sich " + d + "?"),
		fr:   qs("Le dashboard " + d + " se rafraîchit tous les combien ?"),
		es:   qs("¿Cada cuánto se actualiza " + d + "?"),
		fixes: qs(
			sub("{d} now refreshes {n}", "{d}", d, "{n}", g.bOther(ref, func() string { return g.pick(qs("every 2 hours", "every 10 minutes", "twice a day", "every 6 hours")) })),
			sub("{d} no longer refreshes {o}, it's {n} now", "{d}", d, "{o}", ref, "{n}", g.bOther(ref, func() string { return g.pick(qs("every 2 hours", "every 10 minutes", "twice a day", "every 6 hours")) })),
		),
	})
	aud := g.pick(qs("the Monday exec sync", "the weekly ops review", "the board pack", "finance month-end close", "the Thursday growth meeting"))
	g.bNote(subAll(qs("{d} is what {a} looks at", "{d} gets presented in {a}", "{a} uses the {d} dashboard, don't break it on the day"), "{d}", d, "{a}", aud), &fact{
		para: qs("which meeting uses " + lower + "?"),
		de:   qs("In welchem Meeting wird " + d + " gezeigt?"),
		fr:   qs("Dans quelle réunion on regarde " + d + " ?"),
		es:   qs("¿En qué reunión se usa " + d + "?"),
	})
	if g.r.IntN(2) == 0 {
		c1, c2 := g.pick(qs("excludes refunds", "counts trials as active", "is in UTC, not local time", "excludes B2B accounts", "double counts split shipments")), g.pick(qs("lags a day on Mondays", "hides test merchants", "uses list prices"))
		g.bNote(subAll(qs("caveat on {d}: it {c}", "{d} gotcha - {c}", "remember {d} {c}"), "{d}", d, "{c}", c1), &fact{
			para: qs("anything I should know before quoting " + lower + " numbers?"),
			de:   qs("Gibt es einen Haken bei den Zahlen im " + d + " Dashboard?"),
			fr:   qs("Il y a un piège avec les chiffres de " + d + " ?"),
			es:   qs("¿Hay alguna trampa con los números de " + d + "?"),
		})
		_ = c2
	}
}

// bRegionalDashboards: one dashboard kept per region, same notes.
func (g *gen) bRegionalDashboards(d string) {
	r1, r2 := g.pick(qs("every hour", "every 4 hours")), g.pick(qs("every 15 minutes", "every 30 minutes", "once a day"))
	lower := strings.ToLower(d)
	g.bTwins(
		sub("{d} (EU) refreshes {r}", "{d}", d, "{r}", r1),
		sub("{d} (US) refreshes {r}", "{d}", d, "{r}", r2),
		qs("how often does the EU "+lower+" dashboard refresh?"),
		qs("how often does the US "+lower+" dashboard refresh?"),
	)
	f1, f2 := "f_"+strings.ReplaceAll(lower, " ", "_")+"_eu", "f_"+strings.ReplaceAll(lower, " ", "_")+"_us"
	g.bTwins(
		sub("{d} (EU) reads from {t}", "{d}", d, "{t}", "mart."+f1),
		sub("{d} (US) reads from {t}", "{d}", d, "{t}", "mart."+f2),
		qs("which table feeds the EU "+lower+" dashboard?"),
		qs("which table feeds the US version of "+lower+"?"),
	)
}

// bModel: an ML model in production.
func (g *gen) bModel(m string) {
	major := 1 + g.r.IntN(5)
	ver := fmt.Sprintf("v%d.%d.%d", major, g.r.IntN(15), g.r.IntN(10))
	g.bNote(subAll(qs("{m} {v} is live", "prod {m} = {v}", "we're serving {m} {v} since last sprint"), "{m}", m, "{v}", ver), &fact{
		ask: qs("which version of "+m+" is serving?", "what "+m+" version is in prod"),
		val: ver,
		num: qs("what's " + m + " " + ver + "?"),
		de:  qs("Welche Version von " + m + " läuft gerade?"),
		fr:  qs("Quelle version de " + m + " est en prod ?"),
		es:  qs("¿Qué versión de " + m + " está en producción?"),
		fixes: func() []string {
			n := fmt.Sprintf("v%d.%d.%d", major, 15+g.r.IntN(5), g.r.IntN(10))
			return qs(
				sub("rolled {m} forward to {n}", "{m}", m, "{n}", n),
				sub("{m} is now {n} (was {o}), shadow test passed", "{m}", m, "{n}", n, "{o}", ver),
				sub("as of Monday prod {m} = {n}", "{m}", m, "{n}", n),
			)
		}(),
	})
	host := m + ".ml.internal"
	g.bTwins(
		sub("{m} endpoint (prod): https://{h}/v1/predict", "{m}", m, "{h}", host),
		sub("{m} endpoint (staging): https://{h}/v1/predict", "{m}", m, "{h}", "staging-"+host),
		qs("what's the prod URL for "+m+"?", "prod endpoint "+m),
		qs("staging endpoint for "+m+"?", "where do I hit "+m+" on staging"),
	)
	thr := fmt.Sprintf("0.%02d", 30+g.r.IntN(60))
	g.bNote(subAll(qs("{m} decision threshold {t}", "{m} flags anything scoring above {t}", "cutoff for {m}: {t}"), "{m}", m, "{t}", thr), &fact{
		ask: qs("what cutoff does "+m+" use?", "at what score does "+m+" flag something"),
		de:  qs("Welchen Threshold nutzt " + m + "?"),
		fr:  qs("Quel est le seuil de " + m + " ?"),
		es:  qs("¿Qué threshold usa " + m + "?"),
		fixes: qs(
			sub("raised the {m} threshold to {n}", "{m}", m, "{n}", fmt.Sprintf("0.%02d", 91+g.r.IntN(8))),
			sub("{m} cutoff lowered to {n} after the review", "{m}", m, "{n}", fmt.Sprintf("0.%02d", 10+g.r.IntN(20))),
		),
	})
	auc := fmt.Sprintf("0.%03d", 700+g.r.IntN(290))
	metric := g.pick(qs("AUC", "PR-AUC", "F1", "recall@10", "MAPE"))
	g.bNote(subAll(qs("{m} offline {k}: {a} on the holdout", "{m} scores {k} {a}", "last eval {m}: {k}={a}"), "{m}", m, "{k}", metric, "{a}", auc), &fact{
		ask: qs("how good is "+m+" offline?", "what did "+m+" score on the holdout"),
		val: auc,
		num: qs("which model got " + auc + "?"),
		de:  qs("Wie gut ist " + m + " auf dem Holdout?"),
		fr:  qs("Quel score fait " + m + " sur le holdout ?"),
		es:  qs("¿Qué métrica saca " + m + " en el holdout?"),
	})
	cad := g.pick(qs("weekly on Sundays", "every night", "monthly", "every two weeks", "on demand only"))
	g.bNote(subAll(qs("{m} retrains {c}", "{m}: retrain {c}", "retraining for {m} happens {c}"), "{m}", m, "{c}", cad), &fact{
		para: qs("how often is " + m + " refreshed with new data?"),
		de:   qs("Wie oft wird " + m + " neu trainiert?"),
		fr:   qs("À quelle fréquence on réentraîne " + m + " ?"),
		es:   qs("¿Cada cuánto se reentrena " + m + "?"),
		fixes: qs(
			sub("{m} no longer retrains {o}; it's {n} now", "{m}", m, "{o}", cad, "{n}", g.bOther(cad, func() string { return g.pick(qs("weekly on Wednesdays", "every 6 hours", "quarterly")) })),
		),
	})
	inst := g.pick(qs("g5.xlarge", "p3.2xlarge", "g4dn.xlarge", "c6i.4xlarge", "m6i.2xlarge", "p4d.24xlarge"))
	g.bNote(subAll(qs("{m} trains on {i}", "training box for {m}: {i}", "{m} needs a {i} to train"), "{m}", m, "{i}", inst), &fact{
		para: qs("what hardware does " + m + " train on?"),
		de:   qs("Auf welcher Instanz trainiert " + m + "?"),
		fr:   qs("Sur quelle instance on entraîne " + m + " ?"),
		es:   qs("¿En qué instancia se entrena " + m + "?"),
	})
	feat := "feature." + strings.ReplaceAll(m, "-", "_") + "_inputs"
	g.bNote(subAll(qs("{m} features come from {f}", "{m} reads {f} at inference", "input features {m} -> {f}"), "{m}", m, "{f}", feat), &fact{
		para:  qs("where does " + m + " get its inputs?"),
		ident: qs("which model reads " + feat + "?"),
		de:    qs("Woher bekommt " + m + " seine Features?"),
		fr:    qs("D'où viennent les features de " + m + " ?"),
		es:    qs("¿De dónde saca " + m + " sus features?"),
	})
	owner := g.bPerson()
	g.bNote(subAll(qs("{o} is the DRI for {m}", "{m} DRI: {o}", "{m} belongs to {o}"), "{m}", m, "{o}", owner), &fact{
		para: qs("who's accountable for " + m + "?"),
		de:   qs("Wer ist für " + m + " verantwortlich?"),
		fr:   qs("Qui est responsable de " + m + " ?"),
		es:   qs("¿Quién es responsable de " + m + "?"),
		fixes: qs(
			sub("{m} DRI is now {n}", "{m}", m, "{n}", g.bOther(owner, g.bPerson)),
			sub("scratch that, {n} is the {m} DRI, not {o}", "{m}", m, "{n}", g.bOther(owner, g.bPerson), "{o}", owner),
			sub("per {w}, {n} is taking over {m} from {o}", "{m}", m, "{n}", g.bOther(owner, g.bPerson), "{o}", owner, "{w}", g.bWho()),
		),
	})
}

// bVendor: a vendor and its contract.
func (g *gen) bVendor(v string) {
	renew := g.bDate()
	g.bNote(subAll(qs("{v} contract renews {d}", "{v} renewal: {d}, 60 days notice", "heads up {v} auto-renews on {d}"), "{v}", v, "{d}", renew), &fact{
		para: qs("when is the "+v+" renewal?", "when do we have to decide about "+v),
		de:   qs("Wann verlängert sich der " + v + " Vertrag?"),
		fr:   qs("Le contrat " + v + " se renouvelle quand ?"),
		es:   qs("¿Cuándo se renueva el contrato de " + v + "?"),
		fixes: qs(
			sub("{v} renewal pushed to {n}", "{v}", v, "{n}", g.bOther(renew, g.bDate)),
			sub("turns out {v} renews on {n}, not {o}", "{v}", v, "{n}", g.bOther(renew, g.bDate), "{o}", renew),
		),
	})
	cost := fmt.Sprintf("$%dk", 12+g.r.IntN(480))
	g.bNote(subAll(qs("{v} costs us {c}/yr", "annual {v} spend: {c}", "{v} is {c} a year"), "{v}", v, "{c}", cost), &fact{
		ask: qs("how much do we pay for "+v+"?", "what's the yearly "+v+" bill"),
		val: cost,
		num: qs("which tool costs " + cost + " a year?"),
		de:  qs("Wie viel zahlen wir für " + v + " im Jahr?"),
		fr:  qs("Combien on paie " + v + " par an ?"),
		es:  qs("¿Cuánto pagamos al año por " + v + "?"),
	})
	am := g.bPerson()
	email := strings.ToLower(strings.Split(am, " ")[0]) + "@" + strings.ToLower(strings.NewReplacer(" ", "", "&", "and").Replace(v)) + ".example"
	g.bNote(subAll(qs("our {v} account manager: {a} ({e})", "{v} AM is {a}, {e}", "{a} ({e}) handles our {v} account"), "{v}", v, "{a}", am, "{e}", email), &fact{
		para:  qs("who's our contact at "+v+"?", "who do I email at "+v+" about the contract"),
		ident: qs("who is " + email + "?"),
		de:    qs("Wer ist unser Account Manager bei " + v + "?"),
		fr:    qs("C'est qui notre account manager chez " + v + " ?"),
		es:    qs("¿Quién es nuestro account manager en " + v + "?"),
		fixes: func() []string {
			n := g.bOther(am, g.bPerson)
			return qs(
				sub("{v} has a new account manager: {n} ({o} left)", "{v}", v, "{n}", n, "{o}", am),
				sub("our {v} AM changed to {n}", "{v}", v, "{n}", n),
			)
		}(),
	})
	tiers := qs("Standard", "Business", "Enterprise", "Premier", "Mission Critical")
	ti := g.r.IntN(4)
	tier := tiers[ti]
	g.bNote(subAll(qs("{v} support plan: {t}", "we're on {v} {t} support", "{v} support tier = {t}"), "{v}", v, "{t}", tier), &fact{
		para: qs("what kind of support do we get from " + v + "?"),
		de:   qs("Welchen Support-Plan haben wir bei " + v + "?"),
		fr:   qs("On a quel plan de support chez " + v + " ?"),
		es:   qs("¿Qué plan de soporte tenemos con " + v + "?"),
		fixes: qs(
			sub("upgraded {v} support to {n}", "{v}", v, "{n}", tiers[ti+1+g.r.IntN(4-ti)]),
			sub("oops, {v} support is {n}, not {o} - I mixed it up with another vendor", "{v}", v, "{n}", g.bOther(tier, func() string { return g.pick(tiers) }), "{o}", tier),
		),
	})
	n1, n2 := 5+g.r.IntN(40), 50+g.r.IntN(400)
	t1, t2 := g.pick(qs("admin", "developer", "creator", "editor")), g.pick(qs("viewer", "read-only", "explorer"))
	g.bTwins(
		sub("{v}: {n} {t} seats", "{v}", v, "{n}", fmt.Sprint(n1), "{t}", t1),
		sub("{v}: {n} {t} seats", "{v}", v, "{n}", fmt.Sprint(n2), "{t}", t2),
		qs("how many "+t1+" seats do we have on "+v+"?"),
		qs("how many "+t2+" seats on "+v+"?"),
	)
	ref := g.uniq(func() string { return fmt.Sprintf("PO-%d-%04d", 2023+g.r.IntN(3), g.r.IntN(10000)) })
	g.bNote(subAll(qs("{v} purchase order {r}", "PO for {v} is {r}", "{r} = the {v} PO, finance asks for it"), "{v}", v, "{r}", ref), &fact{
		para:  qs("what PO number do I give finance for " + v + "?"),
		ident: qs("what is " + ref + " for?"),
		de:    qs("Welche PO-Nummer hat " + v + "?"),
		fr:    qs("C'est quoi le numéro de PO de " + v + " ?"),
		es:    qs("¿Cuál es el número de PO de " + v + "?"),
	})
}

// bPersonFacts: a colleague.
func (g *gen) bPersonFacts(p string) {
	team := g.pick(bTeamNames)
	role := g.pick(qs("staff data engineer", "analytics engineer", "ML engineer", "data scientist", "engineering manager", "BI developer", "SRE", "product analyst"))
	g.bNote(subAll(qs("{p} - {r}, {t}", "{p} is a {r} on the {t} team", "{p} ({r}, {t})"), "{p}", p, "{r}", role, "{t}", team), &fact{
		para: qs("what does "+p+" do here?", "which team is "+p+" on"),
		de:   qs("In welchem Team ist " + p + "?"),
		fr:   qs("Dans quelle équipe est " + p + " ?"),
		es:   qs("¿En qué equipo está " + p + "?"),
		fixes: qs(
			sub("{p} moved to the {n} team", "{p}", p, "{n}", g.bOther(team, func() string { return g.pick(bTeamNames) })),
			sub("as of this month {p} is on {n}", "{p}", p, "{n}", g.bOther(team, func() string { return g.pick(bTeamNames) })),
		),
	})
	city := g.pick(bCities)
	g.bNote(subAll(qs("{p} works from {c}", "{p} is based in {c}", "{p} - remote, {c}"), "{p}", p, "{c}", city), &fact{
		para: qs("where is "+p+" located?", "what city is "+p+" in"),
		de:   qs("Wo sitzt " + p + "?"),
		fr:   qs("" + p + " travaille d'où ?"),
		es:   qs("¿Desde dónde trabaja " + p + "?"),
		fixes: qs(
			sub("{p} relocated to {n}", "{p}", p, "{n}", g.bOther(city, func() string { return g.pick(bCities) })),
			sub("sorry, {p} is in {n}, not {o}", "{p}", p, "{n}", g.bOther(city, func() string { return g.pick(bCities) }), "{o}", city),
			sub("{p} is in {n} now, no longer {o}", "{p}", p, "{n}", g.bOther(city, func() string { return g.pick(bCities) }), "{o}", city),
		),
	})
	tag := g.uniq(func() string { return fmt.Sprintf("LT-%04d", g.r.IntN(10000)) })
	model := g.pick(qs("MacBook Pro 14 M3", "MacBook Air M2", "ThinkPad X1 Carbon", "Dell XPS 15", "MacBook Pro 16 M1"))
	g.bNote(subAll(qs("{p} laptop: {m}, asset {a}", "{a} is {p}'s {m}", "{p} has laptop {a} ({m})"), "{p}", p, "{m}", model, "{a}", tag), &fact{
		para:  qs("what laptop does " + p + " have?"),
		ident: qs("whose laptop is "+tag+"?", tag+" belongs to who"),
		de:    qs("Welchen Laptop hat " + p + "?"),
		fr:    qs("" + p + " a quel laptop ?"),
		es:    qs("¿Qué laptop tiene " + p + "?"),
	})
	if g.r.IntN(2) == 0 {
		topic := g.pick(qs("dbt macros", "Airflow sensors", "Snowflake RBAC", "Kafka Connect", "Terraform for the lake", "feature store", "Looker LookML", "Spark tuning", "MLflow", "the IoT MQTT bridge", "GDPR deletes", "cost allocation tags"))
		g.bNote(subAll(qs("{p} knows {t} best", "go-to person for {t}: {p}", "ask {p} about {t}"), "{p}", p, "{t}", topic), &fact{
			para: qs("what is " + p + " the expert on?"),
			de:   qs("Worin kennt sich " + p + " am besten aus?"),
			fr:   qs("" + p + " est expert en quoi ?"),
			es:   qs("¿En qué es experto " + p + "?"),
		})
	}
	gh := g.uniq(func() string {
		parts := strings.Fields(strings.ToLower(p))
		return "@" + parts[0][:1] + strings.NewReplacer("ö", "o", "ä", "a").Replace(parts[1]) + g.pick(qs("", "-acme", "42", "dev", "_"))
	})
	g.bNote(subAll(qs("{p} on GitHub: {g}", "{p}'s github handle is {g}", "{g} = {p}"), "{p}", p, "{g}", gh), &fact{
		para:  qs("what's " + p + "'s GitHub username?"),
		ident: qs("who is " + gh + " on GitHub?"),
		de:    qs("Wie heißt " + p + " auf GitHub?"),
		fr:    qs("C'est quoi le pseudo GitHub de " + p + " ?"),
		es:    qs("¿Cuál es el usuario de GitHub de " + p + "?"),
	})
}

// bOffice: all offices share wording, so every note has a look-alike; the questions name the
// office.
func (g *gen) bOffice(o string) {
	lo := strings.ToLower(strings.NewReplacer("ó", "o").Replace(o))
	ssid := "acme-guest-" + lo[:3]
	add := func(text string, q ...string) { g.add(&fact{text: g.bTypo(text), dist: q}) }
	add(sub("{o} office guest wifi: {s}, password on the fridge", "{o}", o, "{s}", ssid), "what's the guest wifi in "+o+"?", "wifi name at the "+o+" office")
	add(sub("{o} office manager: {p}", "{o}", o, "{p}", g.bPerson()), "who runs the "+o+" office?", "office manager "+o)
	add(sub("{o} office: floor {f}, badge at reception", "{o}", o, "{f}", fmt.Sprint(2+g.r.IntN(20))), "which floor are we on in "+o+"?")
	add(sub("{o} big meeting room: {r}", "{o}", o, "{r}", g.pick(qs("Atlas", "Delta", "Fjord", "Kiln", "Harbor", "Orbit", "Mesa", "Tundra"))+" "+fmt.Sprint(g.r.IntN(10))), "what's the big room in "+o+" called?")
	add(sub("{o} office printer queue: {q}", "{o}", o, "{q}", "prn-"+lo[:3]+"-"+fmt.Sprint(g.r.IntN(10))), "which printer do I use in "+o+"?")
	add(sub("{o} office opens {t}", "{o}", o, "{t}", g.pick(qs("07:30", "08:00", "08:30", "09:00"))+"-"+g.pick(qs("18:00", "19:00", "20:00", "22:00"))), "when is the "+o+" office open?", "opening hours "+o)
}

// bRotation: an on-call rotation.
func (g *gen) bRotation(r string) {
	sr := strings.ReplaceAll(r, "-", " ")
	day, t := g.bDay(), fmt.Sprintf("%02d:00", 8+g.r.IntN(5))
	g.bNote(subAll(qs("{r} on-call hands off {d} {t} CET", "{r} rotation: weekly, handoff {d} at {t} CET", "handover for {r} on-call is {d} {t} CET"), "{r}", r, "{d}", day, "{t}", t), &fact{
		para: qs("when does the " + sr + " on-call switch?"),
		de:   qs("Wann ist die Übergabe der " + r + " On-Call Rotation?"),
		fr:   qs("La rotation on-call " + r + " change quand ?"),
		es:   qs("¿Cuándo se hace el handoff del on-call de " + r + "?"),
		fixes: qs(
			sub("{r} on-call handoff moved to {n} {t} CET", "{r}", r, "{n}", g.bOther(day, g.bDay), "{t}", t),
			sub("as of next week the {r} handoff is {n} instead of {o}", "{r}", r, "{n}", g.bOther(day, g.bDay), "{o}", day),
		),
	})
	pd := g.uniq(func() string {
		const abc = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
		b := []byte("P")
		for range 6 {
			b = append(b, abc[g.r.IntN(len(abc))])
		}
		return string(b)
	})
	g.bNote(subAll(qs("PagerDuty schedule for {r}: {p}", "{r} on-call = PD schedule {p}", "{p} is the {r} schedule in PagerDuty"), "{r}", r, "{p}", pd), &fact{
		para:  qs("which PagerDuty schedule is the " + sr + " one?"),
		ident: qs("what is PD schedule "+pd+"?", pd+" which rotation"),
		de:    qs("Welcher PagerDuty Schedule gehört zu " + r + "?"),
		fr:    qs("C'est quel schedule PagerDuty pour " + r + " ?"),
		es:    qs("¿Cuál es el schedule de PagerDuty de " + r + "?"),
	})
	esc := 5 * (1 + g.r.IntN(6))
	g.bNote(subAll(qs("{r}: escalates to the secondary after {m} min", "unacked {r} pages escalate after {m} minutes", "{r} escalation timeout {m}m"), "{r}", r, "{m}", fmt.Sprint(esc)), &fact{
		ask: qs("how long before a "+sr+" page escalates?", "when does "+r+" go to the secondary"),
		de:  qs("Nach wie vielen Minuten eskaliert " + r + "?"),
		fr:  qs("Au bout de combien de minutes " + r + " escalade ?"),
		es:  qs("¿A los cuántos minutos escala " + r + "?"),
		fixes: qs(
			sub("{r} escalation is now {n} min (was {o})", "{r}", r, "{n}", fmt.Sprint(esc+10), "{o}", fmt.Sprint(esc)),
			sub("scratch that, {r} escalates after {n} min", "{r}", r, "{n}", fmt.Sprint(esc+5)),
		),
	})
	rb := "runbooks/" + r + ".md"
	g.bNote(subAll(qs("{r} runbook: {b} in the data-infra repo", "runbook for {r} on-call is {b}", "{b} - read before your first {r} shift"), "{r}", r, "{b}", rb), &fact{
		para:  qs("where's the " + sr + " runbook?"),
		ident: qs("what is " + rb + "?"),
		de:    qs("Wo ist das Runbook für " + r + "?"),
		fr:    qs("Où est le runbook de " + r + " ?"),
		es:    qs("¿Dónde está el runbook de " + r + "?"),
	})
	prim := g.bPerson()
	g.bNote(subAll(qs("{p} is primary on {r} this week", "this week's {r} primary: {p}", "{r} on-call now: {p}"), "{r}", r, "{p}", prim), &fact{
		para: qs("who's carrying the " + sr + " pager right now?"),
		de:   qs("Wer hat diese Woche " + r + " On-Call?"),
		fr:   qs("Qui est d'astreinte " + r + " cette semaine ?"),
		es:   qs("¿Quién está de guardia en " + r + " esta semana?"),
		fixes: qs(
			sub("swap: {n} is covering {r} for {o} this week", "{r}", r, "{n}", g.bOther(prim, g.bPerson), "{o}", prim),
			sub("{r} primary this week is {n}, not {o}", "{r}", r, "{n}", g.bOther(prim, g.bPerson), "{o}", prim),
		),
	})
}

// bWarehouse: a Snowflake warehouse; the warehouses' notes are written alike.
func (g *gen) bWarehouse(w string) {
	sizes := qs("X-Small", "Small", "Medium", "Large", "X-Large", "2X-Large")
	si := 1 + g.r.IntN(4)
	size := sizes[si]
	g.bNote(subAll(qs("{w} is size {s}", "{w}: {s}", "{w} runs as a {s} warehouse"), "{w}", w, "{s}", size), &fact{
		para: qs("how big is " + w + "?"),
		de:   qs("Welche Größe hat " + w + "?"),
		fr:   qs("Quelle taille fait " + w + " ?"),
		es:   qs("¿Qué tamaño tiene " + w + "?"),
		fixes: qs(
			sub("bumped {w} to {n}", "{w}", w, "{n}", sizes[si+1+g.r.IntN(len(sizes)-si-1)]),
			sub("{w} downsized to {n} to save credits", "{w}", w, "{n}", sizes[g.r.IntN(si)]),
		),
	})
	sus := 60 * (1 + g.r.IntN(10))
	g.add(&fact{text: sub("{w} auto-suspend: {s}s", "{w}", w, "{s}", fmt.Sprint(sus)), dist: qs("after how long does "+w+" suspend?", w+" auto suspend setting")})
	cap := 100 * (1 + g.r.IntN(40))
	g.add(&fact{text: sub("{w} monthly credit quota: {c}", "{w}", w, "{c}", fmt.Sprint(cap)), dist: qs("what's the credit cap on "+w+"?", "how many credits can "+w+" burn per month")})
	role := strings.TrimSuffix(w, "_WH") + "_ROLE"
	g.bNote(subAll(qs("{w} is used by {r}", "grant usage on {w} to {r} only", "{r} -> {w}"), "{w}", w, "{r}", role), &fact{
		para:  qs("which role can use " + w + "?"),
		ident: qs("which warehouse does " + role + " get?"),
		de:    qs("Welche Rolle darf " + w + " benutzen?"),
		fr:    qs("Quel rôle peut utiliser " + w + " ?"),
		es:    qs("¿Qué rol puede usar " + w + "?"),
	})
}

// bCluster: a compute cluster.
func (g *gen) bCluster(c string) {
	inst := g.pick(qs("r6i.2xlarge", "m5.4xlarge", "p4d.24xlarge", "g4dn.2xlarge", "c6g.8xlarge", "i3.4xlarge"))
	workers := 4 + g.r.IntN(60)
	g.bNote(subAll(qs("{c}: {i} nodes, max {n} workers", "{c} autoscales up to {n} x {i}", "cluster {c} = {i}, {n} workers max"), "{c}", c, "{i}", inst, "{n}", fmt.Sprint(workers)), &fact{
		ask: qs("how far does "+c+" scale?", "how many workers can "+c+" have"),
		de:  qs("Wie viele Worker hat " + c + " maximal?"),
		fr:  qs("Combien de workers max sur " + c + " ?"),
		es:  qs("¿Cuántos workers como máximo tiene " + c + "?"),
		fixes: qs(
			sub("raised {c} max workers to {n}", "{c}", c, "{n}", fmt.Sprint(workers+20)),
			sub("{c} now capped at {n} workers (was {o})", "{c}", c, "{n}", fmt.Sprint(workers/2+1), "{o}", fmt.Sprint(workers)),
		),
	})
	rt := g.pick(qs("Databricks 13.3 LTS", "Databricks 14.3 LTS", "Spark 3.5.1", "Spark 3.4.2", "Ray 2.9", "Flink 1.18", "Trino 435"))
	g.bNote(subAll(qs("{c} runtime: {r}", "{c} is on {r}", "{c} -> {r}"), "{c}", c, "{r}", rt), &fact{
		para: qs("what runtime version is " + c + " on?"),
		de:   qs("Welche Runtime-Version hat " + c + "?"),
		fr:   qs("" + c + " tourne sur quelle version ?"),
		es:   qs("¿Qué versión de runtime usa " + c + "?"),
	})
	idle := 10 * (1 + g.r.IntN(9))
	g.bNote(subAll(qs("{c} shuts down after {m} min idle", "{c} terminates when idle for {m} minutes", "idle timeout on {c}: {m}m"), "{c}", c, "{m}", fmt.Sprint(idle)), &fact{
		ask: qs("when does " + c + " turn itself off?"),
		de:  qs("Wann fährt " + c + " bei Leerlauf runter?"),
		fr:  qs("Au bout de combien de temps " + c + " s'éteint quand il ne fait rien ?"),
		es:  qs("¿Cuándo se apaga " + c + " si no se usa?"),
	})
}

// bVersions: tool versions we pin.
func (g *gen) bVersions() {
	type tv struct{ tool, v, n, why string }
	for _, x := range []tv{
		{"Airflow", "2.7.3", "2.9.3", "the k8s executor bug"},
		{"dbt-core", "1.6.9", "1.8.2", "a macro in the finance package"},
		{"the acme-dataops lib", "0.14.2", "0.17.0", "pandas 2 incompatibility"},
		{"Terraform", "1.5.7", "1.7.5", "the licence change"},
		{"the ML base image python", "3.10.13", "3.11.9", "torch wheels"},
		{"Great Expectations", "0.17.23", "0.18.12", "the datasource API change"},
		{"Kafka Connect", "7.4.1", "7.6.0", "the S3 sink config"},
		{"MLflow", "2.8.1", "2.12.2", "the artifact store auth"},
		{"sqlfluff", "2.3.5", "3.0.6", "new rules breaking CI"},
		{"the Snowflake connector", "3.5.0", "3.10.1", "OCSP errors on the old one"},
	} {
		low := strings.ToLower(x.tool)
		g.bNote(subAll(qs("we pin {t} at {v} because of {w}", "{t} pinned to {v} ({w})", "{t} stays on {v} for now, {w}"), "{t}", x.tool, "{v}", x.v, "{w}", x.why), &fact{
			ask: qs("what version of "+low+" are we on?", "which "+low+" version do we run"),
			val: x.v,
			num: qs("why are we on " + x.v + "?"),
			de:  qs("Welche Version von " + x.tool + " nutzen wir?"),
			fr:  qs("On est sur quelle version de " + x.tool + " ?"),
			es:  qs("¿Qué versión de " + x.tool + " usamos?"),
			fixes: qs(
				sub("bumped {t} to {n}", "{t}", x.tool, "{n}", x.n),
				sub("{t} upgraded: {n} now (was {v})", "{t}", x.tool, "{n}", x.n, "{v}", x.v),
			),
		})
	}
}

// bTeamHabits: how the team works, and the user's own standing preferences.
func (g *gen) bTeamHabits() {
	type h struct {
		text, para, de, fr, es string
		fix                    string
		ident, ask             string
	}
	for _, x := range []h{
		{text: "standup 09:45 CET, 15 min, cameras optional", para: "what time is the daily sync?", ask: "when is standup", de: "Wann ist das Standup?", fr: "Le standup c'est à quelle heure ?", es: "¿A qué hora es el standup?", fix: "standup moved to 10:15 CET starting Monday"},
		{text: "sprints are 2 weeks, planning Tuesday afternoon", para: "how long is an iteration?", de: "Wie lang ist ein Sprint bei uns?", fr: "Un sprint dure combien de temps chez nous ?", es: "¿Cuánto dura un sprint?", fix: "we moved to 3-week sprints, planning still Tuesday"},
		{text: "PRs on data-infra need 2 approvals, one from platform", para: "how many reviewers does a data-infra change need?", de: "Wie viele Approvals braucht ein PR in data-infra?", fr: "Combien d'approvals pour une PR sur data-infra ?", es: "¿Cuántas aprobaciones necesita un PR en data-infra?", fix: "data-infra PRs need just 1 approval now (was 2)"},
		{text: "no deploys to prod Airflow on Fridays after 14:00", para: "can I ship Airflow changes on a Friday afternoon?", de: "Darf ich freitags nachmittags Airflow deployen?", fr: "On peut déployer Airflow le vendredi aprem ?", es: "¿Se puede deployar Airflow un viernes por la tarde?"},
		{text: "dbt naming: stg_ for staging, int_ for intermediate, fct_/dim_ in marts", para: "what prefixes do our dbt models use?", de: "Welche Prefixe nutzen wir für dbt Models?", fr: "Quels préfixes pour les modèles dbt ?", es: "¿Qué prefijos usamos en los modelos de dbt?", ident: "what's int_ for in dbt"},
		{text: "RFCs go in the data-rfcs repo, template is 0000-template.md", para: "where do design proposals live?", de: "Wo legen wir RFCs ab?", fr: "On met les RFC où ?", es: "¿Dónde van los RFCs?", ident: "where is 0000-template.md"},
		{text: "postmortems due within 5 business days of a SEV2+", para: "how soon after an incident is the write-up due?", ask: "how many days do we have for a postmortem", de: "Bis wann muss ein Postmortem fertig sein?", fr: "Le postmortem doit être rendu sous combien de jours ?", es: "¿En cuántos días hay que entregar el postmortem?", fix: "postmortem deadline is now 3 business days, per the new incident policy"},
		{text: "warehouse cost review every first Thursday of the month with finance", para: "when do we go over Snowflake spend with finance?", de: "Wann ist das Cost Review mit Finance?", fr: "La revue des coûts avec la finance, c'est quand ?", es: "¿Cuándo es la revisión de costes con finanzas?"},
		{text: "data contracts: producers must announce breaking schema changes 2 weeks ahead in #data-contracts", para: "how much warning do producers give before changing a schema?", ident: "what is #data-contracts for", de: "Wie lange vorher müssen Schema-Änderungen angekündigt werden?", fr: "Combien de temps à l'avance on annonce un breaking change de schéma ?", es: "¿Con cuánta antelación se avisan los cambios de schema?", fix: "breaking schema changes now need 4 weeks notice in #data-contracts"},
		{text: "I like SQL formatted with sqlfluff, leading commas, lowercase keywords", para: "how do I want my queries styled?", de: "Wie soll SQL bei mir formatiert sein?", fr: "Comment je veux que le SQL soit formaté ?", es: "¿Cómo quiero que se formatee el SQL?"},
		{text: "reply to me in English even if I write in German", para: "which language should answers be in?", de: "In welcher Sprache sollst du mir antworten?", fr: "Tu dois me répondre en quelle langue ?", es: "¿En qué idioma me tienes que responder?"},
		{text: "always run `make lint-sql` before pushing dbt changes", para: "what should happen before I push model changes?", ident: "when do I run make lint-sql", de: "Was muss ich vor dem Push von dbt-Änderungen laufen lassen?", fr: "Je lance quoi avant de pousser des changements dbt ?", es: "¿Qué tengo que correr antes de pushear cambios de dbt?"},
		{text: "notebooks older than 90 days in the shared workspace get archived", para: "do old shared notebooks get cleaned up?", ask: "after how many days are shared notebooks archived", de: "Werden alte Notebooks im Shared Workspace archiviert?", fr: "Les vieux notebooks partagés sont archivés au bout de combien de temps ?", es: "¿Cuándo se archivan los notebooks viejos del workspace compartido?"},
		{text: "on-call comp: 1 day off per week of primary", para: "what do I get for being on the pager for a week?", de: "Was bekommt man für eine Woche On-Call?", fr: "On a quoi en échange d'une semaine d'astreinte ?", es: "¿Qué compensación hay por una semana de guardia?", fix: "on-call comp changed: 1.5 days off per primary week as of Q3"},
		{text: "the team offsite is in Porto, week of Sep 16", para: "where is everyone meeting up in person this year?", de: "Wo ist das Team-Offsite?", fr: "L'offsite de l'équipe, c'est où ?", es: "¿Dónde es el offsite del equipo?", fix: "offsite moved to Valencia, same week"},
		{text: "GPU budget for experiments: $4,000 a month, ask Nadia before going over", para: "how much can we spend on training experiments?", ask: "what's the monthly GPU budget", de: "Wie hoch ist das GPU-Budget pro Monat?", fr: "C'est combien le budget GPU par mois ?", es: "¿Cuánto es el presupuesto de GPU al mes?", fix: "GPU budget bumped to $6,500/month for the reco work"},
		{text: "query tags: set QUERY_TAG='team=<yours>' on every Snowflake session for cost allocation", para: "how does finance know which team ran a warehouse query?", ident: "what is QUERY_TAG for", de: "Wie wird Snowflake-Kosten pro Team zugeordnet?", fr: "Comment on attribue les coûts Snowflake aux équipes ?", es: "¿Cómo se asignan los costes de Snowflake por equipo?"},
		{text: "Jira project for data platform work is DPLAT, bugs go in DPLAT with label sev", para: "where do I file a platform bug?", ident: "what Jira project is DPLAT", de: "In welchem Jira-Projekt melde ich Plattform-Bugs?", fr: "Je crée le ticket de bug plateforme dans quel projet Jira ?", es: "¿En qué proyecto de Jira abro un bug de plataforma?"},
	} {
		f := &fact{para: qs(x.para), de: qs(x.de), fr: qs(x.fr), es: qs(x.es)}
		if x.fix != "" {
			f.fixes = qs(x.fix)
		}
		if x.ident != "" {
			f.ident = qs(x.ident)
		}
		if x.ask != "" {
			f.ask = qs(x.ask)
		}
		g.bNote(qs(x.text), f)
	}
}

// bIncident: an incident note.
func (g *gen) bIncident(i int) {
	id := fmt.Sprintf("INC-%d", 2100+i*37+g.r.IntN(30))
	what := g.pick(qs("the lake writer role lost S3 permissions after a Terraform apply",
		"a Fivetran resync double-loaded a week of orders", "Snowflake credits ran out on REPORTING_WH mid-month",
		"the MQTT bridge dropped device readings for 6 hours", "a dbt full refresh wiped a snapshot table",
		"the feature store served day-old features to fraud-scorer", "a schema change upstream nulled out currency codes",
		"Airflow scheduler OOM-killed during the backfill", "an expired OAuth token stopped the Salesforce sync",
		"PII showed up unmasked in the sandbox", "a Looker PDT rebuilt every 5 minutes and ate the warehouse"))
	day := g.bDate()
	g.bNote(subAll(qs("{i} ({d}): {w}", "{i} - {w}. postmortem in the wiki", "{d}: {i}, {w}"), "{i}", id, "{d}", day, "{w}", what), &fact{
		ident: qs("what was "+id+"?", id+" what happened"),
		de:    qs("Was ist bei " + id + " passiert?"),
		fr:    qs("Qu'est-ce qui s'est passé pendant " + id + " ?"),
		es:    qs("¿Qué pasó en " + id + "?"),
	})
}

// blind makes the blind set's notes.
func (g *gen) blind() {
	var jobs []func()
	for _, p := range bPipelines {
		jobs = append(jobs, func() { g.bPipeline(p) })
	}
	for _, e := range bEntities {
		jobs = append(jobs, func() { g.bTable(e) })
	}
	for _, m := range bMarts {
		jobs = append(jobs, func() { g.bMart(m) })
	}
	for _, b := range bBuckets {
		jobs = append(jobs, func() { g.bBucket(b) })
	}
	for _, b := range []string{"acme-partner-exports", "acme-clickstream-landing", "acme-sensor-archive", "acme-ml-batch-scores", "acme-audit-logs"} {
		jobs = append(jobs, func() { g.bRegionalBuckets(b) })
	}
	for _, d := range bDashboards {
		jobs = append(jobs, func() { g.bDashboard(d) })
	}
	for _, d := range []string{"Gross Margin", "Active Devices", "Order Volume", "Courier Utilization", "Basket Size", "Signup Conversion"} {
		jobs = append(jobs, func() { g.bRegionalDashboards(d) })
	}
	for _, m := range bModels {
		jobs = append(jobs, func() { g.bModel(m) })
	}
	for _, v := range bVendors {
		jobs = append(jobs, func() { g.bVendor(v) })
	}
	people := map[string]bool{}
	for len(people) < 80 {
		people[g.bPerson()] = true
	}
	for _, p := range sortedKeys(people) {
		jobs = append(jobs, func() { g.bPersonFacts(p) })
	}
	for _, o := range bOffices {
		jobs = append(jobs, func() { g.bOffice(o) })
	}
	for _, r := range bRotations {
		jobs = append(jobs, func() { g.bRotation(r) })
	}
	for _, w := range bWarehouses {
		jobs = append(jobs, func() { g.bWarehouse(w) })
	}
	for _, c := range bClusters {
		jobs = append(jobs, func() { g.bCluster(c) })
	}
	for i := range 16 {
		jobs = append(jobs, func() { g.bIncident(i) })
	}
	jobs = append(jobs, g.bVersions, g.bTeamHabits)
	g.r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for _, j := range jobs {
		j()
	}
	// Later in the project: the second look-alikes, and the EU copies of some pipelines.
	g.r.Shuffle(len(blindLater), func(i, j int) { blindLater[i], blindLater[j] = blindLater[j], blindLater[i] })
	for _, f := range blindLater {
		f()
	}
	for _, p := range bPipelines[:18] {
		g.bPipeline(p + "_eu")
	}
}

// blindImmediate are the openings of a correction written right after the slip it fixes.
var blindImmediate = []string{"scratch that", "oops", "sorry,"}

// writeBlind draws the questions, moves each correction to a later point of the notes (right
// after the corrected note when it fixes a slip just made), renumbers the notes in their new
// order and writes both files.
func (g *gen) writeBlind(out string) {
	queries := g.queries()
	fixOf := map[string]string{} // correction key → corrected key
	for _, q := range queries {
		if q.Class == "correction" {
			fixOf[q.Want] = q.Old
		}
	}
	var order []Memory
	var fixes []Memory
	for _, m := range g.mems {
		if _, ok := fixOf[m.Key]; ok {
			fixes = append(fixes, m)
		} else {
			order = append(order, m)
		}
	}
	for _, m := range fixes {
		at := slices.IndexFunc(order, func(x Memory) bool { return x.Key == fixOf[m.Key] }) + 1
		if !slices.ContainsFunc(blindImmediate, func(p string) bool { return strings.HasPrefix(m.Text, p) }) {
			at += g.r.IntN(len(order) - at + 1)
		}
		order = slices.Insert(order, at, m)
	}
	renumber(order, queries)
	writeSet(out, order, queries)
}
