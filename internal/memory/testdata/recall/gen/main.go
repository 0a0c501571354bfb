// Command gen writes the memory retrieval set: memories.jsonl (a software team's project notes,
// in the order a user stores them) and queries.jsonl (questions about them, in six classes).
//
//	go run ./internal/memory/testdata/recall/gen
//
// -set heldout (heldout.go), -set blind (blind.go), -set blind2 (blind2.go), -set blind3
// (blind3.go), -set blind4 (blind4.go), -set blind5 (blind5.go) and -set blind6 (blind6.go) write
// the other sets into their directories.
//
// The set is made from templates of the notes people keep about a project — services, hosts,
// customers, colleagues, team habits, incidents, decisions, commands — filled with a seeded
// random choice of names and values, so every service has a port but not the same one, and a
// project has many notes that look alike. Each note comes in several phrasings (terse, full
// sentences, lists) and each question in several wordings, the way people ask: informal, often
// without the note's words, sometimes in German, French or Spanish.
//
// Query classes:
//
//	paraphrase   the question shares the subject (a service, a customer) with the note, little else
//	identifier   the question quotes an exact flag, path, error code, variable or command
//	number       the question is about a number or version, or quotes one
//	correction   a later note corrected the fact; the corrected (newest) note is the answer
//	language     a German, French or Spanish question about an English note
//	distractor   a near-identical note about another subject or qualifier exists (staging and
//	             production, two customers' contacts); the question names which
//
// The generator does not know the ranking code; do not tune it to it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Memory is one note, stored in file order.
type Memory struct {
	Key  string `json:"key"`
	Text string `json:"text"`
}

// Query is one question with the key of the note that answers it. Old names the note a
// correction replaced (it must never rank above Want).
type Query struct {
	Class string `json:"class"`
	Lang  string `json:"lang,omitempty"`
	Query string `json:"query"`
	Want  string `json:"want"`
	Old   string `json:"old,omitempty"`
}

// fact is one note with the questions it answers.
type fact struct {
	key   string
	text  string
	para  []string
	ident []string
	num   []string
	// ask are questions for a number or version that do not quote it.
	ask []string
	// val is the value the num questions quote; they are asked only when no other note has it.
	val string
	de  []string
	fr  []string
	es  []string
	// fixes are corrections of the note (a later note that changes its value); questions stay
	// the same.
	fixes []string
	// twin is the key of a look-alike note (same wording, another qualifier); dist are the
	// questions that name which of the two is meant.
	twin string
	dist []string
}

var (
	services = []string{"billing-api", "ledger", "auth-service", "checkout", "search-indexer", "notifications",
		"gateway", "reporting", "inventory-sync", "mailer", "media-proxy", "scheduler", "webhooks", "user-profile",
		"feature-flags", "pdf-renderer", "geo-lookup", "audit-log", "payouts", "pricing-engine", "catalog",
		"recommendations", "session-store", "image-resizer", "export-worker", "fraud-check", "tax-calculator",
		"shipping-quotes", "loyalty", "support-desk", "metrics-collector", "sso-bridge", "orders", "cart", "returns",
		"warehouse-api", "courier-tracking", "invoice-generator", "currency-rates", "consent-manager", "email-templates",
		"sms-gateway", "push-service", "admin-portal", "partner-api", "data-exporter", "ml-scoring", "address-validation"}
	teams = []string{"payments", "platform", "growth", "data", "identity", "mobile", "web", "infra", "support tools", "search"}
	first = []string{"Anna", "Ben", "Carla", "David", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kemal", "Lena", "Marco", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tamara", "Ugo", "Vera", "Wei", "Ximena", "Yusuf", "Zoe", "Amir", "Bea", "Chen", "Dora", "Emil", "Fatima", "Gustav", "Hana", "Igor", "Julia", "Karim", "Lucia", "Mateo", "Nina", "Omar", "Paula", "Rafael", "Sofia"}
	last  = []string{"Schmidt", "Dubois", "García", "Rossi", "Novak", "Yilmaz", "Kowalski", "Jensen", "Silva", "Müller", "Martin", "López", "Bianchi", "Horvat", "Demir", "Nowak", "Larsen", "Costa", "Weber", "Moreau", "Fernández", "Ricci", "Kovač", "Öztürk", "Lindqvist", "Ahmed", "Tanaka", "Okafor", "Petrov", "Haddad"}
	// Customers: invented companies.
	customers = []string{"Acme Logistics", "Globex", "Initech", "Umbrella Health", "Stark Freight", "Wayne Foods", "Hooli",
		"Vandelay Imports", "Soylent Farms", "Tyrell Systems", "Cyberdyne Robotics", "Oscorp Labs", "Wonka Confections",
		"Pied Piper", "Dunder Mifflin", "Gringotts Bank", "Monarch Solutions", "Nakatomi Trading", "Massive Dynamic",
		"Aperture Science", "Black Mesa Energy", "Blue Sun", "Virtucon", "Sirius Cybernetics", "Yoyodyne", "Zorg Industries",
		"Gekko Partners", "Prestige Worldwide", "Bluth Company", "Pollos Hermanos", "Duff Brewing", "Krusty Krab",
		"Planet Express", "Ollivanders", "Bubba Gump Shrimp", "Stay Puft", "Rich Industries", "Spacely Sprockets",
		"Cogswell Cogs", "Sterling Cooper", "Hanso Foundation", "Kwik-E-Mart", "Los Santos Customs", "Mooby's",
		"Nuka-Cola", "Oceanic Airlines", "Paper Street Soap", "Quahog Cable", "Rekall", "Strickland Propane", "Tessier-Ashpool",
		"Ultor", "Veidt Enterprises", "Weyland Corp", "Xanatos Enterprises", "Zimmer Shipping", "Brawndo", "Callahan Auto",
		"Dharma Initiative", "Encom"}
	cities  = []string{"Berlin", "Lyon", "Madrid", "Austin", "Toronto", "Lisbon", "Warsaw", "Munich", "Seville", "Osaka", "Nairobi", "Oslo", "Porto", "Montreal", "Vienna", "Zurich", "Dublin", "Valencia", "Hamburg", "Bordeaux"}
	tz      = map[string]string{"Berlin": "CET", "Lyon": "CET", "Madrid": "CET", "Austin": "CST", "Toronto": "EST", "Lisbon": "WET", "Warsaw": "CET", "Munich": "CET", "Seville": "CET", "Osaka": "JST", "Nairobi": "EAT", "Oslo": "CET", "Porto": "WET", "Montreal": "EST", "Vienna": "CET", "Zurich": "CET", "Dublin": "GMT", "Valencia": "CET", "Hamburg": "CET", "Bordeaux": "CET"}
	langs   = []string{"Go 1.22", "Go 1.21", "Node 18.19", "Node 20.11", "Python 3.11", "Python 3.9", "Java 17", "Kotlin 1.9", "Rust 1.75", "Ruby 3.2", "Elixir 1.15", "TypeScript 5.3 on Node 20"}
	pgvers  = []string{"12.17", "13.13", "14.10", "15.5", "16.1", "11.22"}
	days    = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}
	numWord = []string{"one", "two", "three", "four", "five", "six"}
	regions = []string{"eu-central-1", "eu-west-1", "us-east-1", "us-west-2", "ca-central-1", "ap-northeast-1", "eu-north-1"}
	tiers   = []string{"Starter", "Team", "Business", "Enterprise"}
	topics  = []string{"the invoicing PDF layout", "OAuth refresh tokens", "the Kafka consumer groups", "Terraform state locking", "the iOS push certificates", "Elasticsearch mappings", "the tax rules for Canada", "the GraphQL schema stitching", "rate limiting in nginx", "the CSV export encoding", "Helm chart values", "the SSO SAML metadata", "webhook retries", "the currency rounding rules", "Redis eviction policy", "the mobile release train"}
	flags   = []string{"--skip-seed", "--no-verify", "--dry-run", "--force-recreate", "--keep-volumes", "--no-cache", "--prune", "--allow-empty", "--since=24h", "--max-old-space-size=4096", "--lock-timeout=5s", "--skip-migrations", "--reuse-db", "--no-sandbox", "--read-only", "--parallel=1", "--ignore-scripts", "--legacy-peer-deps", "--frozen-lockfile", "--no-deps", "--wait", "--atomic", "--cleanup-on-fail", "--insecure-skip-tls-verify", "--no-color", "--strict-markers", "--reruns=2", "--fail-fast", "--timeout=600s", "--replace"}
	pgCodes = []struct{ code, name, means string }{
		{"23P01", "exclusion_violation", "two bookings overlap in time"},
		{"40001", "serialization_failure", "a concurrent transaction won; retry the whole transaction"},
		{"40P01", "deadlock_detected", "two workers lock invoices in a different order"},
		{"57014", "query_canceled", "the statement_timeout of 30s hit a report query"},
		{"23505", "unique_violation", "the same idempotency key was sent twice"},
		{"42P01", "undefined_table", "migrations did not run on that replica"},
		{"53300", "too_many_connections", "PgBouncer is bypassed and the pool is exhausted"},
		{"22P02", "invalid_text_representation", "a client sent a non-UUID id"},
		{"55P03", "lock_not_available", "the nightly VACUUM FULL holds the table"},
		{"08006", "connection_failure", "the primary failed over and DNS is stale"},
		{"25006", "read_only_sql_transaction", "the write went to a read replica"},
		{"42703", "undefined_column", "the old pod runs against the new schema during a deploy"},
	}
)

type gen struct {
	r     *rand.Rand
	mems  []Memory
	facts []*fact
	seen  map[string]bool
	n     int
	used  map[string]bool // unique values handed out (ports, flags, codes)
}

func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// uniq draws from f until it yields a value not used before.
func (g *gen) uniq(f func() string) string {
	for range 1000 {
		v := f()
		if !g.used[v] {
			g.used[v] = true
			return v
		}
	}
	panic("uniq: pool exhausted")
}

func (g *gen) person() string { return g.pick(first) + " " + g.pick(last) }

func (g *gen) add(f *fact) *fact {
	if g.seen[f.text] {
		return nil
	}
	g.seen[f.text] = true
	g.n++
	f.key = fmt.Sprintf("m%04d", g.n)
	g.mems = append(g.mems, Memory{Key: f.key, Text: f.text})
	g.facts = append(g.facts, f)
	return f
}

