package main

import (
	"fmt"
	"strings"
)

// The held-out set (-set heldout, written to testdata/recall/heldout): the same six classes
// over another project, written with other templates, before any ranking work looked at the
// tuning set's misses. Nothing here repeats the tuning set's wording: other services,
// customers, people and hosts, notes written the way a developer or a coding agent jots them
// down ("FYI", "heads-up", arrows, half sentences, "the user prefers"), and questions the way
// people ask an assistant to remind them ("remind me...", "what was ... again?", "do you
// remember...") or the way an agent writes a search query (a few keywords). Corrections are
// the way people send updates ("Update:", "as of this week", "no longer", "bumped to",
// "scratch that"). A ranking change that helps only the tuning set shows here as no gain.

var (
	hServices = []string{"orders-svc", "kyc", "fx-rates", "thumbnailer", "invoicing", "identity-provider", "stock-levels",
		"payments-gw", "quotes", "subscriptions", "newsletter", "chat-backend", "video-transcoder", "coupon-engine",
		"delivery-slots", "returns-portal", "vendor-sync", "price-alerts", "reviews", "wishlist", "loyalty-points",
		"sitemap-builder", "translations", "onboarding-api", "ledger-reconciler", "refunds", "appointments", "ticketing",
		"maps-tiles", "search-suggest", "document-store", "virus-scan", "otp-sender", "audit-trail", "partner-portal",
		"bi-exporter", "crm-sync", "cdn-purger", "tenant-admin", "usage-metering", "label-printer", "kiosk-api"}
	hTeams  = []string{"checkout", "core", "merchant", "trust", "apps", "insights", "devex", "fulfilment", "billing", "sre"}
	hFirst  = []string{"Aiko", "Bruno", "Camille", "Dmitri", "Esther", "Felix", "Giulia", "Hiro", "Ingrid", "Joao", "Katarina", "Luis", "Maja", "Nikolai", "Olga", "Pedro", "Rania", "Stefan", "Theo", "Ulla", "Victor", "Wanda", "Yara", "Zeynep", "Arjun", "Bianca", "Cyril", "Daria", "Enzo", "Freya", "Goran", "Helena", "Ivo", "Jana", "Kofi", "Leila", "Milan", "Noor", "Pavel", "Sana", "Tomas"}
	hLast   = []string{"Andersen", "Becker", "Castro", "Dimitrov", "Eriksson", "Fischer", "Gomes", "Hoffmann", "Ivanova", "Jovanović", "Keller", "Lambert", "Mendes", "Nielsen", "Oliveira", "Pereira", "Quinn", "Romano", "Santos", "Toth", "Urban", "Vogel", "Wagner", "Zielinski", "Brennan", "Mori", "Sato", "Kaya", "Aydin", "Nakamura"}
	hClient = []string{"Northwind Traders", "Contoso", "Fabrikam", "Tailspin Toys", "Wide World Importers", "Adventure Works",
		"Litware", "Proseware", "Alpine Ski House", "Coho Winery", "Fourth Coffee", "Lamna Healthcare", "Margie's Travel",
		"Relecloud", "Trey Research", "Woodgrove Bank", "VanArsdel", "Blue Yonder Airlines", "City Power & Light",
		"Humongous Insurance", "Consolidated Messenger", "Southridge Video", "Wingtip Toys", "First Up Consultants",
		"Best For You Organics", "Bellows College", "Lucerne Publishing", "Olympia Sports", "Kestrel Analytics",
		"Harbor Freightways", "Bluebird Clinics", "Ironclad Storage", "Meridian Retail", "Quill & Co", "Sable Mining",
		"Tundra Outfitters", "Velvet Hotels", "Zephyr Mobility", "Granite Legal", "Orchid Pharma", "Pinecone Media",
		"Copperleaf Energy", "Marlin Insurance", "Saffron Foods", "Willow Schools"}
	hLangs   = []string{"Node 18", "Node 20", "Node 22", "Java 11", "Java 21", "Python 3.10", "Python 3.12", "Go 1.23", ".NET 8", "PHP 8.2", "Scala 2.13"}
	hRegions = []string{"Frankfurt", "Ireland", "Virginia", "Oregon", "Singapore", "Sydney", "São Paulo", "Stockholm"}
	hCities  = []string{"Porto", "Krakow", "Tallinn", "Ghent", "Bologna", "Graz", "Aarhus", "Leipzig", "Malaga", "Lille", "Brno", "Cork", "Bilbao", "Utrecht", "Turin"}
	hCodes   = []string{"E1001", "E1042", "E2210", "E3307", "E4090", "E4291", "E5031", "E5102", "E6004", "E7120", "E8008", "E9013", "E9321", "E2718", "E3141", "E1618"}
)

func (g *gen) hPerson() string { return g.pick(hFirst) + " " + g.pick(hLast) }

// hShort is how people name a service in a question: "orders" for orders-svc, "fx rates" for
// fx-rates, sometimes the exact name.
func (g *gen) hShort(s string) string {
	switch g.r.IntN(4) {
	case 0:
		return s
	case 1:
		return strings.ReplaceAll(strings.TrimSuffix(strings.TrimSuffix(s, "-svc"), "-api"), "-", " ")
	}
	for _, suf := range []string{"-svc", "-api", "-gw", "-portal"} {
		if b, ok := strings.CutSuffix(s, suf); ok {
			return b
		}
	}
	return s
}

