package main

// The blind2 set: the notes of someone who runs a small agency (client projects, retainers,
// invoices, freelancers, translation vendors) and, beside it, a mobile app with connected
// hardware (devices, firmware, app store releases, test phones, certificates, the shops that
// stock the devices, trade fairs). Written from the six classes' definitions alone, without the
// ranking code or the other sets' templates, after the blind set had been read.
//
// Many notes are look-alikes about different subjects, stored one after the other: two
// clients' contacts, two devices' firmware, two stores' opening hours, the iOS and Android
// versions of one app, two freelancers' day rates. None of them is a version of the other.

import (
	"fmt"
	"slices"
	"strings"
)

var (
	b2first   = []string{"Mia", "Tobi", "Jule", "Niko", "Ayla", "Bastian", "Clara", "Deniz", "Eva", "Finn", "Gloria", "Hannes", "Ida", "Jakob", "Kaja", "Leon", "Maren", "Noah", "Olga", "Pia", "Ruben", "Selin", "Till", "Ulla", "Valentin", "Wiebke", "Yara", "Zeno", "Aurélie", "Bruno", "Camille", "Diego", "Esther", "Félix", "Inès", "Lorenzo", "Marta", "Pablo", "Rocío", "Thibault"}
	b2last    = []string{"Brandt", "Vogel", "Krüger", "Hartmann", "Lange", "Seidel", "Roux", "Girard", "Lemaire", "Navarro", "Ortega", "Vidal", "Sanz", "Keller", "Berg", "Albers", "Fuchs", "Pohl", "Marchand", "Ibarra"}
	b2clients = []string{"Fernwood Bakery", "Kessler Bikes", "Norrland Coffee", "Hollis & Gray", "Tidewater Yoga", "Marigold Dental",
		"Brightside Vets", "Okapi Books", "Larkspur Hotels", "Quayside Fish", "Copperleaf Tea", "Ridgeback Outdoor",
		"Saltmarsh Brewing", "Juniper Legal", "Harbour Kids", "Velvet Moth Records", "Atlas Climbing", "Blue Heron Spa",
		"Pebble & Pine", "Northwind Ferries", "Ostara Florals", "Crumb & Co", "Lumen Opticians", "Wildgrain Pizza",
		"Tallow Candles", "Birchwood School", "Sundial Travel", "Mosaic Museum", "Granite Gym", "Kite Insurance",
		"Hopscotch Toys", "Driftwood Surf", "Plume Cosmetics", "Cinder Records", "Meadowlark Dairy", "Foxglove Gardens",
		"Ironbark Tools", "Sable Fashion", "Tandem Cycles", "Wren Architects", "Zephyr Scooters", "Bramble Deli",
		"Cobalt Dentists", "Elmstead Pharmacy", "Gullwing Taxis", "Hazel Opticals", "Ivywood Care", "Jetty Rentals",
		"Kingfisher Laundry", "Lantern Theatre", "Mistral Wines", "Nettle Kitchen", "Orchard Cider", "Parsnip Farms",
		"Quill Stationery", "Rosehip Bakery", "Sorrel Bistro", "Thistle Pub", "Umber Ceramics", "Vellum Printers",
		"Walnut Furniture", "Yarrow Yarns", "Alder Physio", "Basalt Roofing", "Clementine Catering", "Dune Kites",
		"Ember Sauna", "Flint Barbers", "Garnet Jewellers", "Heron Rowing Club", "Inkwell Tattoo", "Jasper Kennels",
		"Kelp Seafood", "Loam Landscaping", "Magpie Vintage", "Nimbus Drones", "Otter Swim School", "Pewter Antiques",
		"Quartz Salon", "Rook Chess Club", "Saffron Curry House", "Tinker Makerspace"}
	// The app's hardware: a plant and garden kit.
	b2devices = []string{"Sprout Hub", "Soil Probe", "Rain Gauge", "Drip Valve", "Grow Lamp", "Leaf Cam", "Pot Scale", "Frost Tag", "Water Tank Sensor", "Mist Nozzle", "Weather Mast", "Light Meter", "Hose Timer", "Compost Thermometer", "Bee Counter", "Pond Pump", "Greenhouse Vent", "Leak Detector", "Bird Feeder Cam", "Seed Tray Heater", "Lawn Robot Dock", "Window Box Sensor", "CO2 Monitor", "Humidity Puck"}
	b2apps    = []string{"Sprout", "Sprout Pro", "Fernwood Rewards", "Kessler Service", "Atlas Climbing", "Granite Gym", "Sundial Travel", "Okapi Books", "Northwind Ferries", "Tidewater Yoga", "Harbour Kids", "Larkspur Hotels", "Otter Swim School", "Rook Chess Club", "Saffron Curry House", "Ember Sauna", "Driftwood Surf", "Meadowlark Dairy", "Zephyr Scooters", "Gullwing Taxis", "Jetty Rentals", "Blue Heron Spa"}
	b2phones  = []string{"Pixel 7", "Pixel 6a", "iPhone SE 2", "iPhone 13 mini", "iPhone 15", "Galaxy A14", "Galaxy S21", "Moto G54", "Xiaomi Redmi Note 12", "iPad 9th gen", "OnePlus Nord", "Fairphone 4"}
	b2skills  = []string{"Flutter", "SwiftUI", "Kotlin", "illustration", "motion design", "copywriting", "UX research", "BLE firmware", "backend (Go)", "photography", "3D renders", "QA"}
	b2langs   = []struct{ en, de, fr, es string }{
		{"Japanese", "Japanisch", "japonais", "japonés"}, {"Polish", "Polnisch", "polonais", "polaco"}, {"Dutch", "Niederländisch", "néerlandais", "neerlandés"},
		{"Turkish", "Türkisch", "turc", "turco"}, {"Swedish", "Schwedisch", "suédois", "sueco"}, {"Italian", "Italienisch", "italien", "italiano"},
		{"Portuguese", "Portugiesisch", "portugais", "portugués"}, {"Korean", "Koreanisch", "coréen", "coreano"}, {"Czech", "Tschechisch", "tchèque", "checo"},
		{"Danish", "Dänisch", "danois", "danés"}, {"Greek", "Griechisch", "grec", "griego"}, {"Finnish", "Finnisch", "finnois", "finlandés"},
	}
	b2districts = []string{"Kreuzberg", "Neukölln", "Altona", "Schwabing", "Ehrenfeld", "Gràcia", "Malasaña", "Croix-Rousse", "Ixelles", "Vesterbro", "Södermalm", "Prenzlauer Berg", "Eimsbüttel", "Lindenau", "Bockenheim", "Sendling"}
	b2chains    = []string{"GreenCorner", "Plantwerk", "Botanica Shop", "Gartenhaus", "Urban Jungle", "Leafy Lane", "Hortus", "Blattgold", "Pflanzenliebe", "Mr. Greenthumb", "La Serre", "Verdor", "Tuinland", "Gröna Rum", "Ficus & Friends", "Potting Shed"}
	b2fairs     = []string{"IFA", "CES", "Spoga+Gafa", "MWC", "Web Summit", "Slush", "Bits & Pretzels", "Droidcon", "Smashing Conf", "Maker Faire"}
	b2months    = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

func (g *gen) b2person() string { return g.pick(b2first) + " " + g.pick(b2last) }

func slug(s string) string {
	s = strings.ToLower(strings.NewReplacer(" & ", "-", "&", "", " ", "-", "'", "").Replace(s))
	return strings.NewReplacer("é", "e", "è", "e", "í", "i", "ñ", "n", "ü", "u", "ö", "o", "ä", "a").Replace(s)
}

// fix words a correction of one attribute of one subject: the same subject, the same
// attribute, a new value, in the ways people correct themselves.
func (g *gen) fix(subject, attr, now, was string) string {
	forms := []string{
		"actually {s} {a} is {n}, not {o}",
		"update: {s} {a} → {n}",
		"no wait, {s} {a} = {n} (wrote {o} earlier, wrong)",
		"{s}: {a} changed to {n}",
		"it's {n} now for the {s} {a}, not {o}",
		"from next week the {s} {a} is {n}",
		"as of 1 Dec, {s} {a}: {n}",
		"we switched the {s} {a} to {n}",
		"{s} {a} moved to {n} (was {o})",
		"{o} replaced by {n} — {s} {a}",
		"new {a} for {s} is {n}",
		"ignore what I said about the {s} {a}, it's {n}",
		"correction!! {s} {a} = {n}, {o} was the old one",
		"heads up, {s} {a} is {n} from now on 🙃",
	}
	return sub(g.pick(forms), "{s}", subject, "{a}", attr, "{n}", now, "{o}", was)
}

func (g *gen) money(lo, hi, step int) string {
	v := lo + step*g.r.IntN((hi-lo)/step+1)
	if v >= 1000 {
		return fmt.Sprintf("%d,%03d", v/1000, v%1000)
	}
	return fmt.Sprint(v)
}

func (g *gen) date() string {
	return fmt.Sprintf("%d %s", 1+g.r.IntN(28), g.pick(b2months))
}

// b2clientPair stores two clients' contacts one after the other (look-alikes), then each
// client's other notes.
func (g *gen) b2contacts(a, b string) {
	for _, c := range []string{a, b} {
		other := map[string]string{a: b, b: a}[c]
		p, np := g.uniq(g.b2person), g.uniq(g.b2person)
		role := g.pick([]string{"marketing", "owner", "ops", "head of digital", "office mgr"})
		mail := slug(strings.Fields(p)[0]) + "@" + slug(c) + ".example"
		form := g.pick([]string{
			"{c} contact → {p} ({r}), {m}",
			"contact @ {c}: {p}, {r}. prefers email ({m}), hates calls",
			"{c} — main person is {p} ({r}) {m}",
			"note to self: for {c} always go through {p}, not the generic inbox. {m}",
		})
		g.add(&fact{text: sub(form, "{c}", c, "{p}", p, "{r}", role, "{m}", mail),
			para:  []string{sub(g.pick([]string{"who's my contact at {c} again", "who do I email about the {c} project?", "{c} person to talk to?"}), "{c}", c)},
			ident: []string{sub("whose address is {m}", "{m}", mail)},
			de:    []string{sub(g.pick([]string{"Wer ist mein Ansprechpartner bei {c}?", "Wen kontaktiere ich bei {c}?"}), "{c}", c)},
			fr:    []string{sub(g.pick([]string{"C'est qui mon contact chez {c} ?", "À qui j'écris pour le projet {c} ?"}), "{c}", c)},
			es:    []string{sub(g.pick([]string{"¿Quién es mi contacto en {c}?", "¿A quién escribo por el proyecto de {c}?"}), "{c}", c)},
			fixes: []string{g.fix(c, "contact", np, p), sub("{p} left {c} 😬 new contact is {n}", "{p}", p, "{c}", c, "{n}", np)},
			dist:  []string{sub(g.pick([]string{"contact person at {c}?", "email for the {c} contact", "who is it at {c}, the contact I mean (not {o})"}), "{c}", c, "{o}", other)},
		})
	}
}

func (g *gen) b2client(c string) {
	code := strings.ToUpper(slug(c)[:3]) + fmt.Sprintf("-%02d", 10+g.r.IntN(89))
	g.used[code] = true
	// Retainer.
	hours := fmt.Sprint(8 + 4*g.r.IntN(10))
	fee := g.uniq(func() string { return g.money(900, 6900, 10) })
	nfee := g.uniq(func() string { return g.money(900, 6900, 10) })
	g.add(&fact{text: sub(g.pick([]string{
		"{c} retainer: {h}h/month, €{f} net, billed on the 1st",
		"retainer {c} = €{f}/mo for {h} hrs, overtime at day rate",
		"{c} pays €{f} a month (retainer, {h}h incl.)",
	}), "{c}", c, "{h}", hours, "{f}", fee),
		para:  []string{sub(g.pick([]string{"what's the deal with {c} each month", "how much does {c} pay us monthly?"}), "{c}", c)},
		ask:   []string{sub("how big is the {c} retainer?", "{c}", c)},
		num:   []string{sub("which client is on €{f} a month", "{f}", fee)},
		val:   fee,
		de:    []string{sub("Wie hoch ist der Retainer von {c}?", "{c}", c)},
		fr:    []string{sub("Combien {c} nous paie par mois, le retainer ?", "{c}", c)},
		es:    []string{sub("¿Cuánto nos paga {c} al mes de retainer?", "{c}", c)},
		fixes: []string{g.fix(c, "retainer", "€"+nfee+"/mo", "€"+fee)},
	})
	// Project code.
	g.add(&fact{text: sub(g.pick([]string{
		"project code for {c} in the time tracker is {k}",
		"{c} → book hours on {k} (Harvest)",
		"{k} = {c}. don't mix up w/ the internal code",
	}), "{c}", c, "{k}", code),
		para:  []string{sub("which code do I log my {c} time on?", "{c}", c)},
		ident: []string{sub(g.pick([]string{"which client is {k}", "{k} in harvest is what"}), "{k}", code)},
		de:    []string{sub("Auf welchen Projektcode buche ich Stunden für {c}?", "{c}", c)},
		fr:    []string{sub("Sur quel code projet je mets mes heures {c} ?", "{c}", c)},
		es:    []string{sub("¿En qué código de proyecto apunto las horas de {c}?", "{c}", c)},
	})
	// Payment terms.
	if g.r.IntN(3) > 0 {
		d := g.pick([]string{"14", "30", "45", "60"})
		nd := g.pick(slices.DeleteFunc([]string{"14", "30", "45", "60"}, func(x string) bool { return x == d }))
		g.add(&fact{text: sub(g.pick([]string{
			"{c} invoices: net {d}, send to accounts not to the contact!",
			"{c} pays on {d} day terms. always late tbh",
			"payment terms {c} → {d} days",
		}), "{c}", c, "{d}", d),
			para:  []string{sub(g.pick([]string{"how long does {c} have to pay an invoice?", "when should money from {c} arrive after I bill them"}), "{c}", c)},
			de:    []string{sub("Welches Zahlungsziel hat {c}?", "{c}", c)},
			fr:    []string{sub("C'est quoi les délais de paiement de {c} ?", "{c}", c)},
			es:    []string{sub("¿Qué plazo de pago tiene {c}?", "{c}", c)},
			fixes: []string{g.fix(c, "payment terms", "net "+nd, "net "+d)},
		})
	}
	// Slack channel / kickoff / brand.
	switch g.r.IntN(3) {
	case 0:
		ch := "#ext-" + slug(c)
		g.add(&fact{text: sub(g.pick([]string{"{c} has a shared slack channel: {ch}", "talk to {c} in {ch} (slack connect) rather than mail"}), "{c}", c, "{ch}", ch),
			para:  []string{sub("where do we chat with the {c} people", "{c}", c)},
			ident: []string{sub("who's in {ch}", "{ch}", ch)},
			de:    []string{sub("In welchem Slack-Channel reden wir mit {c}?", "{c}", c)},
			fr:    []string{sub("On parle avec {c} sur quel channel Slack ?", "{c}", c)},
			es:    []string{sub("¿En qué canal de Slack hablamos con {c}?", "{c}", c)},
		})
	case 1:
		day := g.pick([]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"})
		nday := g.pick(slices.DeleteFunc([]string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}, func(x string) bool { return x == day }))
		hr := fmt.Sprintf("%d:%s", 9+g.r.IntN(8), g.pick([]string{"00", "30"}))
		g.add(&fact{text: sub(g.pick([]string{"weekly call w/ {c}: {d} {h}", "{c} jour fixe every {d} at {h}, 30 min, zoom", "{d}s {h} = {c} status call"}), "{c}", c, "{d}", day, "{h}", hr),
			para:  []string{sub(g.pick([]string{"when's my regular call with {c}", "what day do I sync with {c}?"}), "{c}", c)},
			de:    []string{sub("Wann ist der wöchentliche Call mit {c}?", "{c}", c)},
			fr:    []string{sub("C'est quand le call hebdo avec {c} ?", "{c}", c)},
			es:    []string{sub("¿Cuándo es la llamada semanal con {c}?", "{c}", c)},
			fixes: []string{g.fix(c, "weekly call", nday+" "+hr, day+" "+hr)},
		})
	default:
		col := fmt.Sprintf("#%02X%02X%02X", g.r.IntN(256), g.r.IntN(256), g.r.IntN(256))
		font := g.pick([]string{"Inter", "Söhne", "GT Walsheim", "Playfair Display", "DM Sans", "Recoleta", "Work Sans", "IBM Plex Serif"})
		g.add(&fact{text: sub(g.pick([]string{"{c} brand: primary {col}, font {f}. logo only on white!!", "brand stuff {c} - colour {col} / type {f}"}), "{c}", c, "{col}", col, "{f}", font),
			para:  []string{sub(g.pick([]string{"what typeface does {c} use", "{c} brand colours?"}), "{c}", c)},
			ident: []string{sub("which brand is {col}", "{col}", col)},
			de:    []string{sub("Welche Schrift und Farbe hat die Marke {c}?", "{c}", c)},
			fr:    []string{sub("C'est quoi la typo et la couleur de {c} ?", "{c}", c)},
			es:    []string{sub("¿Qué tipografía y color usa {c}?", "{c}", c)},
		})
	}
	// Invoices: one or two.
	for range 1 + g.r.IntN(2) {
		inv := g.uniq(func() string { return fmt.Sprintf("INV-2026-%04d", 100+g.r.IntN(900)) })
		amt := g.uniq(func() string { return g.money(400, 19000, 10) })
		due := g.date()
		what := g.pick([]string{"sprint 3", "the relaunch", "hosting Q3", "photo shoot", "app store assets", "the landing page", "workshop", "SEO audit", "newsletter templates", "maintenance"})
		g.add(&fact{text: sub(g.pick([]string{
			"sent {i} to {c}: €{a} for {w}, due {d}",
			"{i} ({c}, {w}) €{a} — due {d}, chase if nothing by then",
			"invoice {c} {w}: {i}, {a} EUR, due {d}",
		}), "{i}", inv, "{c}", c, "{a}", amt, "{w}", what, "{d}", due),
			para:  []string{sub("did I bill {c} for {w} yet?", "{c}", c, "{w}", what)},
			ident: []string{sub(g.pick([]string{"what was {i} for", "{i} amount?", "when is {i} due"}), "{i}", inv)},
			num:   []string{sub("which invoice was €{a}", "{a}", amt)},
			val:   amt,
			de:    []string{sub("Habe ich {c} schon die Rechnung für {w} geschickt?", "{c}", c, "{w}", what)},
			fr:    []string{sub("J'ai déjà facturé {c} pour {w} ?", "{c}", c, "{w}", what)},
			es:    []string{sub("¿Ya le facturé a {c} {w}?", "{c}", c, "{w}", what)},
		})
	}
}

// b2project: one or two projects of a client; two projects' go-live dates are stored one after
// the other.
func (g *gen) b2project(c string) {
	ps := slices.Clone([]string{"website relaunch", "booking app", "online shop", "loyalty app", "newsletter setup", "brand refresh", "kiosk app", "intranet", "menu QR site", "checkout redesign"})
	g.r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	ps = ps[:1+g.r.IntN(2)]
	for i, p := range ps {
		live, nlive := g.date(), g.date()
		for nlive == live {
			nlive = g.date()
		}
		f := &fact{text: sub(g.pick([]string{
			"{c} {p} go-live {d} (hard date, they print flyers)",
			"{c} {p} → launch {d}",
			"deadline {c} {p}: {d}!!",
			"{p} for {c} has to be live by {d}, no slack",
		}), "{c}", c, "{p}", p, "{d}", live),
			para:  []string{sub(g.pick([]string{"when does the {c} {p} launch?", "what's the deadline on the {p} for {c}"}), "{c}", c, "{p}", p)},
			de:    []string{sub("Wann geht der {p} von {c} live?", "{c}", c, "{p}", p)},
			fr:    []string{sub("Le {p} de {c}, c'est pour quand la mise en ligne ?", "{c}", c, "{p}", p)},
			es:    []string{sub("¿Cuándo sale el {p} de {c}?", "{c}", c, "{p}", p)},
			fixes: []string{g.fix(c+" "+p, "go-live", nlive, live), sub("{c} pushed the {p} launch to {n} 🙄", "{c}", c, "{p}", p, "{n}", nlive)},
		}
		if len(ps) == 2 {
			f.dist = []string{sub("go-live of the {c} {p}, not the {o}", "{c}", c, "{p}", p, "{o}", ps[1-i])}
		}
		g.add(f)
	}
	for _, p := range ps {
		bud := g.uniq(func() string { return g.money(3000, 60000, 100) })
		pct := fmt.Sprint(10 + 5*g.r.IntN(18))
		g.add(&fact{text: sub(g.pick([]string{"{c} {p}: €{b} fixed price, ~{x}% burned", "budget {p} ({c}) {b}€, used {x}% so far"}), "{c}", c, "{p}", p, "{b}", bud, "{x}", pct),
			ask: []string{sub("what's the budget for the {c} {p}?", "{c}", c, "{p}", p)},
			num: []string{sub("which project has €{b} budget", "{b}", bud)},
			val: bud,
			de:  []string{sub("Wie viel Budget hat der {p} von {c}?", "{c}", c, "{p}", p)},
			fr:  []string{sub("C'est quoi le budget du {p} de {c} ?", "{c}", c, "{p}", p)},
			es:  []string{sub("¿Qué presupuesto tiene el {p} de {c}?", "{c}", c, "{p}", p)},
		})
		url := "https://" + slug(c) + "-" + slug(p) + ".staging.sprout-studio.dev"
		g.add(&fact{text: sub(g.pick([]string{"staging {c} {p}: {u} (basic auth in 1pw)", "{u} = {c} {p} preview, deploys from main"}), "{c}", c, "{p}", p, "{u}", url),
			para:  []string{sub("where can the client look at the {c} {p} before launch", "{c}", c, "{p}", p)},
			ident: []string{sub("what's on {u}", "{u}", url)},
			de:    []string{sub("Wo ist die Staging-Umgebung für den {p} von {c}?", "{c}", c, "{p}", p)},
			fr:    []string{sub("C'est où le staging du {p} de {c} ?", "{c}", c, "{p}", p)},
			es:    []string{sub("¿Dónde está el staging del {p} de {c}?", "{c}", c, "{p}", p)},
		})
		stack := g.pick([]string{"Astro + Storyblok", "Next.js on Vercel", "Shopify (Dawn theme)", "WordPress + ACF", "Flutter + Firebase", "Kirby CMS", "SwiftUI/Kotlin native", "Webflow", "Nuxt + Directus", "Shopware 6"})
		repo := "git.sprout-studio.dev/clients/" + slug(c) + "/" + slug(p)
		g.add(&fact{text: sub(g.pick([]string{"{c} {p}: {s}, repo {r}", "stack for {p} ({c}) = {s}. code in {r}", "{r} → {c} {p} ({s})"}), "{c}", c, "{p}", p, "{s}", stack, "{r}", repo),
			para:  []string{sub(g.pick([]string{"what is the {c} {p} built on", "which tech did we use for the {p} of {c}?"}), "{c}", c, "{p}", p)},
			ident: []string{sub("what's in {r}", "{r}", repo)},
			de:    []string{sub("Mit welchem Stack ist der {p} von {c} gebaut?", "{c}", c, "{p}", p)},
			fr:    []string{sub("Le {p} de {c} est fait avec quelle stack ?", "{c}", c, "{p}", p)},
			es:    []string{sub("¿Con qué stack está hecho el {p} de {c}?", "{c}", c, "{p}", p)},
		})
		if g.r.IntN(2) == 0 {
			who, skill := g.b2person(), g.pick(b2skills)
			g.add(&fact{text: sub(g.pick([]string{"{w} does the {s} on {c} {p}", "{c} {p} team: me + {w} ({s})"}), "{c}", c, "{p}", p, "{w}", who, "{s}", skill),
				para: []string{sub("who's helping me on the {p} for {c}", "{c}", c, "{p}", p)},
				de:   []string{sub("Wer arbeitet mit mir am {p} für {c}?", "{c}", c, "{p}", p)},
				fr:   []string{sub("Qui bosse avec moi sur le {p} de {c} ?", "{c}", c, "{p}", p)},
				es:   []string{sub("¿Quién trabaja conmigo en el {p} de {c}?", "{c}", c, "{p}", p)},
			})
		}
	}
}

// b2event: an event at a client's (a workshop, a shoot, a launch party).
func (g *gen) b2event(c string) {
	e := g.pick([]string{"workshop", "photo shoot", "launch party", "staff training", "user testing session", "strategy day"})
	when := g.date()
	at := g.pick([]string{"their shop", "their HQ", "our office", "a rented loft", "the Kulturhaus", "online"})
	bring := g.pick([]string{"the demo kit", "2 test phones", "the projector adapter", "printed wireframes", "the gimbal", "post-its + sharpies", "the consent forms"})
	g.add(&fact{text: sub(g.pick([]string{"{c} {e} on {d} at {a} — bring {b}", "{e} w/ {c}: {d}, {a}. don't forget {b}!", "{d}: {c} {e} ({a}) → pack {b}"}), "{c}", c, "{e}", e, "{d}", when, "{a}", at, "{b}", bring),
		para:  []string{sub(g.pick([]string{"what do I need to take to the {c} {e}?", "where is the {e} with {c}"}), "{c}", c, "{e}", e)},
		de:    []string{sub("Was muss ich zum {e} bei {c} mitnehmen?", "{c}", c, "{e}", e)},
		fr:    []string{sub("Je dois apporter quoi au {e} chez {c} ?", "{c}", c, "{e}", e)},
		es:    []string{sub("¿Qué tengo que llevar al {e} de {c}?", "{c}", c, "{e}", e)},
		fixes: []string{g.fix(c+" "+e, "date", g.date(), when), sub("{c} moved the {e} to {n}, same place", "{c}", c, "{e}", e, "{n}", g.date())},
	})
}

// b2billing: a client's VAT ID and billing address, and who decides there.
func (g *gen) b2billing(c string) {
	vat := g.uniq(func() string { return fmt.Sprintf("DE%09d", g.r.IntN(1000000000)) })
	street := g.pick([]string{"Hauptstr.", "Am Hafen", "Lindenallee", "Bahnhofstr.", "Rue des Lilas", "Calle Mayor", "Marktplatz", "Gartenweg"})
	city := g.pick([]string{"Berlin", "Hamburg", "Leipzig", "Köln", "Freiburg", "Münster", "Bremen", "Mainz", "Kassel", "Rostock"})
	addr := fmt.Sprintf("%s %d, %s", street, 1+g.r.IntN(120), city)
	g.add(&fact{text: sub(g.pick([]string{"{c} billing: {a}, VAT {v}", "invoice address {c} → {a} / USt-ID {v}"}), "{c}", c, "{a}", addr, "{v}", vat),
		para:  []string{sub("what address goes on the {c} invoices", "{c}", c)},
		ident: []string{sub("whose VAT number is {v}", "{v}", vat)},
		de:    []string{sub("Welche Rechnungsadresse hat {c}?", "{c}", c)},
		fr:    []string{sub("C'est quoi l'adresse de facturation de {c} ?", "{c}", c)},
		es:    []string{sub("¿Cuál es la dirección de facturación de {c}?", "{c}", c)},
	})
	if g.r.IntN(2) == 0 {
		hate := g.pick([]string{"stock photos", "Comic Sans jokes", "long decks", "calls before 10", "emoji in emails", "dark mode", "carousels", "pop-ups"})
		g.add(&fact{text: sub(g.pick([]string{"{c}: the boss signs off everything, and they HATE {h}", "careful w/ {c} — no {h}, ever"}), "{c}", c, "{h}", hate),
			para: []string{sub("anything to avoid when pitching to {c}?", "{c}", c)},
			de:   []string{sub("Was sollte ich bei {c} vermeiden?", "{c}", c)},
			fr:   []string{sub("Qu'est-ce qu'il faut éviter avec {c} ?", "{c}", c)},
			es:   []string{sub("¿Qué tengo que evitar con {c}?", "{c}", c)},
		})
	}
}

// b2deviceMore: a device's sampling interval and certification.
func (g *gen) b2deviceMore(d string) {
	iv := g.pick([]string{"30s", "1 min", "5 min", "10 min", "15 min", "1 h"})
	niv := g.pick(slices.DeleteFunc([]string{"30s", "1 min", "5 min", "10 min", "15 min", "1 h"}, func(x string) bool { return x == iv }))
	g.add(&fact{text: sub(g.pick([]string{"{d} reports every {i} by default (configurable in app)", "{d} sample interval = {i}"}), "{d}", d, "{i}", iv),
		para:  []string{sub("how often does the {d} send data", "{d}", d)},
		de:    []string{sub("Wie oft schickt der {d} Messwerte?", "{d}", d)},
		fr:    []string{sub("Le {d} envoie ses mesures tous les combien ?", "{d}", d)},
		es:    []string{sub("¿Cada cuánto manda datos el {d}?", "{d}", d)},
		fixes: []string{g.fix(d, "default interval", niv, iv)},
	})
	cert := g.uniq(func() string { return fmt.Sprintf("CE-%s-%04d", strings.ToUpper(slug(d)[:2]), g.r.IntN(10000)) })
	lab := g.pick([]string{"TÜV Süd", "Dekra", "Bureau Veritas", "SGS", "Intertek"})
	g.add(&fact{text: sub(g.pick([]string{"{d} CE report {c} from {l}, keep PDF in Drive/compliance", "compliance {d}: {l}, report no {c}"}), "{d}", d, "{c}", cert, "{l}", lab),
		para:  []string{sub("which lab certified the {d}", "{d}", d)},
		ident: []string{sub("{c} is the report for what", "{c}", cert)},
		de:    []string{sub("Welches Labor hat den {d} zertifiziert?", "{d}", d)},
		fr:    []string{sub("Quel labo a certifié le {d} ?", "{d}", d)},
		es:    []string{sub("¿Qué laboratorio certificó el {d}?", "{d}", d)},
	})
}

// b2device: one hardware device (the firmware notes of two revisions come one after the other).
func (g *gen) b2device(d string) {
	revs := []string{"rev B", "rev C"}
	fws := []string{}
	for range revs {
		fws = append(fws, g.uniq(func() string { return fmt.Sprintf("%d.%d.%d", 1+g.r.IntN(4), g.r.IntN(20), g.r.IntN(30)) }))
	}
	nfw := g.uniq(func() string { return fmt.Sprintf("%d.%d.%d", 1+g.r.IntN(4), g.r.IntN(20), g.r.IntN(30)) })
	for i, rev := range revs {
		other := revs[1-i]
		fw := fws[i]
		g.add(&fact{text: sub(g.pick([]string{
			"{d} {r} firmware = {v} (stable channel)",
			"fw {d} {r}: {v} is what's shipping",
			"{d} ({r}) runs firmware {v} in prod",
			"{d} {r} → fw {v}, OTA pushed to everyone",
		}), "{d}", d, "{r}", rev, "{v}", fw),
			num:   []string{sub("which device runs fw {v}", "{v}", fw)},
			val:   fw,
			ask:   []string{sub("what firmware is on the {d} {r}?", "{d}", d, "{r}", rev)},
			de:    []string{sub("Welche Firmware-Version läuft auf dem {d} {r}?", "{d}", d, "{r}", rev)},
			fr:    []string{sub("Quelle version du firmware sur le {d} {r} ?", "{d}", d, "{r}", rev)},
			es:    []string{sub("¿Qué versión de firmware tiene el {d} {r}?", "{d}", d, "{r}", rev)},
			fixes: []string{g.fix(d+" "+rev, "firmware", nfw, fw)},
			dist:  []string{sub("firmware version of the {d} {r} (not the {o})", "{d}", d, "{r}", rev, "{o}", other)},
		})
	}
	// BLE name and pairing.
	ble := g.uniq(func() string { return fmt.Sprintf("SPRT-%s-%02X", strings.ToUpper(slug(d)[:2]), g.r.IntN(256)) })
	g.add(&fact{text: sub(g.pick([]string{"{d} advertises as {b}xxxx over BLE, pairing = hold button 5s", "BLE name prefix for the {d}: {b} (then 4 hex chars)"}), "{d}", d, "{b}", ble),
		para:  []string{sub(g.pick([]string{"how do I pair a {d}", "what does the {d} show up as when scanning"}), "{d}", d)},
		ident: []string{sub("which device advertises {b}", "{b}", ble)},
		de:    []string{sub("Wie heißt der {d} beim Bluetooth-Scan?", "{d}", d)},
		fr:    []string{sub("Sous quel nom le {d} apparaît en Bluetooth ?", "{d}", d)},
		es:    []string{sub("¿Con qué nombre aparece el {d} por Bluetooth?", "{d}", d)},
	})
	// Battery life.
	months := fmt.Sprint(3 + g.r.IntN(22))
	g.add(&fact{text: sub(g.pick([]string{"{d} battery lasts ~{m} months on 2xAA (lab figure, real life less)", "battery {d}: {m} mo. customers complain anyway"}), "{d}", d, "{m}", months),
		ask: []string{sub("how long does a {d} battery last?", "{d}", d)},
		de:  []string{sub("Wie lange hält die Batterie vom {d}?", "{d}", d)},
		fr:  []string{sub("Combien de temps tient la batterie du {d} ?", "{d}", d)},
		es:  []string{sub("¿Cuánto dura la batería del {d}?", "{d}", d)},
	})
	// Supplier and unit cost.
	cost := g.uniq(func() string { return fmt.Sprintf("%d.%02d", 4+g.r.IntN(40), g.r.IntN(100)) })
	ncost := g.uniq(func() string { return fmt.Sprintf("%d.%02d", 4+g.r.IntN(40), g.r.IntN(100)) })
	sup := g.pick([]string{"Shenzhen Lianda", "Elecrow", "Seeed Fusion", "PCBWay", "Jabil Poland", "Kitron"})
	g.add(&fact{text: sub(g.pick([]string{"{d} BOM ≈ ${c}/unit @ 1k pcs, made by {s}", "unit cost {d}: ${c} ({s}, MOQ 1000)"}), "{d}", d, "{c}", cost, "{s}", sup),
		ask:   []string{sub(g.pick([]string{"what does one {d} cost us to make", "{d} cost per unit?"}), "{d}", d)},
		num:   []string{sub("which part costs ${c}", "{c}", cost)},
		val:   cost,
		de:    []string{sub("Was kostet uns ein {d} in der Herstellung?", "{d}", d)},
		fr:    []string{sub("Combien coûte un {d} à fabriquer ?", "{d}", d)},
		es:    []string{sub("¿Cuánto nos cuesta fabricar un {d}?", "{d}", d)},
		fixes: []string{g.fix(d, "unit cost", "$"+ncost, "$"+cost)},
	})
	// Known bug with an error code.
	code := g.uniq(func() string { return fmt.Sprintf("E%d", 10+g.r.IntN(90)) })
	why := g.pick([]string{"sensor not calibrated", "flash full, needs factory reset", "OTA image checksum mismatch", "wifi handshake timeout", "low battery during update", "clock drift > 5 min"})
	g.add(&fact{text: sub(g.pick([]string{"{d} error {e} = {w}", "if a {d} blinks {e} it's {w}. tell support"}), "{d}", d, "{e}", code, "{w}", why),
		ident: []string{sub("{d} blinking {e} means?", "{d}", d, "{e}", code)},
		para:  []string{sub("{d} shows an error, {w}?", "{d}", d, "{w}", why)},
		de:    []string{sub("Was bedeutet Fehler {e} beim {d}?", "{d}", d, "{e}", code)},
		fr:    []string{sub("Ça veut dire quoi l'erreur {e} sur le {d} ?", "{d}", d, "{e}", code)},
		es:    []string{sub("¿Qué significa el error {e} en el {d}?", "{d}", d, "{e}", code)},
	})
}

// b2app: one app's iOS and Android releases, stored one after the other.
func (g *gen) b2app(a string) {
	plats := []string{"iOS", "Android"}
	vers := []string{}
	for range plats {
		vers = append(vers, g.uniq(func() string { return fmt.Sprintf("%d.%d.%d", 1+g.r.IntN(6), g.r.IntN(15), g.r.IntN(10)) })+"")
	}
	for i, p := range plats {
		v := vers[i]
		nv := g.uniq(func() string { return fmt.Sprintf("%d.%d.%d", 1+g.r.IntN(6), g.r.IntN(15), g.r.IntN(10)) })
		g.add(&fact{text: sub(g.pick([]string{
			"{a} {p} live version: {v}",
			"{a} app ({p}) → {v} in the store",
			"{p} {a} is on {v} rn",
			"latest {a} {p} release = {v} ✅",
		}), "{a}", a, "{p}", p, "{v}", v),
			ask:   []string{sub("what version is the {a} {p} app on?", "{a}", a, "{p}", p)},
			num:   []string{sub("which app is on {v}", "{v}", v)},
			val:   v,
			de:    []string{sub("Welche Version hat die {a} App auf {p}?", "{a}", a, "{p}", p)},
			fr:    []string{sub("L'app {a} sur {p}, elle est en quelle version ?", "{a}", a, "{p}", p)},
			es:    []string{sub("¿Qué versión tiene la app {a} en {p}?", "{a}", a, "{p}", p)},
			fixes: []string{g.fix(a+" "+p, "version", nv, v), sub("shipped {a} {n} on {p} 🎉", "{a}", a, "{n}", nv, "{p}", p)},
			dist:  []string{sub("{a} {p} version, the {p} one", "{a}", a, "{p}", p)},
		})
	}
	bundle := "com." + strings.ReplaceAll(slug(a), "-", "") + ".app"
	if g.used[bundle] {
		return
	}
	g.used[bundle] = true
	g.add(&fact{text: sub(g.pick([]string{"bundle id {a}: {b} (same on both stores)", "{a} → {b}"}), "{a}", a, "{b}", bundle),
		ident: []string{sub("which app is {b}", "{b}", bundle)},
		para:  []string{sub("what's the store package name of {a}?", "{a}", a)},
		de:    []string{sub("Wie lautet die Bundle-ID von {a}?", "{a}", a)},
		fr:    []string{sub("C'est quoi le bundle id de {a} ?", "{a}", a)},
		es:    []string{sub("¿Cuál es el bundle id de {a}?", "{a}", a)},
	})
	exp := g.date() + " 2027"
	nexp := g.date() + " 2027"
	g.add(&fact{text: sub(g.pick([]string{"APNs cert for {a} expires {d} — renew 2 weeks before!", "push cert {a} (apple) valid till {d}"}), "{a}", a, "{d}", exp),
		para:  []string{sub("when do I need to renew the {a} push certificate", "{a}", a)},
		de:    []string{sub("Wann läuft das Push-Zertifikat von {a} ab?", "{a}", a)},
		fr:    []string{sub("Le certificat push de {a} expire quand ?", "{a}", a)},
		es:    []string{sub("¿Cuándo caduca el certificado push de {a}?", "{a}", a)},
		fixes: []string{g.fix(a, "APNs cert expiry", nexp, exp)},
	})
	rating := fmt.Sprintf("%d.%d", 3+g.r.IntN(2), g.r.IntN(10))
	g.add(&fact{text: sub(g.pick([]string{"{a} rating on play store {r}★ (mostly pairing complaints)", "{a} android rating: {r}"}), "{a}", a, "{r}", rating),
		ask: []string{sub("how is {a} rated on Google Play?", "{a}", a)},
		de:  []string{sub("Wie ist die Bewertung von {a} im Play Store?", "{a}", a)},
		fr:  []string{sub("Quelle note a {a} sur le Play Store ?", "{a}", a)},
		es:  []string{sub("¿Qué nota tiene {a} en la Play Store?", "{a}", a)},
	})
}

// b2shops: two stores of one chain that stock the devices; their hours one after the other.
func (g *gen) b2shops(chain, d1, d2 string) {
	hrs := func() string {
		return fmt.Sprintf("%d–%d", 8+g.r.IntN(3), 17+g.r.IntN(5))
	}
	for _, d := range []string{d1, d2} {
		other := map[string]string{d1: d2, d2: d1}[d]
		s := chain + " " + d
		h, sat, nh := hrs(), fmt.Sprintf("%d–%d", 9+g.r.IntN(2), 13+g.r.IntN(4)), hrs()
		for nh == h {
			nh = hrs()
		}
		g.add(&fact{text: sub(g.pick([]string{
			"{s} open Mo–Fr {h}, Sa {sa}, Sun closed",
			"opening hrs {s}: weekdays {h} / sat {sa}",
			"{s} — {h} (Sat {sa}). drop demo units before noon",
		}), "{s}", s, "{h}", h, "{sa}", sat),
			para:  []string{sub(g.pick([]string{"when can I drop stuff off at {s}?", "is {s} open saturday"}), "{s}", s)},
			de:    []string{sub("Wann hat {s} geöffnet?", "{s}", s)},
			fr:    []string{sub("Quels sont les horaires de {s} ?", "{s}", s)},
			es:    []string{sub("¿Qué horario tiene {s}?", "{s}", s)},
			fixes: []string{g.fix(s, "weekday hours", nh, h)},
			dist:  []string{sub("opening hours of the {c} in {d} (not {o})", "{c}", chain, "{d}", d, "{o}", other)},
		})
	}
	// Stock and store manager.
	for _, d := range []string{d1, d2} {
		s := chain + " " + d
		if g.r.IntN(2) == 0 {
			continue
		}
		m := g.b2person()
		units := fmt.Sprint(6 + g.r.IntN(60))
		g.add(&fact{text: sub(g.pick([]string{"{s}: manager {m}, has {u} starter kits on consignment", "{m} runs {s}. {u} kits there (consignment, settle quarterly)"}), "{s}", s, "{m}", m, "{u}", units),
			para: []string{sub("who manages the {s} store", "{s}", s)},
			ask:  []string{sub("how many kits does {s} hold for us?", "{s}", s)},
			de:   []string{sub("Wer leitet den Laden {s}?", "{s}", s)},
			fr:   []string{sub("Qui gère la boutique {s} ?", "{s}", s)},
			es:   []string{sub("¿Quién lleva la tienda {s}?", "{s}", s)},
		})
	}
}

// b2freelancers: two freelancers of one skill, their rates one after the other.
func (g *gen) b2freelancers(skill string) {
	a, b := g.uniq(g.b2person), g.uniq(g.b2person)
	for _, p := range []string{a, b} {
		other := map[string]string{a: b, b: a}[p]
		r := g.uniq(func() string { return fmt.Sprint(300 + 5*g.r.IntN(240)) })
		nr := g.uniq(func() string { return fmt.Sprint(300 + 5*g.r.IntN(240)) })
		g.add(&fact{text: sub(g.pick([]string{
			"{p} ({s} freelancer) day rate €{r}",
			"freelancer {p} - {s} - {r}€/day, invoices monthly",
			"{p}: {s}, €{r}/day. good, a bit slow on feedback",
		}), "{p}", p, "{s}", skill, "{r}", r),
			ask:   []string{sub(g.pick([]string{"what does {p} charge per day?", "{p} day rate?"}), "{p}", p)},
			num:   []string{sub("which freelancer is €{r} a day", "{r}", r)},
			val:   r,
			de:    []string{sub("Was ist der Tagessatz von {p}?", "{p}", p)},
			fr:    []string{sub("C'est combien le TJM de {p} ?", "{p}", p)},
			es:    []string{sub("¿Cuánto cobra {f} por día?", "{f}", p)},
			fixes: []string{g.fix(p, "day rate", "€"+nr, "€"+r), sub("{p} raised the day rate, it's €{n} now (was {r})", "{p}", p, "{n}", nr, "{r}", r)},
			dist:  []string{sub("day rate of {p} (the {s} one, not {o})", "{p}", p, "{s}", skill, "{o}", other)},
		})
	}
	for _, p := range []string{a, b} {
		mail := slug(strings.Join(strings.Fields(p), ".")) + "@" + g.pick([]string{"gmail.com", "posteo.de", "proton.me", "studio-" + slug(strings.Fields(p)[1]) + ".de"})
		g.add(&fact{text: sub(g.pick([]string{"{p} → {m}, invoices via email only", "contact {p}: {m} / signal for urgent stuff", "{p} {m}"}), "{p}", p, "{m}", mail),
			para:  []string{sub(g.pick([]string{"how do I reach {p}", "{p}'s email?"}), "{p}", p)},
			ident: []string{sub("who is {m}", "{m}", mail)},
			de:    []string{sub("Wie erreiche ich {p}?", "{p}", p)},
			fr:    []string{sub("Comment je contacte {p} ?", "{p}", p)},
			es:    []string{sub("¿Cómo contacto con {p}?", "{p}", p)},
		})
		if g.r.IntN(3) == 0 {
			continue
		}
		city := g.pick([]string{"Leipzig", "Lisbon", "Valencia", "Lyon", "Kraków", "Tallinn", "Bilbao", "Graz", "Gent", "Bologna"})
		away := g.date()
		g.add(&fact{text: sub(g.pick([]string{"{p} is in {c}, off from {d} for 3 weeks", "{p} ({c}) away from {d}, ask early"}), "{p}", p, "{c}", city, "{d}", away),
			para: []string{sub("when is {p} on holiday", "{p}", p)},
			de:   []string{sub("Wann ist {p} im Urlaub?", "{p}", p)},
			fr:   []string{sub("{p} part en vacances quand ?", "{p}", p)},
			es:   []string{sub("¿Cuándo se va {p} de vacaciones?", "{p}", p)},
		})
	}
}

func (g *gen) b2phone(model string, n, of int) {
	tag := g.uniq(func() string { return fmt.Sprintf("TD-%03d", 10+g.r.IntN(300)) })
	who := g.b2person()
	nwho := g.b2person()
	osv := map[bool]string{true: "iOS " + fmt.Sprint(15+g.r.IntN(4)), false: "Android " + fmt.Sprint(11+g.r.IntN(4))}[strings.HasPrefix(model, "iP")]
	name := model
	if of > 1 {
		name = fmt.Sprintf("%s #%d", model, n+1)
	}
	g.add(&fact{text: sub(g.pick([]string{
		"test phone {t} {m} ({o}) is with {w}",
		"{m} [{t}], {o} → lent to {w}",
		"{w} has the {m} {t} ({o}), give back after release",
	}), "{t}", tag, "{m}", name, "{o}", osv, "{w}", who),
		ident: []string{sub("who has {t}", "{t}", tag)},
		para:  []string{sub("who's got the {m} test phone", "{m}", name)},
		de:    []string{sub("Wer hat gerade das Testgerät {m}?", "{m}", name)},
		fr:    []string{sub("Qui a le téléphone de test {m} ?", "{m}", name)},
		es:    []string{sub("¿Quién tiene el móvil de pruebas {m}?", "{m}", name)},
		fixes: []string{g.fix(name+" test phone", "holder", nwho, who), sub("{w} gave the {m} back, {n} took it", "{w}", who, "{m}", name, "{n}", nwho)},
	})
}

func (g *gen) b2vendor(l struct{ en, de, fr, es string }) {
	v := g.pick([]string{"Lingua", "Wordbridge", "Translatio", "Babelhaus", "Polyglot", "Textwerk", "Alphatrad", "Tradux"}) + " " + g.pick([]string{"GmbH", "Ltd", "SARL", "SL", "Studio"})
	rate := g.uniq(func() string { return fmt.Sprintf("0.%02d", 5+g.r.IntN(30)) })
	nrate := g.uniq(func() string { return fmt.Sprintf("0.%02d", 5+g.r.IntN(30)) })
	days := fmt.Sprint(2 + g.r.IntN(8))
	g.add(&fact{text: sub(g.pick([]string{
		"{l} translations → {v}, €{r}/word, {d} working days",
		"{v} does our {l} strings. {r} €/word, turnaround {d}d",
	}), "{l}", l.en, "{v}", v, "{r}", rate, "{d}", days),
		para:  []string{sub(g.pick([]string{"who translates the app into {l}", "{l} copy, which agency?"}), "{l}", l.en)},
		ask:   []string{sub("how much per word for {l}?", "{l}", l.en)},
		de:    []string{sub("Wer übersetzt unsere Texte ins {l}?", "{l}", l.de)},
		fr:    []string{sub("Qui fait nos traductions en {l} ?", "{l}", l.fr)},
		es:    []string{sub("¿Quién nos traduce al {l}?", "{l}", l.es)},
		fixes: []string{g.fix(l.en+" translation", "rate", "€"+nrate+"/word", "€"+rate)},
	})
}

func (g *gen) b2fair(f string) {
	booth := g.uniq(func() string {
		return fmt.Sprintf("Hall %d, %s%d", 1+g.r.IntN(26), g.pick([]string{"A", "B", "C", "D"}), 100+g.r.IntN(400))
	})
	when := g.date()
	hotel := g.pick([]string{"Motel One", "Ibis Centre", "the Airbnb near the venue", "Meininger", "NH Collection", "25hours"})
	g.add(&fact{text: sub(g.pick([]string{"{f} 2027: booth {b}, build-up {d}", "{f} → we're at {b}. arrive {d} for setup"}), "{f}", f, "{b}", booth, "{d}", when),
		para:  []string{sub(g.pick([]string{"where's our stand at {f}?", "{f} booth?"}), "{f}", f)},
		ident: []string{sub("which fair is {b}", "{b}", booth)},
		de:    []string{sub("Wo ist unser Stand auf der {f}?", "{f}", f)},
		fr:    []string{sub("Notre stand au salon {f}, c'est où ?", "{f}", f)},
		es:    []string{sub("¿Dónde está nuestro stand en la feria {f}?", "{f}", f)},
		fixes: []string{g.fix(f, "booth", g.uniq(func() string { return fmt.Sprintf("Hall %d, %s%d", 1+g.r.IntN(26), "E", 100+g.r.IntN(400)) }), booth)},
	})
	g.add(&fact{text: sub(g.pick([]string{"{f} hotel: {h}, booked for 3 nights", "staying at {h} during {f}"}), "{f}", f, "{h}", hotel),
		para: []string{sub("where am I sleeping for {f}", "{f}", f)},
		de:   []string{sub("In welchem Hotel schlafe ich während der {f}?", "{f}", f)},
		fr:   []string{sub("Je dors où pendant le {f} ?", "{f}", f)},
		es:   []string{sub("¿En qué hotel me quedo durante la {f}?", "{f}", f)},
	})
}

func (g *gen) b2domainCert(c string) {
	dom := slug(c) + g.pick([]string{".de", ".com", ".shop", ".eu"})
	exp := g.date() + " 2027"
	host := g.pick([]string{"Netlify", "Hetzner", "Vercel", "IONOS", "Strato", "Uberspace"})
	g.add(&fact{text: sub(g.pick([]string{"{d} hosted on {h}, TLS cert till {e} (auto-renew off!!)", "site {d}: {h}. cert expires {e}"}), "{d}", dom, "{h}", host, "{e}", exp),
		para:  []string{sub("where does the {c} website live", "{c}", c)},
		ident: []string{sub("when does the {d} cert run out", "{d}", dom)},
		de:    []string{sub("Wo ist die Website von {c} gehostet?", "{c}", c)},
		fr:    []string{sub("Le site de {c} est hébergé où ?", "{c}", c)},
		es:    []string{sub("¿Dónde está alojada la web de {c}?", "{c}", c)},
		fixes: []string{g.fix(dom, "hosting", g.pick(slices.DeleteFunc([]string{"Netlify", "Hetzner", "Vercel", "IONOS", "Strato", "Uberspace"}, func(x string) bool { return x == host })), host)},
	})
}

func (g *gen) b2misc() {
	for _, m := range []struct{ text, para, de, fr, es string }{
		{"office wifi: 'sprout-guest', pw on the fridge", "what's the guest wifi in the office", "Wie heißt das Gäste-WLAN im Büro?", "C'est quoi le wifi invités au bureau ?", "¿Cuál es el wifi de invitados de la oficina?"},
		{"accountant = Frau Lindner, Steuerbüro Lindner, VAT return by the 10th each month", "who does our taxes", "Wer macht unsere Steuern?", "Qui s'occupe de notre compta ?", "¿Quién nos lleva la contabilidad?"},
		{"Apple dev account renewal 99$/yr on the company amex, due every March", "when is the apple developer membership due", "Wann muss der Apple-Developer-Account verlängert werden?", "Quand renouveler le compte développeur Apple ?", "¿Cuándo se renueva la cuenta de desarrollador de Apple?"},
		{"play console: internal track first, then 10% staged rollout, then 100% after 48h w/o crashes", "how do we roll out android releases", "Wie rollen wir Android-Releases aus?", "Comment on déploie les releases Android ?", "¿Cómo hacemos el rollout de las releases de Android?"},
		{"courier for device returns: DHL Express, account no. in 1Password 'DHL biz'", "which courier do we use for returns", "Welchen Kurierdienst nehmen wir für Retouren?", "On utilise quel transporteur pour les retours ?", "¿Qué mensajería usamos para las devoluciones?"},
		{"FCC ID for the hub still pending, CE done in Aug. don't ship to US yet!!", "can we sell the hub in the US yet", "Dürfen wir den Hub schon in den USA verkaufen?", "On peut déjà vendre le hub aux États-Unis ?", "¿Podemos vender ya el hub en EE. UU.?"},
		{"coworking desk renewal: 280€/mo, cancel by the 15th for next month", "how much is my coworking desk", "Was kostet mein Coworking-Platz?", "Combien coûte mon poste en coworking ?", "¿Cuánto cuesta mi puesto de coworking?"},
		{"stickers + packaging printer: Druckerei Baumann, 5 working days, ask for Jens", "who prints our packaging", "Wer druckt unsere Verpackungen?", "Qui imprime nos emballages ?", "¿Quién imprime nuestros embalajes?"},
	} {
		g.add(&fact{text: m.text, para: []string{m.para}, de: []string{m.de}, fr: []string{m.fr}, es: []string{m.es}})
	}
}

// blind2 makes the set's notes, interleaved the way they pile up over a year.
func (g *gen) blind2() {
	var jobs []func()
	cl := slices.Clone(b2clients)
	g.r.Shuffle(len(cl), func(i, j int) { cl[i], cl[j] = cl[j], cl[i] })
	for i := 0; i+1 < len(cl); i += 2 {
		a, b := cl[i], cl[i+1]
		jobs = append(jobs, func() { g.b2contacts(a, b) })
	}
	for _, c := range b2clients {
		jobs = append(jobs, func() { g.b2client(c) }, func() { g.b2project(c) }, func() { g.b2billing(c) })
		if g.r.IntN(3) > 0 {
			jobs = append(jobs, func() { g.b2event(c) })
		}
		if g.r.IntN(2) == 0 {
			jobs = append(jobs, func() { g.b2domainCert(c) })
		}
	}
	for _, d := range b2devices {
		jobs = append(jobs, func() { g.b2device(d) }, func() { g.b2deviceMore(d) })
	}
	for _, a := range b2apps {
		jobs = append(jobs, func() { g.b2app(a) })
	}
	for i, ch := range b2chains {
		d1, d2 := b2districts[(2*i)%len(b2districts)], b2districts[(2*i+1)%len(b2districts)]
		d3, d4 := b2districts[(2*i+5)%len(b2districts)], b2districts[(2*i+10)%len(b2districts)]
		jobs = append(jobs, func() { g.b2shops(ch, d1, d2) }, func() { g.b2shops(ch, d3, d4) })
	}
	for _, s := range b2skills {
		jobs = append(jobs, func() { g.b2freelancers(s) }, func() { g.b2freelancers(s) }, func() { g.b2freelancers(s) })
	}
	for _, m := range b2phones {
		of := 1 + g.r.IntN(3)
		for n := range of {
			jobs = append(jobs, func() { g.b2phone(m, n, of) })
		}
	}
	for _, l := range b2langs {
		jobs = append(jobs, func() { g.b2vendor(l) })
	}
	for _, f := range b2fairs {
		jobs = append(jobs, func() { g.b2fair(f) })
	}
	jobs = append(jobs, g.b2misc)
	g.r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for _, j := range jobs {
		j()
	}
}

// writeBlind2 stores each correction after the note it corrects: right after it a third of the
// time (a slip fixed at once), otherwise some way later.
func (g *gen) writeBlind2(out string) {
	g.writeLater(out, func(i, n int, _ Memory) int {
		if g.r.IntN(3) == 0 {
			return i
		}
		return i + g.r.IntN(n-i)
	})
}