// short is how people refer to a service in questions: "billing" for billing-api, sometimes the
// full name.
func (g *gen) short(s string) string {
	if g.r.IntN(3) == 0 {
		return s
	}
	for _, suf := range []string{"-api", "-service", "-worker"} {
		if b, ok := strings.CutSuffix(s, suf); ok {
			return b
		}
	}
	return s
}

func sub(s string, kv ...string) string {
	return strings.NewReplacer(kv...).Replace(s)
}

func subAll(xs []string, kv ...string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = sub(x, kv...)
	}
	return out
}

// serviceFacts are the notes kept about one service.
func (g *gen) serviceFacts(s string) {
	S := func() string { return g.short(s) }
	// Port.
	if g.r.IntN(10) < 8 {
		port := g.uniq(func() string { return fmt.Sprint(3000 + g.r.IntN(60)*100 + g.r.IntN(10)) })
		newPort := g.uniq(func() string { return fmt.Sprint(7000 + g.r.IntN(90)*10 + g.r.IntN(10)) })
		text := sub(g.pick([]string{
			"{s} listens on port {p}.",
			"{s}: port {p} (internal only, the gateway fronts it)",
			"The {s} service runs on :{p} in every environment.",
			"{s} -> localhost:{p} when running locally via docker compose",
		}), "{s}", s, "{p}", port)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"how do I reach {s} when it runs on my machine?", "what address does {s} accept connections on", "which socket do I point curl at for {s}?"}), "{s}", S())},
			num:  []string{sub(g.pick([]string{"what runs on port {p}?", "{p} — which service is that", "something is already bound to {p}, whose port is that?"}), "{p}", port)},
			val:  port,
			ask:  []string{sub("which port is {s} on", "{s}", S())},
			de:   []string{sub("Auf welchem Port läuft {s}?", "{s}", S())},
			fr:   []string{sub("Sur quel port écoute {s} ?", "{s}", S())},
			es:   []string{sub("¿En qué puerto escucha {s}?", "{s}", S())},
			fixes: []string{
				sub(text, port, newPort),
				sub("Correction: {s} is on port {n} now, not {p}.", "{s}", s, "{n}", newPort, "{p}", port),
				sub("{s} moved to port {n} (was {p}).", "{s}", s, "{n}", newPort, "{p}", port),
			},
		})
	}
	// Database version.
	if g.r.IntN(10) < 6 {
		v := g.pick(pgvers)
		nv := g.pick(pgvers)
		for nv == v {
			nv = g.pick(pgvers)
		}
		text := sub(g.pick([]string{"{s} uses PostgreSQL {v}.", "{s} db: postgres {v}, managed RDS", "The database behind {s} is Postgres {v}; upgrade blocked by the pg_partman extension."}), "{s}", s, "{v}", v)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"which release of the relational store does {s} depend on?", "what SQL engine release is {s} stuck on", "is {s}'s datastore on a current major?"}), "{s}", S())},
			num:  []string{sub(g.pick([]string{"who is still on postgres {v}?", "which service runs pg {v}"}), "{v}", v)},
			val:  v,
			ask:  []string{sub("what postgres version does {s} use", "{s}", S())},
			de:   []string{sub("Welche Postgres-Version nutzt {s}?", "{s}", S())},
			fr:   []string{sub("Quelle version de Postgres utilise {s} ?", "{s}", S())},
			es:   []string{sub("¿Qué versión de Postgres usa {s}?", "{s}", S())},
			fixes: []string{
				sub(text, v, nv),
				sub("{s} was upgraded to PostgreSQL {n} last week.", "{s}", s, "{n}", nv),
			},
		})
	}
	// Owner.
	if g.r.IntN(10) < 7 {
		team, p := g.pick(teams), g.person()
		text := sub(g.pick([]string{"{s} is owned by the {t} team; escalate to {p}.", "Owner of {s}: {t} team (lead {p})", "{p} from {t} owns {s} — ask them before changing its schema."}), "{s}", s, "{t}", team, "{p}", p)
		np := g.person()
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"who is responsible for {s}?", "whom do I ping when {s} breaks", "which group maintains {s}?"}), "{s}", S())},
			de:   []string{sub(g.pick([]string{"Wer ist für {s} zuständig?", "Welches Team betreut {s}?"}), "{s}", S())},
			fr:   []string{sub(g.pick([]string{"Qui est responsable de {s} ?", "Quelle équipe s'occupe de {s} ?"}), "{s}", S())},
			es:   []string{sub(g.pick([]string{"¿Quién es responsable de {s}?", "¿Qué equipo mantiene {s}?"}), "{s}", S())},
			fixes: []string{
				sub(text, p, np),
				sub("{s} changed hands: {p2} is the lead now, {p} moved on.", "{s}", s, "{p2}", np, "{p}", p),
			},
		})
	}
	// Deploy command.
	if g.r.IntN(10) < 6 {
		cmd := g.pick([]string{
			"make deploy SERVICE={s} ENV=prod",
			"./scripts/deploy.sh {s} --canary",
			"task deploy:{s} -- --env production",
			"helm upgrade {s} charts/{s} -f values/prod.yaml --atomic",
			"kubectl -n {t} rollout restart deploy/{s}",
		})
		cmd = sub(cmd, "{s}", s, "{t}", strings.ReplaceAll(g.pick(teams), " ", "-"))
		text := sub(g.pick([]string{"Deploy {s} with `{c}`.", "{s} prod deploy: {c} (needs VPN)", "To ship {s}: run {c} from the repo root, then watch the rollout in Argo."}), "{s}", s, "{c}", cmd)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how do I ship a new release of {s} to production?", "steps to push {s} live", "how do we roll out {s}"}), "{s}", S())},
			ident: []string{cmd, sub("what does `{c}` do", "{c}", cmd)},
			de:    []string{sub("Wie deploye ich {s} in Produktion?", "{s}", S())},
			fr:    []string{sub("Comment déployer {s} en production ?", "{s}", S())},
			es:    []string{sub("¿Cómo se despliega {s} en producción?", "{s}", S())},
		})
	}
	// Config path.
	if g.r.IntN(10) < 6 {
		path := sub(g.pick([]string{"configs/prod/{s}.yaml", "deploy/{s}/values.yaml", "services/{s}/config/settings.toml", "infra/k8s/{s}/configmap.yaml", "ops/{s}/env/production.env"}), "{s}", s)
		text := sub(g.pick([]string{"{s}'s config lives in {p}.", "Config for {s}: {p} (secrets come from Vault, not this file)", "Settings of {s} are in {p}; restart after editing."}), "{s}", s, "{p}", path)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"where are the settings for {s} kept?", "which file do I edit to change how {s} behaves", "where do {s}'s options live"}), "{s}", S())},
			ident: []string{path, sub("who reads {p}?", "{p}", path)},
			de:    []string{sub("Wo liegt die Konfiguration von {s}?", "{s}", S())},
			fr:    []string{sub("Où se trouve la configuration de {s} ?", "{s}", S())},
			es:    []string{sub("¿Dónde está la configuración de {s}?", "{s}", S())},
		})
	}
	// Environment variable.
	if g.r.IntN(10) < 5 {
		env := strings.ToUpper(strings.NewReplacer("-", "_").Replace(s)) + g.pick([]string{"_DB_URL", "_DATABASE_DSN", "_PG_URI"})
		text := sub(g.pick([]string{"{s} reads its database URL from {e}.", "{e} = connection string for {s} (set in the k8s secret)", "Set {e} before starting {s} locally, it has no default."}), "{s}", s, "{e}", env)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"which variable holds the connection string of {s}?", "how does {s} know where its db is?"}), "{s}", S())},
			ident: []string{env, sub("{e} not set", "{e}", env)},
			de:    []string{sub("Welche Umgebungsvariable enthält die Datenbank-URL von {s}?", "{s}", S())},
			fr:    []string{sub("Quelle variable d'environnement contient l'URL de la base de données de {s} ?", "{s}", S())},
			es:    []string{sub("¿Qué variable de entorno tiene la URL de la base de datos de {s}?", "{s}", S())},
		})
	}
	// Rate limit.
	if g.r.IntN(10) < 4 {
		n := g.uniq(func() string { return fmt.Sprint((g.r.IntN(200) + 1) * 25) })
		nn := g.uniq(func() string { return fmt.Sprint((g.r.IntN(200) + 1) * 25) })
		text := sub(g.pick([]string{"{s} is rate-limited to {n} requests per minute per API key.", "rate limit {s}: {n} req/min per key, 429 after that", "Clients get {n} calls a minute on {s} before being throttled."}), "{s}", s, "{n}", n)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how many calls per minute can a client make to {s}?", "when does {s} start throttling customers"}), "{s}", S())},
			num:   []string{sub("which service allows {n} requests per minute?", "{n}", n)},
			val:   n,
			de:    []string{sub("Wie viele Anfragen pro Minute erlaubt {s}?", "{s}", S())},
			fr:    []string{sub("Combien de requêtes par minute accepte {s} ?", "{s}", S())},
			es:    []string{sub("¿Cuántas peticiones por minuto permite {s}?", "{s}", S())},
			fixes: []string{sub(text, n, nn), sub("We raised the {s} rate limit to {m} requests per minute.", "{s}", s, "{m}", nn)},
		})
	}
	// Timeout.
	if g.r.IntN(10) < 4 {
		n := fmt.Sprint(g.pick([]string{"2", "3", "5", "8", "10", "15", "30", "45", "60"}))
		text := sub(g.pick([]string{"{s} gives up on upstream calls after {n} seconds.", "{s} upstream timeout = {n}s (hardcoded in client.go)", "Calls from {s} to its dependencies time out after {n} s."}), "{s}", s, "{n}", n)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"how long does {s} wait for a dependency before it stops waiting?", "what's the deadline {s} puts on outgoing requests"}), "{s}", S())},
			de:   []string{sub("Nach wie vielen Sekunden bricht {s} Anfragen ab?", "{s}", S())},
			fr:   []string{sub("Au bout de combien de secondes {s} abandonne-t-il un appel ?", "{s}", S())},
			es:   []string{sub("¿Después de cuántos segundos cancela {s} una llamada?", "{s}", S())},
		})
	}
	// Language and runtime.
	if g.r.IntN(10) < 6 {
		l := g.pick(langs)
		text := sub(g.pick([]string{"{s} is written in {l}.", "{s}: {l}", "{s} is a {l} service; the Dockerfile pins that version."}), "{s}", s, "{l}", l)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"what is {s} built with?", "what stack is {s} implemented in", "which programming language did we use for {s}?"}), "{s}", S())},
			num:  []string{sub("which services are on {l}?", "{l}", l)},
			val:  l,
			de:   []string{sub("In welcher Programmiersprache ist {s} geschrieben?", "{s}", S())},
			fr:   []string{sub("En quel langage est écrit {s} ?", "{s}", S())},
			es:   []string{sub("¿En qué lenguaje está escrito {s}?", "{s}", S())},
		})
	}
	// Cache.
	if g.r.IntN(10) < 4 {
		n := g.pick([]string{"5", "10", "15", "30", "60", "90"})
		text := sub(g.pick([]string{"{s} caches responses in Redis for {n} minutes.", "{s} cache TTL: {n} min (redis, key prefix {s}:)", "Results of {s} stay in the Redis cache {n} minutes before being recomputed."}), "{s}", s, "{n}", n)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"how long are {s} results kept before they get computed again?", "how stale can an answer from {s} be?"}), "{s}", S())},
			de:   []string{sub("Wie lange speichert {s} Antworten im Cache?", "{s}", S())},
			fr:   []string{sub("Combien de temps {s} garde-t-il les réponses en cache ?", "{s}", S())},
			es:   []string{sub("¿Cuánto tiempo guarda {s} las respuestas en caché?", "{s}", S())},
		})
	}
	// Logs.
	if g.r.IntN(10) < 5 {
		idx := sub(g.pick([]string{"logs-{s}-*", "k8s-{s}", "app.{s}.prod"}), "{s}", s)
		text := sub(g.pick([]string{"{s} logs go to the Kibana index {i}.", "Logs for {s}: Kibana, index pattern {i}", "Look for {s} output in Kibana under {i}; stdout is not kept."}), "{s}", s, "{i}", idx)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"where can I read the output of {s}?", "where do I look when {s} misbehaves", "where is the console output of {s} collected?"}), "{s}", S())},
			ident: []string{idx},
			de:    []string{sub("Wo finde ich die Logs von {s}?", "{s}", S())},
			fr:    []string{sub("Où sont les journaux de {s} ?", "{s}", S())},
			es:    []string{sub("¿Dónde están los registros de {s}?", "{s}", S())},
		})
	}
	// Flaky test.
	if g.r.IntN(10) < 3 {
		name := g.uniq(func() string {
			return "Test" + g.pick([]string{"Refund", "Retry", "Webhook", "Timeout", "Export", "Login", "Quota", "Invoice", "Upload", "Sync"}) +
				g.pick([]string{"Concurrent", "AfterRestart", "WithClockSkew", "Twice", "UnderLoad", "Ordering", "Partial", "Expired"})
		})
		text := sub(g.pick([]string{"{t} in {s} is flaky on CI; rerun before investigating.", "Known flaky: {s}/{t} (timing, fails ~1 in 20 runs)", "Don't trust a red {t} in {s} — it fails randomly on the shared runners."}), "{s}", s, "{t}", name)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"which check of {s} fails at random in the pipeline?", "is there a test in {s} that is unreliable?"}), "{s}", S())},
			ident: []string{name, sub("{t} failed again", "{t}", name)},
			de:    []string{sub("Welcher Test von {s} ist instabil?", "{s}", S())},
			fr:    []string{sub("Quel test de {s} échoue au hasard ?", "{s}", S())},
			es:    []string{sub("¿Qué prueba de {s} falla al azar?", "{s}", S())},
		})
	}
	// Migration flag.
	if g.r.IntN(10) < 3 {
		flag := g.uniq(func() string { return g.pick(flags) })
		text := sub(g.pick([]string{
			"Run {s} migrations with {f} in production, otherwise it inserts demo data.",
			"{s} migrate: always pass {f} on prod!",
			"When migrating {s} use `./migrate up {f}`; without it the job hangs on the lock.",
		}), "{s}", s, "{f}", flag)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"anything special about running schema changes for {s} on prod?", "how do I apply the database upgrade of {s} safely"}), "{s}", S())},
			ident: []string{flag, sub("why {f}", "{f}", flag), sub("what does {f} do for the migration", "{f}", flag)},
			de:    []string{sub("Worauf muss ich bei Migrationen von {s} achten?", "{s}", S())},
			fr:    []string{sub("Que faut-il savoir sur les migrations de {s} ?", "{s}", S())},
			es:    []string{sub("¿Qué hay que saber de las migraciones de {s}?", "{s}", S())},
		})
	}
	// Kafka topic.
	if g.r.IntN(10) < 4 {
		topic := sub(g.pick([]string{"{s}.events.v1", "{s}-commands", "prod.{s}.outbox", "{s}.dlq"}), "{s}", s)
		text := sub(g.pick([]string{"{s} consumes from the Kafka topic {k}.", "{s} reads {k} (consumer group {s}-cg)", "Events for {s} arrive on {k}; lag alerts at 10k messages."}), "{s}", s, "{k}", topic)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"which stream does {s} read its events from?", "where do messages for {s} come in"}), "{s}", S())},
			ident: []string{topic},
			de:    []string{sub("Aus welchem Kafka-Topic liest {s}?", "{s}", S())},
			fr:    []string{sub("Quel topic Kafka {s} consomme-t-il ?", "{s}", S())},
			es:    []string{sub("¿De qué tema de Kafka lee {s}?", "{s}", S())},
		})
	}
	// Memory limit.
	if g.r.IntN(10) < 4 {
		n := g.pick([]string{"256", "384", "512", "768", "1024", "1536", "2048"})
		nn := g.pick([]string{"640", "896", "1280", "3072"})
		text := sub(g.pick([]string{"{s} pods are limited to {n} MiB of memory and get OOMKilled above that.", "mem limit {s}: {n}Mi", "{s} needs at most {n} MiB RAM; the limit is set in the chart."}), "{s}", s, "{n}", n)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how much RAM may {s} use before Kubernetes kills it?", "why does {s} keep getting killed, what's its ceiling?"}), "{s}", S())},
			ask:   []string{sub("memory limit of {s}", "{s}", S())},
			de:    []string{sub("Wie viel Speicher darf {s} verwenden?", "{s}", S())},
			fr:    []string{sub("Combien de mémoire {s} peut-il utiliser ?", "{s}", S())},
			es:    []string{sub("¿Cuánta memoria puede usar {s}?", "{s}", S())},
			fixes: []string{sub(text, n, nn), sub("Raised the memory limit of {s} to {m} MiB after the OOM kills.", "{s}", s, "{m}", nn)},
		})
	}
	// Databases and replicas: production and staging, look-alikes.
	if g.r.IntN(10) < 6 {
		hp := g.uniq(func() string {
			return fmt.Sprintf("pg-%s-%02d", g.pick([]string{"prod", "main", "core"}), g.r.IntN(40))
		})
		hs := g.uniq(func() string {
			return fmt.Sprintf("pg-%s-%02d", g.pick([]string{"stg", "staging", "test"}), g.r.IntN(40))
		})
		form := g.pick([]string{"The {env} database of {s} is on {h}.", "{s} {env} DB host: {h}", "{s} talks to {h} in {env}."})
		prod := g.add(&fact{text: sub(form, "{s}", s, "{env}", "production", "{h}", hp), ident: []string{hp}})
		stg := g.add(&fact{text: sub(form, "{s}", s, "{env}", "staging", "{h}", hs), ident: []string{hs}})
		if prod != nil && stg != nil {
			prod.twin, stg.twin = stg.key, prod.key
			ss := S()
			prod.dist = []string{sub(g.pick([]string{"where is the production db of {s}", "{s} prod database host?", "which host has {s}'s live database"}), "{s}", ss)}
			stg.dist = []string{sub(g.pick([]string{"where is the staging db of {s}", "{s} staging database host?", "which host has {s}'s test database"}), "{s}", ss)}
			prod.de = []string{sub("Auf welchem Host liegt die Produktionsdatenbank von {s}?", "{s}", ss)}
			stg.fr = []string{sub("Sur quel serveur est la base de données de staging de {s} ?", "{s}", ss)}
		}
	}
	if g.r.IntN(10) < 4 {
		a, b := fmt.Sprint(2+g.r.IntN(10)), fmt.Sprint(1+g.r.IntN(2))
		form := g.pick([]string{"{s} runs {n} replicas in {env}.", "{env} replicas for {s}: {n}", "{s} is scaled to {n} pods in {env}."})
		prod := g.add(&fact{text: sub(form, "{s}", s, "{env}", "production", "{n}", a)})
		stg := g.add(&fact{text: sub(form, "{s}", s, "{env}", "staging", "{n}", b)})
		if prod != nil && stg != nil {
			prod.twin, stg.twin = stg.key, prod.key
			ss := S()
			prod.dist = []string{sub(g.pick([]string{"how many copies of {s} run in production?", "prod replica count {s}"}), "{s}", ss)}
			stg.dist = []string{sub(g.pick([]string{"how many copies of {s} run in staging?", "staging replica count {s}"}), "{s}", ss)}
			prod.es = []string{sub("¿Cuántas réplicas de {s} hay en producción?", "{s}", ss)}
		}
	}
	// Error codes the service returns.
	if g.r.IntN(10) < 4 {
		code := g.uniq(func() string {
			return "ERR_" + g.pick([]string{"TOKEN", "QUOTA", "LEDGER", "CART", "SKU", "TAX", "SHIPMENT", "WEBHOOK", "EXPORT", "SESSION"}) + "_" +
				g.pick([]string{"EXPIRED", "MISMATCH", "LOCKED", "STALE", "EXCEEDED", "UNSIGNED", "DUPLICATE", "PENDING"})
		})
		why := g.pick([]string{"the client clock is more than 5 minutes off", "the upstream sandbox was reset overnight", "the idempotency key was reused with another body", "the tenant hit its monthly quota", "a migration is still running", "the signing key rotated and caches are stale"})
		text := sub(g.pick([]string{"{s} returns {c} when {w}.", "{c} from {s} = {w}. Not our bug.", "If you see {c} in {s} logs: {w}."}), "{s}", s, "{c}", code, "{w}", why)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"{s} rejects calls with an odd error about {x}, why?", "what's the usual cause when {s} refuses requests with that {x} error"}), "{s}", S(), "{x}", strings.ToLower(strings.Split(code, "_")[1]))},
			ident: []string{code, sub("getting {c}", "{c}", code), sub("{c} what does it mean", "{c}", code)},
			de:    []string{sub("Was bedeutet der Fehler {c}?", "{c}", code)},
			fr:    []string{sub("Que signifie l'erreur {c} ?", "{c}", code)},
			es:    []string{sub("¿Qué significa el error {c}?", "{c}", code)},
		})
	}
	// Dashboard.
	if g.r.IntN(10) < 4 {
		url := sub("https://grafana.internal/d/{id}/{s}-overview", "{s}", s, "{id}", g.uniq(func() string { return fmt.Sprintf("%c%c%03d", 'a'+g.r.IntN(26), 'a'+g.r.IntN(26), g.r.IntN(1000)) }))
		text := sub(g.pick([]string{"Grafana dashboard for {s}: {u}", "{s} metrics: {u} (latency, error rate, saturation)"}), "{s}", s, "{u}", url)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"where can I see graphs of how {s} is doing?", "is there a page with {s}'s latency charts"}), "{s}", S())},
			de:   []string{sub("Wo ist das Dashboard von {s}?", "{s}", S())},
			fr:   []string{sub("Où est le tableau de bord de {s} ?", "{s}", S())},
			es:   []string{sub("¿Dónde está el panel de {s}?", "{s}", S())},
		})
	}
	// Feature flag.
	if g.r.IntN(10) < 3 {
		feat := g.pick([]string{"checkout", "refund", "search ranking", "invoice", "onboarding", "export", "2FA", "pricing"})
		flag := g.uniq(func() string {
			return strings.ReplaceAll(strings.ToLower(feat), " ", "_") + "_" + g.pick([]string{"v2", "new_flow", "beta", "rollout", "async", "batching"}) + "_" + g.pick([]string{"enabled", "on", "pct"})
		})
		text := sub(g.pick([]string{"Feature flag {f} turns on the new {x} flow in {s}; default off.", "{s}: new {x} behind {f} (LaunchDarkly), 10% of tenants"}), "{s}", s, "{f}", flag, "{x}", feat)
		g.add(&fact{text: text,
			para:  []string{sub("how do I switch on the redesigned {x} in {s}?", "{s}", S(), "{x}", feat)},
			ident: []string{flag, sub("is {f} on in prod", "{f}", flag)},
		})
	}
}