// hService are the notes about one service of the held-out project.
func (g *gen) hService(s string) {
	S := func() string { return g.hShort(s) }
	// Port.
	if g.r.IntN(10) < 8 {
		port := g.uniq(func() string { return fmt.Sprint(8000 + g.r.IntN(80)*10 + g.r.IntN(10)) })
		np := g.uniq(func() string { return fmt.Sprint(9100 + g.r.IntN(80)*10 + g.r.IntN(10)) })
		text := sub(g.pick([]string{
			"FYI {s} binds to port {p}.",
			"local dev: {s} is at http://localhost:{p}",
			"{s} — HTTP on {p}, nothing else exposed",
			"Port for {s} is {p} (same in docker and k8s).",
		}), "{s}", s, "{p}", port)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"remind me where {s} is listening", "what's the address of {s} on my laptop again?", "how do I hit {s} locally"}), "{s}", S())},
			num:  []string{sub(g.pick([]string{"what's bound to {p}?", "port {p} belongs to which service", "who uses {p}"}), "{p}", port)},
			val:  port,
			ask:  []string{sub(g.pick([]string{"{s} port", "port number of {s}?"}), "{s}", S())},
			de:   []string{sub(g.pick([]string{"Weißt du noch, welchen Port {s} benutzt?", "Port von {s}?"}), "{s}", S())},
			fr:   []string{sub(g.pick([]string{"Rappelle-moi le port de {s}.", "{s} tourne sur quel port ?"}), "{s}", S())},
			es:   []string{sub(g.pick([]string{"¿Me recuerdas el puerto de {s}?", "¿Cuál es el puerto de {s}?"}), "{s}", S())},
			fixes: []string{
				sub(text, port, np),
				sub("Update: {s} now listens on {n} instead of {p}.", "{s}", s, "{n}", np, "{p}", port),
				sub("Heads-up, the {s} port changed from {p} to {n}.", "{s}", s, "{n}", np, "{p}", port),
			},
		})
	}
	// Runtime.
	if g.r.IntN(10) < 6 {
		l := g.pick(hLangs)
		nl := g.pick(hLangs)
		for nl == l {
			nl = g.pick(hLangs)
		}
		text := sub(g.pick([]string{"{s} runs on {l}.", "{s} is pinned to {l} in the base image", "runtime of {s}: {l}"}), "{s}", s, "{l}", l)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"what is {s} written in again?", "is {s} on an old runtime?", "what tech stack does {s} use"}), "{s}", S())},
			num:   []string{sub(g.pick([]string{"what's still on {l}?", "services using {l}"}), "{l}", l)},
			val:   l,
			ask:   []string{sub("{s} runtime version", "{s}", S())},
			de:    []string{sub("Mit welcher Sprache wurde {s} gebaut?", "{s}", S())},
			fr:    []string{sub("{s} est développé avec quoi ?", "{s}", S())},
			es:    []string{sub("¿Con qué tecnología está hecho {s}?", "{s}", S())},
			fixes: []string{sub(text, l, nl), sub("We moved {s} to {n} last sprint.", "{s}", s, "{n}", nl)},
		})
	}
	// Maintainer.
	if g.r.IntN(10) < 7 {
		team, p, np := g.pick(hTeams), g.hPerson(), g.hPerson()
		text := sub(g.pick([]string{"{s} belongs to team {t}; {p} is the go-to person.", "Maintainer of {s}: {p} ({t})", "Questions about {s} go to {p} on the {t} team."}), "{s}", s, "{t}", team, "{p}", p)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"who maintains {s}?", "who should review my change to {s}", "who can I ask about {s}", "{s} owner"}), "{s}", S())},
			de:   []string{sub(g.pick([]string{"Wen frage ich wegen {s}?", "Wer kümmert sich um {s}?"}), "{s}", S())},
			fr:   []string{sub(g.pick([]string{"À qui demander pour {s} ?", "Qui s'occupe de {s} ?"}), "{s}", S())},
			es:   []string{sub(g.pick([]string{"¿A quién le pregunto por {s}?", "¿Quién se encarga de {s}?"}), "{s}", S())},
			fixes: []string{
				sub(text, p, np),
				sub("{p} handed {s} over to {n}.", "{s}", s, "{p}", p, "{n}", np),
				sub("New maintainer for {s}: {n} (replacing {p}).", "{s}", s, "{p}", p, "{n}", np),
			},
		})
	}
	// Helm values / config file.
	if g.r.IntN(10) < 6 {
		path := sub(g.pick([]string{"helm/{s}/values-prod.yaml", "k8s/overlays/prod/{s}/kustomization.yaml", "apps/{s}/.env.production", "config/{s}/app.prod.json"}), "{s}", s)
		text := sub(g.pick([]string{"Prod settings for {s} live in {p} — don't edit them in the cluster.", "{s} config → {p}", "To change how {s} runs in prod, edit {p} and let Argo sync."}), "{s}", s, "{p}", path)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"where do I change the deployment settings of {s}?", "which file configures {s} in production", "{s} prod config file"}), "{s}", S())},
			ident: []string{path, sub("what's in {p}", "{p}", path)},
			de:    []string{sub("In welcher Datei stehen die Einstellungen von {s}?", "{s}", S())},
			fr:    []string{sub("Quel fichier contient la config de {s} ?", "{s}", S())},
			es:    []string{sub("¿En qué archivo está la configuración de {s}?", "{s}", S())},
		})
	}
	// Secret / environment variable.
	if g.r.IntN(10) < 5 {
		env := strings.ToUpper(strings.ReplaceAll(s, "-", "_")) + g.pick([]string{"_API_KEY", "_SECRET", "_TOKEN", "_SIGNING_KEY"})
		text := sub(g.pick([]string{"{s} needs {e} set, otherwise it crashes on boot.", "{e} is the secret {s} reads at startup (from 1Password in dev).", "Missing {e}? then {s} refuses to start."}), "{s}", s, "{e}", env)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"what secret does {s} expect at startup?", "{s} won't boot on my machine, what key is it missing"}), "{s}", S())},
			ident: []string{env, sub("where does {e} come from", "{e}", env)},
			de:    []string{sub("Welches Secret braucht {s} beim Start?", "{s}", S())},
			fr:    []string{sub("De quel secret {s} a-t-il besoin au démarrage ?", "{s}", S())},
			es:    []string{sub("¿Qué secreto necesita {s} para arrancar?", "{s}", S())},
		})
	}
	// Queue.
	if g.r.IntN(10) < 5 {
		q := sub(g.pick([]string{"{s}-jobs", "{s}.inbox", "q-{s}-high", "{s}-events-fifo"}), "{s}", s)
		text := sub(g.pick([]string{"{s} pulls work from the SQS queue {q}.", "{s} publishes to {q} (SQS, FIFO)", "Jobs for {s} are queued on {q}; DLQ after 5 tries."}), "{s}", s, "{q}", q)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"where does {s} get its jobs from?", "which queue is {s} hooked up to"}), "{s}", S())},
			ident: []string{q},
			de:    []string{sub("Welche Queue nutzt {s}?", "{s}", S())},
			fr:    []string{sub("Quelle file de messages utilise {s} ?", "{s}", S())},
			es:    []string{sub("¿Qué cola usa {s}?", "{s}", S())},
		})
	}
	// Retries.
	if g.r.IntN(10) < 4 {
		n := g.pick([]string{"2", "3", "4", "5", "6", "8"})
		nn := g.pick([]string{"7", "9", "10", "12"})
		text := sub(g.pick([]string{"{s} retries a failed call {n} times with exponential backoff.", "retry policy {s}: {n} attempts, jittered backoff", "{s} gives up after {n} retries and alerts."}), "{s}", s, "{n}", n)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how many attempts does {s} make before it fails?", "does {s} try again when a request fails?"}), "{s}", S())},
			ask:   []string{sub("{s} retry count", "{s}", S())},
			de:    []string{sub("Wie oft versucht {s} es erneut?", "{s}", S())},
			fr:    []string{sub("Combien de fois {s} réessaie-t-il ?", "{s}", S())},
			es:    []string{sub("¿Cuántas veces reintenta {s}?", "{s}", S())},
			fixes: []string{sub(text, n, nn), sub("Bumped the {s} retries to {m}.", "{s}", s, "{m}", nn)},
		})
	}
	// CPU request.
	if g.r.IntN(10) < 4 {
		c := g.pick([]string{"250m", "500m", "750m", "1500m"})
		text := sub(g.pick([]string{"{s} requests {c} CPU per pod.", "cpu request for {s} = {c}; no limit on purpose"}), "{s}", s, "{c}", c)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"how much processor does {s} reserve?", "how many cores does {s} ask kubernetes for"}), "{s}", S())},
			de:   []string{sub("Wie viel CPU reserviert {s}?", "{s}", S())},
			fr:   []string{sub("Combien de CPU réserve {s} ?", "{s}", S())},
		})
	}
	// Error rate alert.
	if g.r.IntN(10) < 4 {
		pct := g.pick([]string{"1", "2", "5", "0.5", "3"})
		npct := g.pick([]string{"4", "6", "8", "10"})
		text := sub(g.pick([]string{"Alert on {s} fires when the 5xx rate is above {n}% for 5 min.", "{s} pager threshold: error rate > {n}%"}), "{s}", s, "{n}", pct)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"when does {s} page someone?", "at what point do we get woken up for {s}"}), "{s}", S())},
			de:    []string{sub("Ab welcher Fehlerrate alarmiert {s}?", "{s}", S())},
			fr:    []string{sub("À partir de quel taux d'erreur {s} déclenche-t-il une alerte ?", "{s}", S())},
			es:    []string{sub("¿Con qué tasa de errores salta la alerta de {s}?", "{s}", S())},
			fixes: []string{sub(text, pct+"%", npct+"%"), sub("As of this week the {s} alert only fires above {m}% errors.", "{s}", s, "{m}", npct)},
		})
	}
	// Runbook.
	if g.r.IntN(10) < 4 {
		url := sub("https://wiki.internal/runbooks/{s}", "{s}", s)
		text := sub(g.pick([]string{"Runbook for {s}: {u}", "If {s} is on fire, follow {u}"}), "{s}", s, "{u}", url)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"what do I do when {s} breaks at night?", "is there a playbook for {s} incidents"}), "{s}", S())},
			de:   []string{sub("Gibt es ein Runbook für {s}?", "{s}", S())},
			es:   []string{sub("¿Hay un manual de incidentes para {s}?", "{s}", S())},
		})
	}
	// Feature flag.
	if g.r.IntN(10) < 3 {
		feat := g.pick([]string{"one-click refunds", "address autocomplete", "dark mode", "bulk upload", "saved carts", "split payments"})
		flag := g.uniq(func() string {
			return "ff." + strings.ReplaceAll(s, "-", "_") + "." + g.pick([]string{"new", "beta", "exp"}) + "_" + strings.ReplaceAll(strings.Fields(feat)[0], "-", "")
		})
		text := sub(g.pick([]string{"{x} in {s} is behind {f} (Unleash), off in prod.", "{f} toggles {x} for {s}"}), "{s}", s, "{f}", flag, "{x}", feat)
		g.add(&fact{text: text,
			para:  []string{sub("how do we turn on {x} in {s}?", "{s}", S(), "{x}", feat)},
			ident: []string{flag, sub("is {f} enabled", "{f}", flag)},
		})
	}
	// Error code.
	if g.r.IntN(10) < 4 {
		code := g.uniq(func() string {
			w := strings.Split(s, "-")[0]
			return strings.ToUpper(w[:min(3, len(w))]) + "-" + g.pick(hCodes)
		})
		why := g.pick([]string{"the upstream bank API timed out", "the tenant has no active plan", "a webhook signature did not verify", "the file is over 25 MB", "the request came from a blocked country", "the cache was warming up"})
		text := sub(g.pick([]string{"{c} from {s} means {w}.", "Seeing {c} in {s}? Usually {w}.", "{s} error {c}: {w}"}), "{s}", s, "{c}", code, "{w}", why)
		g.add(&fact{text: text,
			para:  []string{sub("{s} keeps failing with some error code, what's the usual cause?", "{s}", S())},
			ident: []string{code, sub("{c} meaning", "{c}", code), sub("got {c} again", "{c}", code)},
			de:    []string{sub("Was heißt {c}?", "{c}", code)},
			fr:    []string{sub("{c}, ça veut dire quoi ?", "{c}", code)},
			es:    []string{sub("¿Qué es el código {c}?", "{c}", code)},
		})
	}
	// Upstream dependency.
	if g.r.IntN(10) < 5 {
		dep := g.pick(hServices)
		if dep != s {
			text := sub(g.pick([]string{"{s} can't do anything without {d}: every request checks it first.", "Note: {s} → {d} (blocking call, 2 s timeout)", "When {d} is slow, {s} gets slow too."}), "{s}", s, "{d}", dep)
			g.add(&fact{text: text,
				para: []string{sub(g.pick([]string{"what does {s} depend on?", "{s} is slow, which upstream could be the cause?"}), "{s}", S())},
				de:   []string{sub("Wovon hängt {s} ab?", "{s}", S())},
				fr:   []string{sub("De quoi dépend {s} ?", "{s}", S())},
				es:   []string{sub("¿De qué depende {s}?", "{s}", S())},
			})
		}
	}
	// Nightly job.
	if g.r.IntN(10) < 4 {
		at := fmt.Sprintf("%02d:%02d", g.r.IntN(6), 10*g.r.IntN(6))
		what := g.pick([]string{"compacts the event tables", "re-sends unconfirmed emails", "rebuilds the thumbnails cache", "exports yesterday's usage to the data lake", "closes stale carts", "rotates the API tokens"})
		text := sub(g.pick([]string{"Every night at {a} UTC {s} {w}.", "{s} batch ({a} UTC): {w}"}), "{s}", s, "{a}", at, "{w}", what)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"does {s} run anything overnight?", "what background job does {s} have"}), "{s}", S())},
			de:   []string{sub("Was macht {s} nachts?", "{s}", S())},
			es:   []string{sub("¿Qué hace {s} por la noche?", "{s}", S())},
		})
	}
	// Bucket.
	if g.r.IntN(10) < 4 {
		b := sub(g.pick([]string{"s3://acme-{s}-uploads", "gs://{s}-artifacts-prod", "s3://{s}-backups-eu"}), "{s}", s)
		text := sub(g.pick([]string{"{s} stores its files in {b}.", "Bucket used by {s}: {b} (versioning on)"}), "{s}", s, "{b}", b)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"where does {s} keep uploaded files?", "which bucket belongs to {s}"}), "{s}", S())},
			ident: []string{b},
			de:    []string{sub("In welchem Bucket speichert {s} Dateien?", "{s}", S())},
			fr:    []string{sub("Dans quel bucket {s} range-t-il ses fichiers ?", "{s}", S())},
		})
	}
	// API version.
	if g.r.IntN(10) < 4 {
		v := fmt.Sprintf("%d.%d", 1+g.r.IntN(4), g.r.IntN(10))
		nv := fmt.Sprintf("%d.%d", 5+g.r.IntN(3), g.r.IntN(10))
		text := sub(g.pick([]string{"{s} API is at version {v}; clients must send the header.", "Current {s} API version: {v}"}), "{s}", s, "{v}", v)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"which API revision does {s} speak?", "what version header do I send to {s}"}), "{s}", S())},
			num:   []string{sub("which API is at {v}", "{v}", v)},
			val:   v,
			ask:   []string{sub("{s} api version", "{s}", S())},
			de:    []string{sub("Welche API-Version hat {s}?", "{s}", S())},
			fr:    []string{sub("Quelle est la version de l'API de {s} ?", "{s}", S())},
			es:    []string{sub("¿Qué versión de API tiene {s}?", "{s}", S())},
			fixes: []string{sub(text, v, nv), sub("{s} released API {n}, the old version is gone.", "{s}", s, "{n}", nv)},
		})
	}
	// Primary and replica: look-alikes.
	if g.r.IntN(10) < 6 {
		hp := g.uniq(func() string {
			return fmt.Sprintf("%s-primary-%d", g.pick([]string{"pg", "mysql", "db"}), 1+g.r.IntN(30))
		})
		hr := g.uniq(func() string {
			return fmt.Sprintf("%s-replica-%d", g.pick([]string{"pg", "mysql", "db"}), 1+g.r.IntN(30))
		})
		form := g.pick([]string{"{s} writes to {h} ({role}).", "{role} database for {s}: {h}", "{s}'s {role} is {h}"})
		a := g.add(&fact{text: sub(form, "{s}", s, "{role}", "primary", "{h}", hp), ident: []string{hp}})
		b := g.add(&fact{text: sub(strings.Replace(form, "writes to", "reads from", 1), "{s}", s, "{role}", "read replica", "{h}", hr), ident: []string{hr}})
		if a != nil && b != nil {
			ss := S()
			a.dist = []string{sub(g.pick([]string{"{s} primary db host", "which server is the writer for {s}?", "where does {s} write its data"}), "{s}", ss)}
			b.dist = []string{sub(g.pick([]string{"{s} read replica host", "which server do {s} reports read from, the replica?", "replica of {s}'s database"}), "{s}", ss)}
			a.fr = []string{sub("Quelle est la base principale de {s} ?", "{s}", ss)}
			b.de = []string{sub("Wo liegt das Read-Replica von {s}?", "{s}", ss)}
		}
	}
	// EU and US instance counts: look-alikes.
	if g.r.IntN(10) < 4 {
		e, u := fmt.Sprint(2+g.r.IntN(8)), fmt.Sprint(2+g.r.IntN(8))
		form := g.pick([]string{"{s} runs {n} pods in the {r} cluster.", "{r} cluster: {s} scaled to {n} instances"})
		a := g.add(&fact{text: sub(form, "{s}", s, "{r}", "EU", "{n}", e)})
		b := g.add(&fact{text: sub(form, "{s}", s, "{r}", "US", "{n}", u)})
		if a != nil && b != nil {
			ss := S()
			a.dist = []string{sub(g.pick([]string{"how many {s} pods in europe?", "{s} instance count EU"}), "{s}", ss)}
			b.dist = []string{sub(g.pick([]string{"how many {s} pods in the US?", "{s} instance count US cluster"}), "{s}", ss)}
			b.es = []string{sub("¿Cuántas instancias de {s} hay en Estados Unidos?", "{s}", ss)}
		}
	}
	// Internal and public URL: look-alikes.
	if g.r.IntN(10) < 3 {
		form := g.pick([]string{"{k} URL of {s}: {u}", "{s} is reachable at {u} ({k})"})
		a := g.add(&fact{text: sub(form, "{s}", s, "{k}", "internal", "{u}", "http://"+s+".svc.cluster.local")})
		b := g.add(&fact{text: sub(form, "{s}", s, "{k}", "public", "{u}", "https://"+s+".shop.example")})
		if a != nil && b != nil {
			ss := S()
			a.dist = []string{sub(g.pick([]string{"in-cluster address of {s}", "how do other pods call {s}?"}), "{s}", ss)}
			b.dist = []string{sub(g.pick([]string{"public endpoint for {s}", "what URL do customers use for {s}?"}), "{s}", ss)}
		}
	}
}

