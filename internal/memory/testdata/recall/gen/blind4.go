package main

// The blind4 set: the notes the two owners of a small online shop for homeware and gifts keep —
// products with their SKUs, shelves, prices and barcodes, suppliers and their lead times,
// couriers and account numbers, the shop's apps, payment providers and payouts, ad campaigns
// and their budgets, the unit and the garage, returns rules per sales channel, VAT in a few
// countries, marketplaces, freelancers, recurring chores and the odd incident. Written from the
// six classes' definitions in main.go's header alone, without the ranking code or the other
// sets' templates.

import (
	"fmt"
	"slices"
	"strings"
)

// b4t is one kind of note: its phrasings and the questions it answers, with {placeholders}
// filled per subject. A fix that starts with "!" fixes a slip and is stored right after the
// note; the others come weeks later.
type b4t struct {
	text, para, ident, num, ask, de, fr, es, fixes, dist []string
	val                                                  string
	// lang is the percent of subjects asked about in German, French or Spanish (0: all of
	// them), so the most common notes do not crowd out the others.
	lang int
}

// b4slip are the corrections stored right after the note they correct.
var b4slip = map[string]bool{}

func (g *gen) b4fact(t b4t, text string, kv []string) *fact {
	f := &fact{text: text, para: subAll(t.para, kv...), ident: subAll(t.ident, kv...),
		num: subAll(t.num, kv...), ask: subAll(t.ask, kv...), de: subAll(t.de, kv...),
		fr: subAll(t.fr, kv...), es: subAll(t.es, kv...), val: sub(t.val, kv...)}
	for _, x := range subAll(t.fixes, kv...) {
		if s, ok := strings.CutPrefix(x, "!"); ok {
			b4slip[s] = true
			x = s
		}
		f.fixes = append(f.fixes, x)
	}
	return f
}

// b4 stores one note of kind t about one subject, now and then with a typo.
func (g *gen) b4(t b4t, kv ...string) *fact {
	text := g.b4case(sub(g.pick(t.text), kv...))
	if g.r.IntN(14) == 0 {
		text = g.b4typo(text)
	}
	f := g.b4fact(t, text, kv)
	if t.lang > 0 && g.r.IntN(100) >= t.lang {
		f.de, f.fr, f.es = nil, nil, nil
	}
	return g.add(f)
}

// b4twins stores the same kind of note, in the same words, about two subjects that differ in a
// qualifier (small and large, 2025 and 2026, the unit and the garage); each names the other as
// its twin.
func (g *gen) b4twins(t b4t, a, b []string) {
	i := g.r.IntN(len(t.text))
	ta, tb := sub(t.text[i], a...), sub(t.text[i], b...)
	if g.r.IntN(2) == 0 {
		ta, tb = b4cap(ta), b4cap(tb)
	}
	fa := g.b4fact(t, ta, a)
	fb := g.b4fact(t, tb, b)
	fa.dist, fb.dist = subAll(t.dist, a...), subAll(t.dist, b...)
	fa, fb = g.add(fa), g.add(fb)
	if fa != nil && fb != nil {
		fa.twin, fb.twin = fb.key, fa.key
	} else {
		for _, f := range []*fact{fa, fb} {
			if f != nil {
				f.dist = nil
			}
		}
	}
}

// b4case capitalises half the notes that start with a name: people are not consistent.
func (g *gen) b4case(s string) string {
	if g.r.IntN(2) == 0 {
		return b4cap(s)
	}
	return s
}