// moreServiceFacts are the less common notes about a service.
func (g *gen) moreServiceFacts(s string) {
	S := func() string { return g.short(s) }
	// Health endpoint.
	if g.r.IntN(10) < 5 {
		path := g.pick([]string{"/healthz", "/internal/health", "/_status", "/ping", "/readyz"})
		text := sub(g.pick([]string{"{s} health check: GET {p} (200 when the DB answers).", "Liveness probe for {s} hits {p}.", "{s} exposes {p} for the load balancer."}), "{s}", s, "{p}", path)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how does the load balancer know {s} is alive?", "which URL tells me whether {s} is up"}), "{s}", S())},
			ident: []string{sub("{s} {p}", "{s}", s, "{p}", path)},
			de:    []string{sub("Welchen Health-Check-Endpunkt hat {s}?", "{s}", S())},
			fr:    []string{sub("Quelle URL vérifie que {s} fonctionne ?", "{s}", S())},
			es:    []string{sub("¿Qué URL comprueba que {s} está vivo?", "{s}", S())},
		})
	}
	// Latency objective and alert.
	if g.r.IntN(10) < 5 {
		ms := fmt.Sprint((g.r.IntN(12) + 1) * 50)
		nms := fmt.Sprint((g.r.IntN(12) + 13) * 50)
		text := sub(g.pick([]string{"SLO for {s}: p99 latency under {m} ms over 28 days.", "{s} pages on-call when p99 > {m}ms for 10 minutes.", "Latency budget of {s} is {m} ms at the 99th percentile."}), "{s}", s, "{m}", ms)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how slow may {s} get before someone is woken up?", "what response time target do we have for {s}?"}), "{s}", S())},
			num:   []string{sub("which service has a {m} ms p99 target", "{m}", ms)},
			val:   ms,
			ask:   []string{sub("p99 latency objective of {s}", "{s}", S())},
			de:    []string{sub("Welches Latenzziel hat {s}?", "{s}", S())},
			fr:    []string{sub("Quel est l'objectif de latence de {s} ?", "{s}", S())},
			es:    []string{sub("¿Cuál es el objetivo de latencia de {s}?", "{s}", S())},
			fixes: []string{sub(text, ms, nms), sub("We relaxed the {s} latency target to {n} ms (p99).", "{s}", s, "{n}", nms)},
		})
	}
	// Dependency.
	if g.r.IntN(10) < 5 {
		dep := g.pick(services)
		if dep == s {
			return
		}
		text := sub(g.pick([]string{"{s} calls {d} synchronously on every request; if {d} is down, {s} returns 503.", "{s} depends on {d} (hard dependency, no fallback)", "Outage in {d} takes {s} down with it — it has no circuit breaker yet."}), "{s}", s, "{d}", dep)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"what else breaks {s} when it fails?", "which upstream does {s} need to work?"}), "{s}", S())},
			de:   []string{sub("Von welchem Dienst hängt {s} ab?", "{s}", S())},
			fr:   []string{sub("De quel service dépend {s} ?", "{s}", S())},
			es:   []string{sub("¿De qué servicio depende {s}?", "{s}", S())},
		})
	}
	// Scheduled job.
	if g.r.IntN(10) < 4 {
		cron := g.pick([]string{"0 3 * * *", "*/15 * * * *", "30 1 * * 1", "0 */6 * * *", "45 23 * * *"})
		job := g.pick([]string{"purges soft-deleted rows", "recomputes the daily aggregates", "syncs exchange rates", "expires old sessions", "retries failed webhooks", "sends the dunning emails"})
		text := sub(g.pick([]string{"{s} cron `{c}` {j}.", "Scheduled job in {s} ({c}): {j}", "{s} {j} on the schedule {c}."}), "{s}", s, "{c}", cron, "{j}", job)
		g.add(&fact{text: text,
			para:  []string{sub("what periodic work does {s} do in the background?", "{s}", S())},
			ident: []string{sub("{s} {c}", "{s}", s, "{c}", cron)},
			de:    []string{sub("Welche geplanten Aufgaben hat {s}?", "{s}", S())},
			fr:    []string{sub("Quelles tâches planifiées exécute {s} ?", "{s}", S())},
			es:    []string{sub("¿Qué tareas programadas ejecuta {s}?", "{s}", S())},
		})
	}
	// Public API path.
	if g.r.IntN(10) < 4 {
		v := g.pick([]string{"v1", "v2", "v3"})
		base := "/api/" + v + "/" + strings.Split(s, "-")[0]
		text := sub(g.pick([]string{"{s} is exposed publicly under {b}.", "Public routes of {s}: {b}/* (through the gateway)"}), "{s}", s, "{b}", base)
		g.add(&fact{text: text,
			para:  []string{sub("what URL prefix do customers use to talk to {s}?", "{s}", S())},
			ident: []string{base},
			de:    []string{sub("Unter welchem Pfad ist {s} öffentlich erreichbar?", "{s}", S())},
			es:    []string{sub("¿Bajo qué ruta se publica {s}?", "{s}", S())},
		})
	}
}