// hClientFacts are the notes about one customer.
func (g *gen) hClientFacts(c string) {
	word := strings.ToLower(strings.Trim(strings.Fields(c)[0], "'&"))
	p, np := g.hPerson(), g.hPerson()
	mail := func(p string) string { return strings.ToLower(strings.Fields(p)[1]) + "@" + word + ".example" }
	form := g.pick([]string{"Main contact at {c}: {p} <{m}>", "{c}'s IT person is {p}, reachable at {m}.", "Talk to {p} ({m}) for anything {c}-related."})
	f := g.add(&fact{text: sub(form, "{c}", c, "{p}", p, "{m}", mail(p)),
		para: []string{sub(g.pick([]string{"who's my counterpart at {c}?", "remind me who I email at {c}", "{c} contact person"}), "{c}", c)},
		de:   []string{sub(g.pick([]string{"Wer ist bei {c} unser Kontakt?", "Kontaktperson bei {c}?"}), "{c}", c)},
		fr:   []string{sub(g.pick([]string{"Qui est notre interlocuteur chez {c} ?", "Contact chez {c} ?"}), "{c}", c)},
		es:   []string{sub(g.pick([]string{"¿Con quién hablo en {c}?", "¿Quién es el contacto de {c}?"}), "{c}", c)},
		fixes: []string{
			sub(form, "{c}", c, "{p}", np, "{m}", mail(np)),
			sub("Update: {p} no longer works at {c}, {n} ({m}) took over.", "{c}", c, "{p}", p, "{n}", np, "{m}", mail(np)),
		},
	})
	if f != nil {
		f.dist = []string{sub(g.pick([]string{"{c} contact email", "who do we email at {c}?"}), "{c}", c)}
	}
	// Contract end.
	if g.r.IntN(10) < 6 {
		m := g.pick([]string{"February", "April", "May", "July", "August", "November", "December"})
		d := fmt.Sprint(1 + g.r.IntN(28))
		text := sub(g.pick([]string{"{c} contract ends {m} {d} — renewal talks start 60 days before.", "Heads-up: the {c} deal expires on {m} {d}.", "{c}: annual contract, end date {m} {d}"}), "{c}", c, "{m}", m, "{d}", d)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"when is the {c} contract up?", "how long is {c} signed with us?"}), "{c}", c)},
			num:  []string{sub(g.pick([]string{"whose deal expires {m} {d}?", "contract ending {m} {d}"}), "{m}", m, "{d}", d)},
			val:  m + " " + d,
			de:   []string{sub("Bis wann läuft der Vertrag mit {c}?", "{c}", c)},
			fr:   []string{sub("Jusqu'à quand court le contrat avec {c} ?", "{c}", c)},
			es:   []string{sub("¿Hasta cuándo dura el contrato con {c}?", "{c}", c)},
		})
	}
	// Users licensed.
	if g.r.IntN(10) < 5 {
		n := fmt.Sprint((g.r.IntN(60) + 1) * 20)
		nn := fmt.Sprint((g.r.IntN(60) + 61) * 20)
		text := sub(g.pick([]string{"{c} has {n} licensed users.", "{c} — {n} user licences, billed yearly", "Licence count for {c}: {n}"}), "{c}", c, "{n}", n)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how big is the {c} account?", "how many people at {c} can log in?"}), "{c}", c)},
			num:   []string{sub("which account has {n} licences", "{n}", n)},
			val:   n,
			ask:   []string{sub("{c} number of licences", "{c}", c)},
			de:    []string{sub("Wie viele Nutzer hat {c} lizenziert?", "{c}", c)},
			fr:    []string{sub("{c} a combien d'utilisateurs ?", "{c}", c)},
			es:    []string{sub("¿Cuántos usuarios tiene {c}?", "{c}", c)},
			fixes: []string{sub(text, n, nn), sub("{c} bought more seats, they're at {m} users as of this month.", "{c}", c, "{m}", nn)},
		})
	}
	// Hosting region.
	if g.r.IntN(10) < 5 {
		r := g.pick(hRegions)
		text := sub(g.pick([]string{"{c} is hosted in our {r} region and must stay there.", "Data of {c} may only live in {r} (DPA)."}), "{c}", c, "{r}", r)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"can I move {c} to another region?", "where do we keep {c}'s data?"}), "{c}", c)},
			de:   []string{sub("Wo werden die Daten von {c} gehostet?", "{c}", c)},
			fr:   []string{sub("Où sont hébergées les données de {c} ?", "{c}", c)},
			es:   []string{sub("¿Dónde se alojan los datos de {c}?", "{c}", c)},
		})
	}
	// Payment terms.
	if g.r.IntN(10) < 4 {
		t := g.pick([]string{"30", "45", "60", "90"})
		text := sub(g.pick([]string{"{c} pays invoices net {t}.", "Payment terms for {c}: net {t} days"}), "{c}", c, "{t}", t)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"how long does {c} have to pay a bill?", "when is a {c} invoice overdue"}), "{c}", c)},
			de:   []string{sub("Welches Zahlungsziel hat {c}?", "{c}", c)},
			es:   []string{sub("¿Cuál es el plazo de pago de {c}?", "{c}", c)},
		})
	}
	// Meetings.
	if g.r.IntN(10) < 5 {
		every := g.pick([]string{"every Monday", "every other Thursday", "once a month", "every second Tuesday", "every quarter"})
		next := g.pick([]string{"every Wednesday", "twice a month", "every other Friday", "every six weeks"})
		text := sub(g.pick([]string{"We have a call with {c} {e}.", "{c} sync happens {e}, Teams link in the invite", "Account review with {c}: {e}"}), "{c}", c, "{e}", every)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"how often do we meet with {c}?", "when's the recurring {c} call?"}), "{c}", c)},
			de:   []string{sub("Wie oft sprechen wir mit {c}?", "{c}", c)},
			fr:   []string{sub("On voit {c} tous les combien ?", "{c}", c)},
			es:   []string{sub("¿Con qué frecuencia hablamos con {c}?", "{c}", c)},
			fixes: []string{
				sub(text, every, next),
				sub("Scratch that: the {c} call is {n} from now on.", "{c}", c, "{n}", next),
			},
		})
	}
	// Support plan.
	if g.r.IntN(10) < 5 {
		tier := g.pick([]string{"Gold", "Silver", "Platinum", "Basic"})
		h := g.pick([]string{"1", "4", "8", "24"})
		text := sub(g.pick([]string{"{c} has {t} support: we answer within {h} h.", "Support tier for {c} = {t} ({h}h first response)"}), "{c}", c, "{t}", tier, "{h}", h)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"how quickly do we owe {c} a reply?", "what support level did {c} buy?"}), "{c}", c)},
			de:   []string{sub("Welchen Support-Plan hat {c}?", "{c}", c)},
			fr:   []string{sub("Quel niveau de support a {c} ?", "{c}", c)},
			es:   []string{sub("¿Qué plan de soporte tiene {c}?", "{c}", c)},
		})
	}
	// Webhook endpoint.
	if g.r.IntN(10) < 4 {
		u := sub("https://hooks.{w}.example/v1/events", "{w}", word)
		text := sub(g.pick([]string{"We send {c} events to {u}.", "{c} webhook target: {u} (HMAC signed)"}), "{c}", c, "{u}", u)
		g.add(&fact{text: text,
			para:  []string{sub("how does {c} get notified of changes?", "{c}", c)},
			ident: []string{u},
			de:    []string{sub("Wohin schicken wir die Webhooks von {c}?", "{c}", c)},
			fr:    []string{sub("Où envoie-t-on les webhooks de {c} ?", "{c}", c)},
		})
	}
}