func b4cap(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// b4typo swaps two letters inside one long lowercase word, as fast typing does.
func (g *gen) b4typo(s string) string {
	w := strings.Fields(s)
	var can []int
	for i, x := range w {
		if len(x) >= 6 && strings.Trim(x, "abcdefghijklmnopqrstuvwxyz") == "" {
			can = append(can, i)
		}
	}
	if len(can) == 0 {
		return s
	}
	i := can[g.r.IntN(len(can))]
	b := []byte(w[i])
	j := 1 + g.r.IntN(len(b)-3)
	b[j], b[j+1] = b[j+1], b[j]
	w[i] = string(b)
	return strings.Join(w, " ")
}

var (
	b4colours = []string{"sage", "ochre", "charcoal", "blush", "navy", "oatmeal", "terracotta", "ivory", "forest green", "rust", "slate blue", "mustard", "dusky pink", "teal", "sand", "plum"}
	b4items   = [][2]string{{"linen tea towel", "TT"}, {"stoneware mug", "MG"}, {"oak serving board", "SB"}, {"brass candle holder", "CH"}, {"wool cushion cover", "CC"}, {"cotton throw", "TH"}, {"ceramic planter", "PL"}, {"glass bud vase", "BV"}, {"cork coaster set", "CS"}, {"linen napkin set", "NS"}, {"table runner", "TR"}, {"enamel jug", "JG"}, {"seagrass basket", "BK"}, {"cast iron doorstop", "DS"}, {"canvas apron", "AP"}, {"oven glove", "OG"}, {"soy candle", "SC"}, {"wall hook", "WH"}, {"photo frame", "PF"}, {"trinket dish", "TD"}, {"serving bowl", "BW"}, {"side plate set", "PS"}, {"hot water bottle cover", "HB"}, {"hanging decoration", "HD"}, {"greetings card", "GC"}, {"notebook", "NB"}, {"tote bag", "TB"}, {"wax melt set", "WM"}, {"reed diffuser", "RD"}, {"knitted bauble", "KB"}}
	b4supA    = []string{"Hollins", "Brightwater", "Kettle & Fern", "Norrland", "Atelier Sauvage", "Brandt", "Tiwari", "Porto Linho", "Moss Lane", "Caldera", "Whitlock", "Fenwick", "Oakhurst", "Lumo", "Haverly", "Saltmarsh", "Bramble", "Greyfield", "Kasbah", "Ridley", "Dovecote", "Pemberton", "Ashgrove", "Larkspur", "Tanaka Kogei", "Verdigris", "Cobble", "Marigold"}
	b4supB    = []string{"Ceramics", "Textiles", "Wood Co", "Homeware", "Trading", "Crafts", "Studio", "Imports", "Candle Co", "Paper Goods"}
	b4first   = []string{"Priya", "Tomasz", "Hannah", "Kofi", "Lena", "Marco", "Aisha", "Dev", "Ruth", "Oscar", "Imogen", "Felix", "Nadia", "Callum", "Zara", "Hugo", "Elif", "Rory", "Maeve", "Jonah", "Saskia", "Theo", "Ines", "Mira", "Bea", "Yusuf"}
	// b4contacts are the first names of people at suppliers and marketplaces, none of them a
	// freelancer's: "what's Lena's email" has one answer.
	b4contacts = []string{"Graham", "Sophie", "Anil", "Claire", "Pierre", "Katja", "Luis", "Meera", "Stefan", "Chloe", "Wen", "Amelie", "Dario", "Jess", "Tobias", "Nkechi"}
	b4last     = []string{"Ashworth", "Nowak", "Clarke", "Mensah", "Berg", "Conti", "Rahman", "Patel", "Doyle", "Lindgren", "Hart", "Kramer", "Haddad", "Reid", "Malik", "Fontaine", "Yilmaz", "Byrne", "Quinn", "Adler", "Vos", "Marsh", "Ortega", "Sato"}
	b4months   = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	b4days     = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday"}
)

// b4money is a price in pounds with pence, such as 14.95.
func (g *gen) b4money(lo, hi int) string {
	return fmt.Sprintf("%d.%s", lo+g.r.IntN(hi-lo+1), g.pick([]string{"00", "50", "95", "99", "45", "25", "75", "20"}))
}

func (g *gen) b4num(lo, hi int) string { return fmt.Sprint(lo + g.r.IntN(hi-lo+1)) }

func (g *gen) b4shelf() string {
	return g.uniq(func() string {
		return fmt.Sprintf("%c%d-%d", 'A'+rune(g.r.IntN(14)), 1+g.r.IntN(12), 1+g.r.IntN(5))
	})
}

func (g *gen) b4digits(n int) string {
	var b strings.Builder
	b.WriteByte(byte('1' + g.r.IntN(9)))
	for range n - 1 {
		b.WriteByte(byte('0' + g.r.IntN(10)))
	}
	return b.String()
}

func (g *gen) b4id(f func() string) string { return g.uniq(f) }

// Product notes. {n} is how the notes name a product, {q} how questions do ("large sage oak
// serving board" for the note's "sage oak serving board (large)").
var (
	b4shelfNote = b4t{
		text: []string{"{n}: SKU {sku}, shelf {shelf}", "{n} ({sku}) lives on shelf {shelf} in the unit", "sku {sku} = {n}, location {shelf}", "Put the {n} stock on {shelf}. SKU is {sku}.", "{sku} {n} -> {shelf}"},
		para: []string{"where do we keep the {q}?", "where's the {q} stock", "{q} shelf location", "can't find the {q} in the unit, which shelf?", "where do I pick the {q} from"},
		ident: []string{"where is {sku} shelved", "{sku} location", "which product is {sku}?", "what's on shelf {shelf}", "shelf {shelf} contents",
			"what sits on {shelf}?", "{sku} shelf"},
		de:    []string{"In welchem Regal liegt {de}?", "Wo finde ich {deA} im Lager?", "Wo lagern wir das {n}?"},
		fr:    []string{"On range où {fr} ?", "Dans quel rayonnage se trouve {fr} ?", "Le {n}, il est sur quelle étagère ?"},
		es:    []string{"¿En qué estante está {es}?", "¿Dónde guardamos {es}?", "¿Dónde está el {n} en el almacén?"},
		lang:  50,
		fixes: []string{"{n} moved to shelf {shelf2} (was {shelf})", "moved {sku} {n} from {shelf} to {shelf2} to make room for Christmas stock", "!typo above: {n} is on {shelf2}, not {shelf}", "as of this week the {n} ({sku}) is on {shelf2}", "{n} no longer on {shelf}, it's on {shelf2} now"},
		dist:  []string{"where do we keep the {q}?", "shelf for the {q}, not the {other} one", "{q} location", "which shelf is the {q} on"},
	}
	b4priceNote = b4t{
		text:  []string{"{n}: cost £{cost}, retail £{price}", "We pay £{cost} a unit for the {n} and sell it at £{price}.", "{n} — landed cost £{cost} / RRP £{price}", "price {n} £{price} (cost {cost})"},
		ask:   []string{"what do we sell the {q} for?", "retail price {q}", "how much is the {q} on the website", "what's the RRP on the {q}", "{q} price"},
		num:   []string{"which product retails at £{price}?", "what do we sell for £{price}"},
		val:   "£{price}",
		de:    []string{"Was kostet {de} bei uns im Shop?", "Zu welchem Preis verkaufen wir {deA}?", "Wie viel kostet das {n} im Shop?"},
		fr:    []string{"On vend {fr} à combien ?", "C'est quoi le prix de vente {frDu} ?", "Le {n}, il est à combien sur le site ?"},
		es:    []string{"¿A cuánto vendemos {es}?", "¿Qué precio tiene {es} en la tienda?", "¿Cuánto cuesta el {n} en la web?"},
		fixes: []string{"price rise: {n} now £{priceUp} (was £{price})", "as of {month} the {n} retails at £{priceUp}", "!correction: {n} RRP is £{price2}, I typed the old one", "{n} dropped to £{priceDown} to shift old stock"},
		dist:  []string{"what do we sell the {q} for?", "{base} price, the {qual} one", "{q} retail price"},
	}
	b4supplierNote = b4t{
		text:  []string{"{n} comes from {sup}", "Supplier for {n}: {sup}", "{n} — made by {sup}, order through them", "we buy the {n} from {sup}"},
		para:  []string{"who makes the {q}?", "supplier for {q}", "where do we get the {q} from", "who do I reorder the {q} from"},
		de:    []string{"Von welchem Lieferanten kommt {de}?", "Wer stellt {deA} für uns her?", "Bei wem bestellen wir das {q}?"},
		fr:    []string{"Qui est le fournisseur {frDu} ?", "On commande {fr} chez qui ?", "Le {q}, on l'achète chez quel fournisseur ?"},
		es:    []string{"¿Quién nos fabrica {es}?", "¿A qué proveedor le compramos {es}?", "¿A quién le pedimos el {q}?"},
		lang:  25,
		fixes: []string{"switched the {n} to {sup2} — {sup} discontinued it", "no longer buying {n} from {sup}; {sup2} from now on", "turns out the {n} is made by {sup2}, {sup} only resold it"},
	}
	b4reorderNote = b4t{
		text:  []string{"{n}: reorder at {rop} units", "Reorder point for {n} is {rop}", "When {n} stock gets down to {rop}, reorder.", "rop {n} = {rop}"},
		ask:   []string{"at what stock level do we reorder the {q}?", "{q} reorder point", "how low can {q} stock go before we reorder", "when should I reorder the {q}"},
		num:   []string{"which product do we reorder at {rop} units"},
		val:   "{rop} units",
		de:    []string{"Ab welchem Bestand bestellen wir {deA} nach?", "Ab wie vielen Stück müssen wir das {q} nachbestellen?"},
		fr:    []string{"À partir de combien de pièces en stock on recommande {fr} ?", "Seuil de réassort pour le {q} ?"},
		es:    []string{"¿Con cuántas unidades en stock hay que volver a pedir {es}?", "¿Cuándo toca reponer el {q}?"},
		fixes: []string{"raised the {n} reorder point to {rop2} (was {rop}) after it sold out in December", "{n}: reorder at {rop2} now, {rop} was too tight", "as of {month}, {n} reorder point is {rop2}"},
	}
	b4weightNote = b4t{
		text:  []string{"{n}: {w} g packed, {box} box", "Packed weight of the {n} is {w}g (in a {box} box)", "{n} weighs {w} g boxed up", "weight {n} {w}g incl. packaging"},
		ask:   []string{"how heavy is the {q} once packed", "packed weight {q}", "what does the {q} weigh for postage", "{q} shipping weight"},
		de:    []string{"Wie schwer ist {de} verpackt?", "Versandgewicht vom {n}?"},
		fr:    []string{"{fr}, ça pèse combien une fois dans le carton ?", "Poids du colis pour le {n} ?"},
		es:    []string{"¿Cuánto pesa {es} ya embalado?", "¿Qué peso tiene el {n} para el envío?"},
		fixes: []string{"re-weighed the {n} with the new tissue and card: {w2} g", "{n} packed weight is {w2} g now we use the thicker box (was {w})"},
		dist:  []string{"packed weight of the {q}", "how heavy is the {base} boxed, the {qual} one", "{q} weight for postage"},
	}
	b4eanNote = b4t{
		text:  []string{"EAN for {n}: {ean}", "{n} barcode {ean}", "{n} — EAN {ean}"},
		para:  []string{"barcode for the {q}", "what's the barcode number on the {q}", "{q} barcode"},
		ident: []string{"which product has barcode {ean}", "{ean}", "scanned {ean}, what is it?", "barcode {ean} product"},
		de:    []string{"Welche EAN hat {de}?", "Welcher Barcode gehört zum {q}?"},
		fr:    []string{"C'est quoi le code-barres {frDu} ?", "L'EAN du {q} ?"},
		es:    []string{"¿Cuál es el código de barras {esDel}?", "¿Qué EAN tiene el {q}?"},
		lang:  50,
	}
)

func (g *gen) b4product(name, item, prefix string, sups []string) {
	l := b4itemL[item]
	c := b4colourL[strings.TrimSuffix(name, " "+item)]
	kv := func(n, q, qual, other string) []string {
		de := l[0] + " in " + c[0]
		fr := l[1] + " " + c[1]
		es := l[2] + " color " + c[2]
		if t, ok := b4qualL[qual]; ok {
			de, fr, es = de+" ("+t[0]+")", fr+" ("+t[1]+")", es+" ("+t[2]+")"
		}
		return []string{"{n}", n, "{q}", q, "{qual}", qual, "{other}", other, "{base}", name,
			"{de}", de, "{deA}", b4acc(de), "{fr}", fr, "{frDu}", b4du(fr), "{es}", es, "{esDel}", b4del(es)}
	}
	vals := func(qual string) []string {
		fit := slices.DeleteFunc(slices.Clone(sups), func(s string) bool {
			return !slices.ContainsFunc(b4makers[item], func(k string) bool { return strings.HasSuffix(s, k) })
		})
		sup := g.pick(fit)
		sup2 := g.pick(fit)
		for sup2 == sup {
			sup2 = g.pick(fit)
		}
		rop := 5 + 5*g.r.IntN(8)
		price := 16 + g.r.IntN(33)
		// Packed weight: the item's own, give or take, more for the bigger versions.
		w := b4grams[item] * (85 + g.r.IntN(40)) / 100
		switch qual {
		case "large":
			w = w * 16 / 10
		case "set of 4":
			w = w * 32 / 10
		case "gift-boxed":
			w += 120
		}
		w = 10 * (w/10 + 1)
		box := []string{"mailer", "flat", "S"}
		switch {
		case w > 1200:
			box = []string{"L", "XL"}
		case w > 600:
			box = []string{"M", "L"}
		case w > 200:
			box = []string{"S", "M"}
		}
		return []string{"{sku}", g.uniq(func() string { return prefix + "-" + g.b4digits(4) }), "{shelf}", g.b4shelf(), "{shelf2}", g.b4shelf(),
			"{cost}", g.b4money(1, 12), "{price}", fmt.Sprintf("%d.%s", price, g.pick([]string{"00", "50", "95", "99", "45", "25", "75", "20"})), "{price2}", g.b4money(16, 52), "{priceUp}", fmt.Sprintf("%d.%s", price+2+g.r.IntN(8), g.pick([]string{"00", "50", "95", "99"})), "{priceDown}", fmt.Sprintf("%d.%s", price-2-g.r.IntN(6), g.pick([]string{"00", "50", "99"})), "{month}", g.pick(b4months),
			"{sup}", sup, "{sup2}", sup2, "{rop}", fmt.Sprint(rop), "{rop2}", fmt.Sprint(rop + 5 + 5*g.r.IntN(4)),
			"{w}", fmt.Sprint(w), "{w2}", fmt.Sprint(w + 10 + 10*g.r.IntN(8)), "{box}", g.pick(box),
			"{ean}", g.uniq(func() string { return "50" + g.b4digits(11) })}
	}
	// A product sold in two sizes has look-alike notes for each size.
	if g.r.IntN(5) == 0 {
		qs := [][2]string{{"small", "large"}, {"single", "set of 4"}, {"standard", "gift-boxed"}}
		q := qs[g.r.IntN(len(qs))]
		a := slices.Concat(kv(name+" ("+q[0]+")", q[0]+" "+name, q[0], q[1]), vals(q[0]))
		b := slices.Concat(kv(name+" ("+q[1]+")", q[1]+" "+name, q[1], q[0]), vals(q[1]))
		g.b4twins(b4shelfNote, a, b)
		g.b4twins(b4priceNote, a, b)
		if g.r.IntN(2) == 0 {
			g.b4twins(b4weightNote, a, b)
		}
		g.b4(b4supplierNote, slices.Concat(kv(name, name, "", ""), a[22:])...)
		return
	}
	v := slices.Concat(kv(name, name, "", ""), vals(""))
	g.b4(b4shelfNote, v...)
	for _, t := range []b4t{b4priceNote, b4supplierNote, b4reorderNote, b4weightNote, b4eanNote} {
		if g.r.IntN(10) < 6 {
			g.b4(t, v...)
		}
	}
}

// Supplier notes.
var (
	b4leadNote = b4t{
		text:  []string{"{s} lead time {lt} weeks", "{s}: allow {lt} weeks from PO to delivery", "Lead time from {s} is about {lt} weeks (longer before Christmas).", "lead time - {s} - {lt} wks"},
		ask:   []string{"how long do {s} take to deliver?", "{s} lead time", "how far ahead do I have to order from {s}", "if I order from {s} today when does it arrive", "supplier lead time {s}"},
		de:    []string{"Wie lange braucht {s} von der Bestellung bis zur Lieferung?", "Wie viele Wochen Vorlauf brauchen wir bei {s}?", "Lieferzeit {s}"},
		fr:    []string{"Quel est le délai de livraison chez {s} ?", "Il faut compter combien de semaines avec {s} ?", "délai fournisseur {s}"},
		es:    []string{"¿Cuánto tarda {s} en entregar un pedido?", "¿Con cuántas semanas de antelación hay que pedir a {s}?", "plazo de entrega {s}"},
		fixes: []string{"{s} lead time now {lt2} weeks (was {lt}) — they moved factory", "turns out {s} need {lt2} weeks, not {lt}", "!{s}: {lt2} weeks lead time, not {lt} — misread their email", "as of {month} {s} quote {lt2} weeks lead time"},
	}
	b4moqNote = b4t{
		text:  []string{"{s} MOQ {moq} units per design", "Minimum order with {s} is {moq} pieces.", "{s}: min order {moq}", "{s} won't take orders under {moq} units"},
		ask:   []string{"minimum order with {s}", "what's the smallest order {s} will accept", "{s} MOQ", "how many units do I need to order from {s} at least"},
		num:   []string{"which supplier has a minimum order of {moq}"},
		val:   "{moq}",
		de:    []string{"Was ist die Mindestbestellmenge bei {s}?"},
		fr:    []string{"Quelle est la quantité minimum de commande chez {s} ?"},
		es:    []string{"¿Cuál es el pedido mínimo de {s}?"},
		fixes: []string{"{s} dropped their MOQ to {moq2} (was {moq})", "{s} minimum order is now {moq2} units", "no longer {moq} minimum at {s} — {moq2} since {month}"},
	}
	b4contactNote = b4t{
		text:  []string{"{s} contact: {p}, {email}", "At {s} talk to {p} ({email}).", "{s} — {p} <{email}>", "Our person at {s} is {p}, email {email}"},
		para:  []string{"who do I talk to at {s}?", "{s} contact email", "email for {s}", "who's our contact at {s}", "supplier contact {s}"},
		ident: []string{"who is {email}", "{email}", "got a mail from {email}, which supplier is that?"},
		de:    []string{"Wer ist unser Ansprechpartner bei {s}?", "An wen schreibe ich bei {s}?"},
		fr:    []string{"C'est qui notre contact chez {s} ?", "J'écris à qui chez {s} ?"},
		es:    []string{"¿Quién es nuestro contacto en {s}?", "¿A quién le escribo en {s}?"},
		fixes: []string{"{s}: {p} left, new contact is {p2} ({email2})", "new contact at {s} from {month}: {p2}, {email2}", "{p} no longer at {s} — ask {p2} instead ({email2})"},
	}
	b4termsNote = b4t{
		text:  []string{"{s} payment terms: {terms}", "{s} invoices are {terms}.", "We pay {s} {terms}", "terms w/ {s}: {terms}"},
		para:  []string{"how do we pay {s}", "{s} payment terms", "do {s} want paying upfront?", "when is a {s} invoice due"},
		de:    []string{"Welche Zahlungsbedingungen haben wir mit {s}?"},
		fr:    []string{"Quelles sont nos conditions de paiement avec {s} ?"},
		es:    []string{"¿Qué condiciones de pago tenemos con {s}?"},
		fixes: []string{"{s} now want {terms2} (no longer {terms})", "as of {month} {s} terms changed to {terms2}", "{s} moved us to {terms2} after six months of paying on time"},
	}
	b4acctNote = b4t{
		text:  []string{"our customer no. with {s} is {acct}", "{s} account number {acct}", "{s}: quote account {acct} on POs", "Account ref at {s} = {acct}"},
		para:  []string{"our account number at {s}", "what's our customer number with {s}", "{s} customer ref for purchase orders"},
		ident: []string{"which supplier is account {acct}", "{acct}", "customer number {acct}, whose is it?"},
		de:    []string{"Wie lautet unsere Kundennummer bei {s}?"},
		fr:    []string{"C'est quoi notre numéro client chez {s} ?"},
		es:    []string{"¿Cuál es nuestro número de cliente en {s}?"},
	}
)

var b4terms = []string{"30 days from invoice", "50% deposit, balance before shipping", "pro forma, pay before dispatch", "net 60", "14 days", "end of month following", "card on order", "30% deposit, 70% on delivery"}

func (g *gen) b4supplier(s string) {
	t := g.pick(b4terms)
	t2 := g.pick(b4terms)
	for t2 == t {
		t2 = g.pick(b4terms)
	}
	lt := 2 + g.r.IntN(12)
	moq := 12 * (1 + g.r.IntN(25))
	dom := strings.ToLower(strings.NewReplacer(" & ", "", " ", "").Replace(s)) + g.pick([]string{".co.uk", ".com", ".de", ".fr", ".pt", ".in"})
	var p, p2 string
	mail := func(p *string) func() string {
		return func() string {
			*p = g.pick(b4contacts) + " " + g.pick(b4last)
			f := strings.Fields(strings.ToLower(*p))
			return g.pick([]string{f[0], f[0] + "." + f[1], f[0][:1] + f[1], "orders"}) + "@" + dom
		}
	}
	e1, e2 := g.uniq(mail(&p)), g.uniq(mail(&p2))
	kv := []string{"{s}", s, "{lt}", fmt.Sprint(lt), "{lt2}", fmt.Sprint(lt + 1 + g.r.IntN(5)), "{month}", g.pick(b4months),
		"{moq}", fmt.Sprint(moq), "{moq2}", fmt.Sprint(moq / 2), "{p}", p, "{p2}", p2, "{email}", e1, "{email2}", e2, "{terms}", t, "{terms2}", t2,
		"{acct}", g.uniq(func() string { return g.pick([]string{"C", "CUST", "HH", ""}) + g.b4digits(5) })}
	g.b4(b4leadNote, kv...)
	for _, t := range []b4t{b4moqNote, b4contactNote, b4termsNote, b4acctNote} {
		if g.r.IntN(10) < 7 {
			g.b4(t, kv...)
		}
	}
}

// Courier notes.
var (
	b4courierAcct = b4t{
		text:  []string{"{c} account no. {acct}", "{c} business account: {acct}", "Our {c} account number is {acct}.", "{c} acct {acct}"},
		para:  []string{"our {c} account number", "courier account number {c}", "what's the {c} account", "I need our {c} account for the booking form"},
		ident: []string{"whose account is {acct}", "{acct}", "account {acct} which courier"},
		de:    []string{"Wie ist unsere Kundennummer bei {c}?", "{c} Kundennummer"},
		fr:    []string{"C'est quoi notre numéro de compte {c} ?", "numéro de compte transporteur {c}"},
		es:    []string{"¿Cuál es nuestro número de cuenta de {c}?", "número de cuenta {c}"},
	}
	b4courierPickup = b4t{
		text:  []string{"{c} collect from the unit around {time}, Mon–Fri", "{c} collection: {time} weekdays", "{c} driver comes at {time}, have the bags by the door", "pickup {c} ~{time}"},
		ask:   []string{"what time does {c} pick up", "{c} collection time", "when do I need the {c} parcels ready by", "when does the {c} driver come"},
		de:    []string{"Um wie viel Uhr holt {c} die Pakete ab?"},
		fr:    []string{"À quelle heure passe {c} pour l'enlèvement ?"},
		es:    []string{"¿A qué hora recoge {c} los paquetes?"},
		fixes: []string{"{c} collection moved to {time2} (was {time})", "from next week {c} come at {time2}", "!{c} pickup is {time2}, not {time}", "{c} no longer come at {time} — new slot {time2}"},
	}
	b4courierClaim = b4t{
		text:  []string{"lost {c} parcel: claim within {days} days via {how}", "{c} claims — {days} days from dispatch, {how}", "To claim for a lost or damaged {c} parcel: {how}. Deadline {days} days."},
		ask:   []string{"how long do we have to claim for a lost {c} parcel", "{c} claim deadline", "how do I claim for a damaged {c} parcel", "how to claim a lost parcel {c}"},
		de:    []string{"Wie reiche ich bei {c} eine Reklamation für ein verlorenes Paket ein?"},
		fr:    []string{"Comment on fait une réclamation chez {c} pour un colis perdu ?"},
		es:    []string{"¿Cómo reclamo a {c} un paquete perdido?"},
		fixes: []string{"{c} claim window is now {days2} days (was {days}), same process: {how}", "turns out {c} allow {days2} days for claims, not {days} — still {how}"},
	}
	b4courierRate = b4t{
		text: []string{"{c} {year} contract: small parcel £{rate}, medium £{rate2}", "{year} rates {c} — small £{rate} / medium £{rate2} ex VAT"},
		ask:  []string{"what do we pay {c} per small parcel in {year}", "{c} {year} small parcel rate"},
		de:   []string{"Wie viel zahlen wir {year} bei {c} für ein kleines Paket?"},
		fr:   []string{"Combien on paie {c} pour un petit colis en {year} ?"},
		es:   []string{"¿Cuánto nos cobra {c} por un paquete pequeño en {year}?"},
		dist: []string{"{c} small parcel price {year}", "what's the {year} {c} rate for a medium parcel", "how much was a small {c} parcel in {year}"},
	}
	b4courierMax = b4t{
		text:  []string{"{c} max {kg} kg per parcel on our contract", "{c}: nothing over {kg}kg", "Weight limit {c} = {kg} kg"},
		ask:   []string{"what's the heaviest parcel {c} will take", "{c} weight limit", "can I send a 25 kg box with {c}?"},
		de:    []string{"Wie schwer darf ein Paket bei {c} höchstens sein?"},
		fr:    []string{"Quel est le poids maximum d'un colis chez {c} ?"},
		es:    []string{"¿Cuál es el peso máximo por paquete con {c}?"},
		fixes: []string{"{c} limit raised to {kg2} kg on the new contract"},
	}
	b4courierSupport = b4t{
		text:  []string{"{c} business support {phone}", "{c} helpline: {phone} (ask for the account team)", "phone {c}: {phone}"},
		para:  []string{"{c} support number", "how do I ring {c}", "who do I call about a {c} problem"},
		ident: []string{"whose number is {phone}", "{phone}", "missed call from {phone}"},
		de:    []string{"Unter welcher Nummer erreiche ich den {c}-Support?"},
		fr:    []string{"C'est quoi le numéro du support {c} ?"},
		es:    []string{"¿Qué teléfono tiene el soporte de {c}?"},
	}
)

func (g *gen) b4courier(c string) {
	tm := func() string { return fmt.Sprintf("%d:%s", 13+g.r.IntN(5), g.pick([]string{"00", "15", "30", "45"})) }
	t1 := tm()
	t2 := tm()
	for t2 == t1 {
		t2 = tm()
	}
	kg := 10 + 5*g.r.IntN(4)
	kv := []string{"{c}", c, "{acct}", g.uniq(func() string { return g.b4digits([]int{7, 8, 10}[g.r.IntN(3)]) }), "{time}", t1, "{time2}", t2,
		"{days}", fmt.Sprint(14 + 7*g.r.IntN(3)), "{days2}", fmt.Sprint(60 + g.r.IntN(2)*30),
		"{how}", g.pick([]string{"online form in the business portal", "email claims with tracking and invoice", "phone the account team, then the form", "through the app, photos needed"}),
		"{kg}", fmt.Sprint(kg), "{kg2}", fmt.Sprint(kg + 10), "{phone}", g.uniq(func() string {
			return "0" + g.pick([]string{"344", "330", "800", "345"}) + " " + g.b4digits(3) + " " + g.b4digits(4)
		})}
	g.b4(b4courierAcct, kv...)
	g.b4(b4courierPickup, kv...)
	g.b4(b4courierClaim, kv...)
	g.b4(b4courierMax, kv...)
	g.b4(b4courierSupport, kv...)
	rates := func(year string) []string {
		small := 250 + g.r.IntN(300)
		return []string{"{year}", year, "{rate}", fmt.Sprintf("%d.%02d", small/100, small%100), "{rate2}", fmt.Sprintf("%d.%02d", (small+80+g.r.IntN(200))/100, (small+80+g.r.IntN(200))%100)}
	}
	g.b4twins(b4courierRate, slices.Concat(kv, rates("2025")), slices.Concat(kv, rates("2026")))
}

// Shop app notes: what each app does, what it costs, and one setting of it.
var (
	b4appNote = b4t{
		text:  []string{"{app}: {purpose}, £{cost}/month", "We use {app} for {purpose} — £{cost} a month on the {plan} plan.", "{app} ({purpose}) £{cost}/mo", "app for {purpose} = {app}, costs £{cost} pm"},
		para:  []string{"which app do we use for {purpose}?", "shopify app {purpose}", "app that does {purpose}"},
		ask:   []string{"what does {app} cost us a month", "{app} monthly fee", "how much are we paying for {app}"},
		de:    []string{"Welche App benutzen wir für {purpose_de}?", "Was kostet uns {app} im Monat?"},
		fr:    []string{"On utilise quelle appli pour {purpose_fr} ?", "{app}, ça nous coûte combien par mois ?"},
		es:    []string{"¿Qué app usamos para {purpose_es}?", "¿Cuánto pagamos al mes por {app}?"},
		fixes: []string{"{app} ({purpose}) went up to £{cost2}/month", "as of {month} {app} is £{cost2} a month for {purpose} — they changed the plans", "{app} for {purpose}: downgraded, now £{cost2}/mo (was £{cost})"},
	}
	b4appSetting = b4t{
		text:  []string{"{app} setting: {setting}", "{app} is set to {setting}", "{app} settings — {setting}", "{app} -> {setting}"},
		para:  []string{"how is {app} set up", "what did we set {app} to", "{app} config"},
		de:    []string{"Wie haben wir {app} eingestellt?"},
		fr:    []string{"{app} est réglé comment ?"},
		es:    []string{"¿Cómo tenemos configurada {app}?"},
		fixes: []string{"changed {app}: {setting2} (was {setting})", "{app} now {setting2}, no longer {setting}"},
	}
)

var b4apps = [][6]string{
	// name, purpose, purpose de, fr, es, setting template ({x} a number)
	{"Stellar Reviews", "product reviews", "Produktbewertungen", "les avis produits", "las reseñas de productos", "review request email {x} days after delivery"},
	{"Wrapt", "gift wrapping at checkout", "Geschenkverpackung an der Kasse", "l'emballage cadeau au paiement", "el envoltorio de regalo en el checkout", "gift wrap charge £{x}.50"},
	{"Restocker", "back-in-stock emails", "Wieder-verfügbar-Mails", "les alertes de retour en stock", "los avisos de vuelta a stock", "alert sent when stock reaches {x}"},
	{"Bundlr", "product bundles", "Produktbundles", "les lots de produits", "los packs de productos", "bundle discount {x}%"},
	{"Lingo Shop", "translating the store into German and French", "die Übersetzung des Shops", "la traduction de la boutique", "traducir la tienda", "auto-translate new products after {x} hours"},
	{"Seo Sprout", "SEO and meta tags", "SEO und Meta-Tags", "le référencement", "el SEO", "sitemap refresh every {x} days"},
	{"Parcel Panel Pro", "order tracking page", "die Sendungsverfolgungsseite", "la page de suivi de commande", "la página de seguimiento de pedidos", "delay alert after {x} days without scan"},
	{"Klaviyo", "email marketing", "E-Mail-Marketing", "l'emailing", "el email marketing", "abandoned cart flow starts after {x} hours"},
	{"Inkdrop", "printing packing slips and invoices", "Packzettel und Rechnungen drucken", "imprimer les bordereaux et factures", "imprimir albaranes y facturas", "packing slips printed {x} per page"},
	{"Shipmate", "printing shipping labels", "Versandetiketten drucken", "imprimer les étiquettes d'expédition", "imprimir etiquetas de envío", "default parcel weight {x}00 g"},
	{"Loyalty Nest", "loyalty points", "Treuepunkte", "les points de fidélité", "los puntos de fidelidad", "{x} points per £1 spent"},
	{"Upsell Owl", "upsells in the cart", "Upselling im Warenkorb", "les ventes additionnelles au panier", "las ventas adicionales en el carrito", "show {x} upsell items max"},
	{"Gifted Notes", "gift messages on orders", "Grußkarten-Nachrichten", "les messages cadeaux", "los mensajes de regalo", "message limit {x}0 characters"},
	{"Taxjar Lite", "VAT reports", "Umsatzsteuer-Berichte", "les rapports de TVA", "los informes de IVA", "report emailed on day {x} of the month"},
	{"Stockwise", "syncing stock between Shopify, Etsy and Amazon", "den Lagerabgleich zwischen Shopify, Etsy und Amazon", "la synchro du stock entre Shopify, Etsy et Amazon", "sincronizar el stock entre Shopify, Etsy y Amazon", "sync every {x} minutes"},
	{"Pop Convert", "the newsletter pop-up", "das Newsletter-Pop-up", "le pop-up newsletter", "el pop-up de la newsletter", "pop-up after {x} seconds"},
	{"Trustee Badges", "trust badges in the footer", "Vertrauenssiegel im Footer", "les badges de confiance", "los sellos de confianza", "{x} badges shown"},
	{"Preorderly", "pre-orders", "Vorbestellungen", "les précommandes", "las reservas", "pre-order cap {x} units per product"},
	{"Returnly Go", "the returns portal", "das Retourenportal", "le portail de retours", "el portal de devoluciones", "return labels expire after {x} days"},
	{"Chatterbox", "live chat", "den Live-Chat", "le chat en direct", "el chat en vivo", "chat offline after {x}pm"},
	{"Subscribe & Glow", "candle subscriptions", "Kerzen-Abos", "les abonnements bougies", "las suscripciones de velas", "billing on day {x}"},
	{"Pinpoint Feeds", "product feeds for Google and Pinterest", "Produkt-Feeds für Google und Pinterest", "les flux produits Google et Pinterest", "los feeds de productos para Google y Pinterest", "feed refresh every {x} hours"},
	{"Countdown Kit", "delivery cut-off countdown", "den Countdown bis Versandschluss", "le compte à rebours avant l'heure limite d'envoi", "la cuenta atrás para el envío", "cut-off shown as {x}pm"},
	{"Snapgrid", "the Instagram feed on the homepage", "den Instagram-Feed auf der Startseite", "le fil Instagram sur la page d'accueil", "el feed de Instagram en la portada", "{x} posts in the grid"},
	{"Fraudguard", "fraud checks on orders", "Betrugsprüfung der Bestellungen", "la détection de fraude", "la detección de fraude", "hold orders with risk score over {x}0"},
	{"Wholesale Hub", "wholesale price lists", "Großhandelspreislisten", "les tarifs de gros", "las tarifas mayoristas", "wholesale minimum £{x}00"},
}

func (g *gen) b4app(a [6]string) {
	x := 2 + g.r.IntN(7)
	cost := 5 + g.r.IntN(60)
	kv := []string{"{app}", a[0], "{purpose}", a[1], "{purpose_de}", a[2], "{purpose_fr}", a[3], "{purpose_es}", a[4],
		"{cost}", fmt.Sprint(cost), "{cost2}", fmt.Sprint(cost + 3 + g.r.IntN(20)), "{plan}", g.pick([]string{"Basic", "Growth", "Starter", "Pro"}),
		"{month}", g.pick(b4months), "{setting}", sub(a[5], "{x}", fmt.Sprint(x)), "{setting2}", sub(a[5], "{x}", fmt.Sprint(x+1+g.r.IntN(3)))}
	g.b4(b4appNote, kv...)
	if g.r.IntN(10) < 8 {
		g.b4(b4appSetting, kv...)
	}
}

// Payment providers: fees and payouts, with the GBP and EUR accounts as look-alikes.
var (
	b4payFee = b4t{
		text:  []string{"{pp} fees: {fee}% + {fix}p per transaction", "{pp} takes {fee}% + {fix}p", "Fee on {pp} = {fee}% plus {fix}p"},
		ask:   []string{"what does {pp} charge per transaction", "{pp} fee", "how much of a sale does {pp} keep"},
		de:    []string{"Wie hoch sind die Gebühren bei {pp}?"},
		fr:    []string{"{pp} prend combien de frais par transaction ?"},
		es:    []string{"¿Qué comisión cobra {pp} por venta?"},
		fixes: []string{"{pp} fees up to {fee2}% + {fix}p from {month}", "as of {month} {pp} charge {fee2}% (was {fee}%)"},
	}
	b4paySched = b4t{
		text:  []string{"{pp} pays out {sched}", "{pp} payouts: {sched}", "Money from {pp} lands {sched}."},
		para:  []string{"when does {pp} pay out", "{pp} payout schedule", "when do we get the {pp} money"},
		de:    []string{"Wann zahlt {pp} aus?"},
		fr:    []string{"{pp} verse l'argent quand ?"},
		es:    []string{"¿Cuándo nos paga {pp}?"},
		fixes: []string{"{pp} payouts moved to {sched2}", "{pp} no longer pays {sched}; now {sched2}"},
	}
	b4payAcct = b4t{
		text: []string{"{pp} {cur} payouts go to {bank} account ending {last4}", "{pp} ({cur}) -> {bank} ...{last4}"},
		para: []string{"which account do {pp} {cur} payouts go to", "{pp} {cur} payout bank account"},
		de:   []string{"Auf welches Konto gehen die {cur}-Auszahlungen von {pp}?"},
		fr:   []string{"Sur quel compte arrivent les versements {pp} en {cur} ?"},
		es:   []string{"¿A qué cuenta van los pagos de {pp} en {cur}?"},
		dist: []string{"where do {pp} {cur} payouts land", "{pp} {cur} payout account", "which bank gets the {cur} money from {pp}"},
	}
)

func (g *gen) b4payment(pp string) {
	sch := []string{"daily, 2 working days after the sale", "every Monday", "weekly on Friday", "every 14 days", "on request only", "monthly on the 1st", "every 3 days"}
	s1 := g.pick(sch)
	s2 := g.pick(sch)
	for s2 == s1 {
		s2 = g.pick(sch)
	}
	fee := fmt.Sprintf("%.1f", 1.2+0.1*float64(g.r.IntN(20)))
	kv := []string{"{pp}", pp, "{fee}", fee, "{fee2}", fmt.Sprintf("%.1f", 3.3+0.1*float64(g.r.IntN(9))), "{fix}", fmt.Sprint(10 + 5*g.r.IntN(4)),
		"{month}", g.pick(b4months), "{sched}", s1, "{sched2}", s2}
	g.b4(b4payFee, kv...)
	g.b4(b4paySched, kv...)
	l4 := func() string { return g.uniq(func() string { return g.b4digits(4) }) }
	g.b4twins(b4payAcct, slices.Concat(kv, []string{"{cur}", "GBP", "{bank}", g.pick([]string{"Starling", "Tide", "Barclays"}), "{last4}", l4()}),
		slices.Concat(kv, []string{"{cur}", "EUR", "{bank}", g.pick([]string{"Wise", "Revolut Business"}), "{last4}", l4()}))
}

// Ad campaigns: seasonal ones run every year, so the 2025 and 2026 notes look alike.
var (
	b4campBudget = b4t{
		text:  []string{"{camp}: £{b}/day", "Budget for {camp} is £{b} a day.", "{camp} — daily budget £{b}, {goal}", "{camp} budget {b}/day"},
		ask:   []string{"daily budget on {camp}", "how much are we spending a day on {camp}", "what's {camp} set to per day", "{camp} spend per day"},
		num:   []string{"which campaign runs at £{b} a day"},
		val:   "£{b}",
		de:    []string{"Wie hoch ist das Tagesbudget für {camp}?", "Wie viel geben wir pro Tag für {camp} aus?", "Tagesbudget {camp}"},
		fr:    []string{"Quel est le budget quotidien de {camp} ?", "On dépense combien par jour sur {camp} ?", "budget journalier {camp}"},
		es:    []string{"¿Cuál es el presupuesto diario de {camp}?", "¿Cuánto gastamos al día en {camp}?", "presupuesto diario {camp}"},
		fixes: []string{"upped {camp} to £{b2}/day, it's converting", "{camp} cut to £{bDown}/day (was £{b}) — ROAS tanked", "!{camp} is £{b2} a day, not £{b}", "as of {month} 1st {camp} budget £{b2}/day"},
		dist:  []string{"daily budget for {camp}", "how much a day on {cb}, the {year} one", "{camp} spend per day"},
	}
	b4campID = b4t{
		text:  []string{"{camp} campaign ID {id}", "{camp} = id {id} in {plat}", "ID of {camp}: {id}"},
		para:  []string{"campaign id for {camp}", "{camp} id", "what id does {camp} have"},
		ident: []string{"which campaign is {id}", "{id}", "campaign {id} name"},
		de:    []string{"Welche ID hat die Kampagne {camp}?"},
		fr:    []string{"C'est quoi l'identifiant de la campagne {camp} ?"},
		es:    []string{"¿Qué ID tiene la campaña {camp}?"},
	}
	b4campTarget = b4t{
		text:  []string{"{camp} target ROAS {roas}", "{camp}: aiming for ROAS {roas} or better", "target return on ad spend {camp} = {roas}"},
		ask:   []string{"what ROAS are we aiming for on {camp}", "{camp} target ROAS", "target return on {camp}"},
		de:    []string{"Welchen ROAS wollen wir bei {camp} erreichen?"},
		fr:    []string{"On vise quel ROAS sur {camp} ?"},
		es:    []string{"¿Qué ROAS buscamos en {camp}?"},
		fixes: []string{"{camp} target ROAS lowered to {roas2} (was {roas})", "turns out {roas} was unrealistic for {camp}; target now {roas2}"},
		dist:  []string{"target ROAS on {camp}", "{cb} ROAS goal, the {year} run"},
	}
	b4campDates = b4t{
		text:  []string{"{camp} runs {d1} to {d2}", "{camp}: live {d1} – {d2}", "Dates for {camp}: start {d1}, end {d2}"},
		para:  []string{"when does {camp} end", "{camp} start and end dates", "how long is {camp} running"},
		de:    []string{"Wann läuft {camp} aus?"},
		fr:    []string{"La campagne {camp} se termine quand ?"},
		es:    []string{"¿Hasta cuándo dura {camp}?"},
		fixes: []string{"extended {camp} to {d3}", "{camp} now ends {d3}, not {d2}"},
		dist:  []string{"when does {camp} end", "{cb} dates, the {year} one"},
	}
)

func (g *gen) b4campaign(theme, plat string, seasonal bool) {
	mk := func(year string) []string {
		camp := theme + " " + plat
		if year != "" {
			camp += " " + year
		}
		b := 5 * (3 + g.r.IntN(28))
		m, ok := b4themeMonth[theme]
		if !ok {
			m = g.r.IntN(12)
		}
		day := 1 + g.r.IntN(20)
		return []string{"{camp}", camp, "{cb}", theme + " on " + plat, "{plat}", plat, "{year}", year, "{b}", fmt.Sprint(b), "{b2}", fmt.Sprint(b + 5 + 5*g.r.IntN(6)), "{bDown}", fmt.Sprint(b - 5 - 5*g.r.IntN(2)),
			"{goal}", g.pick([]string{"sales", "traffic", "catalogue sales", "retargeting"}), "{month}", b4months[(m+1)%12],
			"{id}", g.uniq(func() string { return g.b4digits(11) }), "{roas}", fmt.Sprintf("%.1f", 2.5+0.5*float64(g.r.IntN(5))),
			"{roas2}", fmt.Sprintf("%.1f", 1.5+0.25*float64(g.r.IntN(3))),
			"{d1}", fmt.Sprintf("%d %s", day, b4months[m][:3]), "{d2}", fmt.Sprintf("%d %s", day+5, b4months[(m+1)%12][:3]), "{d3}", fmt.Sprintf("%d %s", day+8, b4months[(m+2)%12][:3])}
	}
	if !seasonal {
		kv := mk("")
		g.b4(b4campBudget, kv...)
		g.b4(b4campID, kv...)
		if g.r.IntN(2) == 0 {
			g.b4(b4campTarget, kv...)
		}
		return
	}
	a, b := mk("2025"), mk("2026")
	g.b4twins(b4campBudget, a, b)
	g.b4(b4campID, a...)
	g.b4(b4campID, b...)
	if g.r.IntN(2) == 0 {
		g.b4twins(b4campTarget, a, b)
	} else {
		g.b4twins(b4campDates, a, b)
	}
}

// Sales channels: the website and the marketplaces, each with its fees, payouts and returns
// rules; the returns rules of two channels look alike.
var (
	b4mkFee = b4t{
		text:  []string{"{mk} commission {pct}% of the order incl. shipping", "{mk} takes {pct}% per sale", "Fees on {mk}: {pct}% commission"},
		ask:   []string{"what commission does {mk} take", "{mk} fees per sale", "how much does {mk} keep of an order"},
		de:    []string{"Wie viel Provision nimmt {mk}?"},
		fr:    []string{"{mk} prend quelle commission ?"},
		es:    []string{"¿Qué comisión se queda {mk}?"},
		fixes: []string{"{mk} commission went up to {pct2}% in {month}", "as of {month} {mk} charge {pct2}% (was {pct}%)"},
	}
	b4mkID = b4t{
		text:  []string{"{mk} seller ID {sid}", "Our {mk} shop/seller id: {sid}", "{mk} account id = {sid}"},
		para:  []string{"our {mk} seller id", "what's the {mk} shop ID", "seller account id {mk}"},
		ident: []string{"which marketplace is seller {sid}", "{sid}"},
		de:    []string{"Wie lautet unsere Verkäufer-ID bei {mk}?"},
		fr:    []string{"C'est quoi notre identifiant vendeur sur {mk} ?"},
		es:    []string{"¿Cuál es nuestro ID de vendedor en {mk}?"},
	}
	b4mkManager = b4t{
		text:  []string{"{mk} account manager: {p}", "Our account manager at {mk} is {p}.", "{mk} — {p} looks after us"},
		para:  []string{"who's our account manager at {mk}", "{mk} account manager", "who do I talk to at {mk} about promos"},
		de:    []string{"Wer betreut uns bei {mk}?"},
		fr:    []string{"Qui est notre gestionnaire de compte chez {mk} ?"},
		es:    []string{"¿Quién lleva nuestra cuenta en {mk}?"},
		fixes: []string{"{mk}: {p} moved on, our new account manager is {p2}", "no longer {p} at {mk} — {p2} from {month}"},
	}
	b4returns = b4t{
		text: []string{"Returns on {mk}: {days} days, {who} pays return postage", "{mk} returns policy — {days} day window, return postage paid by {who}", "{mk} returns: {days} days / postage: {who}"},
		ask:  []string{"how long do customers on {mk} have to send something back", "{mk} return window", "who pays return postage on {mk} orders"},
		de:   []string{"Wie lange haben Kunden auf {mk} Zeit für eine Rücksendung?"},
		fr:   []string{"Les clients {mk} ont combien de jours pour retourner un article ?"},
		es:   []string{"¿Cuántos días tienen los clientes de {mk} para devolver algo?"},
		dist: []string{"return window for {mk} orders", "{mk} returns: how many days", "who covers return postage for {mk}"},
	}
	b4restock = b4t{
		text:  []string{"{mk}: {rule}", "Returned {mk} orders — {rule}", "rule for {mk} returns: {rule}"},
		para:  []string{"what do we do with returned {mk} stuff", "{mk} returns handling", "do we refund shipping on {mk} returns"},
		de:    []string{"Was machen wir mit Retouren von {mk}?"},
		fr:    []string{"On fait quoi des retours {mk} ?"},
		es:    []string{"¿Qué hacemos con las devoluciones de {mk}?"},
		fixes: []string{"changed the {mk} returns rule: {rule2}", "{mk} returns: {rule2} from now on (no longer {rule})"},
	}
)

var b4rules = []string{"refund on receipt, restock if unopened", "refund minus 10% restocking fee if opened", "inspect within 2 days then refund item price only", "damaged ones go to the seconds box, refund in full", "exchange first, refund only if asked", "refund item plus original shipping"}

func (g *gen) b4channel(mk string, twin string) {
	pct := 5 + g.r.IntN(16)
	r1 := g.pick(b4rules)
	r2 := g.pick(b4rules)
	for r2 == r1 {
		r2 = g.pick(b4rules)
	}
	kv := []string{"{mk}", mk, "{pct}", fmt.Sprint(pct), "{pct2}", fmt.Sprint(pct + 1 + g.r.IntN(3)), "{month}", g.pick(b4months),
		"{sid}", g.uniq(func() string { return g.pick([]string{"A", "S", "ETS", "NH"}) + g.b4digits(8) }),
		"{p}", g.pick(b4contacts) + " " + g.pick(b4last), "{p2}", g.pick(b4contacts) + " " + g.pick(b4last), "{rule}", r1, "{rule2}", r2}
	if mk != "the website" {
		g.b4(b4mkFee, kv...)
		g.b4(b4mkID, kv...)
		g.b4(b4mkManager, kv...)
	}
	g.b4(b4restock, kv...)
	ret := func(m string) []string {
		return []string{"{mk}", m, "{days}", fmt.Sprint([]int{14, 30, 28, 60, 21}[g.r.IntN(5)]), "{who}", g.pick([]string{"customer", "us", "customer unless faulty"})}
	}
	if twin != "" {
		g.b4twins(b4returns, ret(mk), ret(twin))
	}
}

// VAT registrations, one per country, and the filed returns of two years.
var (
	b4vatNo = b4t{
		text:  []string{"{country} VAT no: {vat}", "VAT number {country}: {vat}", "Registered for VAT in {country} — {vat}", "{country} VAT reg {vat}"},
		para:  []string{"our VAT number in {country}", "{country} VAT registration number", "what do I put as our {country} VAT number on the invoice"},
		ident: []string{"which country is VAT number {vat}", "{vat}", "is {vat} ours?"},
		de:    []string{"Wie lautet unsere USt-IdNr. für {country_de}?", "USt-IdNr. {country_de}"},
		fr:    []string{"C'est quoi notre numéro de TVA {country_fr} ?"},
		es:    []string{"¿Cuál es nuestro número de IVA {country_es}?"},
	}
	b4vatFiling = b4t{
		text:  []string{"{country} VAT returns {freq}, done by {agent}", "{agent} file our {country} VAT, {freq}", "VAT {country}: {freq} returns via {agent}"},
		para:  []string{"who files the {country} VAT return", "how often do we file VAT in {country}", "{country} VAT filing agent"},
		de:    []string{"Wer macht die Umsatzsteuererklärung für {country_de}?"},
		fr:    []string{"Qui s'occupe des déclarations de TVA {country_fr} ?"},
		es:    []string{"¿Quién nos presenta el IVA {country_es}?"},
		fixes: []string{"{country} VAT moved to {agent2} from {month} ({agent} got too expensive)", "{country} VAT now {freq2}, still {agent}", "no longer using {agent} for {country} VAT — {agent2} do it"},
	}
	b4vatYear = b4t{
		text: []string{"{country} VAT {year}: {amt} paid, ref {ref}", "{year} {country} VAT — paid {amt}, confirmation {ref}"},
		ask:  []string{"how much {country} VAT did we pay for {year}", "{country} VAT {year} total"},
		de:   []string{"Wie viel Umsatzsteuer haben wir {year} {country_dat} bezahlt?"},
		fr:   []string{"On a payé combien de TVA {country_fr} pour {year} ?"},
		es:   []string{"¿Cuánto IVA pagamos {country_es} en {year}?"},
		dist: []string{"{country} VAT paid in {year}", "what was the {year} VAT bill for {country}", "{country} {year} VAT amount"},
	}
)

// b4countries: the name, German for "for it" and "in it", French and Spanish "in it".
var b4countries = [][5]string{{"UK", "Großbritannien", "in Großbritannien", "au Royaume-Uni", "en el Reino Unido"}, {"Germany", "Deutschland", "in Deutschland", "en Allemagne", "en Alemania"},
	{"France", "Frankreich", "in Frankreich", "en France", "en Francia"}, {"Ireland", "Irland", "in Irland", "en Irlande", "en Irlanda"},
	{"Netherlands", "die Niederlande", "in den Niederlanden", "aux Pays-Bas", "en los Países Bajos"}, {"Spain", "Spanien", "in Spanien", "en Espagne", "en España"},
	{"Italy", "Italien", "in Italien", "en Italie", "en Italia"}, {"Poland", "Polen", "in Polen", "en Pologne", "en Polonia"}}

func (g *gen) b4vat(c [5]string) {
	pre := map[string]string{"UK": "GB", "Germany": "DE", "France": "FR", "Ireland": "IE", "Netherlands": "NL", "Spain": "ES", "Italy": "IT", "Poland": "PL"}[c[0]]
	ags := []string{"Taxdoo", "Hellotax", "Avalara", "our accountant (Rowe & Finch)", "SimplyVAT", "Marosa"}
	a1 := g.pick(ags)
	a2 := g.pick(ags)
	for a2 == a1 {
		a2 = g.pick(ags)
	}
	fr := []string{"quarterly", "monthly", "annually"}
	f1 := g.pick(fr)
	f2 := g.pick(fr)
	for f2 == f1 {
		f2 = g.pick(fr)
	}
	kv := []string{"{country}", c[0], "{country_de}", c[1], "{country_dat}", c[2], "{country_fr}", c[3], "{country_es}", c[4], "{vat}", g.uniq(func() string { return pre + g.b4digits(9) }),
		"{agent}", a1, "{agent2}", a2, "{freq}", f1, "{freq2}", f2, "{month}", g.pick(b4months)}
	g.b4(b4vatNo, kv...)
	g.b4(b4vatFiling, kv...)
	y := func(year string) []string {
		return slices.Concat(kv, []string{"{year}", year, "{amt}", fmt.Sprintf("%s%d", map[bool]string{true: "£", false: "€"}[c[0] == "UK"], 200+g.r.IntN(9000)),
			"{ref}", g.uniq(func() string { return "VAT-" + g.b4digits(7) })})
	}
	g.b4twins(b4vatYear, y("2024"), y("2025"))
}

// Freelancers and part-time staff.
var (
	b4staffRate = b4t{
		text:  []string{"{p} ({role}): £{rate}/{unit}", "{first} the {role} charges £{rate} per {unit}.", "{role} — {p}, £{rate} per {unit}", "rate {p} {rate}/{unit}"},
		ask:   []string{"what do we pay {first} per {unit}", "{p} rate", "how much does {first} charge", "{role} rate"},
		de:    []string{"Wie viel verlangt {first} pro {unit_de}?", "Was zahlen wir {p}?", "Honorar {p}"},
		fr:    []string{"{first} facture combien par {unit_fr} ?", "On paie combien {p} ?"},
		es:    []string{"¿Cuánto cobra {first} por {unit_es}?", "¿Cuánto le pagamos a {p}?"},
		fixes: []string{"{p} rate up to £{rate2}/{unit} from {month}", "{first} now charges £{rate2} per {unit} (was £{rate})", "!{first}'s rate is £{rate2}/{unit} — I wrote last year's"},
	}
	b4staffMail = b4t{
		text:  []string{"{p} email: {email}", "{first} ({role}) — {email}", "contact {p} on {email}"},
		para:  []string{"what's {first}'s email", "how do I email the {role}", "{p} email address"},
		ident: []string{"who is {email}", "{email}"},
		de:    []string{"Wie ist die E-Mail-Adresse von {p}?"},
		fr:    []string{"C'est quoi l'adresse mail de {p} ?"},
		es:    []string{"¿Cuál es el correo de {p}?"},
		fixes: []string{"{first} has a new email: {email2} (old one bounces)"},
	}
	b4staffDays = b4t{
		text:  []string{"{first} ({role}) works {days}", "{p}: available {days}", "{first} only does {days}, book ahead"},
		para:  []string{"which days is {first} in", "when can I book {p}", "{first} availability", "is the {role} around on a {day}?"},
		de:    []string{"An welchen Tagen arbeitet {first}?"},
		fr:    []string{"{first} travaille quels jours ?"},
		es:    []string{"¿Qué días trabaja {first}?"},
		fixes: []string{"{first} switched to {days2}", "{p} no longer does {days}; {days2} now"},
	}
	b4staffInvoice = b4t{
		text: []string{"{first} invoices on the {inv} of the month, we pay within {n} days", "{p} sends invoices monthly ({inv}); pay in {n} days"},
		ask:  []string{"when does {first} send the invoice", "how fast do we have to pay {p}", "{first} invoice due"},
		de:   []string{"Wann schickt {first} die Rechnung?"},
		fr:   []string{"{first} envoie sa facture quand ?"},
		es:   []string{"¿Cuándo manda {first} la factura?"},
	}
)

var b4roles = [][4]string{{"photographer", "day", "Tag", "jour"}, {"copywriter", "hour", "Stunde", "heure"}, {"bookkeeper", "hour", "Stunde", "heure"}, {"VA", "hour", "Stunde", "heure"}, {"Shopify developer", "day", "Tag", "jour"}, {"weekday packer", "hour", "Stunde", "heure"}, {"illustrator", "day", "Tag", "jour"}, {"social media freelancer", "day", "Tag", "jour"}, {"SEO consultant", "day", "Tag", "jour"}, {"German translator", "hour", "Stunde", "heure"}, {"French translator", "hour", "Stunde", "heure"}, {"product stylist", "day", "Tag", "jour"}, {"videographer", "day", "Tag", "jour"}, {"Saturday packer", "hour", "Stunde", "heure"}, {"Amazon consultant", "day", "Tag", "jour"}, {"ads freelancer", "day", "Tag", "jour"}, {"candle maker", "day", "Tag", "jour"}, {"graphic designer", "day", "Tag", "jour"}}

func (g *gen) b4staff(p string, role [4]string) {
	f := strings.Fields(p)[0]
	unitES := map[string]string{"day": "día", "hour": "hora"}[role[1]]
	rate := 12 + g.r.IntN(20)
	if role[1] == "day" {
		rate = 150 + 10*g.r.IntN(30)
	}
	ds := []string{"Mon–Wed", "Tuesdays and Thursdays", "Fridays", "mornings, Mon–Fri", "weekends", "Wednesdays", "every other Monday"}
	d1 := g.pick(ds)
	d2 := g.pick(ds)
	for d2 == d1 {
		d2 = g.pick(ds)
	}
	mail := func() string {
		return strings.ToLower(f) + g.pick([]string{"", ".studio", "creates", "." + strings.ToLower(strings.Fields(p)[1])}) + "@" + g.pick([]string{"gmail.com", "outlook.com", "proton.me", "hey.com"})
	}
	kv := []string{"{p}", p, "{first}", f, "{role}", role[0], "{unit}", role[1], "{unit_de}", role[2], "{unit_fr}", role[3], "{unit_es}", unitES,
		"{rate}", fmt.Sprint(rate), "{rate2}", fmt.Sprint(rate + 2 + g.r.IntN(4)*map[string]int{"day": 10, "hour": 1}[role[1]]),
		"{month}", g.pick(b4months), "{email}", g.uniq(mail), "{email2}", g.uniq(mail), "{days}", d1, "{days2}", d2, "{day}", g.pick(b4days),
		"{inv}", g.pick([]string{"1st", "last day", "15th", "25th"}), "{n}", fmt.Sprint([]int{7, 14, 30}[g.r.IntN(3)])}
	g.b4(b4staffRate, kv...)
	g.b4(b4staffMail, kv...)
	g.b4(b4staffDays, kv...)
	if g.r.IntN(2) == 0 {
		g.b4(b4staffInvoice, kv...)
	}
}

// Recurring chores: what, when and who.
var b4choreNote = b4t{
	text:  []string{"{when}: {chore} ({who})", "{who}: {chore}, {when}", "Chore: {chore} — {when}, {who}", "{chore}: {when}"},
	para:  []string{"when do we {chore}", "how often do we {chore}", "when's {chore} on the rota", "{chore} — which day?", "rota: {chore}"},
	de:    []string{"Wann machen wir {chore_de}?"},
	fr:    []string{"On fait {chore_fr} quand ?"},
	es:    []string{"¿Cuándo toca {chore_es}?"},
	fixes: []string{"moved {chore} to {whenX}", "{chore} is {whenX} from now on (was {when})", "as of {month} we {chore} {whenX}"},
}

var b4chores = [][4]string{
	{"reconcile the Etsy payouts", "den Abgleich der Etsy-Auszahlungen", "le rapprochement des versements Etsy", "la conciliación de los pagos de Etsy"},
	{"reconcile the Amazon settlement", "den Abgleich der Amazon-Abrechnung", "le rapprochement des règlements Amazon", "la conciliación de la liquidación de Amazon"},
	{"count stock in aisle A", "die Inventur in Gang A", "l'inventaire de l'allée A", "el recuento de stock del pasillo A"},
	{"count stock in aisle D", "die Inventur in Gang D", "l'inventaire de l'allée D", "el recuento de stock del pasillo D"},
	{"order packing tape and mailers", "die Bestellung von Klebeband und Versandtaschen", "la commande de scotch et d'enveloppes", "el pedido de cinta y sobres"},
	{"send the newsletter", "den Newsletter", "l'envoi de la newsletter", "el envío de la newsletter"},
	{"check the ad spend against budget", "den Abgleich der Werbeausgaben mit dem Budget", "le contrôle des dépenses pub", "el control del gasto en anuncios"},
	{"back up the product CSV", "das Backup der Produkt-CSV", "la sauvegarde du CSV produits", "la copia de seguridad del CSV de productos"},
	{"answer reviews", "die Antworten auf Bewertungen", "les réponses aux avis", "las respuestas a las reseñas"},
	{"process returns", "die Bearbeitung der Retouren", "le traitement des retours", "la gestión de devoluciones"},
	{"empty the seconds box onto the sale page", "das Ausräumen der B-Ware auf die Sale-Seite", "la mise en solde des articles déclassés", "pasar las taras a la página de rebajas"},
	{"pay the freelancers", "die Bezahlung der Freelancer", "le paiement des freelances", "el pago a los freelancers"},
	{"check low-stock report", "die Prüfung des Niedrigbestand-Berichts", "la vérif du rapport de stock bas", "la revisión del informe de stock bajo"},
	{"update the Google Shopping feed errors", "die Korrektur der Google-Shopping-Feedfehler", "la correction des erreurs du flux Google Shopping", "corregir los errores del feed de Google Shopping"},
	{"renew the Etsy listings", "die Verlängerung der Etsy-Angebote", "le renouvellement des annonces Etsy", "la renovación de los anuncios de Etsy"},
	{"clean the label printer", "die Reinigung des Etikettendruckers", "le nettoyage de l'imprimante d'étiquettes", "la limpieza de la impresora de etiquetas"},
	{"file receipts in Xero", "das Ablegen der Belege in Xero", "le classement des reçus dans Xero", "archivar los recibos en Xero"},
	{"photograph new arrivals", "die Fotos der Neuheiten", "les photos des nouveautés", "las fotos de las novedades"},
	{"check courier claims status", "die Kontrolle offener Kurier-Reklamationen", "le suivi des réclamations transporteur", "el seguimiento de reclamaciones a mensajeros"},
	{"review discount codes", "die Durchsicht der Rabattcodes", "la revue des codes promo", "la revisión de los códigos de descuento"},
	{"restock the packing bench", "das Auffüllen des Packtischs", "le réassort du poste d'emballage", "reponer la mesa de embalaje"},
	{"post on Instagram", "die Instagram-Posts", "les posts Instagram", "las publicaciones de Instagram"},
	{"check Amazon account health", "die Prüfung des Amazon-Kontozustands", "la vérif de la santé du compte Amazon", "revisar la salud de la cuenta de Amazon"},
	{"pay the VAT agents", "die Bezahlung der Steuerberater", "le paiement des agents TVA", "el pago a los agentes de IVA"},
	{"export the month's sales for the bookkeeper", "den Export der Monatsumsätze für die Buchhaltung", "l'export des ventes du mois pour la compta", "exportar las ventas del mes para la contable"},
	{"test the checkout on mobile", "den Test der Kasse auf dem Handy", "le test du paiement sur mobile", "probar el checkout en el móvil"},
	{"water the plants in the unit", "das Gießen der Pflanzen in der Halle", "l'arrosage des plantes de l'entrepôt", "regar las plantas del almacén"},
	{"check the smoke alarm in the garage", "die Prüfung des Rauchmelders in der Garage", "le test du détecteur de fumée du garage", "revisar el detector de humo del garaje"},
	{"rotate the homepage banner", "den Wechsel des Startseiten-Banners", "le changement de bannière d'accueil", "cambiar el banner de la portada"},
	{"update the shipping rates table", "die Aktualisierung der Versandkostentabelle", "la mise à jour de la grille des frais de port", "actualizar la tabla de gastos de envío"},
	{"chase unpaid wholesale invoices", "das Nachfassen offener Großhandelsrechnungen", "les relances des factures de gros impayées", "reclamar las facturas mayoristas pendientes"},
	{"archive fulfilled orders", "das Archivieren erledigter Bestellungen", "l'archivage des commandes expédiées", "archivar los pedidos enviados"},
}

func (g *gen) b4chore(c [4]string) {
	ws := []string{"every Monday", "every Friday morning", "first Tuesday of the month", "last working day of the month", "every other Wednesday", "Thursdays after the courier", "every Sunday evening", "on the 1st", "twice a week (Mon/Thu)", "the 15th of each month"}
	w := g.pick(ws)
	x := g.pick(ws)
	for x == w {
		x = g.pick(ws)
	}
	kv := []string{"{chore}", c[0], "{chore_de}", c[1], "{chore_fr}", c[2], "{chore_es}", c[3], "{when}", w, "{whenX}", x,
		"{who}", g.pick([]string{"Maya", "Joe", "the VA", "whoever's in"}), "{month}", g.pick(b4months)}
	g.b4(b4choreNote, kv...)
}

// The two sites: the unit on the trading estate and the garage at home, with look-alike notes.
var b4siteNotes = []b4t{
	{text: []string{"{site} rent £{n}/month, due on the {d}", "Rent for {site}: £{n} a month ({d})"},
		ask:  []string{"how much is the rent on {site}", "{site} rent"},
		de:   []string{"Wie hoch ist die Miete für {site}?"},
		fr:   []string{"Le loyer de {site}, c'est combien ?"},
		es:   []string{"¿Cuánto pagamos de alquiler por {site}?"},
		dist: []string{"rent for {site}", "what do we pay a month for {site}"}},
	{text: []string{"{site} bins go out {day} night", "Bin day at {site}: {day}"},
		para: []string{"bin day at {site}", "when do the bins go out at {site}"},
		de:   []string{"Wann ist Müllabfuhr bei {site}?"},
		fr:   []string{"C'est quel jour les poubelles à {site} ?"},
		es:   []string{"¿Qué día se saca la basura en {site}?"},
		dist: []string{"which day are bins at {site}", "{site} bin collection day"}},
	{text: []string{"{site} contents insurance: {ins}, policy {pol}", "Insurance for stock at {site} — {ins}, policy no. {pol}"},
		para:  []string{"who insures the stock at {site}", "{site} insurance policy number"},
		ident: []string{"which site is policy {pol}", "{pol}"},
		de:    []string{"Bei wem ist der Bestand in {site} versichert?"},
		fr:    []string{"Qui assure le stock de {site} ?"},
		es:    []string{"¿Con quién está asegurado el stock de {site}?"},
		dist:  []string{"insurance policy for {site}", "{site} stock insurer"}},
	{text: []string{"{site} alarm company: {alarm}, call {tel}", "Alarm at {site} is monitored by {alarm} ({tel})"},
		para:  []string{"who monitors the alarm at {site}", "{site} alarm company phone"},
		ident: []string{"{tel}", "whose number is {tel}"},
		de:    []string{"Welche Firma überwacht die Alarmanlage in {site}?"},
		fr:    []string{"Quelle société surveille l'alarme de {site} ?"},
		es:    []string{"¿Qué empresa vigila la alarma de {site}?"},
		dist:  []string{"alarm company for {site}", "who do I call if the {site} alarm goes off"}},
	{text: []string{"{site} wifi: network {wifi}", "Wifi at {site} is {wifi} (password on the fridge)"},
		para: []string{"what's the wifi called at {site}", "{site} wifi network"},
		de:   []string{"Wie heißt das WLAN in {site}?"},
		fr:   []string{"Le wifi de {site} s'appelle comment ?"},
		es:   []string{"¿Cómo se llama la wifi de {site}?"},
		dist: []string{"wifi name at {site}", "{site} wifi"}},
}

// Bays of the unit and what is kept there.
var b4bayNote = b4t{
	text:  []string{"Bay {bay}: {what}", "{what} live in bay {bay}", "{what} -> bay {bay}", "We keep the {what} in bay {bay}."},
	para:  []string{"where are the {what}", "where do we keep {what}", "{what} location in the unit"},
	ident: []string{"what's in bay {bay}"},
	de:    []string{"Wo liegen die {what_de}?"},
	fr:    []string{"Où sont les {what_fr} ?"},
	es:    []string{"¿Dónde están {what_es}?"},
	fixes: []string{"{what} moved to bay {bay2}", "{what} are in bay {bay2} now (was {bay})", "!bay {bay2} for the {what}, not {bay}"},
}

var b4bays = [][4]string{{"bubble wrap rolls", "Luftpolsterrollen", "rouleaux de papier bulle", "los rollos de plástico de burbujas"}, {"tissue paper", "Seidenpapiere", "papiers de soie", "los papeles de seda"}, {"returns awaiting inspection", "Retouren zur Prüfung", "retours à contrôler", "las devoluciones pendientes de revisar"}, {"seconds and damaged stock", "B-Waren", "articles abîmés", "los artículos con tara"}, {"Christmas stock", "Weihnachtsartikel", "articles de Noël", "los artículos de Navidad"}, {"gift boxes", "Geschenkboxen", "boîtes cadeaux", "las cajas de regalo"}, {"spare label rolls", "Ersatz-Etikettenrollen", "rouleaux d'étiquettes de rechange", "los rollos de etiquetas de repuesto"}, {"flat-packed cartons", "flachgelegten Kartons", "cartons à plat", "las cajas plegadas"}, {"wholesale orders waiting for collection", "Großhandelsbestellungen zur Abholung", "commandes de gros en attente d'enlèvement", "los pedidos mayoristas pendientes de recogida"}, {"photo props", "Foto-Requisiten", "accessoires photo", "los atrezos de fotos"}, {"pallets of candles", "Kerzenpaletten", "palettes de bougies", "los palés de velas"}, {"market stall kit", "Marktstand-Sachen", "affaires du stand de marché", "las cosas del puesto de mercado"}, {"Amazon FBA cartons ready to send", "fertigen FBA-Kartons", "cartons FBA prêts à partir", "las cajas de FBA listas"}, {"printer ink and toner", "Druckerpatronen", "cartouches d'imprimante", "los cartuchos de tinta"}}

// Packaging: box sizes and what they cost.
var b4boxNote = b4t{
	text:  []string{"{box} box {dims} mm from {sup}, £{cost} per 100", "Box {box}: {dims}mm, {sup}, {cost}/100", "{box} boxes ({dims}) cost £{cost} per hundred from {sup}"},
	ask:   []string{"what are the {box} box dimensions", "how much do {box} boxes cost", "{box} box size", "who supplies the {box} boxes"},
	de:    []string{"Welche Maße hat der {box}-Karton?"},
	fr:    []string{"Quelles sont les dimensions du carton {box} ?"},
	es:    []string{"¿Qué medidas tiene la caja {box}?"},
	fixes: []string{"{box} boxes now £{cost2} per 100 from {sup}, same {dims} size", "as of {month} the {box} box ({dims} mm) is £{cost2}/100"},
}

// Incidents: one of each kind per subject, with their own reference numbers.
var (
	b4mixup = b4t{
		text:  []string{"{date}: stock mix-up — {a} and {b} labels swapped on the shelf, {k} orders went out wrong. Relabelled, apologised, sent replacements.", "Mix-up {date}: {k} customers got {b} instead of {a}. Cause: swapped labels. Fixed."},
		para:  []string{"what happened with the {a} mix-up", "the time customers got {b} instead of {a}", "how many orders went wrong with the {a} labels"},
		de:    []string{"Was war da los mit der Verwechslung beim {a}?"},
		fr:    []string{"C'était quoi l'histoire de l'erreur d'étiquettes sur le {a} ?"},
		es:    []string{"¿Qué pasó con la confusión de etiquetas del {a}?"},
		fixes: []string{"{a} mix-up: it was {k2} orders in the end, not {k}"},
	}
	b4payoutDelay = b4t{
		text:  []string{"{date}: {mk} payout of £{amt} held for {d} days — they wanted ID documents again. Case {case}.", "{mk} payout delay {date}, £{amt} stuck {d} days, case {case}"},
		para:  []string{"why was the {mk} payout held", "the {mk} payout delay", "what happened with {mk} money being late"},
		ident: []string{"case {case}", "{case}", "what was {case} about"},
		de:    []string{"Warum wurde die Auszahlung von {mk} zurückgehalten?"},
		fr:    []string{"Pourquoi le versement {mk} a été bloqué ?"},
		es:    []string{"¿Por qué retuvieron el pago de {mk}?"},
		fixes: []string{"{mk} payout (case {case}) finally released after {d2} days"},
	}
	b4lost = b4t{
		text:  []string{"{c} lost parcel {trk} to {city}, {date}; claim {ref} filed", "Lost: {c} {trk} ({city}) — claimed, ref {ref}"},
		para:  []string{"did we claim for the parcel {c} lost in {city}", "lost {c} parcel {city}"},
		ident: []string{"{trk}", "tracking {trk} what happened", "claim {ref}"},
		de:    []string{"Haben wir für das verlorene {c}-Paket nach {city} reklamiert?"},
		fr:    []string{"On a fait une réclamation pour le colis {c} perdu à {city} ?"},
		es:    []string{"¿Reclamamos el paquete de {c} que se perdió en {city}?"},
	}
	b4chargeback = b4t{
		text:  []string{"chargeback on order #{order} (£{amt}, {reason}) — respond by {date}", "Order #{order}: chargeback, {reason}, £{amt}. Evidence due {date}."},
		ident: []string{"order #{order}", "#{order} chargeback", "what's going on with {order}"},
		para:  []string{"chargeback for {reason}"},
	}
)

var b4cities = []string{"Leeds", "Bristol", "Glasgow", "Cardiff", "Norwich", "Exeter", "Belfast", "Hamburg", "Lyon", "Dublin", "Utrecht", "York", "Inverness", "Brighton", "Bath"}

// blind4 writes the notes, interleaved the way a shop's notes pile up over two years.
func (g *gen) blind4() {
	// Each supplier name is used once; the kinds of supplier go round so every kind of
	// product has two or three to come from.
	names := slices.Clone(b4supA)
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var sups []string
	for i, n := range names {
		sups = append(sups, n+" "+b4supB[i%len(b4supB)])
	}
	var jobs []func()
	var products []string
	for range 300 {
		var it [2]string
		name := g.uniq(func() string {
			it = b4items[g.r.IntN(len(b4items))]
			return g.pick(b4colours) + " " + it[0]
		})
		products = append(products, name)
		jobs = append(jobs, func() { g.b4product(name, it[0], it[1], sups) })
	}
	for _, s := range sups {
		jobs = append(jobs, func() { g.b4supplier(s) })
	}
	for _, c := range []string{"Royal Mail", "Evri", "DPD", "Parcelforce", "DHL Express", "UPS", "InPost", "FedEx"} {
		jobs = append(jobs, func() { g.b4courier(c) })
	}
	for _, a := range b4apps {
		jobs = append(jobs, func() { g.b4app(a) })
	}
	for _, p := range []string{"Shopify Payments", "PayPal", "Stripe", "Klarna", "Clearpay"} {
		jobs = append(jobs, func() { g.b4payment(p) })
	}
	themes := []string{"Mother's Day", "Christmas gifting", "Black Friday", "Valentine's", "Father's Day", "Autumn cosy", "Easter", "Spring refresh", "Wedding gifts", "Housewarming", "Retargeting", "Brand search", "All products", "Candle lovers"}
	for i, th := range themes {
		for _, pl := range []string{"Meta", "Google Ads", "Pinterest", "TikTok"} {
			if th == "Brand search" && pl != "Google Ads" {
				continue
			}
			jobs = append(jobs, func() { g.b4campaign(th, pl, i < 10) })
		}
	}
	for _, c := range [][2]string{{"the website", "Etsy"}, {"Etsy", ""}, {"Amazon UK", "Amazon DE"}, {"Amazon DE", ""}, {"NOTHS", "the website"}} {
		jobs = append(jobs, func() { g.b4channel(c[0], c[1]) })
	}
	for _, c := range b4countries {
		jobs = append(jobs, func() { g.b4vat(c) })
	}
	staff := []string{}
	for _, r := range b4roles {
		var p string
		for p == "" || slices.ContainsFunc(staff, func(x string) bool { return strings.Fields(x)[0] == strings.Fields(p)[0] }) {
			p = g.pick(b4first) + " " + g.pick(b4last)
		}
		staff = append(staff, p)
		jobs = append(jobs, func() { g.b4staff(p, r) })
	}
	for _, c := range b4chores {
		jobs = append(jobs, func() { g.b4chore(c) })
	}
	for _, t := range b4siteNotes {
		jobs = append(jobs, func() {
			site := func(s string) []string {
				return []string{"{site}", s, "{n}", fmt.Sprint(map[string]int{"the unit": 900, "the garage": 150}[s] + 10*g.r.IntN(30)), "{d}", g.pick([]string{"1st", "28th", "15th"}),
					"{day}", g.pick(b4days), "{ins}", g.pick([]string{"Hiscox", "Simply Business", "Aviva", "AXA"}), "{pol}", g.uniq(func() string { return "POL-" + g.b4digits(8) }),
					"{alarm}", g.pick([]string{"Secom", "Chubb", "ADT", "Verisure"}), "{tel}", g.uniq(func() string { return "0" + g.b4digits(4) + " " + g.b4digits(6) }),
					"{wifi}", g.pick([]string{"BT-", "VM", "EE-", "Sky"}) + g.b4digits(4)}
			}
			g.b4twins(t, site("the unit"), site("the garage"))
		})
	}
	for _, b := range b4bays {
		jobs = append(jobs, func() {
			bay := func() string {
				return g.uniq(func() string { return fmt.Sprintf("%c%d", 'W'+rune(g.r.IntN(4)), 1+g.r.IntN(9)) })
			}
			g.b4(b4bayNote, "{what}", b[0], "{what_de}", b[1], "{what_fr}", b[2], "{what_es}", b[3], "{bay}", bay(), "{bay2}", bay())
		})
	}
	for _, box := range []string{"S", "M", "L", "XL", "mailer", "flat", "candle", "double-wall"} {
		jobs = append(jobs, func() {
			d := fmt.Sprintf("%dx%dx%d", 100+20*g.r.IntN(15), 80+20*g.r.IntN(10), 20+20*g.r.IntN(8))
			c := g.b4money(18, 90)
			g.b4(b4boxNote, "{box}", box, "{dims}", d, "{sup}", g.pick([]string{"Kite Packaging", "Rajapack", "Packhelp", "Boxtopia"}), "{cost}", c, "{cost2}", g.b4money(20, 95), "{month}", g.pick(b4months))
		})
	}
	date := func() string {
		return fmt.Sprintf("%d %s %d", 1+g.r.IntN(28), b4months[g.r.IntN(12)][:3], 2025+g.r.IntN(2))
	}
	mixed := map[string]bool{}
	for range 10 {
		jobs = append(jobs, func() {
			a := g.pick(products)
			var b string
			for b == "" || b == a || mixed[a] || mixed[b] || strings.Fields(b)[len(strings.Fields(b))-1] != strings.Fields(a)[len(strings.Fields(a))-1] {
				a, b = g.pick(products), g.pick(products)
			}
			mixed[a], mixed[b] = true, true
			k := 2 + g.r.IntN(15)
			g.b4(b4mixup, "{date}", date(), "{a}", a, "{b}", b, "{k}", fmt.Sprint(k), "{k2}", fmt.Sprint(k+3))
		})
	}
	for _, mk := range []string{"Etsy", "Amazon UK", "Amazon DE", "NOTHS", "Shopify Payments", "PayPal", "Klarna"} {
		jobs = append(jobs, func() {
			d := 3 + g.r.IntN(12)
			g.b4(b4payoutDelay, "{date}", date(), "{mk}", mk, "{amt}", fmt.Sprint(300+g.r.IntN(6000)), "{d}", fmt.Sprint(d), "{d2}", fmt.Sprint(d+4),
				"{case}", g.uniq(func() string { return g.b4digits(8) }))
		})
	}
	for _, c := range []string{"Royal Mail", "Evri", "DPD", "Parcelforce", "DHL Express", "UPS", "InPost", "FedEx"} {
		cities := slices.Clone(b4cities)
		g.r.Shuffle(len(cities), func(i, j int) { cities[i], cities[j] = cities[j], cities[i] })
		for _, city := range cities[:2] {
			jobs = append(jobs, func() {
				g.b4(b4lost, "{c}", c, "{city}", city, "{date}", date(), "{trk}", g.uniq(func() string { return g.pick([]string{"JD", "H", "1Z", "RM"}) + g.b4digits(12) }),
					"{ref}", g.uniq(func() string { return "CLM" + g.b4digits(6) }))
			})
		}
	}
	for range 12 {
		jobs = append(jobs, func() {
			g.b4(b4chargeback, "{order}", g.uniq(func() string { return "HH" + g.b4digits(5) }), "{amt}", g.b4money(12, 180), "{date}", date(),
				"{reason}", g.pick([]string{"item not received", "not as described", "unauthorised", "duplicate charge", "cancelled order"}))
		})
	}
	g.r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for _, j := range jobs {
		j()
	}
}

// writeBlind4 stores each correction after the note it corrects: right after it for a slip
// fixed at once, otherwise weeks later, between other notes.
func (g *gen) writeBlind4(out string) {
	g.writeLater(out, func(i, n int, f Memory) int {
		if b4slip[f.Text] {
			return i
		}
		return min(i+1+g.r.IntN(max(1, n-i-1)), n-1)
	})
}

// b4grams is what each item weighs packed, about.
var b4grams = map[string]int{"linen tea towel": 150, "stoneware mug": 480, "oak serving board": 900, "brass candle holder": 420, "wool cushion cover": 350,
	"cotton throw": 1100, "ceramic planter": 950, "glass bud vase": 380, "cork coaster set": 220, "linen napkin set": 300, "table runner": 320,
	"enamel jug": 520, "seagrass basket": 700, "cast iron doorstop": 1900, "canvas apron": 280, "oven glove": 200, "soy candle": 450,
	"wall hook": 160, "photo frame": 560, "trinket dish": 190, "serving bowl": 1100, "side plate set": 1300, "hot water bottle cover": 260,
	"hanging decoration": 90, "greetings card": 40, "notebook": 240, "tote bag": 180, "wax melt set": 170, "reed diffuser": 520, "knitted bauble": 70}

// b4themeMonth is when each seasonal campaign starts (January is 0).
var b4themeMonth = map[string]int{"Mother's Day": 1, "Christmas gifting": 10, "Black Friday": 10, "Valentine's": 0, "Father's Day": 4,
	"Autumn cosy": 8, "Easter": 2, "Spring refresh": 2, "Wedding gifts": 4, "Housewarming": 6}

// b4makers are the kinds of supplier that make each item.
var b4makers = func() map[string][]string {
	m := map[string][]string{}
	for kinds, items := range map[string][]string{
		"Textiles Trading Imports":        {"linen tea towel", "wool cushion cover", "cotton throw", "linen napkin set", "table runner", "canvas apron", "oven glove", "hot water bottle cover", "tote bag", "knitted bauble"},
		"Ceramics Studio Imports":         {"stoneware mug", "ceramic planter", "trinket dish", "serving bowl", "side plate set"},
		"Wood Co Homeware Crafts":         {"oak serving board"},
		"Homeware Trading Crafts Imports": {"brass candle holder", "glass bud vase", "cork coaster set", "enamel jug", "seagrass basket", "cast iron doorstop", "wall hook", "photo frame", "hanging decoration"},
		"Candle Co Crafts":                {"soy candle", "wax melt set", "reed diffuser"},
		"Paper Goods Studio":              {"greetings card", "notebook"},
	} {
		k := strings.Fields(strings.ReplaceAll(strings.ReplaceAll(kinds, "Wood Co", "Wood_Co"), "Candle Co", "Candle_Co"))
		for i := range k {
			k[i] = strings.ReplaceAll(k[i], "_", " ")
		}
		for _, it := range items {
			m[it] = k
		}
	}
	return m
}()

// The products' names as a German, French or Spanish speaker says them: item with its article,
// then the colour (which stays invariable that way).
var (
	b4itemL = map[string][3]string{
		"linen tea towel": {"das Leinen-Geschirrtuch", "le torchon en lin", "el paño de cocina de lino"}, "stoneware mug": {"der Steingutbecher", "le mug en grès", "la taza de gres"},
		"oak serving board": {"das Servierbrett aus Eiche", "la planche de service en chêne", "la tabla de servir de roble"}, "brass candle holder": {"der Kerzenhalter aus Messing", "le bougeoir en laiton", "el candelabro de latón"},
		"wool cushion cover": {"die Kissenhülle aus Wolle", "la housse de coussin en laine", "la funda de cojín de lana"}, "cotton throw": {"die Baumwolldecke", "le plaid en coton", "la manta de algodón"},
		"ceramic planter": {"der Keramik-Übertopf", "le cache-pot en céramique", "la maceta de cerámica"}, "glass bud vase": {"die Knospenvase aus Glas", "le soliflore en verre", "el florero de vidrio"},
		"cork coaster set": {"das Set Korkuntersetzer", "le lot de sous-verres en liège", "el juego de posavasos de corcho"}, "linen napkin set": {"das Set Leinenservietten", "le lot de serviettes en lin", "el juego de servilletas de lino"},
		"table runner": {"der Tischläufer", "le chemin de table", "el camino de mesa"}, "enamel jug": {"die Emaille-Kanne", "le pichet en émail", "la jarra esmaltada"},
		"seagrass basket": {"der Seegraskorb", "le panier en jonc de mer", "la cesta de fibra marina"}, "cast iron doorstop": {"der Türstopper aus Gusseisen", "le cale-porte en fonte", "el tope de puerta de hierro fundido"},
		"canvas apron": {"die Canvas-Schürze", "le tablier en toile", "el delantal de lona"}, "oven glove": {"der Ofenhandschuh", "le gant de cuisine", "la manopla de horno"},
		"soy candle": {"die Sojakerze", "la bougie de soja", "la vela de soja"}, "wall hook": {"der Wandhaken", "la patère", "el colgador de pared"},
		"photo frame": {"der Bilderrahmen", "le cadre photo", "el marco de fotos"}, "trinket dish": {"die Schmuckschale", "le vide-poche", "el platito joyero"},
		"serving bowl": {"die Servierschüssel", "le saladier", "el bol de servir"}, "side plate set": {"das Set Frühstücksteller", "le lot d'assiettes à dessert", "el juego de platos de postre"},
		"hot water bottle cover": {"der Wärmflaschenbezug", "la housse de bouillotte", "la funda de bolsa de agua caliente"}, "hanging decoration": {"der Hängeschmuck", "la décoration à suspendre", "el adorno colgante"},
		"greetings card": {"die Grußkarte", "la carte de vœux", "la tarjeta de felicitación"}, "notebook": {"das Notizbuch", "le carnet", "la libreta"},
		"tote bag": {"die Stofftasche", "le tote bag", "la bolsa de tela"}, "wax melt set": {"das Duftwachs-Set", "le coffret de fondants parfumés", "el set de ceras aromáticas"},
		"reed diffuser": {"der Raumduft mit Stäbchen", "le diffuseur à bâtonnets", "el difusor de varillas"}, "knitted bauble": {"die gestrickte Christbaumkugel", "la boule de Noël tricotée", "la bola de Navidad de punto"},
	}
	b4colourL = map[string][3]string{
		"sage": {"Salbeigrün", "vert sauge", "verde salvia"}, "ochre": {"Ocker", "ocre", "ocre"}, "charcoal": {"Anthrazit", "anthracite", "antracita"},
		"blush": {"Zartrosa", "rose poudré", "rosa palo"}, "navy": {"Marineblau", "bleu marine", "azul marino"}, "oatmeal": {"Haferbeige", "beige avoine", "avena"},
		"terracotta": {"Terrakotta", "terracotta", "terracota"}, "ivory": {"Elfenbein", "ivoire", "marfil"}, "forest green": {"Waldgrün", "vert forêt", "verde bosque"},
		"rust": {"Rostrot", "rouille", "óxido"}, "slate blue": {"Schieferblau", "bleu ardoise", "azul pizarra"}, "mustard": {"Senfgelb", "moutarde", "mostaza"},
		"dusky pink": {"Altrosa", "vieux rose", "rosa empolvado"}, "teal": {"Petrol", "bleu canard", "verde azulado"}, "sand": {"Sand", "sable", "arena"}, "plum": {"Pflaume", "prune", "ciruela"},
	}
	b4qualL = map[string][3]string{
		"small": {"klein", "petit modèle", "pequeño"}, "large": {"groß", "grand modèle", "grande"}, "single": {"einzeln", "à l'unité", "suelto"},
		"set of 4": {"4er-Set", "lot de 4", "pack de 4"}, "standard": {"normal", "standard", "normal"}, "gift-boxed": {"in Geschenkbox", "en coffret cadeau", "en caja regalo"},
	}
)

// b4acc puts a German noun phrase in the accusative (only the masculine article changes).
func b4acc(s string) string {
	if r, ok := strings.CutPrefix(s, "der "); ok {
		return "den " + r
	}
	return s
}

// b4du is "du torchon" for "le torchon", "de la bougie" for "la bougie".
func b4du(s string) string {
	if r, ok := strings.CutPrefix(s, "le "); ok {
		return "du " + r
	}
	return "de " + s
}

// b4del is "del paño" for "el paño", "de la vela" for "la vela".
func b4del(s string) string {
	if r, ok := strings.CutPrefix(s, "el "); ok {
		return "del " + r
	}
	return "de " + s
}