// domainFacts are the notes about one public domain name.
func (g *gen) domainFacts(d string) {
	if g.r.IntN(10) < 7 {
		date := fmt.Sprintf("%s %d", g.pick([]string{"January", "February", "March", "May", "July", "August", "October", "December"}), 1+g.r.IntN(28))
		text := sub(g.pick([]string{"The TLS certificate for {d} expires on {t}; it is not on auto-renew.", "Cert {d}: expires {t} (manual renewal, DigiCert)", "Renew the {d} certificate before {t}!"}), "{d}", d, "{t}", date)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"when do I have to redo the https cert of {d}?", "is {d} going to show a browser security warning soon?"}), "{d}", d)},
			num:  []string{sub("which certificate runs out on {t}?", "{t}", date)},
			val:  date,
			de:   []string{sub("Wann läuft das Zertifikat von {d} ab?", "{d}", d)},
			fr:   []string{sub("Quand expire le certificat de {d} ?", "{d}", d)},
			es:   []string{sub("¿Cuándo caduca el certificado de {d}?", "{d}", d)},
		})
	}
	if g.r.IntN(10) < 5 {
		prov := g.pick([]string{"Cloudflare", "Route 53", "Gandi", "NS1", "the registrar's own DNS"})
		text := sub(g.pick([]string{"DNS for {d} is managed in {p}.", "{d} zone lives in {p}; ask infra for access."}), "{d}", d, "{p}", prov)
		g.add(&fact{text: text,
			para: []string{sub("where do I change the records of {d}?", "{d}", d)},
			de:   []string{sub("Wo werden die DNS-Einträge von {d} verwaltet?", "{d}", d)},
			fr:   []string{sub("Où gère-t-on le DNS de {d} ?", "{d}", d)},
			es:   []string{sub("¿Dónde se gestiona el DNS de {d}?", "{d}", d)},
		})
	}
	if g.r.IntN(10) < 4 {
		target := g.pick(services)
		text := sub(g.pick([]string{"{d} points at {s} behind the CDN.", "{d} -> {s} (CNAME via the CDN)"}), "{d}", d, "{s}", target)
		g.add(&fact{text: text,
			para:  []string{sub("what serves the traffic of {d}?", "{d}", d)},
			ident: []string{d},
		})
	}
}