// hPersonFacts are the notes about one colleague.
func (g *gen) hPersonFacts(p string) {
	fn := strings.Fields(p)[0]
	if g.r.IntN(10) < 6 {
		role := g.pick([]string{"staff engineer", "engineering manager", "product owner", "SRE", "data engineer", "QA lead", "designer"})
		team := g.pick(hTeams)
		text := sub(g.pick([]string{"{p} is our {r} on {t}.", "{p} ({r}, {t} team)", "{p} joined {t} as {r} in spring."}), "{p}", p, "{r}", role, "{t}", team)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"what's {f}'s role?", "what does {p} work on", "which team is {p} on?"}), "{p}", p, "{f}", fn)},
			de:   []string{sub("Was macht {p} bei uns?", "{p}", p)},
			fr:   []string{sub("Quel est le rôle de {p} ?", "{p}", p)},
			es:   []string{sub("¿Qué hace {p} en el equipo?", "{p}", p)},
		})
	}
	if g.r.IntN(10) < 4 {
		city := g.pick(hCities)
		text := sub(g.pick([]string{"{p} works remotely from {c}.", "{p} is in {c}, an hour ahead of London."}), "{p}", p, "{c}", city)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"where is {p} located?", "which city is {f} in"}), "{p}", p, "{f}", fn)},
			de:   []string{sub("Von wo arbeitet {p}?", "{p}", p)},
			es:   []string{sub("¿Desde dónde trabaja {p}?", "{p}", p)},
		})
	}
	if g.r.IntN(10) < 5 {
		handle := g.uniq(func() string {
			return strings.ToLower(fn[:min(4, len(fn))]) + g.pick([]string{"dev", "x", "ops", "io", "_gh"}) + fmt.Sprint(g.r.IntN(90)+10)
		})
		text := sub(g.pick([]string{"{p} is @{h} on GitHub.", "GitHub handle of {p}: @{h}"}), "{p}", p, "{h}", handle)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how do I tag {f} on a pull request?", "what's {p}'s GitHub username"}), "{p}", p, "{f}", fn)},
			ident: []string{"@" + handle, sub("who is @{h}", "{h}", handle)},
		})
	}
	if g.r.IntN(10) < 3 {
		text := sub(g.pick([]string{"{p} is off on Fridays.", "{p} prefers a call over long Slack threads.", "Don't schedule anything with {p} before 10:00, they start late.", "{p} is on sabbatical until September."}), "{p}", p)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"anything to keep in mind when I meet {f}?", "how do I best reach {p}?"}), "{p}", p, "{f}", fn)},
		})
	}
}