// customerFacts are the notes kept about one customer.
func (g *gen) customerFacts(c string) {
	// Contact: every customer has one, worded alike (distractors).
	p, np := g.person(), g.person()
	mail := strings.ToLower(strings.Fields(p)[0]) + "@" + strings.ToLower(strings.ReplaceAll(strings.Fields(c)[0], "'", "")) + ".example"
	form := g.pick([]string{"Our contact at {c} is {p} ({m}).", "{c} contact: {p}, {m}", "For anything about {c}, talk to {p} — {m}."})
	f := g.add(&fact{text: sub(form, "{c}", c, "{p}", p, "{m}", mail),
		para: []string{sub(g.pick([]string{"who do I talk to at {c}?", "who's our person over at {c}", "{c} — who is the point of contact?"}), "{c}", c)},
		de:   []string{sub("Wer ist unser Ansprechpartner bei {c}?", "{c}", c)},
		fr:   []string{sub("Qui est notre contact chez {c} ?", "{c}", c)},
		es:   []string{sub("¿Quién es nuestro contacto en {c}?", "{c}", c)},
		fixes: []string{
			sub(form, "{c}", c, "{p}", np, "{m}", strings.ToLower(strings.Fields(np)[0])+"@"+strings.ToLower(strings.ReplaceAll(strings.Fields(c)[0], "'", ""))+".example"),
			sub("{p} left {c}; our new contact there is {n}.", "{p}", p, "{c}", c, "{n}", np),
		},
	})
	if f != nil {
		f.dist = []string{sub(g.pick([]string{"email of our contact at {c}", "who is the contact person at {c}?"}), "{c}", c)}
	}
	// Renewal.
	if g.r.IntN(10) < 6 {
		m := g.pick([]string{"January", "March", "April", "June", "September", "October", "November"})
		d := fmt.Sprint(1 + g.r.IntN(28))
		text := sub(g.pick([]string{"{c}'s contract renews on {m} {d}.", "{c} renewal: {m} {d}, notice period 90 days", "Contract with {c} runs until {m} {d}; sales wants a reminder a month before."}), "{c}", c, "{m}", m, "{d}", d)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"when is {c} up for renewal?", "when does the agreement with {c} end?"}), "{c}", c)},
			num:  []string{sub("whose contract renews on {m} {d}?", "{m}", m, "{d}", d)},
			val:  m + " " + d,
			de:   []string{sub("Wann verlängert sich der Vertrag mit {c}?", "{c}", c)},
			fr:   []string{sub("Quand le contrat de {c} est-il renouvelé ?", "{c}", c)},
			es:   []string{sub("¿Cuándo se renueva el contrato de {c}?", "{c}", c)},
		})
	}
	// SLA.
	if g.r.IntN(10) < 5 {
		up := g.pick([]string{"99.5", "99.9", "99.95", "99.99"})
		h := g.pick([]string{"1", "2", "4", "8"})
		text := sub(g.pick([]string{"{c} has a {u}% uptime SLA with {h}-hour response for P1 tickets.", "SLA {c}: {u}% / P1 response {h}h"}), "{c}", c, "{u}", up, "{h}", h)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"what availability did we promise {c}?", "how fast must we answer a severe ticket from {c}?"}), "{c}", c)},
			num:  []string{sub("which customers have {u}% uptime guaranteed", "{u}", up)},
			val:  up + "%",
			de:   []string{sub("Welche Verfügbarkeit haben wir {c} zugesagt?", "{c}", c)},
			fr:   []string{sub("Quelle disponibilité avons-nous garantie à {c} ?", "{c}", c)},
			es:   []string{sub("¿Qué disponibilidad garantizamos a {c}?", "{c}", c)},
		})
	}
	// Data residency.
	if g.r.IntN(10) < 5 {
		reg := g.pick(regions)
		text := sub(g.pick([]string{"{c}'s data must stay in {r}.", "{c}: data residency {r} only (contract clause 7.2)", "Never replicate {c} data out of {r}."}), "{c}", c, "{r}", reg)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"where are we allowed to host {c}'s data?", "can {c}'s records be copied to another cloud location?"}), "{c}", c)},
			ident: []string{sub("{c} {r}", "{c}", c, "{r}", reg)},
			de:    []string{sub("In welcher Region müssen die Daten von {c} liegen?", "{c}", c)},
			fr:    []string{sub("Dans quelle région doivent rester les données de {c} ?", "{c}", c)},
			es:    []string{sub("¿En qué región deben quedarse los datos de {c}?", "{c}", c)},
		})
	}
	// Plan and seats.
	if g.r.IntN(10) < 5 {
		tier := g.pick(tiers)
		n := fmt.Sprint((g.r.IntN(40) + 1) * 25)
		nn := fmt.Sprint((g.r.IntN(40) + 41) * 25)
		text := sub(g.pick([]string{"{c} is on the {t} plan with {n} seats.", "{c}: {t}, {n} seats", "{c} pays for {n} seats ({t} tier)."}), "{c}", c, "{t}", tier, "{n}", n)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how many users does {c} pay for?", "what subscription does {c} have?"}), "{c}", c)},
			num:   []string{sub("which customer has {n} seats", "{n}", n)},
			val:   n,
			de:    []string{sub("Wie viele Lizenzen hat {c}?", "{c}", c)},
			fr:    []string{sub("Combien de licences a {c} ?", "{c}", c)},
			es:    []string{sub("¿Cuántas licencias tiene {c}?", "{c}", c)},
			fixes: []string{sub(text, n, nn), sub("{c} upgraded to {m} seats.", "{c}", c, "{m}", nn)},
		})
	}
	// Meetings: number words, the "every four weeks".
	if g.r.IntN(10) < 5 {
		k := g.r.IntN(4) + 1
		w, nw := numWord[k], numWord[(k+1+g.r.IntN(3))%len(numWord)]
		day := g.pick(days)
		text := sub(g.pick([]string{"Sync call with {c} every {w} weeks on {d}.", "We meet {c} every {w} weeks ({d} mornings).", "{c} check-in: every {w} weeks, {d}"}), "{c}", c, "{w}", w, "{d}", day)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"how often do we have a call with {c}?", "when is the next regular meeting with {c}?"}), "{c}", c)},
			de:   []string{sub("Wie oft treffen wir uns mit {c}?", "{c}", c)},
			fr:   []string{sub("À quelle fréquence avons-nous une réunion avec {c} ?", "{c}", c)},
			es:   []string{sub("¿Cada cuánto tenemos reunión con {c}?", "{c}", c)},
			fixes: []string{
				everyWeek(sub(text, "every "+w, "every "+nw)),
				everyWeek(sub("Correction: the {c} sync is every {n} weeks, not every {w}.", "{c}", c, "{n}", nw, "{w}", w)),
			},
		})
	}
	// Integration.
	if g.r.IntN(10) < 4 {
		path := sub("sftp://files.{x}.example/inbound/", "{x}", strings.ToLower(strings.Fields(c)[0]))
		text := sub(g.pick([]string{"{c} sends orders as CSV to {p} every night.", "{c} integration = nightly CSV drop at {p}"}), "{c}", c, "{p}", path)
		g.add(&fact{text: text,
			para:  []string{sub("how do orders from {c} reach us?", "{c}", c)},
			ident: []string{path},
			de:    []string{sub("Wie bekommen wir die Bestellungen von {c}?", "{c}", c)},
			fr:    []string{sub("Comment recevons-nous les commandes de {c} ?", "{c}", c)},
			es:    []string{sub("¿Cómo nos llegan los pedidos de {c}?", "{c}", c)},
		})
	}
	// Their office.
	if g.r.IntN(10) < 4 {
		city := g.pick(cities)
		text := sub(g.pick([]string{"{c}'s team sits in {x} ({z}), so schedule calls in their morning.", "{c} is in {x}, {z}."}), "{c}", c, "{x}", city, "{z}", tz[city])
		g.add(&fact{text: text,
			para: []string{sub("what time zone is {c} in?", "{c}", c)},
			de:   []string{sub("In welcher Zeitzone ist {c}?", "{c}", c)},
			fr:   []string{sub("Dans quel fuseau horaire est {c} ?", "{c}", c)},
			es:   []string{sub("¿En qué zona horaria está {c}?", "{c}", c)},
		})
	}
}

// everyWeek writes "every one weeks" as people do.
func everyWeek(s string) string { return strings.ReplaceAll(s, "every one weeks", "every week") }

// personFacts are the notes about one colleague.
func (g *gen) personFacts(p string) {
	fn := strings.Fields(p)[0]
	if g.r.IntN(10) < 6 {
		team := g.pick(teams)
		text := sub(g.pick([]string{"{p} is the tech lead of the {t} team.", "{p} — tech lead, {t}", "{p} leads {t} engineering since the spring reorg."}), "{p}", p, "{t}", team)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"what does {f} do here?", "which group is {p} heading?"}), "{p}", p, "{f}", fn)},
			de:   []string{sub("Welches Team leitet {p}?", "{p}", p)},
			fr:   []string{sub("Quelle équipe dirige {p} ?", "{p}", p)},
			es:   []string{sub("¿Qué equipo dirige {p}?", "{p}", p)},
		})
	}
	if g.r.IntN(10) < 4 {
		city := g.pick(cities)
		text := sub(g.pick([]string{"{p} is based in {c} ({z}).", "{p} works from {c}, {z}"}), "{p}", p, "{c}", city, "{z}", tz[city])
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"where does {p} live?", "what timezone is {p} in"}), "{p}", p)},
			de:   []string{sub("Wo arbeitet {p}?", "{p}", p)},
			fr:   []string{sub("Où travaille {p} ?", "{p}", p)},
			es:   []string{sub("¿Dónde trabaja {p}?", "{p}", p)},
		})
	}
	if g.r.IntN(10) < 3 {
		topic := g.pick(topics)
		text := sub(g.pick([]string{"Ask {p} about {t} — they wrote most of it.", "{p} knows {t} best."}), "{p}", p, "{t}", topic)
		g.add(&fact{text: text,
			para: []string{sub("who is the expert on {t}?", "{t}", topic)},
		})
	}
	if g.r.IntN(10) < 3 {
		text := sub(g.pick([]string{"{p} prefers code review comments on the PR, not in Slack DMs.", "{p} works part-time, Monday to Wednesday.", "{p} is on parental leave until the end of the quarter.", "{p} wants release notes in the PR description."}), "{p}", p)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"anything I should know before working with {f}?", "how does {p} like to work?"}), "{p}", p, "{f}", fn)},
		})
	}
}