// hHostFacts are the notes about one machine.
func (g *gen) hHostFacts(h string) {
	if g.r.IntN(10) < 6 {
		v := g.pick([]string{"Debian 11", "Debian 12", "RHEL 8", "RHEL 9", "Alpine 3.19", "Amazon Linux 2"})
		text := sub(g.pick([]string{"{h} is on {v}, patching on the first Sunday of the month.", "OS of {h}: {v}"}), "{h}", h, "{v}", v)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"what distro does {h} run?", "which operating system is installed on {h}"}), "{h}", h)},
			de:   []string{sub("Welches Linux läuft auf {h}?", "{h}", h)},
			fr:   []string{sub("Quel système tourne sur {h} ?", "{h}", h)},
			es:   []string{sub("¿Qué sistema tiene {h}?", "{h}", h)},
		})
	}
	if g.r.IntN(10) < 6 {
		ip := g.uniq(func() string { return fmt.Sprintf("10.%d.%d.%d", g.r.IntN(4), g.r.IntN(256), 2+g.r.IntN(250)) })
		text := sub(g.pick([]string{"{h} has the private IP {ip}.", "{h} = {ip} (VPN only)"}), "{h}", h, "{ip}", ip)
		g.add(&fact{text: text,
			para:  []string{sub("what's the internal address of {h}?", "{h}", h)},
			ident: []string{ip, sub("who is {ip}", "{ip}", ip)},
			de:    []string{sub("Welche IP hat {h}?", "{h}", h)},
			fr:    []string{sub("Quelle est l'adresse IP de {h} ?", "{h}", h)},
		})
	}
	if g.r.IntN(10) < 5 {
		n := fmt.Sprint([]int{8, 16, 32, 64, 128}[g.r.IntN(5)])
		nn := fmt.Sprint([]int{24, 48, 96, 192}[g.r.IntN(4)])
		form := g.pick([]string{"{h} has {n} GB of RAM.", "memory on {h}: {n}G"})
		text := sub(form, "{h}", h, "{n}", n)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how much memory does {h} have?", "is {h} a big box?"}), "{h}", h)},
			ask:   []string{sub("{h} RAM size", "{h}", h)},
			de:    []string{sub("Wie viel RAM hat {h}?", "{h}", h)},
			fr:    []string{sub("Combien de mémoire a {h} ?", "{h}", h)},
			fixes: []string{sub(form, "{h}", h, "{n}", nn), sub("{h} got upgraded to {m} GB RAM.", "{h}", h, "{m}", nn)},
		})
	}
	if g.r.IntN(10) < 4 {
		who := g.pick([]string{"the SRE team", "platform on-call", "only the DBAs", "anyone in the ops group"})
		text := sub(g.pick([]string{"Shell access to {h}: {w}.", "{h} — login restricted to {w}"}), "{h}", h, "{w}", who)
		g.add(&fact{text: text,
			para: []string{sub("who can log into {h}?", "{h}", h)},
			de:   []string{sub("Wer darf sich auf {h} einloggen?", "{h}", h)},
			es:   []string{sub("¿Quién puede entrar en {h}?", "{h}", h)},
		})
	}
}