// hostFacts are the notes about one machine.
func (g *gen) hostFacts(h string) {
	if g.r.IntN(10) < 6 {
		t := sub(g.pick([]string{"{h} runs nightly backups at {t} UTC to s3://backups-{h}/.", "Backups of {h}: {t} UTC every night (pgBackRest)"}), "{h}", h, "{t}", fmt.Sprintf("%02d:%02d", g.r.IntN(6), 15*g.r.IntN(4)))
		g.add(&fact{text: t,
			para:  []string{sub(g.pick([]string{"when is {h} saved to object storage?", "how often do we take a copy of {h}"}), "{h}", h)},
			ident: []string{"s3://backups-" + h + "/"},
			de:    []string{sub("Wann läuft das Backup von {h}?", "{h}", h)},
			fr:    []string{sub("À quelle heure se fait la sauvegarde de {h} ?", "{h}", h)},
			es:    []string{sub("¿A qué hora es la copia de seguridad de {h}?", "{h}", h)},
		})
	}
	if g.r.IntN(10) < 5 {
		v := g.pick([]string{"20.04", "22.04", "18.04", "24.04"})
		t := sub(g.pick([]string{"{h} still runs Ubuntu {v}; upgrade planned for Q3.", "{h}: Ubuntu {v}"}), "{h}", h, "{v}", v)
		g.add(&fact{text: t,
			para: []string{sub("what OS is on {h}?", "{h}", h)},
			num:  []string{sub("which hosts are still on Ubuntu {v}", "{v}", v)},
			val:  v,
			de:   []string{sub("Welches Betriebssystem läuft auf {h}?", "{h}", h)},
			es:   []string{sub("¿Qué sistema operativo tiene {h}?", "{h}", h)},
		})
	}
	if g.r.IntN(10) < 5 {
		n := fmt.Sprint((g.r.IntN(16) + 1) * 250)
		t := sub(g.pick([]string{"{h} has a {n} GB data disk; alert fires at 85%.", "disk {h}: {n}G, alert 85%"}), "{h}", h, "{n}", n)
		g.add(&fact{text: t,
			para: []string{sub("how much storage does {h} have?", "{h}", h)},
			num:  []string{sub("which machine has {n} GB of disk?", "{n}", n)},
			val:  n + " GB",
			de:   []string{sub("Wie groß ist die Festplatte von {h}?", "{h}", h)},
			fr:   []string{sub("Quelle est la taille du disque de {h} ?", "{h}", h)},
		})
	}
	if g.r.IntN(10) < 4 {
		b := g.pick([]string{"bastion-1", "bastion-2", "jump.eu"})
		t := sub(g.pick([]string{"SSH to {h} through {b}: `ssh -J {b} {h}`.", "{h} is only reachable via {b} (ssh -J {b} {h})"}), "{h}", h, "{b}", b)
		g.add(&fact{text: t,
			para:  []string{sub("how do I get a shell on {h}?", "{h}", h)},
			ident: []string{sub("ssh -J {b} {h}", "{b}", b, "{h}", h)},
			de:    []string{sub("Wie komme ich per SSH auf {h}?", "{h}", h)},
			fr:    []string{sub("Comment se connecter en SSH à {h} ?", "{h}", h)},
			es:    []string{sub("¿Cómo entro por SSH en {h}?", "{h}", h)},
		})
	}
}

// teamFacts are the habits of one team.
func (g *gen) teamFacts(t string) {
	if g.r.IntN(10) < 8 {
		tm := fmt.Sprintf("%d:%02d", 9+g.r.IntN(3), 15*g.r.IntN(4))
		ntm := fmt.Sprintf("%d:%02d", 9+g.r.IntN(3), 15*g.r.IntN(4))
		for ntm == tm {
			ntm = fmt.Sprintf("%d:%02d", 9+g.r.IntN(3), 15*g.r.IntN(4))
		}
		text := sub(g.pick([]string{"The {t} standup is at {h} every weekday.", "{t} standup: {h}, Zoom link in the calendar", "Daily {t} standup starts at {h} sharp."}), "{t}", t, "{h}", tm)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"when does the {t} team meet each morning?", "what time is the {t} daily?"}), "{t}", t)},
			de:    []string{sub("Wann ist das tägliche Meeting des {t}-Teams?", "{t}", t)},
			fr:    []string{sub("À quelle heure est la réunion quotidienne de l'équipe {t} ?", "{t}", t)},
			es:    []string{sub("¿A qué hora es la reunión diaria del equipo de {t}?", "{t}", t)},
			fixes: []string{sub(text, tm, ntm), sub("The {t} standup moved to {n}.", "{t}", t, "{n}", ntm)},
		})
	}
	if g.r.IntN(10) < 7 {
		k := g.r.IntN(3) + 1
		w, nw := numWord[k], numWord[k+1+g.r.IntN(2)]
		text := sub(g.pick([]string{"{t} retro every {w} weeks on Friday afternoon.", "The {t} team holds its retrospective every {w} weeks."}), "{t}", t, "{w}", w)
		g.add(&fact{text: text,
			para:  []string{sub("how often does {t} look back on the sprint?", "{t}", t)},
			de:    []string{sub("Wie oft macht das {t}-Team eine Retrospektive?", "{t}", t)},
			fr:    []string{sub("À quelle fréquence l'équipe {t} fait-elle sa rétrospective ?", "{t}", t)},
			es:    []string{sub("¿Cada cuánto hace el equipo de {t} su retrospectiva?", "{t}", t)},
			fixes: []string{sub(text, "every "+w, "every "+nw), sub("Correction: {t} retro is every {n} weeks, not every {w} weeks.", "{t}", t, "{n}", nw, "{w}", w)},
		})
	}
	if g.r.IntN(10) < 7 {
		d := g.pick(days)
		text := sub(g.pick([]string{"{t} releases on {d}; code freeze the evening before.", "Release day for {t}: {d}", "We ship {t}'s services every {d} after the 14:00 sync."}), "{t}", t, "{d}", d)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"which day of the week does {t} push to production?", "when is the {t} code freeze?"}), "{t}", t)},
			de:   []string{sub("An welchem Tag veröffentlicht das {t}-Team?", "{t}", t)},
			fr:   []string{sub("Quel jour l'équipe {t} fait-elle ses mises en production ?", "{t}", t)},
			es:   []string{sub("¿Qué día publica el equipo de {t}?", "{t}", t)},
		})
	}
	if g.r.IntN(10) < 6 {
		prefix := g.uniq(func() string { return strings.ToUpper(t[:2]) + string(rune('A'+g.r.IntN(26))) })
		text := sub(g.pick([]string{"{t} tickets use the Jira prefix {p}-.", "Jira project for {t}: {p}"}), "{t}", t, "{p}", prefix)
		g.add(&fact{text: text,
			para:  []string{sub("where do I file a bug for {t}?", "{t}", t)},
			ident: []string{prefix + "-"},
		})
	}
	if g.r.IntN(10) < 6 {
		n := g.pick([]string{"one", "two"})
		text := sub(g.pick([]string{"PRs in the {t} repos need {n} approvals, one from a code owner.", "{t}: {n} approving reviews required before merge"}), "{t}", t, "{n}", n)
		g.add(&fact{text: text,
			para: []string{sub("how many reviewers must sign off before merging in {t}?", "{t}", t)},
			de:   []string{sub("Wie viele Freigaben braucht ein Pull Request bei {t}?", "{t}", t)},
			fr:   []string{sub("Combien d'approbations faut-il pour fusionner chez {t} ?", "{t}", t)},
			es:   []string{sub("¿Cuántas aprobaciones necesita un pull request en {t}?", "{t}", t)},
		})
	}
	if g.r.IntN(10) < 5 {
		ch := "#" + strings.ReplaceAll(t, " ", "-") + g.pick([]string{"-alerts", "-oncall", "-help", "-dev"})
		text := sub(g.pick([]string{"The {t} team answers questions in {c}.", "Slack: {c} for {t}"}), "{t}", t, "{c}", ch)
		g.add(&fact{text: text,
			para:  []string{sub("where do I ask the {t} folks something?", "{t}", t)},
			ident: []string{ch},
			de:    []string{sub("In welchem Slack-Kanal erreiche ich das {t}-Team?", "{t}", t)},
			es:    []string{sub("¿En qué canal de Slack está el equipo de {t}?", "{t}", t)},
		})
	}
}