// hTeamFacts are the habits of one team.
func (g *gen) hTeamFacts(t string) {
	if g.r.IntN(10) < 8 {
		n := g.pick([]string{"one", "two", "three"})
		nn := g.pick([]string{"four", "five"})
		text := sub(g.pick([]string{"{t} works in {n}-week sprints.", "Sprint length on {t}: {n} weeks", "The {t} folks plan in {n}-week iterations."}), "{t}", t, "{n}", n)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"how long is a {t} sprint?", "what's the iteration length for the {t} team"}), "{t}", t)},
			de:    []string{sub("Wie lang ist ein Sprint im {t}-Team?", "{t}", t)},
			fr:    []string{sub("Quelle est la durée d'un sprint chez {t} ?", "{t}", t)},
			es:    []string{sub("¿Cuánto dura un sprint del equipo {t}?", "{t}", t)},
			fixes: []string{sub(text, n, nn), sub("{t} switched to {m}-week sprints.", "{t}", t, "{m}", nn)},
		})
	}
	if g.r.IntN(10) < 7 {
		d := g.pick([]string{"Tuesday", "Wednesday", "Thursday"})
		nd := g.pick([]string{"Monday", "Friday"})
		h := g.pick([]string{"11:00", "14:30", "16:00"})
		text := sub(g.pick([]string{"{t} demo every {d} at {h}.", "Sprint review of {t}: {d} {h}, everyone welcome"}), "{t}", t, "{d}", d, "{h}", h)
		g.add(&fact{text: text,
			para:  []string{sub(g.pick([]string{"when can I see what {t} built this sprint?", "when is the {t} demo?"}), "{t}", t)},
			de:    []string{sub("Wann ist die Demo von {t}?", "{t}", t)},
			fr:    []string{sub("Quand a lieu la démo de {t} ?", "{t}", t)},
			es:    []string{sub("¿Cuándo es la demo de {t}?", "{t}", t)},
			fixes: []string{sub(text, d, nd), sub("The {t} demo moved to {n}s, same time.", "{t}", t, "{n}", nd)},
		})
	}
	if g.r.IntN(10) < 6 {
		key := g.uniq(func() string { return strings.ToUpper(t[:min(3, len(t))]) + fmt.Sprint(g.r.IntN(9)+1) })
		text := sub(g.pick([]string{"Bugs for {t} go into Linear, team key {k}.", "{t} board: Linear {k}"}), "{t}", t, "{k}", key)
		g.add(&fact{text: text,
			para:  []string{sub("where do I report an issue for {t}?", "{t}", t)},
			ident: []string{"Linear " + key},
		})
	}
	if g.r.IntN(10) < 6 {
		ch := "#team-" + t + g.pick([]string{"", "-eng", "-support"})
		text := sub(g.pick([]string{"Reach {t} in {c} on Slack.", "{t} hangs out in {c}"}), "{t}", t, "{c}", ch)
		g.add(&fact{text: text,
			para:  []string{sub("which Slack channel for {t}?", "{t}", t)},
			ident: []string{ch},
			de:    []string{sub("Welcher Slack-Channel gehört zu {t}?", "{t}", t)},
			es:    []string{sub("¿Cuál es el canal de Slack de {t}?", "{t}", t)},
		})
	}
}