// miscFacts are incidents, decisions, commands and Postgres error notes.
func (g *gen) miscFacts() {
	for _, pc := range pgCodes {
		s := g.pick(services)
		text := sub(g.pick([]string{"Postgres error {c} ({n}) in {s} means {m}.", "{s} logs SQLSTATE {c}: {m}", "When {s} fails with {c} / {n}, {m}."}), "{c}", pc.code, "{n}", pc.name, "{s}", s, "{m}", pc.means)
		g.add(&fact{text: text,
			ident: []string{pc.code, sub("sqlstate {c}", "{c}", pc.code), pc.name},
			para:  []string{sub("{s} database complains and the error means {m} — what do we know?", "{s}", g.short(s), "{m}", strings.Fields(pc.means)[0]+" "+strings.Fields(pc.means)[1])},
			de:    []string{sub("Was bedeutet Fehler {c} in {s}?", "{c}", pc.code, "{s}", g.short(s))},
			fr:    []string{sub("Que veut dire l'erreur {c} dans {s} ?", "{c}", pc.code, "{s}", g.short(s))},
			es:    []string{sub("¿Qué quiere decir el error {c} en {s}?", "{c}", pc.code, "{s}", g.short(s))},
		})
	}
	// Incidents.
	causes := []string{"an expired TLS certificate on the load balancer", "a missing index after the orders migration", "a full disk on the Kafka brokers", "a DNS TTL of 24 hours during failover", "a retry storm from the mobile app", "a bad feature flag rollout", "a Redis eviction wave", "clock skew between nodes", "the cron job running twice", "an exhausted connection pool"}
	for range 140 {
		id := g.uniq(func() string { return fmt.Sprintf("INC-%d", 1000+g.r.IntN(3000)) })
		s, cause := g.pick(services), g.pick(causes)
		date := fmt.Sprintf("%s %d", g.pick([]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov"}), 1+g.r.IntN(28))
		mins := fmt.Sprint(5 + g.r.IntN(200))
		text := sub(g.pick([]string{"{i}: {s} outage on {d}, {m} minutes, caused by {c}.", "Postmortem {i} ({d}) — {s} down {m} min; root cause {c}.", "{i}: {s} degraded for {m} minutes on {d} because of {c}"}), "{i}", id, "{s}", s, "{d}", date, "{m}", mins, "{c}", cause)
		g.add(&fact{text: text,
			ident: []string{id, sub("what happened in {i}", "{i}", id)},
			para:  []string{sub("why did {s} go down on {d}?", "{s}", g.short(s), "{d}", date)},
			num:   []string{sub("which incident lasted {m} minutes", "{m}", mins)},
			val:   mins + " minutes",
			de:    []string{sub("Was war die Ursache von {i}?", "{i}", id)},
			fr:    []string{sub("Quelle était la cause de {i} ?", "{i}", id)},
			es:    []string{sub("¿Cuál fue la causa de {i}?", "{i}", id)},
		})
	}
	// Decisions.
	decisions := []struct{ a, b, why, purpose string }{
		{"Kafka", "RabbitMQ", "we need replay of the event log", "messaging"},
		{"PostgreSQL", "MongoDB", "invoices need transactions across tables", "the ledger store"},
		{"Terraform", "Pulumi", "the infra team already knows HCL", "infrastructure as code"},
		{"gRPC", "REST", "the mobile gateway streams updates", "internal service calls"},
		{"Argo CD", "Flux", "it has a UI the support team can read", "GitOps deployments"},
		{"OpenSearch", "Algolia", "search data may not leave the EU", "product search"},
		{"Temporal", "cron jobs", "long payouts need retries that survive restarts", "workflow orchestration"},
		{"pnpm", "yarn", "the monorepo install was 4x faster", "JavaScript packages"},
		{"Playwright", "Cypress", "we test Safari too", "end-to-end tests"},
		{"Vault", "SOPS", "secrets must rotate automatically", "secret management"},
		{"ClickHouse", "BigQuery", "analytics must run on our own hardware", "analytics"},
		{"Sentry", "Rollbar", "self-hosting was required by two customers", "error tracking"},
	}
	for _, d := range decisions {
		text := sub(g.pick([]string{"We chose {a} over {b} for {p} because {w}.", "Decision: {a} instead of {b} ({p}) — {w}.", "ADR: {p} uses {a}, not {b}; reason: {w}."}), "{a}", d.a, "{b}", d.b, "{w}", d.why, "{p}", d.purpose)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"why didn't we go with {b}?", "what was the reasoning behind picking {a}?"}), "{a}", d.a, "{b}", d.b)},
			de:   []string{sub("Warum haben wir uns gegen {b} entschieden?", "{b}", d.b)},
			fr:   []string{sub("Pourquoi avons-nous choisi {a} ?", "{a}", d.a)},
			es:   []string{sub("¿Por qué elegimos {a}?", "{a}", d.a)},
		})
	}
	// Commands.
	cmds := []struct{ cmd, what, q string }{
		{"make db-migrate-all", "runs every service's pending migrations against the local stack", "how do I bring all local databases up to date"},
		{"task seed:demo", "fills the local databases with the demo tenants", "how do I get sample data locally"},
		{"./scripts/rotate_keys.sh --env prod", "rotates the JWT signing keys; tokens stay valid for an hour", "how do we change the token signing secret"},
		{"make reindex-search", "rebuilds the product search index from Postgres (about 40 min)", "search results are stale, how do I rebuild everything"},
		{"docker compose -f compose.dev.yml up --build", "starts the whole dev environment", "how do I start everything on my laptop"},
		{"go test ./... -run Integration -tags integration", "runs the integration suite against testcontainers", "how do I run the slow tests"},
		{"npm run e2e -- --project=webkit", "runs the end-to-end tests in WebKit only", "run the browser tests only in Safari's engine"},
		{"terraform plan -var-file=envs/prod.tfvars", "previews infrastructure changes for production", "how do I see what an infra change would do in prod"},
		{"kubectl get pods -n payments -l app=ledger", "lists the ledger pods", "how do I see which ledger instances are running"},
		{"psql $REPORTING_DSN -f sql/refresh_views.sql", "refreshes the materialized views of reporting", "the reporting numbers are old, how to refresh"},
		{"make lint-fix", "runs golangci-lint and gofumpt with fixes", "how do I autoformat and fix lint errors"},
		{"yarn workspace web storybook", "opens Storybook for the web components", "how to browse the UI components"},
		{"./bin/console tenants:purge --tenant-id=", "deletes a tenant's data after offboarding (GDPR)", "how do we erase a customer completely after they leave"},
		{"git log --first-parent main --since=2.weeks", "shows what was merged lately for release notes", "how do I list recent merges for the changelog"},
		{"make certs-renew", "renews the internal mTLS certificates", "the internal certificates are about to expire, what do I run"},
		{"pg_dump --format=custom --no-owner billing > billing.dump", "takes a portable dump of billing", "how do I copy the billing database to my machine"},
		{"redis-cli --scan --pattern 'session:*' | wc -l", "counts live sessions", "how many people are logged in right now"},
		{"helm rollback ledger 0 -n payments", "rolls the ledger back to the previous release", "ledger deploy broke things, how do I undo it"},
		{"./gradlew :android:bundleRelease", "builds the Android release bundle", "how do I build the Play Store artifact"},
		{"fastlane ios beta", "pushes an iOS build to TestFlight", "how to send the iPhone app to testers"},
	}
	for _, c := range cmds {
		text := sub(g.pick([]string{"`{c}` {w}.", "{c} — {w}", "To do it: {c} ({w})"}), "{c}", c.cmd, "{w}", c.what)
		g.add(&fact{text: text,
			ident: []string{c.cmd, sub("what does {c} do", "{c}", c.cmd)},
			para:  []string{c.q},
		})
	}
	// Preferences and conventions of the user.
	prefs := []struct{ text, q, de, fr, es string }{
		{"I prefer table-driven tests with named cases.", "how should I structure unit tests for you", "Wie soll ich Tests schreiben?", "Comment écrire les tests ?", "¿Cómo debo escribir las pruebas?"},
		{"Commit messages: imperative mood, lowercase, package prefix (e.g. 'store: fix lock leak').", "what should a commit message look like", "Wie sehen Commit-Nachrichten aus?", "À quoi doit ressembler un message de commit ?", "¿Cómo deben ser los mensajes de commit?"},
		{"Use UTC everywhere in logs and database timestamps.", "which timezone do we log in", "Welche Zeitzone verwenden wir in Logs?", "Quel fuseau horaire utiliser dans les logs ?", "¿Qué zona horaria usamos en los logs?"},
		{"Money is stored as integer cents, never floats.", "how do we represent prices in code", "Wie speichern wir Geldbeträge?", "Comment stocker les montants d'argent ?", "¿Cómo guardamos las cantidades de dinero?"},
		{"Feature branches are squash-merged; keep the PR title clean, it becomes the commit.", "do we rebase or squash when merging", "Wie wird gemergt?", "Comment fusionne-t-on les branches ?", "¿Cómo se fusionan las ramas?"},
		{"Never log full card numbers or IBANs; mask all but the last 4 digits.", "what can't appear in log output", "Was darf nicht in Logs stehen?", "Que ne faut-il jamais écrire dans les logs ?", "¿Qué no debe aparecer nunca en los logs?"},
		{"API errors follow RFC 7807 problem+json.", "what format do our error responses use", "Welches Format haben API-Fehler?", "Quel format pour les erreurs de l'API ?", "¿Qué formato tienen los errores de la API?"},
		{"New endpoints need an OpenAPI entry before the PR is reviewed.", "what do I have to do before opening a PR for a new route", "Was brauche ich für einen neuen Endpunkt?", "Que faut-il pour un nouveau point d'accès ?", "¿Qué necesito para un endpoint nuevo?"},
	}
	for _, p := range prefs {
		g.add(&fact{text: p.text, para: []string{p.q}, de: []string{p.de}, fr: []string{p.fr}, es: []string{p.es}})
	}
}

func main() {
	set := flag.String("set", "tuning", "which set: tuning (the notes the ranking was tuned on), heldout (another project, other wording), blind (another domain, written without the ranking code; read since), blind2 (an agency and a connected-hardware app, written after blind was read, never tuned on), blind3 (a hospital IT department, written to arbitrate a ranking change independently of blind2), blind4 (a two-person online shop, written for issue 30 without the ranking code, never tuned on), blind5 (a university research-computing group, written blind for issue 30) or blind6 (a restaurant group with four sites, written blind for issue 30)")
	flag.Parse()
	out := "internal/memory/testdata/recall"
	seed := uint64(30)
	if *set == "heldout" {
		out, seed = filepath.Join(out, "heldout"), 31
	}
	if *set == "blind" {
		out, seed = filepath.Join(out, "blind"), 47
	}
	if *set == "blind2" {
		out, seed = filepath.Join(out, "blind2"), 83
	}
	if *set == "blind3" {
		out, seed = filepath.Join(out, "blind3"), 59
	}
	if *set == "blind4" {
		out, seed = filepath.Join(out, "blind4"), 71
	}
	if *set == "blind5" {
		out, seed = filepath.Join(out, "blind5"), 137
	}
	if *set == "blind6" {
		out, seed = filepath.Join(out, "blind6"), 173
	}
	if flag.NArg() > 0 {
		out = flag.Arg(0)
	}
	g := &gen{r: rand.New(rand.NewPCG(seed, 2026)), seen: map[string]bool{}, used: map[string]bool{}}
	if *set == "heldout" {
		g.heldout()
		g.write(out)
		return
	}
	if *set == "blind" {
		g.blind()
		g.writeBlind(out)
		return
	}
	if *set == "blind2" {
		g.blind2()
		g.writeBlind2(out)
		return
	}
	if *set == "blind3" {
		g.blind3()
		g.writeBlind3(out)
		return
	}
	if *set == "blind4" {
		g.blind4()
		g.writeBlind4(out)
		return
	}
	if *set == "blind5" {
		g.blind5()
		g.writeBlind5(out)
		return
	}
	if *set == "blind6" {
		g.blind6()
		g.writeBlind6(out)
		return
	}
	if *set != "tuning" {
		fmt.Fprintf(os.Stderr, "unknown set %q: tuning, heldout, blind, blind2, blind3, blind4, blind5 or blind6\n", *set)
		os.Exit(2)
	}
	// Host names are unique (a number drawn twice moves up by 20): two hosts of one name would
	// make their notes versions of each other.
	hosts := []string{}
	for i := range 66 {
		kind, n := []string{"db", "web", "worker", "cache", "ci-runner", "kafka"}[i%6], 1+i/6+g.r.IntN(20)
		for slices.Contains(hosts, fmt.Sprintf("%s-%02d", kind, n)) {
			n += 20
		}
		hosts = append(hosts, fmt.Sprintf("%s-%02d", kind, n))
	}
	// Interleave the subjects the way notes accumulate over months.
	var jobs []func()
	for _, s := range services {
		jobs = append(jobs, func() { g.serviceFacts(s) }, func() { g.moreServiceFacts(s) })
	}
	for _, c := range customers {
		jobs = append(jobs, func() { g.customerFacts(c) })
	}
	people := map[string]bool{}
	for len(people) < 90 {
		people[g.person()] = true
	}
	names := make([]string, 0, len(people))
	for p := range people {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		jobs = append(jobs, func() { g.personFacts(p) })
	}
	for _, h := range hosts {
		jobs = append(jobs, func() { g.hostFacts(h) })
	}
	for _, t := range teams {
		jobs = append(jobs, func() { g.teamFacts(t) })
	}
	for i := range 96 {
		d := []string{"shop", "api", "status", "docs", "partners", "files", "auth", "app", "admin", "cdn", "m", "pay", "help", "blog", "eu", "us"}[i%16]
		tld := []string{"acme-store.example", "acme-pay.example", "acme.example", "acme-labs.example", "acme-group.example", "acme.test"}[i/16]
		jobs = append(jobs, func() { g.domainFacts(d + "." + tld) })
	}
	jobs = append(jobs, g.miscFacts)
	g.r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for _, j := range jobs {
		j()
	}
	// A second round of services and customers: projects grow, the same subjects get more
	// notes of the same kinds (look-alikes of the first round's).
	for _, s := range services[:24] {
		g.serviceFacts(s + "-v2")
	}
	for _, c := range customers[:24] {
		g.customerFacts(c + " " + g.pick([]string{"Europe", "US", "Asia"}))
	}

	g.write(out)
}

// write draws the questions and writes both files into out.
func (g *gen) write(out string) {
	writeSet(out, g.mems, g.queries())
}

// renumber names the notes m0001, m0002 ... in their stored order and renames the questions'
// keys to match: the blind sets move their corrections after the notes they correct.
func renumber(mems []Memory, queries []Query) {
	rename := map[string]string{}
	for i := range mems {
		k := fmt.Sprintf("m%04d", i+1)
		rename[mems[i].Key] = k
		mems[i].Key = k
	}
	for i := range queries {
		queries[i].Want = rename[queries[i].Want]
		if queries[i].Old != "" {
			queries[i].Old = rename[queries[i].Old]
		}
	}
}

// writeLater draws the questions, stores each correction after the note it corrects, after the
// note at the index where gives it (i is the corrected note's index among the n notes before any
// correction), numbers the notes in their stored order and writes both files: the blind sets
// store a correction days or weeks after its note, as people do.
func (g *gen) writeLater(out string, where func(i, n int, fix Memory) int) {
	queries := g.queries()
	orig := len(g.facts)
	base, fixes := slices.Clone(g.mems[:orig]), g.mems[orig:]
	pos := map[string]int{}
	for i, m := range base {
		pos[m.Key] = i
	}
	old := map[string]string{}
	for _, q := range queries {
		if q.Class == "correction" {
			old[q.Want] = q.Old
		}
	}
	after := map[int][]Memory{} // the corrections stored right after base[i]
	for _, f := range fixes {
		j := where(pos[old[f.Key]], len(base), f)
		after[j] = append(after[j], f)
	}
	var mems []Memory
	for i, m := range base {
		mems = append(mems, m)
		mems = append(mems, after[i]...)
	}
	renumber(mems, queries)
	g.mems = mems
	writeSet(out, mems, queries)
}

// writeSet writes a set's two files into out and says how many of each it wrote.
func writeSet(out string, mems []Memory, queries []Query) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	writeJSONL(filepath.Join(out, "memories.jsonl"), mems)
	writeJSONL(filepath.Join(out, "queries.jsonl"), queries)
	counts := map[string]int{}
	for _, q := range queries {
		counts[q.Class]++
	}
	fmt.Fprintf(os.Stderr, "%d memories, %d queries %v\n", len(mems), len(queries), counts)
}

// perClass is how many questions each class gets.
const perClass = 100

// queries draws the questions and appends the corrections (later notes) to the memories.
func (g *gen) queries() []Query {
	var out []Query
	// A question that two notes answer differently ("who is the expert on the iOS push
	// certificates?" when two people are) has no one right note: it is never asked.
	asked := map[string]int{}
	for _, f := range g.facts {
		for _, q := range slices.Concat(f.para, f.ask) {
			asked[q]++
		}
	}
	for _, f := range g.facts {
		one := func(q string) bool { return asked[q] > 1 }
		f.para, f.ask = slices.DeleteFunc(f.para, one), slices.DeleteFunc(f.ask, one)
	}
	facts := slices.Clone(g.facts)
	g.r.Shuffle(len(facts), func(i, j int) { facts[i], facts[j] = facts[j], facts[i] })
	taken := map[string]bool{} // a fact is asked about in one class only
	take := func(class string, pickQ func(f *fact) (string, string)) {
		n := 0
		for _, f := range facts {
			if n == perClass {
				return
			}
			if taken[f.key] {
				continue
			}
			q, lang := pickQ(f)
			if q == "" {
				continue
			}
			taken[f.key] = true
			out = append(out, Query{Class: class, Lang: lang, Query: q, Want: f.key})
			n++
		}
	}
	// Corrections first: they add notes.
	n := 0
	for _, f := range facts {
		if n == perClass {
			break
		}
		if len(f.fixes) == 0 || len(f.para)+len(f.ask) == 0 {
			continue
		}
		fix := g.pick(f.fixes)
		if g.seen[fix] {
			continue
		}
		g.seen[fix] = true
		taken[f.key] = true
		g.n++
		key := fmt.Sprintf("m%04d", g.n)
		g.mems = append(g.mems, Memory{Key: key, Text: fix})
		q := g.pick(append(slices.Clone(f.para), f.ask...))
		out = append(out, Query{Class: "correction", Query: q, Want: key, Old: f.key})
		n++
	}
	take("distractor", func(f *fact) (string, string) {
		if len(f.dist) == 0 {
			return "", ""
		}
		return g.pick(f.dist), ""
	})
	take("identifier", func(f *fact) (string, string) {
		qs := slices.DeleteFunc(slices.Clone(f.ident), func(q string) bool { return !g.only(q) })
		if len(qs) == 0 {
			return "", ""
		}
		return g.pick(qs), ""
	})
	take("number", func(f *fact) (string, string) {
		qs := slices.Clone(f.ask)
		if f.val != "" && g.unique(f.val) {
			qs = append(qs, f.num...)
		}
		if len(qs) == 0 {
			return "", ""
		}
		return g.pick(qs), ""
	})
	i := 0
	take("language", func(f *fact) (string, string) {
		lang := []string{"de", "fr", "es"}[i%3]
		qs := map[string][]string{"de": f.de, "fr": f.fr, "es": f.es}[lang]
		if len(qs) == 0 {
			return "", ""
		}
		i++
		return g.pick(qs), lang
	})
	take("paraphrase", func(f *fact) (string, string) {
		if len(f.para) == 0 {
			return "", ""
		}
		return g.pick(f.para), ""
	})
	return out
}

// unique reports whether exactly one note holds v as a whole word, and, when v has a number,
// whether exactly one note holds that number (as a run of digits of its own: "500" is in
// "500G" but not in "1500").
func (g *gen) unique(v string) bool {
	count := func(v string, digits bool) int {
		n := 0
		for _, m := range g.mems {
			for i := 0; ; {
				j := strings.Index(m.Text[i:], v)
				if j < 0 {
					break
				}
				j += i
				k := j + len(v)
				var before, after bool
				if digits {
					before = j == 0 || !isDigit(m.Text[j-1]) && m.Text[j-1] != '.'
					after = k == len(m.Text) || !isDigit(m.Text[k]) && !(m.Text[k] == '.' && k+1 < len(m.Text) && isDigit(m.Text[k+1]))
				} else {
					before = j == 0 || !alnum(m.Text[j-1])
					after = k == len(m.Text) || !alnum(m.Text[k]) && !(m.Text[k] == '.' && k+1 < len(m.Text) && alnum(m.Text[k+1]))
				}
				if before && after {
					n++
					break
				}
				i = j + 1
			}
		}
		return n
	}
	if count(v, false) != 1 {
		return false
	}
	for _, f := range strings.Fields(v) {
		f = strings.Trim(f, "%")
		if f != "" && strings.IndexFunc(f, func(r rune) bool { return r < '0' || r > '9' }) < 0 && count(f, true) != 1 {
			return false
		}
	}
	return true
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func alnum(b byte) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// only reports whether the identifiers of question q (its words with digits, inner
// punctuation or capitals) are together in one note only.
func (g *gen) only(q string) bool {
	var ids []string
	for _, w := range strings.Fields(q) {
		w = strings.Trim(w, "?,`'\"")
		if w != "" && (strings.ContainsAny(w, "0123456789-_/.:$#@=") || strings.ToLower(w) != w) {
			ids = append(ids, w)
		}
	}
	if len(ids) == 0 {
		return false
	}
	n := 0
	for _, m := range g.mems {
		all := true
		for _, id := range ids {
			if !strings.Contains(m.Text, id) {
				all = false
				break
			}
		}
		if all {
			n++
		}
	}
	return n == 1
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func writeJSONL[T any](path string, xs []T) {
	var b strings.Builder
	for _, x := range xs {
		raw, err := json.Marshal(x)
		if err != nil {
			panic(err)
		}
		b.Write(raw)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