// hRepoFacts are the notes about one repository.
func (g *gen) hRepoFacts(r string) {
	if g.r.IntN(10) < 7 {
		tool := g.pick([]string{"GitHub Actions", "Buildkite", "GitLab CI", "Jenkins", "CircleCI"})
		mins := fmt.Sprint(4 + g.r.IntN(40))
		text := sub(g.pick([]string{"CI for {r} runs on {t} and takes about {m} minutes.", "{r}: {t} pipeline, ~{m} min"}), "{r}", r, "{t}", tool, "{m}", mins)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"how slow is the {r} build?", "which CI does the {r} repo use"}), "{r}", r)},
			de:   []string{sub("Welches CI nutzt das Repo {r}?", "{r}", r)},
			fr:   []string{sub("Quelle CI utilise le dépôt {r} ?", "{r}", r)},
		})
	}
	if g.r.IntN(10) < 5 {
		b := g.pick([]string{"main", "trunk", "develop", "release"})
		text := sub(g.pick([]string{"{r} default branch is {b}; protected, no force-push.", "In {r} we branch off {b}."}), "{r}", r, "{b}", b)
		g.add(&fact{text: text,
			para: []string{sub("which branch do I start from in {r}?", "{r}", r)},
			es:   []string{sub("¿De qué rama parto en {r}?", "{r}", r)},
		})
	}
}

// hMisc are incidents, decisions, commands and the user's preferences.
func (g *gen) hMisc() {
	causes := []string{"a certificate that expired on a Sunday", "a runaway migration that locked the orders table", "a misconfigured autoscaler", "an S3 bucket policy change", "a noisy neighbour on the shared Redis", "a bad deploy of the auth middleware", "the NAT gateway hitting its connection limit", "a leap-second bug in the scheduler"}
	for range 130 {
		id := g.uniq(func() string { return fmt.Sprintf("PM-%d", 100+g.r.IntN(900)) })
		s, cause := g.pick(hServices), g.pick(causes)
		day := fmt.Sprintf("%d %s", 1+g.r.IntN(28), g.pick([]string{"Jan", "Mar", "Apr", "Jun", "Aug", "Sep", "Oct", "Dec"}))
		mins := fmt.Sprint(3 + g.r.IntN(240))
		text := sub(g.pick([]string{"Postmortem {i}: {s} was unavailable {m} min on {d} — {c}.", "{i} ({d}): {c} took {s} down for {m} minutes.", "Incident {i} on {d}, {s}, {m} min, root cause: {c}"}), "{i}", id, "{s}", s, "{d}", day, "{m}", mins, "{c}", cause)
		g.add(&fact{text: text,
			ident: []string{id, sub("{i} root cause", "{i}", id)},
			para:  []string{sub(g.pick([]string{"what broke {s} on {d}?", "do you remember the {s} outage on {d}, what caused it?"}), "{s}", g.hShort(s), "{d}", day)},
			num:   []string{sub("which outage took {m} minutes", "{m}", mins)},
			val:   mins + " min",
			de:    []string{sub("Was ist bei {i} passiert?", "{i}", id)},
			fr:    []string{sub("Que s'est-il passé lors de {i} ?", "{i}", id)},
			es:    []string{sub("¿Qué pasó en {i}?", "{i}", id)},
		})
	}
	decisions := []struct{ a, b, why, area string }{
		{"NATS", "Kafka", "we don't need long retention and ops wanted fewer moving parts", "internal events"},
		{"MySQL", "PostgreSQL", "the vendor's tooling only supports MySQL", "the vendor-sync database"},
		{"OpenTofu", "CloudFormation", "we deploy to two clouds", "infrastructure"},
		{"GraphQL", "REST", "the mobile app needs to batch requests", "the public API"},
		{"Flux", "Argo CD", "we wanted plain Git reconciliation without a UI", "deployments"},
		{"Meilisearch", "Elasticsearch", "the index is small and ops cost matters", "search suggestions"},
		{"Airflow", "Dagster", "the data team already runs it", "batch pipelines"},
		{"Bun", "npm", "installs were slow in CI", "the frontend tooling"},
		{"Vitest", "Jest", "it shares the Vite config", "frontend unit tests"},
		{"Doppler", "Vault", "developers can manage secrets themselves", "secrets"},
		{"DuckDB", "Snowflake", "exports are small and run nightly", "reporting"},
		{"Grafana Tempo", "Jaeger", "it plugs into the Grafana stack we have", "tracing"},
	}
	for _, d := range decisions {
		text := sub(g.pick([]string{"Went with {a} rather than {b} for {x}: {w}.", "{x}: {a} (not {b}), because {w}", "Why {a} for {x}? {w}. {b} was the alternative."}), "{a}", d.a, "{b}", d.b, "{w}", d.why, "{x}", d.area)
		g.add(&fact{text: text,
			para: []string{sub(g.pick([]string{"why aren't we using {b}?", "what made us pick {a}?"}), "{a}", d.a, "{b}", d.b)},
			de:   []string{sub("Warum nutzen wir {a}?", "{a}", d.a)},
			fr:   []string{sub("Pourquoi pas {b} ?", "{b}", d.b)},
			es:   []string{sub("¿Por qué no usamos {b}?", "{b}", d.b)},
		})
	}
	cmds := []struct{ cmd, what, q string }{
		{"make up ENV=dev", "brings up the dev stack with seeded data", "how do I get the whole thing running locally"},
		{"./tools/reset-db.sh --yes", "drops and recreates every local database", "my local db is broken, how do I start fresh"},
		{"just gen-client", "regenerates the TypeScript API client from the OpenAPI spec", "the frontend types are out of date with the API, what do I run"},
		{"kubectl -n core port-forward svc/orders-svc 8080", "exposes the cluster's orders service on localhost", "how can I reach the cluster's order service from my laptop"},
		{"pnpm turbo run build --filter=web...", "builds the web app and everything it depends on", "how to build just the website"},
		{"aws sso login --profile prod-readonly", "gets read-only credentials for production", "how do I look at prod without write access"},
		{"bin/rails db:migrate:status", "lists pending migrations", "which migrations haven't run yet"},
		{"sops -d secrets/prod.enc.yaml", "decrypts the production secrets file", "how do I read the encrypted prod secrets"},
		{"tofu apply -target=module.cdn", "applies only the CDN part of the infrastructure", "change only the CDN infra"},
		{"npx playwright test --grep @smoke", "runs the smoke tests", "run only the quick browser tests"},
		{"gh workflow run nightly.yml -f full=true", "starts the full nightly pipeline by hand", "how do I trigger the nightly job manually"},
		{"mc mirror minio/exports ./exports", "copies the export bucket to disk", "download all the export files"},
		{"redis-cli -n 3 FLUSHDB", "clears the feature-flag cache", "flags aren't updating, how do I clear their cache"},
		{"dotnet ef database update", "applies the EF Core migrations of the billing service", "how do I migrate the billing database"},
		{"go run ./cmd/backfill -from 2024-01-01", "re-sends historical usage events", "how do we replay old usage data"},
		{"helm diff upgrade kyc ./charts/kyc", "shows what a chart upgrade would change", "preview a helm change before applying it"},
	}
	for _, c := range cmds {
		text := sub(g.pick([]string{"`{c}` → {w}", "Command to remember: {c} ({w})", "{w}: {c}"}), "{c}", c.cmd, "{w}", c.what)
		g.add(&fact{text: text,
			ident: []string{c.cmd, sub("what does `{c}` do", "{c}", c.cmd)},
			para:  []string{c.q},
		})
	}
	prefs := []struct{ text, q, de, fr, es string }{
		{"The user wants small PRs, one concern each.", "how big should my pull requests be", "Wie groß sollen PRs sein?", "Quelle taille pour les PR ?", "¿Qué tamaño deben tener los PR?"},
		{"User prefers Go errors wrapped with %w and context, never bare returns.", "how should I handle errors in Go here", "Wie behandle ich Fehler in Go?", "Comment gérer les erreurs en Go ?", "¿Cómo manejo los errores en Go?"},
		{"Dates in the UI are shown as DD.MM.YYYY, stored as ISO 8601.", "what date format do we use", "Welches Datumsformat benutzen wir?", "Quel format de date utilise-t-on ?", "¿Qué formato de fecha usamos?"},
		{"Prices are Decimal in the API, never float; two digits after the point.", "which type do prices have", "Welchen Typ haben Preise?", "Quel type pour les prix ?", "¿Qué tipo tienen los precios?"},
		{"We rebase feature branches, never merge main into them.", "should I merge main into my branch", "Soll ich main in meinen Branch mergen?", "Faut-il fusionner main dans ma branche ?", "¿Hago merge de main en mi rama?"},
		{"No customer emails or phone numbers in logs; hash them.", "is it ok to log the customer's email", "Darf ich E-Mails loggen?", "Peut-on journaliser les e-mails ?", "¿Puedo registrar los correos en los logs?"},
		{"Every public endpoint needs a rate limit and an idempotency key on POST.", "what does every new public route need", "Was braucht jeder öffentliche Endpunkt?", "Que faut-il à chaque route publique ?", "¿Qué necesita cada ruta pública?"},
		{"The user likes answers short, with the command first and the explanation after.", "how does the user want answers written", "Wie soll ich antworten?", "Comment répondre à l'utilisateur ?", "¿Cómo quiere el usuario las respuestas?"},
	}
	for _, p := range prefs {
		g.add(&fact{text: p.text, para: []string{p.q}, de: []string{p.de}, fr: []string{p.fr}, es: []string{p.es}})
	}
}

// heldout builds the held-out project's notes.
func (g *gen) heldout() {
	hosts := map[string]bool{}
	for len(hosts) < 110 {
		hosts[fmt.Sprintf("%s-%s-%d", g.pick([]string{"prod", "stg", "ops"}), g.pick([]string{"db", "app", "batch", "edge", "cache", "build"}), 1+g.r.IntN(16))] = true
	}
	people := map[string]bool{}
	for len(people) < 130 {
		people[g.hPerson()] = true
	}
	repos := []string{"web-app", "mobile", "infra-live", "platform-libs", "data-pipelines", "design-system", "api-gateway-config", "docs-site", "terraform-modules", "ops-scripts", "android-app", "ios-app", "sdk-js", "sdk-python", "load-tests", "e2e-tests"}
	var jobs []func()
	for _, s := range hServices {
		jobs = append(jobs, func() { g.hService(s) })
	}
	for _, c := range hClient {
		jobs = append(jobs, func() { g.hClientFacts(c) })
	}
	for _, p := range sortedKeys(people) {
		jobs = append(jobs, func() { g.hPersonFacts(p) })
	}
	for _, h := range sortedKeys(hosts) {
		jobs = append(jobs, func() { g.hHostFacts(h) })
	}
	for _, t := range hTeams {
		jobs = append(jobs, func() { g.hTeamFacts(t) })
	}
	for _, r := range repos {
		jobs = append(jobs, func() { g.hRepoFacts(r) })
	}
	jobs = append(jobs, g.hMisc)
	g.r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for _, j := range jobs {
		j()
	}
	// The project grows: successors of some services and the subsidiaries of some customers.
	for _, s := range hServices[:30] {
		g.hService(s + "-next")
	}
	for _, c := range hClient[:32] {
		g.hClientFacts(c + " " + g.pick([]string{"Nordics", "Iberia", "APAC"}))
	}
	for _, s := range hServices[20:] {
		g.hService("legacy-" + s)
	}
}
