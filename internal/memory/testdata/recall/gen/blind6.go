package main

// The blind6 set: the notes the operations person of a small restaurant group with four sites
// keeps — sites and their managers, opening hours per season, suppliers and their delivery days,
// card terminals and the booking system, dishes with their allergens, prices and till codes,
// staff, health-and-safety checks, kitchen equipment under service contracts, private bookings
// and incidents (a fridge that died, a delivery that came short). Written for issue 30 from the
// six classes' definitions in main.go's header alone, without the ranking code or the other
// sets' templates.

import (
	"fmt"
	"slices"
	"strings"
)

var (
	b6Sites  = []string{"Leith", "Stockbridge", "Bruntsfield", "Portobello"}
	b6Post   = map[string]string{"Leith": "EH6", "Stockbridge": "EH3", "Bruntsfield": "EH10", "Portobello": "EH15"}
	b6First  = []string{"Aileen", "Callum", "Eilidh", "Fraser", "Iona", "Kirsty", "Lewis", "Morag", "Ruaridh", "Skye", "Tomasz", "Agnieszka", "Marta", "Diego", "Lucía", "Giulia", "Matteo", "Sana", "Bilal", "Chloe", "Jamie", "Niamh", "Ross", "Zofia", "Andrei", "Ioana", "Kwame", "Ama", "Hamish", "Fiona", "Euan", "Catriona", "Pedro", "Inés", "Ewa", "Olek", "Mhairi", "Dougie", "Amira", "Yusuf", "Beatriz", "Finlay", "Rhona", "Sean", "Leila", "Kenji"}
	b6Last   = []string{"MacLeod", "Campbell", "Fraser", "Stewart", "Robertson", "Henderson", "Paterson", "Wilson", "Kowalczyk", "Nowak", "Ferreira", "Romano", "Esposito", "Khan", "Hussain", "Mensah", "Sutherland", "Munro", "Duncan", "Lindsay", "Popescu", "Ruiz", "Moreno", "Kaczmarek", "Boateng", "Mackay", "Grant", "Ogilvie", "Baird", "Tanaka", "Ritchie", "Gallagher"}
	b6Months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	b6Days   = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	b6Roles  = []string{"sous chef", "chef de partie", "commis chef", "kitchen porter", "pastry chef", "server", "bartender", "floor supervisor", "barista", "host", "assistant manager", "head chef"}
)

// b6Promo is the next step up from each role.
var b6Promo = map[string]string{"kitchen porter": "commis chef", "commis chef": "chef de partie", "chef de partie": "sous chef",
	"sous chef": "head chef", "head chef": "executive chef over all four sites", "pastry chef": "head pastry chef", "server": "floor supervisor",
	"bartender": "head bartender", "host": "server", "barista": "head barista", "floor supervisor": "assistant manager", "assistant manager": "deputy GM"}

// b6Suppliers: each supplies goods nobody else does, so "who brings the eggs" has one answer.
var b6Suppliers = [][2]string{
	{"Kinloch Seafood", "fish and shellfish"}, {"Braehead Butchers", "beef, lamb and pork"}, {"Lothian Greens", "fruit and veg"},
	{"Crombie Dairy", "milk, cream and butter"}, {"Bakehouse Forty-Two", "sourdough and brioche buns"},
	{"Pentland Roasters", "coffee beans"}, {"Forth Wine Cellars", "wine"}, {"Tollcross Brewing", "keg beer"},
	{"Cairn Dry Goods", "flour, rice, tins and dry goods"}, {"Glen Eggs", "free-range eggs"}, {"Tiny Leaf Farm", "microgreens and edible flowers"},
	{"I.J. Mellis Cheese", "cheese"}, {"Over Season Ices", "ice cream and sorbet"}, {"Cocoa Black Wholesale", "chocolate"},
	{"Highland Spirits Co", "spirits"}, {"Fentimans Direct", "soft drinks and mixers"}, {"Brightwell Hygiene", "cleaning chemicals"},
	{"Johnstons Linen", "napkins, aprons and tea towels"}, {"GreenBox Packaging", "takeaway boxes and cups"},
	{"Olio Verde Imports", "olive oil and Italian deli goods"}, {"Wildwood Mushrooms", "wild and cultivated mushrooms"},
	{"Borders Game Larder", "venison and game"}, {"Peelham Charcuterie", "charcuterie"}, {"Pasta Fresca Leith", "fresh pasta"},
	{"Eteaket Trade", "loose-leaf tea"}, {"Cold Press Co", "fresh juices"}, {"BOC Gas Edinburgh", "CO2 and beer gas"},
	{"Olleco", "used cooking oil collection"}, {"Sharp Edge Services", "knife sharpening"}, {"Petal & Stem", "table flowers"},
	{"Tartan Paper Supplies", "till rolls and kitchen roll"}, {"Chefwear Scotland", "chef whites and uniforms"},
	{"Arbroath Smokehouse", "smoked fish"}, {"Clyde Ice", "bagged ice"}, {"Sweet Pea Bakery", "cakes and tray bakes"},
	{"Mara Seaweed Trade", "seaweed and sea salt"}, {"Caledonian Oils", "fryer oil"}, {"Nut Free Nibbles", "bar snacks"},
}

// b6Kinds: kitchen and bar equipment, each with a make and model, the contractor that services
// it, and fault codes that come up.
var b6Kinds = []struct {
	kind, model, co string
	codes           [][2]string
	// How the machine is named in German (accusative, "an" dative), French ("de", "sur") and
	// Spanish ("de", "en").
	deAcc, deAn, frDe, frSur, esDe, esEn string
}{
	{"walk-in fridge", "Foster cold room with an Eliwell controller", "Coldline Refrigeration", [][2]string{{"E1", "room probe failed"}, {"HA", "high temperature alarm"}, {"dF", "stuck in defrost"}}, "den Kühlraum", "am Kühlraum", "de la chambre froide", "sur la chambre froide", "de la cámara frigorífica", "en la cámara frigorífica"},
	{"combi oven", "Rational iCombi Pro 10-1/1", "Rational Service Partner Scotland", [][2]string{{"Service 34", "core probe fault"}, {"Service 25", "no water to the steam generator"}, {"Service 10", "descaling needed"}}, "den Kombidämpfer", "am Kombidämpfer", "du four mixte", "sur le four mixte", "del horno mixto", "en el horno mixto"},
	{"dishwasher", "Winterhalter PT-M", "Winterhalter Scotland", [][2]string{{"E27", "drain pump blocked"}, {"E04", "tank heating too slow"}, {"E12", "rinse aid empty"}}, "die Spülmaschine", "an der Spülmaschine", "du lave-vaisselle", "sur le lave-vaisselle", "del lavavajillas", "en el lavavajillas"},
	{"coffee machine", "La Marzocco Linea PB 3-group", "Pentland Roasters tech team", [][2]string{{"E02", "group flowmeter fault"}, {"E06", "boiler overfill"}}, "die Kaffeemaschine", "an der Kaffeemaschine", "de la machine à café", "sur la machine à café", "de la cafetera", "en la cafetera"},
	{"ice machine", "Hoshizaki IM-65", "Coldline Refrigeration", [][2]string{{"E1-1", "water supply fault"}, {"E9", "bin full sensor stuck"}}, "die Eismaschine", "an der Eismaschine", "de la machine à glaçons", "sur la machine à glaçons", "de la máquina de hielo", "en la máquina de hielo"},
	{"blast chiller", "Williams WBC20", "Coldline Refrigeration", [][2]string{{"AL3", "evaporator probe error"}}, "den Schockkühler", "am Schockkühler", "de la cellule de refroidissement", "sur la cellule de refroidissement", "del abatidor", "en el abatidor"},
	{"glasswasher", "Classeq Hydro 500", "Winterhalter Scotland", [][2]string{{"F5", "fill timeout"}}, "die Gläserspülmaschine", "an der Gläserspülmaschine", "du lave-verres", "sur le lave-verres", "del lavavasos", "en el lavavasos"},
	{"fryer", "Valentine EVO 2200", "Kitchen Kare Engineering", [][2]string{{"F2", "thermostat tripped"}, {"E5", "oil too hot, high-limit cut-out"}}, "die Fritteuse", "an der Fritteuse", "de la friteuse", "sur la friteuse", "de la freidora", "en la freidora"},
	{"extraction canopy", "Halton canopy with a Systemair fan", "Kitchen Kare Engineering", [][2]string{{"FAN FAIL", "airflow switch tripped, gas interlock shuts the line"}}, "die Abzugshaube", "an der Abzugshaube", "de la hotte", "sur la hotte", "de la campana extractora", "en la campana extractora"},
	{"bottle cooler", "Gamko triple-door", "Coldline Refrigeration", [][2]string{{"P1", "probe fault"}}, "den Flaschenkühler", "am Flaschenkühler", "du frigo à bouteilles", "sur le frigo à bouteilles", "del botellero", "en el botellero"},
	{"cellar cooler", "Valeo Cellarmaster 3", "Coldline Refrigeration", [][2]string{{"HP", "high pressure trip, condenser blocked"}}, "den Kellerkühler", "am Kellerkühler", "du refroidisseur de cave", "sur le refroidisseur de cave", "del enfriador de bodega", "en el enfriador de bodega"},
	{"water softener", "BWT bewamat 25", "BWT UK", [][2]string{{"Err 2", "salt low, regeneration skipped"}}, "den Wasserenthärter", "am Wasserenthärter", "de l'adoucisseur", "sur l'adoucisseur", "del descalcificador", "en el descalcificador"},
	{"salamander grill", "Lincat SG50", "Kitchen Kare Engineering", [][2]string{{"E03", "element open circuit"}}, "den Salamander", "am Salamander", "de la salamandre", "sur la salamandre", "de la salamandra", "en la salamandra"},
}

var b6Dishes = []string{"smoked haddock chowder", "Cullen skink", "beetroot and goat's cheese salad", "haggis bonbons", "crispy squid",
	"mussels with nduja", "burrata with blood orange", "venison haunch", "pan-roasted hake", "steak frites", "lamb rump",
	"mushroom risotto", "cauliflower steak", "fish and chips", "halloumi burger", "Hearth burger", "chicken milanese",
	"pork belly", "gnocchi with brown butter", "spinach and ricotta ravioli", "crab linguine", "scallops with black pudding",
	"sticky toffee pudding", "cranachan", "dark chocolate tart", "lemon posset", "affogato", "cheese board", "kids' fish goujons",
	"kids' pasta", "truffle fries", "tenderstem broccoli", "sourdough with whipped butter", "Brunch stack", "eggs royale",
	"full Scottish breakfast", "vegan breakfast", "shakshuka", "French toast with berries", "porridge with whisky honey",
	"Sunday roast beef", "nut roast", "seafood platter", "oysters (half dozen)", "chicken caesar", "smoked salmon bagel",
	"soup of the day", "chips", "onion rings", "house salad", "panna cotta", "Biscoff cheesecake", "apple crumble",
	"rhubarb fool", "carrot cake", "salted caramel brownie"}

var b6Clients = []string{"Ramsay 40th birthday", "Scottish Widows team lunch", "Baillie Gifford leaving do", "MacKenzie wedding rehearsal dinner",
	"Edinburgh Uni physics dept dinner", "Leith Rugby Club awards night", "Tait christening lunch", "Skyscanner Christmas party",
	"Hendry retirement dinner", "FanDuel offsite", "Morrison engagement party", "Book club (Mrs Doig)", "Lothian Nurses reunion",
	"Brewdog area managers meeting", "Quinn wake", "Gillespie 60th", "Fringe producers brunch", "Craig & Lorna wedding meal",
	"Standard Life retirees lunch", "Walker hen party", "Portobello Rowing Club dinner", "Napier Uni graduation lunch",
	"Oyster tasting club", "Dalgleish family Christmas", "Scott golf society dinner", "Imrie 21st",
	"Harper christening lunch", "Wine dinner with Forth Wine Cellars", "Rotary Club lunch", "Kerr baby shower", "Adamson 30th",
	"Tech Scotland meetup", "Whisky pairing evening", "Baxter charity lunch", "Leith Festival quiz", "Cameron 50th",
	"Airbnb hosts social", "Lawson memorial lunch", "Sunday supper club", "Murray-Hunt anniversary",
	"Ferguson 18th", "Leith Dockers Club committee lunch", "Robb family reunion", "Craigie law firm Christmas lunch", "Napier alumni drinks",
	"Pollock baby naming", "Hibs supporters club dinner", "Usher Hall crew after-party", "Marchmont choir supper", "Dunbar 70th",
	"Wood & Sons staff night", "Gin tasting with Highland Spirits Co", "McIntyre stag brunch", "Bruce golden wedding", "FinTech Scotland breakfast",
	"Blackwood book launch", "Kelly 40th", "Ainslie leaving lunch", "Royal Botanic Garden volunteers lunch", "Jardine 25th anniversary"}

var b6Wines = []string{"Albariño, Rías Baixas", "Picpoul de Pinet", "Gavi di Gavi", "Sancerre", "Marlborough Sauvignon Blanc", "Chablis",
	"Grüner Veltliner", "Vinho Verde", "Soave Classico", "Riesling Kabinett", "Viognier, Pays d'Oc", "Rioja Crianza", "Côtes du Rhône",
	"Malbec, Mendoza", "Montepulciano d'Abruzzo", "Pinot Noir, Central Otago", "Primitivo", "Beaujolais-Villages", "Chianti Classico",
	"Douro red", "Nero d'Avola", "Provence rosé", "Pinot Grigio rosé", "Prosecco", "Crémant de Loire", "Champagne (house)",
	"Cava brut", "English sparkling", "Sauternes (half bottle)", "Tawny port", "Orange wine, Georgia", "Carménère"}

// b6pitch is what the floor says about a wine, by its kind.
func b6pitch(w string, g *gen) string {
	switch i := slices.Index(b6Wines, w); {
	case i < 11:
		return g.pick([]string{"dry, citrusy, great with the hake and oysters", "crisp, good by the glass on the terrace", "fresh and mineral, sell it with the seafood platter"})
	case i < 21 || i == 31:
		return g.pick([]string{"soft red fruit, easy with the burger", "big and spicy, sell it with the venison", "our best red by the glass, goes with the steak"})
	case i < 23:
		return "dry pink, the terrace wine, with the burrata or salads"
	case i < 28:
		return g.pick([]string{"for toasts and birthdays, push the bottle for tables of 4+", "lighter bubbles, by the glass at brunch"})
	case i < 30:
		return "sweet, offer with the cheese board or sticky toffee"
	}
	return "skin-contact, nutty, for the curious — pair with the cauliflower steak"
}

func (g *gen) b6wine(w string) {
	bin, btl := g.b6num("W%02d", 10, 99), 24+g.r.IntN(40)
	glass := fmt.Sprintf("£%d.%d0", 6+btl/8, g.r.IntN(10))
	g.b6add(&fact{
		text:  sub(g.pick([]string{"Bin {bin}: {w}, £{btl} bottle, {glass} 175ml", "{w} (bin {bin}) – bottle £{btl}, glass {glass}", "Wine list: {bin} {w} £{btl}/btl"}), "{bin}", bin, "{w}", w, "{btl}", fmt.Sprint(btl), "{glass}", glass),
		ask:   []string{"how much is a bottle of the " + w + "?", w + " bottle price"},
		ident: []string{"bin " + bin, "what wine is " + bin + "?"},
		val:   "£" + fmt.Sprint(btl), num: []string{fmt.Sprintf("which wine is £%d a bottle?", btl)},
		de: []string{"Was kostet bei uns eine Flasche " + w + "?"}, fr: []string{"Combien on vend la bouteille " + b6frDe(w) + " ?"}, es: []string{"¿A cuánto vendemos la botella de " + w + "?"},
		fixes: []string{fmt.Sprintf("%s now £%d a bottle (was £%d), new list from %s", w, btl+3, btl, g.pick(b6Months)), fmt.Sprintf("%s bottle price corrected: £%d not £%d", w, btl-2, btl)},
	}, "")
	if g.r.IntN(2) == 0 {
		g.b6add(&fact{
			text: sub(g.pick([]string{"Staff pitch for the {w}: {note}", "{w} — {note}"}), "{w}", w, "{note}", b6pitch(w, g)),
			para: []string{"how do we describe the " + w + " to guests?", "what food goes with the " + w + "?"},
			fr:   []string{"Avec quel plat on conseille " + b6frLe(w) + " ?"}, de: []string{"Wozu empfehlen wir den " + w + "?"},
		}, "")
	}
}

var b6Cocktails = []string{"Leith Negroni", "Porty Spritz", "Rhubarb Collins", "Espresso Martini", "Heather Old Fashioned", "Smoked Margarita",
	"Elderflower Fizz", "Bramble", "Penicillin", "Hearth Mule", "Passion fruit Martini", "Dark 'n' Stormy", "Bloody Mary", "Paloma",
	"Virgin Bramble (no alcohol)", "Seedlip Garden Spritz (no alcohol)"}

func (g *gen) b6cocktail(c string) {
	price, gin := 8+g.r.IntN(5), g.pick([]string{"Edinburgh Gin", "Isle of Harris Gin", "Tanqueray", "house vodka", "Monkey Shoulder", "Olmeca tequila", "Kraken rum", "Seedlip Garden"})
	g.b6add(&fact{
		text: sub(g.pick([]string{"{c}: 50ml {base}, £{p}.50, build over cubed ice", "Cocktail spec {c} — base {base}, sells at £{p}.50", "{c} £{p}.50 ({base})"}), "{c}", c, "{base}", gin, "{p}", fmt.Sprint(price)),
		para: []string{"what goes in the " + c + "?", c + " spec base spirit"},
		de:   []string{"Was ist die Basis im " + c + "?"}, fr: []string{"Qu'est-ce qu'on met dans " + b6frLe(c) + " ?"}, es: []string{"¿Qué lleva el " + c + "?"},
		fixes: []string{fmt.Sprintf("%s spec changed: now made with %s", c, g.pick([]string{"Bombay Sapphire", "Caorunn", "Absolut", "Patrón", "Bacardi Carta Blanca", "Aecorn"}))},
	}, "")
	if g.r.IntN(2) == 0 {
		g.b6add(&fact{
			text: sub(g.pick([]string{"{c} is on the bar list at {s} only", "Only {s} serves the {c} (needs the smoke gun / syrup made there)"}), "{c}", c, "{s}", g.pick(b6Sites)),
			para: []string{"which site serves the " + c + "?", c + " available where"},
			fr:   []string{"Dans quel restaurant on sert " + b6frLe(c) + " ?"},
		}, "")
	}
}

// b6frDe and b6frLe put the French "de" and "le" before a name, elided before a vowel.
func b6frDe(x string) string {
	if strings.ContainsRune("AEIOUÉaeiou", []rune(x)[0]) {
		return "d'" + x
	}
	return "de " + x
}

func b6frLe(x string) string {
	if strings.ContainsRune("AEIOUÉaeiou", []rune(x)[0]) {
		return "l'" + x
	}
	return "le " + x
}

func (g *gen) b6person() string {
	return g.uniq(func() string { return g.pick(b6First) + " " + g.pick(b6Last) })
}

func (g *gen) b6mobile() string {
	return g.uniq(func() string { return fmt.Sprintf("07%03d %06d", 700+g.r.IntN(300), g.r.IntN(1000000)) })
}

func (g *gen) b6num(format string, lo, hi int) string {
	return g.uniq(func() string { return fmt.Sprintf(format, lo+g.r.IntN(hi-lo)) })
}

func (g *gen) b6date() string {
	return fmt.Sprintf("%d %s", 1+g.r.IntN(28), g.pick(b6Months)[:3])
}

func (g *gen) b6days(n int) string {
	var ds []string
	for _, i := range g.r.Perm(len(b6Days))[:n] {
		ds = append(ds, b6Days[i])
	}
	slices.SortFunc(ds, func(a, b string) int { return slices.Index(b6Days, a) - slices.Index(b6Days, b) })
	return strings.Join(ds, ", ")
}

// b6add stores a note; pair names a look-alike group (notes of one wording whose qualifier
// differs) whose members become each other's twins once all are stored ("staff" and "staff role" are
// no groups).
func (g *gen) b6add(f *fact, pair string) {
	// A colleague's notes are many and alike: two in three are never asked about, and most of the rest
	// in English only, so that the questions spread over the whole notebook.
	if pair == "staff" || pair == "staff role" {
		if pair == "staff" && g.r.IntN(3) > 0 {
			f.para, f.ident, f.fixes = nil, nil, nil
		}
		pair = ""
		if g.r.IntN(3) > 0 {
			f.de, f.fr, f.es = nil, nil, nil
		}
	}
	if g.add(f) == nil {
		return
	}
	if pair != "" {
		b6pairs[pair] = append(b6pairs[pair], f)
	}
}

var b6pairs = map[string][]*fact{}

func (g *gen) b6site(s string) {
	m, m2 := g.b6person(), g.b6person()
	since := g.pick(b6Months)
	g.b6add(&fact{
		text: sub(g.pick([]string{"{s} GM: {m}", "{m} is general manager at {s} (since {since})", "Site manager, {s} = {m}", "{s} - manager is {m}, started {since}"}), "{s}", s, "{m}", m, "{since}", since),
		para: subAll([]string{"who runs the {s} restaurant?", "who's in charge at {s}", "{s} general manager", "{s} site manager name"}, "{s}", s),
		de:   []string{"Wer leitet eigentlich den Laden in " + s + "?"}, fr: []string{"C'est qui le gérant à " + s + " ?"}, es: []string{"¿Quién lleva el local de " + s + "?"},
		fixes: subAll([]string{"{m} has left. {s} is now managed by {m2} as of " + g.pick(b6Months), "{s} GM changed: {m2} (was {m})", "turns out {m} is only covering — {s} manager is {m2} from next month"}, "{s}", s, "{m}", m, "{m2}", m2),
	}, "")
	n, street := 10+g.r.IntN(180), g.pick([]string{"Shore", "Raeburn Place", "Bruntsfield Place", "Portobello High Street", "Constitution Street", "Henderson Row", "Morningside Road", "Bath Street"})
	g.b6add(&fact{
		text: fmt.Sprintf("%s site address: %d %s, Edinburgh %s %dXX. Deliveries via the back lane, not the front door", s, n, street, b6Post[s], 1+g.r.IntN(9)),
		para: subAll([]string{"what's the street address of the {s} restaurant?", "where do drivers drop off at {s}", "{s} address deliveries"}, "{s}", s),
		de:   []string{"Welche Adresse hat das Restaurant in " + s + "?"}, fr: []string{"Quelle est l'adresse du resto de " + s + " ?"}, es: []string{"¿Cuál es la dirección del restaurante de " + s + "?"},
	}, "")
	ph := g.b6num("0131 496 %04d", 1000, 9999)
	g.b6add(&fact{
		text: sub(g.pick([]string{"{s} landline (front of house): {ph}", "Phone for {s}: {ph} — diverts to the GM's mobile after close", "{s} tel {ph}"}), "{s}", s, "{ph}", ph),
		ask:  subAll([]string{"what number do guests ring to book at {s}?", "{s} phone number"}, "{s}", s),
		de:   []string{"Unter welcher Nummer erreicht man " + s + "?"}, fr: []string{"C'est quoi le numéro de téléphone de " + s + " ?"}, es: []string{"¿Qué teléfono tiene el local de " + s + "?"},
	}, "")
	// Opening hours per season: two look-alike notes.
	for _, season := range []string{"summer", "winter"} {
		open, close := 11+g.r.IntN(2), 21+g.r.IntN(2)
		if season == "summer" {
			close++
		}
		sun := 20 + g.r.IntN(2)
		months := map[string]string{"summer": "Apr–Sep", "winter": "Oct–Mar"}[season]
		text := sub(g.pick([]string{
			"{s} {season} hours ({months}): Mon–Thu {o}:00–{c}:00, Fri–Sat {o}:00–{c1}:00, Sun {o}:00–{sun}:00",
			"Opening hours {s}, {season}: weekdays {o}–{c}, Fri/Sat till {c1}, Sunday {o}–{sun}. Kitchen closes an hour before",
			"{season} opening times for {s} -> {o}am to {c}, late Fri+Sat ({c1}), Sun close {sun}"}),
			"{s}", s, "{season}", season, "{months}", months, "{o}", fmt.Sprint(open), "{c}", fmt.Sprint(close), "{c1}", fmt.Sprint(close+1), "{sun}", fmt.Sprint(sun))
		de := map[string]string{"summer": "Wie lange hat " + s + " im Sommer samstags offen?", "winter": "Bis wann ist " + s + " im Winter unter der Woche geöffnet?"}[season]
		fr := map[string]string{"summer": "À quelle heure ferme " + s + " le dimanche en été ?", "winter": "horaires d'hiver " + s + ", fermeture le samedi"}[season]
		es := map[string]string{"summer": "¿A qué hora cierra " + s + " los viernes en verano?", "winter": "¿Qué horario tiene " + s + " en invierno?"}[season]
		g.b6add(&fact{
			text: text,
			para: subAll([]string{"what time does {s} close on a Saturday in {season}?", "how late are we open at {s} on weekends in the {season}", "{s} {season} weekend closing time"}, "{s}", s, "{season}", season),
			dist: subAll([]string{"{season} hours at {s}", "how late is {s} open in the {season}?"}, "{s}", s, "{season}", season),
			de:   []string{de}, fr: []string{fr}, es: []string{es},
			fixes: subAll([]string{"{s} {season} hours: Fri/Sat we now close at {c2}, not {c1} (licence extension came through)",
				"as of this {season}, {s} stays open till midnight Fri/Sat (was {c1})"}, "{s}", s, "{season}", season, "{c1}", fmt.Sprint(close+1), "{c2}", fmt.Sprint(close+2)),
		}, "hours "+s)
	}
	covers, terrace := 40+g.r.IntN(80), 10+g.r.IntN(30)
	g.b6add(&fact{
		text: g.pick([]string{fmt.Sprintf("%s seats %d inside + %d on the terrace (terrace Apr-Sep only)", s, covers, terrace), fmt.Sprintf("Capacity %s: %d covers indoors, terrace %d", s, covers, terrace)}),
		ask:  subAll([]string{"how many people can {s} seat?", "{s} capacity covers"}, "{s}", s),
		val:  fmt.Sprint(covers), num: []string{fmt.Sprintf("which site has %d covers inside", covers)},
		de: []string{"Wie viele Plätze hat " + s + " drinnen?"}, fr: []string{"Combien de couverts peut-on faire à " + s + " ?"}, es: []string{"¿Cuántas plazas tiene " + s + " dentro?"},
	}, "")
	// Wi-Fi: guest and staff networks look alike.
	for _, net := range []string{"guest", "staff"} {
		ssid := "Hearth-" + s + "-" + map[string]string{"guest": "Guest", "staff": "Staff"}[net]
		where := map[string]string{"guest": "printed on the table cards", "staff": "in the manager's office book, not to be given out"}[net]
		g.b6add(&fact{
			text: sub(g.pick([]string{"{s} {net} wifi: SSID {ssid}, password {where}", "Wi-Fi ({net}) at {s} -> network {ssid}; pw {where}"}), "{s}", s, "{net}", net, "{ssid}", ssid, "{where}", where),
			para: subAll([]string{"where do I find the {net} wifi password for {s}?", "{s} {net} Wi-Fi network name"}, "{s}", s, "{net}", net),
			dist: subAll([]string{"{net} wifi at {s}", "what's the {net} network called at {s}?"}, "{s}", s, "{net}", net),
			de:   []string{"Wie heißt das " + map[string]string{"guest": "Gäste", "staff": "Mitarbeiter"}[net] + "-WLAN in " + s + "?"},
			fr:   []string{"Comment s'appelle le wifi " + map[string]string{"guest": "clients", "staff": "du personnel"}[net] + " à " + s + " ?"},
		}, "wifi "+s)
	}
	isp, acct := g.pick([]string{"BT Business", "Virgin Media Business", "Vodafone Business"}), g.b6num("BB%07d", 1000000, 9999999)
	g.b6add(&fact{
		text:  fmt.Sprintf("%s broadband: %s, account %s, fault line on the router sticker", s, isp, acct),
		para:  subAll([]string{"who's the internet provider at {s}?", "{s} broadband provider account"}, "{s}", s),
		ident: []string{"broadband account " + acct, "which site is " + acct},
		es:    []string{"¿Con qué compañía tenemos internet en " + s + "?"}, de: []string{"Welcher Internetanbieter ist in " + s + "?"},
	}, "")
	kh, kh2 := g.b6person(), g.b6person()
	alarm := g.pick([]string{"Chubb", "ADT", "Lothian Alarms"})
	g.b6add(&fact{
		text: sub(g.pick([]string{"Intruder alarm {s}: {alarm}, keyholder {kh}", "{s} alarm company is {alarm}; first keyholder {kh}, second the GM"}), "{s}", s, "{alarm}", alarm, "{kh}", kh),
		para: subAll([]string{"who gets called if the alarm goes off at {s} at night?", "{s} alarm keyholder"}, "{s}", s),
		de:   []string{"Wer ist Schlüsselträger für die Alarmanlage in " + s + "?"}, fr: []string{"Qui est appelé si l'alarme sonne la nuit à " + s + " ?"}, es: []string{"¿Quién tiene las llaves de la alarma en " + s + "?"},
		fixes: []string{fmt.Sprintf("%s alarm keyholder is now %s (%s moved away)", s, kh2, kh), fmt.Sprintf("Updated with %s: keyholder for %s = %s, no longer %s", alarm, s, kh2, kh)},
	}, "")
	glass, food := g.pick(b6Days[:5]), g.pick(b6Days[:5])
	g.b6add(&fact{
		text: fmt.Sprintf("%s bins: general waste daily, glass %s, food waste %s — %s collects, out by 7am", s, glass, food, g.pick([]string{"Biffa", "Changeworks", "Veolia"})),
		para: subAll([]string{"which day does the glass go out at {s}?", "{s} glass collection day"}, "{s}", s),
		de:   []string{"An welchem Tag wird in " + s + " das Altglas abgeholt?"}, fr: []string{"C'est quel jour le ramassage du verre à " + s + " ?"}, es: []string{"¿Qué día recogen el vidrio en " + s + "?"},
		fixes: []string{fmt.Sprintf("%s glass collection moved to %s (was %s)", s, g.pick(b6Days[:5]), glass)},
	}, "")
	lic, dps := g.b6num("PL/%05d", 10000, 99999), g.b6person()
	g.b6add(&fact{
		text:  g.pick([]string{fmt.Sprintf("%s premises licence %s, DPS %s", s, lic, dps), fmt.Sprintf("Premises licence for %s is %s; designated premises supervisor: %s", s, lic, dps)}),
		para:  subAll([]string{"who's the designated premises supervisor at {s}?", "{s} DPS"}, "{s}", s),
		ident: []string{"premises licence " + lic, lic + " which site"},
		fr:    []string{"Qui est le responsable de la licence d'alcool à " + s + " ?"}, es: []string{"¿Quién figura como responsable de la licencia de alcohol en " + s + "?"},
	}, "")
	ml, renew := g.b6num("TML-%07d", 1000000, 9999999), g.pick(b6Months)
	g.b6add(&fact{
		text:  fmt.Sprintf("TheMusicLicence (PPL PRS) for %s: %s, renews every %s", s, ml, renew),
		para:  subAll([]string{"when is the music licence for {s} up for renewal?", "{s} music licence renewal month"}, "{s}", s),
		ident: []string{ml},
		de:    []string{"Wann muss die Musiklizenz für " + s + " verlängert werden?"}, es: []string{"¿Cuándo se renueva la licencia de música de " + s + "?"},
	}, "")
	venue := g.b6num("%d", 20000, 29999)
	g.b6add(&fact{
		text:  sub(g.pick([]string{"ResDiary venue ID {s}: {v}", "{s} is venue {v} in ResDiary (needed when calling their support)"}), "{s}", s, "{v}", venue),
		para:  subAll([]string{"what's our venue number in the booking system for {s}?"}, "{s}", s),
		ident: []string{"ResDiary venue " + venue, "venue ID " + venue},
		fr:    []string{"Quel est l'identifiant ResDiary de " + s + " ?"},
	}, "")
	mid := g.b6num("%d", 100000000, 999999999)
	g.b6add(&fact{
		text:  fmt.Sprintf("Dojo merchant ID for %s: %s", s, mid),
		para:  subAll([]string{"{s} card merchant id", "what's the merchant number for the card machines at {s}?"}, "{s}", s),
		ident: []string{"merchant ID " + mid},
		de:    []string{"Wie lautet die Händlernummer der Kartenterminals in " + s + "?"},
	}, "")
	for _, where := range []string{"bar", "floor"} {
		tid, sn := g.b6num("%d", 10000000, 99999999), g.b6num("V400M-%06d", 100000, 999999)
		g.b6add(&fact{
			text:  sub(g.pick([]string{"{s} {w} card terminal: TID {tid}, serial {sn}", "Card machine ({w}, {s}) TID {tid} / s/n {sn}"}), "{s}", s, "{w}", where, "{tid}", tid, "{sn}", sn),
			ident: []string{"TID " + tid, "terminal " + tid + " which site", sn},
			dist:  subAll([]string{"TID of the {w} terminal at {s}", "serial of the {s} {w} card machine"}, "{s}", s, "{w}", where),
		}, "tid "+s)
	}
	float := 100 + 50*g.r.IntN(4)
	g.b6add(&fact{
		text: g.pick([]string{fmt.Sprintf("%s till float £%d per drawer, counted by the closing supervisor", s, float), fmt.Sprintf("Float at %s = £%d each till", s, float)}),
		ask:  subAll([]string{"how much cash goes in the till at {s} at the start of the day?", "{s} till float"}, "{s}", s),
		de:   []string{"Wie viel Wechselgeld kommt in " + s + " morgens in die Kasse?"}, es: []string{"¿Cuánto cambio se deja en la caja de " + s + "?"},
	}, "")
	cl, cday := g.pick([]string{"Sparkle Commercial Cleaning", "Edinburgh Deep Clean", "Spotless Lothian"}), g.pick([]string{"Sunday night", "Monday morning", "Tuesday 6am", "Wednesday 6am"})
	g.b6add(&fact{
		text: sub(g.pick([]string{"{s} deep clean: {cl}, every {cday}", "{cl} do the {s} kitchen deep clean {cday}s"}), "{s}", s, "{cl}", cl, "{cday}", cday),
		para: subAll([]string{"who does the kitchen deep clean at {s}, and when?", "{s} deep clean contractor"}, "{s}", s),
		de:   []string{"Wer macht die Grundreinigung der Küche in " + s + "?"}, fr: []string{"Qui fait le grand nettoyage de la cuisine à " + s + " ?"}, es: []string{"¿Quién hace la limpieza a fondo de la cocina en " + s + "?"},
		fixes: []string{fmt.Sprintf("%s deep clean moved to %s, same company", s, g.pick([]string{"Thursday 6am", "Sunday after close", "Monday 5am"}))},
	}, "")
	ret := 14 + 7*g.r.IntN(3)
	g.b6add(&fact{
		text: sub(g.pick([]string{"{s} CCTV: recorder in the office cupboard, {r} days retention, app login in 1Password", "CCTV at {s} keeps {r} days; box is in the office; viewing via the Hik-Connect app"}), "{s}", s, "{r}", fmt.Sprint(ret)),
		ask:  subAll([]string{"how far back does the CCTV at {s} go?", "{s} CCTV retention days"}, "{s}", s),
		de:   []string{"Wie viele Tage speichert die Videoüberwachung in " + s + "?"}, es: []string{"¿Cuántos días guarda las grabaciones la cámara de " + s + "?"},
	}, "")
	meet := g.pick(b6Days[:5])
	g.b6add(&fact{
		text: sub(g.pick([]string{"{s} staff briefing every {d} at 11:30 before service", "Team meeting {s}: {d}s, 11.30, 15 min"}), "{s}", s, "{d}", meet),
		para: subAll([]string{"when's the weekly team briefing at {s}?", "{s} staff meeting day"}, "{s}", s),
		fr:   []string{"C'est quel jour le briefing d'équipe à " + s + " ?"}, de: []string{"Wann ist in " + s + " die wöchentliche Teambesprechung?"},
	}, "")
	st := g.pick([]string{"last Sunday of the month", "first Monday of the month", "every other Sunday night"})
	g.b6add(&fact{
		text: fmt.Sprintf("%s stock take: %s, food and bar, counts into the Kobas sheet", s, st),
		para: []string{"when do we do the stock take at " + s + "?", s + " stocktake schedule"},
		es:   []string{"¿Cuándo se hace el inventario en " + s + "?"}, fr: []string{"Quand est-ce qu'on fait l'inventaire à " + s + " ?"},
	}, "")
	bl := 7 + g.r.IntN(8)
	g.b6add(&fact{
		text: fmt.Sprintf("%s beer lines cleaned every %d days (Tollcross Brewing tech does it, we log it)", s, bl),
		ask:  []string{"how often are the beer lines cleaned at " + s + "?"},
		de:   []string{"Wie oft werden in " + s + " die Bierleitungen gereinigt?"}, es: []string{"¿Cada cuánto se limpian los grifos de cerveza en " + s + "?"},
		fixes: []string{fmt.Sprintf("%s beer lines: back to weekly cleaning, the %d-day gap gave us cloudy pints", s, bl)},
	}, "")
	turn, slot, grp := 90+15*g.r.IntN(3), 8+2*g.r.IntN(6), 6+2*g.r.IntN(3)
	g.b6add(&fact{
		text: g.pick([]string{fmt.Sprintf("%s booking rules: table turn %d min, max %d covers per 15-min slot, £10pp deposit for %d+", s, turn, slot, grp), fmt.Sprintf("ResDiary settings %s -> %d minute turns, %d covers/slot, groups of %d or more pay a deposit", s, turn, slot, grp)}),
		ask:  subAll([]string{"how long does a table get at {s} before the next booking?", "{s} table turn time"}, "{s}", s),
		de:   []string{"Wie lange hat ein Tisch in " + s + " Zeit, bevor die nächste Reservierung kommt?"}, fr: []string{"À partir de combien de personnes on demande un acompte à " + s + " ?"}, es: []string{"¿Cuánto tiempo damos a cada mesa en " + s + "?"},
		fixes: []string{fmt.Sprintf("%s: table turn now %d min (was %d), too many complaints", s, turn+30, turn)},
	}, "")
}

func (g *gen) b6checks(s string) {
	day, hr := g.pick(b6Days[:5]), 9+g.r.IntN(3)
	g.b6add(&fact{
		text: fmt.Sprintf("%s fire alarm test every %s at %d:00, call point rotates, log in the red folder", s, day, hr),
		para: subAll([]string{"when is the weekly fire alarm test at {s}?", "{s} fire alarm test day"}, "{s}", s),
		de:   []string{"Wann wird in " + s + " der Feueralarm getestet?"}, fr: []string{"Quel jour on teste l'alarme incendie à " + s + " ?"}, es: []string{"¿Qué día se prueba la alarma de incendios en " + s + "?"},
		fixes: []string{fmt.Sprintf("%s fire alarm test moved to %s mornings", s, g.pick(b6Days[:5]))},
	}, "")
	co, d := g.pick([]string{"Scotia Fire", "Capital Fire Protection"}), g.b6date()
	g.b6add(&fact{
		text: fmt.Sprintf("%s extinguishers serviced %s by %s; next due same month next year", s, d, co),
		para: subAll([]string{"when were the fire extinguishers at {s} last checked?", "{s} extinguisher service date"}, "{s}", s),
		fr:   []string{"Les extincteurs de " + s + " ont été vérifiés quand ?"}, es: []string{"¿Cuándo se revisaron los extintores de " + s + "?"},
	}, "")
	pc, tech, wk := g.b6num("RK-%06d", 100000, 999999), g.b6person(), 4+2*g.r.IntN(3)
	g.b6add(&fact{
		text:  g.pick([]string{fmt.Sprintf("Pest control %s: Rentokil contract %s, visit every %d weeks, tech %s", s, pc, wk, tech), fmt.Sprintf("%s - Rentokil (contract %s), %s visits every %d wks", s, pc, tech, wk)}),
		para:  subAll([]string{"who does the pest control visits at {s}?", "{s} pest control technician"}, "{s}", s),
		ident: []string{"Rentokil contract " + pc},
		de:    []string{"Wer kommt in " + s + " zur Schädlingskontrolle?"}, es: []string{"¿Quién hace el control de plagas en " + s + "?"},
		fixes: []string{fmt.Sprintf("Rentokil swapped our tech at %s: now %s", s, g.b6person())},
	}, "")
	exp := g.b6date() + " 2027"
	g.b6add(&fact{
		text: fmt.Sprintf("%s gas safety certificate valid until %s (Gas Safe engineer, kitchen line + boiler)", s, exp),
		para: subAll([]string{"when does the gas cert run out at {s}?", "{s} gas safety certificate expiry"}, "{s}", s),
		de:   []string{"Bis wann gilt das Gas-Sicherheitszertifikat in " + s + "?"}, fr: []string{"Le certificat gaz de " + s + " expire quand ?"}, es: []string{"¿Hasta cuándo vale el certificado de gas de " + s + "?"},
	}, "")
	for _, y := range []string{"2025", "2026"} {
		verdict := g.pick([]string{"Pass", "Pass", "Improvement Required"})
		issue := g.pick([]string{"hand wash sink blocked by a bin", "no probe wipes", "allergen matrix out of date", "date labels missing in the walk-in", "nothing noted", "cleaning schedule not signed"})
		g.b6add(&fact{
			text: fmt.Sprintf("%s EHO inspection %s (%s): %s. Notes: %s", s, y, g.b6date(), verdict, issue),
			para: subAll([]string{"what did the environmental health inspector find at {s} in {y}?", "{s} food hygiene inspection {y} result"}, "{s}", s, "{y}", y),
			dist: subAll([]string{"{s} EHO {y}", "how did {s} do in the {y} hygiene inspection?"}, "{s}", s, "{y}", y),
			de:   []string{"Wie ist die Hygienekontrolle " + y + " in " + s + " ausgegangen?"}, fr: []string{"Qu'a donné l'inspection d'hygiène de " + y + " à " + s + " ?"}, es: []string{"¿Qué resultado tuvo la inspección de sanidad de " + y + " en " + s + "?"},
		}, "eho "+s)
	}
	n, k := 40+g.r.IntN(60), g.r.IntN(4)
	g.b6add(&fact{
		text: fmt.Sprintf("PAT testing %s done %s: %d items tested, %d failed (binned)", s, g.b6date(), n, k),
		ask:  subAll([]string{"how many appliances failed PAT testing at {s}?", "{s} PAT test results"}, "{s}", s),
		es:   []string{"¿Cuántos aparatos suspendieron la prueba PAT en " + s + "?"},
	}, "")
	gw := 4 + 2*g.r.IntN(4)
	g.b6add(&fact{
		text: fmt.Sprintf("%s grease trap emptied every %d weeks by Lanes Group", s, gw),
		ask:  subAll([]string{"how often is the grease trap at {s} emptied?"}, "{s}", s),
		de:   []string{"Wie oft wird der Fettabscheider in " + s + " geleert?"}, fr: []string{"Tous les combien on vide le bac à graisse à " + s + " ?"},
		fixes: []string{fmt.Sprintf("%s grease trap: every %d weeks now, it backed up twice", s, gw/2)},
	}, "")
	a1, a2 := g.b6person(), g.b6person()
	g.b6add(&fact{
		text: g.pick([]string{fmt.Sprintf("First aiders at %s: %s and %s (kit under the pass)", s, a1, a2), fmt.Sprintf("%s first aid: %s, %s", s, a1, a2)}),
		para: subAll([]string{"who's first aid trained at {s}?", "{s} first aiders"}, "{s}", s),
		de:   []string{"Wer ist in " + s + " Ersthelfer?"}, fr: []string{"Qui sont les secouristes à " + s + " ?"}, es: []string{"¿Quién tiene el curso de primeros auxilios en " + s + "?"},
	}, "")
}

func (g *gen) b6equip(s string, k int) {
	kd := b6Kinds[k]
	sn := g.b6num("SN%07d", 1000000, 9999999)
	g.b6add(&fact{
		text:  sub(g.pick([]string{"{kind} at {s}: {model}, serial {sn}", "{s} {kind} = {model} (s/n {sn})", "{model} — {s} kitchen {kind}, serial no. {sn}"}), "{kind}", kd.kind, "{s}", s, "{model}", kd.model, "{sn}", sn),
		ident: []string{"serial " + sn, sn + " which site"},
		dist:  subAll([]string{"serial number of the {s} {kind}", "{kind} {s} serial"}, "{s}", s, "{kind}", kd.kind),
	}, "serial "+kd.kind)
	ref, renew, co2 := g.b6num("SC-%05d", 10000, 99999), g.pick(b6Months), g.pick([]string{"Kitchen Kare Engineering", "Coldline Refrigeration", "Nisbets Service", "CATERSERV Scotland"})
	if co2 == kd.co {
		co2 = "Stephens Catering Equipment"
	}
	g.b6add(&fact{
		text:  sub(g.pick([]string{"{s} {kind}: service contract {ref} with {co}, renews {renew}", "Service contract for the {kind} ({s}) is {co}, ref {ref}, annual, renewal {renew}"}), "{s}", s, "{kind}", kd.kind, "{ref}", ref, "{co}", kd.co, "{renew}", renew),
		para:  subAll([]string{"who services the {kind} at {s}?", "{s} {kind} service contract"}, "{s}", s, "{kind}", kd.kind),
		ident: []string{"contract " + ref, ref},
		dist:  subAll([]string{"{s} {kind} contract renewal", "which month does the {kind} contract at {s} renew?"}, "{s}", s, "{kind}", kd.kind),
		de:    []string{"Wer wartet " + kd.deAcc + " in " + s + "?", "Wartungsvertrag " + strings.Fields(kd.deAcc)[1] + " " + s},
		fr:    []string{"Qui s'occupe de l'entretien " + kd.frDe + " à " + s + " ?"},
		es:    []string{"¿Qué empresa tiene el contrato de mantenimiento " + kd.esDe + " de " + s + "?"},
		fixes: []string{fmt.Sprintf("%s %s contract moved to %s from %s (was %s)", s, kd.kind, co2, g.pick(b6Months), kd.co), fmt.Sprintf("no longer with %s for the %s at %s — %s covers it now", kd.co, kd.kind, s, co2)},
	}, "contract "+kd.kind)
	if g.r.IntN(2) == 0 {
		wy := fmt.Sprintf("%s 202%d", g.b6date(), 6+g.r.IntN(3))
		g.b6add(&fact{
			text: sub(g.pick([]string{"{s} {kind} under warranty until {wy} (parts and labour)", "Warranty on the {kind} at {s} runs to {wy}"}), "{s}", s, "{kind}", kd.kind, "{wy}", wy),
			para: subAll([]string{"is the {kind} at {s} still under warranty?", "{s} {kind} warranty end"}, "{s}", s, "{kind}", kd.kind),
			dist: subAll([]string{"warranty on the {s} {kind}", "when does the {kind} warranty at {s} end?"}, "{s}", s, "{kind}", kd.kind),
			de:   []string{"Bis wann läuft die Garantie " + strings.NewReplacer("am ", "für den ", "an der ", "für die ").Replace(kd.deAn) + " in " + s + "?"}, es: []string{"¿Hasta cuándo tiene garantía " + strings.Replace(strings.Replace(kd.esDe, "del ", "el ", 1), "de la ", "la ", 1) + " de " + s + "?"},
		}, "warranty "+kd.kind)
	}
	d, eng := g.b6date(), g.b6person()
	g.b6add(&fact{
		text: sub(g.pick([]string{"{s} {kind} last serviced {d} ({eng})", "{eng} serviced the {kind} at {s} on {d}, all ok", "Service visit {d}: {kind}, {s}. Engineer {eng}. Next in 6 months"}), "{s}", s, "{kind}", kd.kind, "{d}", d, "{eng}", eng),
		para: subAll([]string{"when did the {kind} at {s} last get a service?", "{s} {kind} last service"}, "{s}", s, "{kind}", kd.kind),
		de:   []string{"Wann war die letzte Wartung " + kd.deAn + " in " + s + "?"}, fr: []string{"Dernière révision " + kd.frDe + " de " + s + " ?"}, es: []string{"¿Cuándo se hizo la última revisión " + kd.esDe + " de " + s + "?"},
	}, "")
}

// b6fault: a fault code that came up on one machine, with what it meant.
func (g *gen) b6fault(s string, k, c int) {
	kd := b6Kinds[k]
	code, means := kd.codes[c][0], kd.codes[c][1]
	job := g.b6num("JOB%06d", 100000, 999999)
	g.b6add(&fact{
		text: sub(g.pick([]string{"{s} {kind} showed {code} = {means}. {co} job {job}", "Fault on the {kind} ({s}): {code}, meaning {means}; logged with {co} as {job}", "{code} on {kind} at {s} -> {means}. ref {job}"}),
			"{s}", s, "{kind}", kd.kind, "{code}", code, "{means}", means, "{co}", kd.co, "{job}", job),
		ident: []string{code + " on the " + kd.kind, "what does " + code + " mean on the " + kd.kind + "?", "job " + job},
		de:    []string{"Was bedeutet der Fehler " + code + " " + kd.deAn + "?"}, fr: []string{"Que veut dire l'erreur " + code + " " + kd.frSur + " ?", "code erreur " + code + " " + strings.TrimPrefix(strings.TrimPrefix(kd.frSur, "sur la "), "sur le ")}, es: []string{"¿Qué significa el código " + code + " " + kd.esEn + "?"},
	}, "")
}

func (g *gen) b6contractor(co string) {
	eng, ph := g.b6person(), g.b6mobile()
	g.b6add(&fact{
		text: sub(g.pick([]string{"{co} call-outs: ring {ph}, usual engineer {eng}", "{co} engineer {eng} ({ph}); 4h response on contract"}), "{co}", co, "{eng}", eng, "{ph}", ph),
		para: []string{"who comes out from " + co + " when something breaks?", co + " engineer name"},
		de:   []string{"Wen ruft man bei " + co + " an, wenn etwas kaputt ist?"}, es: []string{"¿A quién llamo en " + co + " si se estropea algo?"},
		fixes: []string{fmt.Sprintf("%s has a new engineer on our patch: %s (%s retired)", co, g.b6person(), eng)},
	}, "")
	hourly := 40 + 5*g.r.IntN(6)
	g.b6add(&fact{
		text:  fmt.Sprintf("%s rates: £%d per hour labour after the first hour, weekend call-outs double", co, hourly),
		ask:   []string{"what does " + co + " charge per hour?", co + " labour rate"},
		fr:    []string{"C'est combien de l'heure chez " + co + " ?"},
		fixes: []string{fmt.Sprintf("%s hourly rate went up to £%d (was £%d)", co, hourly+5, hourly)},
	}, "")
}

func (g *gen) b6supplier(i int) {
	sup, goods := b6Suppliers[i][0], b6Suppliers[i][1]
	acct := g.b6num("%d", 10000, 99999)
	g.b6add(&fact{
		text:  sub(g.pick([]string{"{sup} account no {a}", "Our account with {sup} is {a} — quote it when ordering", "{sup} acct {a}"}), "{sup}", sup, "{a}", acct),
		para:  []string{"what's our customer number with " + sup + "?", sup + " account number"},
		ident: []string{"account " + acct + " which supplier", "supplier account " + acct},
		de:    []string{"Welche Kundennummer haben wir bei " + sup + "?"}, fr: []string{"Quel est notre numéro de client chez " + sup + " ?", "numéro client " + sup}, es: []string{"¿Cuál es nuestro número de cliente en " + sup + "?"},
	}, "")
	g.b6add(&fact{
		text: sub(g.pick([]string{"{goods}: {sup}", "We get our {goods} from {sup}", "{sup} supplies {goods} to all four sites"}), "{sup}", sup, "{goods}", goods),
		para: []string{"who do we use for " + goods + "?", goods + " supplier"},
	}, "")
	rep, ph, rep2 := g.b6person(), g.b6mobile(), g.b6person()
	g.b6add(&fact{
		text: sub(g.pick([]string{"{sup} rep: {rep}, {ph}", "{rep} is our rep at {sup} (mob {ph}), text rather than call", "Contact at {sup} -> {rep} {ph}"}), "{sup}", sup, "{rep}", rep, "{ph}", ph),
		para: []string{"who's our contact at " + sup + "?", sup + " rep name"},
		de:   []string{"Wer ist unser Ansprechpartner bei " + sup + "?", "Ansprechpartner " + sup}, fr: []string{"Qui est notre commercial chez " + sup + " ?", "contact commercial " + sup}, es: []string{"¿Quién es nuestro comercial en " + sup + "?", "comercial de " + sup + ", nombre y móvil"},
		fixes: []string{fmt.Sprintf("New rep at %s: %s (%s left)", sup, rep2, rep), fmt.Sprintf("%s no longer our rep at %s, it's %s now", rep, sup, rep2)},
	}, "")
	// Deliveries to two sites: look-alikes.
	for _, j := range g.r.Perm(4)[:2] {
		s := b6Sites[j]
		days, by := g.b6days(1+g.r.IntN(3)), 7+g.r.IntN(4)
		g.b6add(&fact{
			text: sub(g.pick([]string{"{sup} delivers to {s} {days}, before {by}am", "{s}: {sup} delivery days {days} (by {by})", "{sup} -> {s} on {days}, drops by {by}:00", "{sup} delivrs to {s} {days} usually by {by}"}), "{sup}", sup, "{s}", s, "{days}", days, "{by}", fmt.Sprint(by)),
			para: []string{"which days does " + sup + " come to " + s + "?", sup + " delivery days " + s},
			dist: []string{"when does " + sup + " deliver to " + s + "?", s + " " + sup + " delivery"},
			de:   []string{"An welchen Tagen liefert " + sup + " nach " + s + "?", "Liefertage " + sup + " " + s}, fr: []string{"Quels jours " + sup + " livre à " + s + " ?"}, es: []string{"¿Qué días nos trae " + sup + " el pedido a " + s + "?"},
			fixes: []string{fmt.Sprintf("%s changed their %s run: now %s", sup, s, g.b6days(2)), fmt.Sprintf("as of %s %s no longer delivers to %s on %s — %s instead", g.pick(b6Months), sup, s, strings.Split(days, ", ")[0], g.pick(slices.DeleteFunc(slices.Clone(b6Days), func(d string) bool { return strings.Contains(days, d) })))},
		}, "deliv "+sup)
	}
	cut := 12 + g.r.IntN(6)
	how := g.pick([]string{"email orders@" + strings.ToLower(strings.Fields(sup)[0]) + ".co.uk", "their app", "text to the rep", "phone the office"})
	g.b6add(&fact{
		text: sub(g.pick([]string{"{sup} order cutoff {c}:00 the day before, via {how}", "Orders for {sup} must be in by {c}:00 day before ({how})"}), "{sup}", sup, "{c}", fmt.Sprint(cut), "{how}", how),
		para: []string{"what's the latest I can get an order in to " + sup + "?", sup + " order cutoff time"},
		de:   []string{"Bis wann muss die Bestellung bei " + sup + " raus sein?", "Bestellschluss " + sup}, fr: []string{"Jusqu'à quelle heure on peut commander chez " + sup + " ?"}, es: []string{"¿Hasta qué hora se puede hacer el pedido a " + sup + "?", "hora límite pedido " + sup},
		fixes: []string{fmt.Sprintf("%s cutoff is now %d:00 (was %d:00)", sup, cut-2, cut), fmt.Sprintf("turns out %s cutoff is %d:00 not %d", sup, cut-1, cut)},
	}, "")
	min, del := 50+25*g.r.IntN(8), 5+g.r.IntN(15)
	g.b6add(&fact{
		text: g.pick([]string{fmt.Sprintf("%s minimum order £%d, under that £%d delivery", sup, min, del), fmt.Sprintf("Min order %s: £%d (else £%d charge)", sup, min, del)}),
		ask:  []string{"how much do we need to order from " + sup + " to avoid a delivery charge?", sup + " minimum order value"},
		de:   []string{"Wie hoch ist der Mindestbestellwert bei " + sup + "?"}, es: []string{"¿Cuál es el pedido mínimo de " + sup + "?", "pedido mínimo " + sup},
	}, "")
	if g.r.IntN(3) > 0 {
		g.b6add(&fact{
			text: sub(g.pick([]string{"{sup} online ordering: login is in 1Password under '{sup} portal' (shared ops account)", "Login for the {sup} web shop -> 1Password, vault Suppliers", "{sup} portal creds are in 1Password, not on the office wall any more"}), "{sup}", sup),
			para: []string{"where's the login for " + sup + "'s ordering site?", sup + " portal password"},
			de:   []string{"Wo finde ich das Passwort für den Bestellshop von " + sup + "?"}, es: []string{"¿Dónde está la contraseña de la web de pedidos de " + sup + "?"},
		}, "")
	}
	terms := g.pick([]string{"14", "30", "7", "28"})
	g.b6add(&fact{
		text: fmt.Sprintf("%s payment terms %s days, BACS, invoices to accounts@", sup, terms),
		ask:  []string{"how long do we get to pay " + sup + " invoices?", sup + " payment terms"},
		fr:   []string{"On a combien de jours pour payer les factures " + b6frDe(sup) + " ?"},
	}, "")
}

func (g *gen) b6staff(p string) {
	role, s, s2 := g.pick(b6Roles), g.pick(b6Sites), g.pick(b6Sites)
	if s2 == s {
		s2 = b6Sites[(slices.Index(b6Sites, s)+1)%4]
	}
	g.b6add(&fact{
		text: sub(g.pick([]string{"{p} — {role}, {s}", "{p} started as {role} at {s}", "{p}: {role} ({s})", "New starter {p}, {role}, based at {s}"}), "{p}", p, "{role}", role, "{s}", s),
		para: []string{"where does " + p + " work?", "what's " + p + "'s job?", p + " role site"},
		de:   []string{"In welchem Restaurant arbeitet " + p + "?", "Standort und Stelle " + p}, fr: []string{"Dans quel resto travaille " + p + " ?", "poste et restaurant de " + p}, es: []string{"¿En qué local trabaja " + p + "?", "local y puesto de " + p},
		fixes: []string{fmt.Sprintf("%s moved from %s to %s as of %s, still %s", p, s, s2, g.pick(b6Months), role), fmt.Sprintf("%s is at %s now (was %s), same job: %s", p, s2, s, role), fmt.Sprintf("%s promoted: now %s, staying at %s", p, b6Promo[role], s)},
	}, "staff role")
	if g.r.IntN(4) > 0 {
		ph := g.b6mobile()
		g.b6add(&fact{
			text: sub(g.pick([]string{"{p} mob {ph}", "{p}'s number: {ph}", "Phone {p} -> {ph} (WhatsApp ok)"}), "{p}", p, "{ph}", ph),
			para: []string{"how do I get hold of " + p + "?", p + " mobile"},
			de:   []string{"Hast du die Handynummer von " + p + "?", "Handynummer " + p}, fr: []string{"C'est quoi le portable " + b6frDe(p) + " ?"}, es: []string{"¿Tienes el móvil de " + p + "?"},
		}, "staff")
		if g.r.IntN(3) == 0 {
			g.facts[len(g.facts)-1].fixes = []string{fmt.Sprintf("%s has a new number: %s", p, g.b6mobile()), fmt.Sprintf("%s changed phone, old one dead — use %s", p, g.b6mobile())}
		}
	}
	if g.r.IntN(2) == 0 {
		g.b6add(&fact{
			text: sub(g.pick([]string{"{p} REHIS food hygiene ({lvl}) expires {d}", "Food hygiene cert {p}: {lvl} level, valid to {d}"}), "{p}", p, "{lvl}", g.pick([]string{"elementary", "intermediate"}), "{d}", g.b6date()+" 202"+fmt.Sprint(6+g.r.IntN(3))),
			para: []string{"when does " + p + "'s food hygiene certificate expire?", p + " food hygiene cert"},
			de:   []string{"Wann läuft das Hygienezertifikat von " + p + " ab?"}, fr: []string{"Le certificat d'hygiène " + b6frDe(p) + " expire quand ?", "expiration certificat hygiène " + p}, es: []string{"¿Cuándo caduca el certificado de higiene de " + p + "?", "caducidad certificado higiene " + p},
		}, "staff")
	}
	if g.r.IntN(2) == 0 {
		why := g.pick([]string{"can't do Sundays (childcare)", "weekends only, at uni in the week", "no closes on Thursdays (football)", "max 20h a week, student visa", "prefers doubles Fri/Sat", "mornings only till 3pm"})
		g.b6add(&fact{
			text: sub(g.pick([]string{"Rota note: {p} {why}", "{p} — availability: {why}", "{p} {why}"}), "{p}", p, "{why}", why),
			para: []string{"any shifts " + p + " can't do?", p + " availability for the rota"},
			de:   []string{"Wann kann " + p + " nicht arbeiten?"}, fr: []string{"Quelles sont les dispos " + b6frDe(p) + " pour le planning ?", "disponibilités planning " + p}, es: []string{"¿Qué turnos no puede hacer " + p + "?"},
			fixes: []string{fmt.Sprintf("%s availability changed, can do any shift now", p), fmt.Sprintf("%s: no restrictions on the rota any more (as of %s)", p, g.pick(b6Months)), fmt.Sprintf("turns out %s can do Sundays and closes after all, full availability", p)},
		}, "staff")
	}
	if g.r.IntN(3) == 0 {
		ec := g.pick(b6First) + " (" + g.pick([]string{"partner", "flatmate", "parent", "sibling", "partner", "landlady"}) + ")"
		g.b6add(&fact{
			text: fmt.Sprintf("Emergency contact for %s: %s, %s", p, ec, g.b6mobile()),
			para: []string{"who do we call if something happens to " + p + " on shift?", p + " emergency contact"},
			de:   []string{"Wen sollen wir anrufen, wenn " + p + " etwas passiert?"}, fr: []string{"Qui prévenir en cas d'urgence pour " + p + " ?"}, es: []string{"¿A quién avisamos si a " + p + " le pasa algo?"},
		}, "staff")
	}
	if g.r.IntN(3) == 0 {
		d := g.b6date()
		g.b6add(&fact{
			text: sub(g.pick([]string{"{p} did the allergen awareness course (FSA online) on {d}", "Allergen training {p}: done {d}, certificate in the staff file"}), "{p}", p, "{d}", d),
			para: []string{"has " + p + " done allergen training?", p + " allergen training date"},
			de:   []string{"Hat " + p + " die Allergenschulung schon gemacht?"}, fr: []string{p + " a fait la formation allergènes ?"}, es: []string{"¿" + p + " ha hecho ya la formación de alérgenos?"},
		}, "staff")
	}
	if g.r.IntN(4) == 0 {
		doc := g.pick([]string{"UK passport", "share code (pre-settled status)", "share code (settled status)", "BRP, Graduate visa"})
		g.b6add(&fact{
			text: fmt.Sprintf("Right to work %s: %s checked %s, copy in the HR folder", p, doc, g.b6date()),
			para: []string{"did we do the right to work check for " + p + "?", p + " right to work"},
			fr:   []string{"On a vérifié le droit de travailler " + b6frDe(p) + " ?"}, es: []string{"¿Comprobamos el permiso de trabajo de " + p + "?"},
		}, "staff")
	}
	if g.r.IntN(4) == 0 {
		pay := g.b6num("%04d", 1000, 9999)
		g.b6add(&fact{
			text:  g.pick([]string{fmt.Sprintf("%s payroll no %s", p, pay), fmt.Sprintf("Payroll number %s = %s (BrightPay)", pay, p)}),
			para:  []string{p + " payroll number"},
			ident: []string{"payroll " + pay, "whose payroll number is " + pay + "?"},
			fr:    []string{"Quel est le matricule de paie " + b6frDe(p) + " ?"},
		}, "staff")
	}
}

func (g *gen) b6dish(d string) {
	all := []string{"gluten", "milk", "eggs", "fish", "crustaceans", "molluscs", "nuts", "peanuts", "sesame", "soya", "celery", "mustard", "sulphites", "lupin"}
	// Only a dish from the sea has fish or shellfish in it.
	if !slices.ContainsFunc([]string{"haddock", "skink", "squid", "mussels", "hake", "fish", "crab", "scallops", "seafood", "oysters", "salmon"}, func(w string) bool { return strings.Contains(d, w) }) {
		all = slices.DeleteFunc(all, func(a string) bool { return a == "fish" || a == "crustaceans" || a == "molluscs" })
	}
	var al []string
	for _, i := range g.r.Perm(len(all))[:1+g.r.IntN(4)] {
		al = append(al, all[i])
	}
	slices.Sort(al)
	g.b6add(&fact{
		text: sub(g.pick([]string{"{d}: contains {al}", "Allergens – {d}: {al}", "{d} allergens = {al} (check the matrix after any recipe change)"}), "{d}", d, "{al}", strings.Join(al, ", ")),
		para: []string{"what allergens are in the " + d + "?", d + " allergens", "can a customer with an allergy have the " + d + ", what's in it?"},
		de:   []string{"Welche Allergene stecken im Gericht „" + d + "“?", "Allergene " + d}, fr: []string{"Quels allergènes il y a dans le plat « " + d + " » ?"}, es: []string{"¿Qué alérgenos lleva el plato \"" + d + "\"?", "alérgenos " + d},
		fixes: []string{fmt.Sprintf("%s recipe changed: now also contains %s", d, g.pick(slices.DeleteFunc(slices.Clone(all), func(a string) bool { return slices.Contains(al, a) }))), fmt.Sprintf("%s: no longer contains %s (new supplier), rest as before", d, al[0])},
	}, "")
	base := g.b6price(d)
	dayOnly := slices.Contains([]string{"Brunch stack", "eggs royale", "full Scottish breakfast", "vegan breakfast", "shakshuka", "French toast with berries", "porridge with whisky honey", "Sunday roast beef", "smoked salmon bagel"}, d)
	for _, svc := range []string{"lunch", "dinner"} {
		if g.r.IntN(3) == 0 || dayOnly && svc == "dinner" {
			continue
		}
		p := base
		if svc == "dinner" {
			p += 2 + g.r.IntN(3)
		}
		pence := g.pick([]string{"", ".50", ".95"})
		price := fmt.Sprintf("£%d%s", p, pence)
		g.b6add(&fact{
			text: sub(g.pick([]string{"{d} ({svc}) {price}", "{svc} menu: {d} at {price}", "Price {d}, {svc} = {price}"}), "{d}", d, "{svc}", svc, "{price}", price),
			para: []string{"how much is the " + d + " at " + svc + "?", d + " " + svc + " price"},
			dist: []string{"what do we charge for the " + d + " on the " + svc + " menu?", svc + " price " + d},
			de:   []string{"Was kostet „" + d + "“ " + map[string]string{"lunch": "mittags", "dinner": "abends"}[svc] + "?"}, fr: []string{"Combien coûte le plat « " + d + " » au " + map[string]string{"lunch": "déjeuner", "dinner": "dîner"}[svc] + " ?"}, es: []string{"¿A cuánto está \"" + d + "\" en la carta de " + map[string]string{"lunch": "mediodía", "dinner": "cena"}[svc] + "?"},
			fixes: []string{fmt.Sprintf("%s %s up to £%d%s from the spring menu (was %s)", d, svc, p+1, pence, price), fmt.Sprintf("Typo in the price note — %s at %s is £%d%s, not %s", d, svc, p-1, pence, price)},
		}, "price "+d)
	}
	plu := g.b6num("%d", 1000, 4999)
	g.b6add(&fact{
		text:  sub(g.pick([]string{"{d} is PLU {plu} on the tills", "PLU {plu} = {d}", "Till button for {d}: PLU {plu}"}), "{d}", d, "{plu}", plu),
		para:  []string{"what's the till code for the " + d + "?"},
		ident: []string{"PLU " + plu, "what is PLU " + plu + " on the till?"},
	}, "")
	if g.r.IntN(2) == 0 {
		comp := g.pick([]string{"sauce", "base", "dressing", "garnish", "mix", "crumb"})
		batch, keep := 2+g.r.IntN(10), 2+g.r.IntN(4)
		g.b6add(&fact{
			text: sub(g.pick([]string{"{d} prep: {comp} made in {b}L batches, keeps {k} days labelled", "Prep note {d} – {comp}: batch of {b} litres, use within {k} days"}), "{d}", d, "{comp}", comp, "{b}", fmt.Sprint(batch), "{k}", fmt.Sprint(keep)),
			ask:  []string{"how long does the prepped " + comp + " for the " + d + " keep?", d + " " + comp + " shelf life days"},
			de:   []string{"Wie lange hält sich die vorbereitete Komponente für „" + d + "“?"}, fr: []string{"Combien de jours se garde la mise en place du plat « " + d + " » ?"}, es: []string{"¿Cuántos días aguanta la preparación de \"" + d + "\"?"},
			fixes: []string{fmt.Sprintf("%s %s: now %d days max, EHO advice", d, comp, keep-1)},
		}, "")
	}
	if g.r.IntN(2) == 0 {
		gr, gp := 150+10*g.r.IntN(26), 62+g.r.IntN(16)
		if base < 9 {
			gr = 80 + 10*g.r.IntN(14)
		}
		g.b6add(&fact{
			text: g.pick([]string{fmt.Sprintf("%s spec: %dg portion, GP %d%%", d, gr, gp), fmt.Sprintf("%s - portion %d g, target GP %d%%", d, gr, gp)}),
			ask:  []string{"how big is a portion of the " + d + "?", d + " portion size grams"},
			val:  fmt.Sprintf("%dg", gr), num: []string{fmt.Sprintf("which dish is a %dg portion?", gr)},
			de: []string{"Wie groß ist eine Portion „" + d + "“?"}, es: []string{"¿De cuántos gramos es la ración de \"" + d + "\"?"},
			fixes: []string{fmt.Sprintf("%s portion cut to %dg to hold the GP", d, gr-20)},
		}, "")
	}
}

// b6price is a dish's lunch price in pounds: a side costs less than a main.
func (g *gen) b6price(d string) int {
	in := func(xs ...string) bool { return slices.Contains(xs, d) }
	switch {
	case in("sticky toffee pudding", "cranachan", "dark chocolate tart", "lemon posset", "affogato", "panna cotta", "Biscoff cheesecake", "apple crumble", "rhubarb fool", "carrot cake", "salted caramel brownie"):
		return 6 + g.r.IntN(3)
	case in("kids' fish goujons", "kids' pasta", "truffle fries", "tenderstem broccoli", "sourdough with whipped butter", "chips", "onion rings", "house salad", "soup of the day"):
		return 4 + g.r.IntN(4)
	case in("smoked haddock chowder", "Cullen skink", "beetroot and goat's cheese salad", "haggis bonbons", "crispy squid", "mussels with nduja", "burrata with blood orange", "oysters (half dozen)", "scallops with black pudding", "cheese board", "smoked salmon bagel", "porridge with whisky honey", "French toast with berries"):
		return 7 + g.r.IntN(6)
	case in("Brunch stack", "eggs royale", "full Scottish breakfast", "vegan breakfast", "shakshuka"):
		return 9 + g.r.IntN(5)
	case in("seafood platter"):
		return 38 + g.r.IntN(10)
	}
	return 14 + g.r.IntN(12)
}

func (g *gen) b6event(c string) {
	s, d, n := g.pick(b6Sites), g.b6date(), 12+g.r.IntN(60)
	menu := g.pick([]string{"3-course set menu", "sharing platters", "canapés and bowl food", "Sunday roast set", "buffet", "tasting menu"})
	g.b6add(&fact{
		text: sub(g.pick([]string{"{c}: {s}, {d}, {n} guests, {menu}", "Private booking — {c} at {s} on {d}. {n} pax, {menu}", "{c} booked {s} for {d} ({n} people, {menu})"}), "{c}", c, "{s}", s, "{d}", d, "{n}", fmt.Sprint(n), "{menu}", menu),
		ask:  []string{"how many are coming to the " + c + "?", c + " headcount"},
		de:   []string{"Wann und wo findet „" + c + "“ statt?", "Datum und Standort „" + c + "“"}, fr: []string{"C'est quand, « " + c + " » ?"}, es: []string{"¿Cuántos invitados vienen a \"" + c + "\"?", "número de invitados " + c},
		fixes: []string{fmt.Sprintf("%s numbers went up to %d (was %d)", c, n+8, n), fmt.Sprintf("%s: now %d guests, not %d — update the floor plan", c, n-4, n)},
	}, "")
	if g.r.IntN(3) > 0 {
		dep := 50 * (1 + g.r.IntN(10))
		g.b6add(&fact{
			text: g.pick([]string{fmt.Sprintf("%s deposit £%d paid %s, balance on the night", c, dep, g.b6date()), fmt.Sprintf("Deposit for %s: £%d received (%s)", c, dep, g.b6date())}),
			ask:  []string{"how much deposit has the " + c + " paid?"},
			de:   []string{"Wie viel Anzahlung hat „" + c + "“ geleistet?"}, fr: []string{"Quel acompte a été versé pour « " + c + " » ?"},
		}, "")
	}
	if g.r.IntN(2) == 0 {
		diet := fmt.Sprintf("%d vegan, %d veggie, %s", 1+g.r.IntN(4), g.r.IntN(5), g.pick([]string{"1 coeliac", "1 severe nut allergy", "2 no shellfish", "1 pregnant (no pâté, no raw fish)", "1 dairy-free"}))
		g.b6add(&fact{
			text: fmt.Sprintf("Dietaries for %s: %s", c, diet),
			para: []string{"any dietary requirements for the " + c + "?", c + " dietaries"},
			es:   []string{"¿Hay alergias o dietas especiales en \"" + c + "\"?"}, de: []string{"Gibt es bei „" + c + "“ Allergien oder Sonderwünsche beim Essen?"},
		}, "")
	}
	if g.r.IntN(2) == 0 {
		who := g.b6person()
		g.b6add(&fact{
			text: fmt.Sprintf("%s organiser: %s, %s", c, who, g.b6mobile()),
			para: []string{"who's organising the " + c + "?", c + " contact person"},
			fr:   []string{"Qui est l'organisateur de « " + c + " » ?"},
		}, "")
	}
}

func (g *gen) b6incidents() {
	for _, s := range b6Sites {
		for _, kind := range []string{"walk-in fridge", "bottle cooler"} {
			if kind == "bottle cooler" && g.r.IntN(2) == 0 {
				continue
			}
			t, loss, claim := 9+g.r.IntN(8), 200+g.r.IntN(2400), g.b6num("CLM-%06d", 100000, 999999)
			d := g.b6date()
			g.b6add(&fact{
				text:  fmt.Sprintf("%s: %s at %s died overnight, %d°C at opening. Binned £%d of stock. Insurance claim %s", d, kind, s, t, loss, claim),
				para:  []string{"how much stock did we lose when the " + kind + " at " + s + " failed?", s + " " + kind + " failure stock loss"},
				ident: []string{"claim " + claim, claim},
				dist:  []string{"insurance claim for the " + kind + " at " + s, "what did the " + s + " " + kind + " breakdown cost us?"},
				de:    []string{"Wie viel Ware mussten wir wegwerfen, als " + map[string]string{"walk-in fridge": "der Kühlraum", "bottle cooler": "der Flaschenkühler"}[kind] + " in " + s + " ausgefallen ist?"},
				fr:    []string{"Combien de marchandise perdue quand " + map[string]string{"walk-in fridge": "la chambre froide", "bottle cooler": "le frigo à bouteilles"}[kind] + " de " + s + " a lâché ?"},
				es:    []string{"¿Cuánto género tiramos cuando se estropeó " + map[string]string{"walk-in fridge": "la cámara frigorífica", "bottle cooler": "el botellero"}[kind] + " de " + s + "?"},
				fixes: []string{fmt.Sprintf("Recount on the %s %s loss: £%d, not £%d", s, kind, loss+180, loss)},
			}, "loss "+s)
		}
	}
	for i := range 26 {
		sup, s := b6Suppliers[(i*7)%len(b6Suppliers)][0], b6Sites[i%4]
		cn := g.b6num("CN%05d", 10000, 99999)
		item := g.pick([]string{"2 cases short", "half the order missing", "wrong size", "one crate smashed", "no invoice and 3 lines missing", "short by 4kg"})
		g.b6add(&fact{
			text:  sub(g.pick([]string{"{d} {sup} delivery to {s} came {item}; credit note {cn} requested", "{sup} short at {s} ({d}): {item}. Credit {cn}"}), "{d}", g.b6date(), "{sup}", sup, "{s}", s, "{item}", item, "{cn}", cn),
			para:  []string{"what was wrong with the " + sup + " delivery at " + s + "?"},
			ident: []string{"credit note " + cn, cn},
			de:    []string{"Was hat bei der Lieferung von " + sup + " in " + s + " gefehlt?"}, es: []string{"¿Qué faltaba en la entrega de " + sup + " en " + s + "?"},
		}, "")
	}
	for range 14 {
		p, s := g.b6person(), g.pick(b6Sites)
		n := g.b6num("AB-%03d", 100, 999)
		what := g.pick([]string{"burn on the forearm from the combi", "cut finger on the mandoline", "slipped near the dish pit", "guest tripped on the terrace step", "back strain lifting kegs"})
		g.b6add(&fact{
			text:  fmt.Sprintf("Accident book %s (%s, %s): %s — %s", n, s, g.b6date(), p, what),
			para:  []string{"what happened to " + p + "?", p + " accident"},
			ident: []string{"accident book " + n, n},
			fr:    []string{"Qu'est-il arrivé à " + p + " ?"}, es: []string{"¿Qué le pasó a " + p + "?"},
		}, "")
	}
}

func (g *gen) b6misc() {
	pol := g.b6num("HX%08d", 10000000, 99999999)
	g.b6add(&fact{
		text:  fmt.Sprintf("Business insurance: Hiscox, policy %s, covers all four sites incl. stock spoilage up to £10k", pol),
		para:  []string{"who are we insured with?", "insurance policy number"},
		ident: []string{"policy " + pol},
		de:    []string{"Bei welcher Versicherung sind wir?"}, fr: []string{"On est assurés chez qui ?"},
	}, "")
	g.b6add(&fact{text: "Accountant: Campbell Dallas, " + g.b6person() + " handles us, VAT quarters end Mar/Jun/Sep/Dec", para: []string{"who does our accounts?", "accountant contact"}, es: []string{"¿Quién nos lleva la contabilidad?"}}, "")
	for _, p := range []string{"Deliveroo", "Uber Eats", "Just Eat"} {
		for _, s := range b6Sites[:2+g.r.IntN(2)] {
			id := g.b6num("%d", 100000, 999999)
			g.b6add(&fact{
				text:  fmt.Sprintf("%s restaurant ID %s: %s", p, s, id),
				ident: []string{p + " " + id},
				dist:  []string{p + " ID for " + s, "what's our " + p + " restaurant number at " + s + "?"},
				para:  []string{s + " " + p + " site id"},
			}, p)
		}
	}
	for _, s := range b6Sites {
		g.b6add(&fact{
			text: fmt.Sprintf("Sonos at %s: volume max 35 after 9pm (neighbour complaint), playlist 'Hearth evenings' on the office iPad", s),
			para: []string{"how loud can the music be at " + s + " in the evening?"},
			de:   []string{"Wie laut darf die Musik abends in " + s + " sein?"},
		}, "")
	}
}

// blind6 draws the notes, interleaved the way an operations notebook fills up.
func (g *gen) blind6() {
	var jobs []func()
	for _, s := range b6Sites {
		jobs = append(jobs, func() { g.b6site(s) }, func() { g.b6checks(s) })
		for k := range b6Kinds {
			if k == 9 && s == "Bruntsfield" {
				continue
			}
			jobs = append(jobs, func() { g.b6equip(s, k) })
		}
	}
	for k, kd := range b6Kinds {
		for c := range kd.codes {
			jobs = append(jobs, func() { g.b6fault(b6Sites[(k+c)%4], k, c) })
		}
	}
	for _, co := range []string{"Coldline Refrigeration", "Rational Service Partner Scotland", "Winterhalter Scotland", "Pentland Roasters tech team", "Kitchen Kare Engineering", "Nisbets Service", "CATERSERV Scotland", "Stephens Catering Equipment", "BWT UK"} {
		jobs = append(jobs, func() { g.b6contractor(co) })
	}
	for i := range b6Suppliers {
		jobs = append(jobs, func() { g.b6supplier(i) })
	}
	for range 196 {
		p := g.b6person()
		jobs = append(jobs, func() { g.b6staff(p) })
	}
	for _, d := range b6Dishes {
		jobs = append(jobs, func() { g.b6dish(d) })
	}
	for _, w := range b6Wines {
		jobs = append(jobs, func() { g.b6wine(w) })
	}
	for _, c := range b6Cocktails {
		jobs = append(jobs, func() { g.b6cocktail(c) })
	}
	for _, c := range b6Clients {
		jobs = append(jobs, func() { g.b6event(c) })
	}
	jobs = append(jobs, g.b6incidents, g.b6misc)
	g.r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for _, j := range jobs {
		j()
	}
	// A look-alike needs both notes: a lone member asks no distractor question.
	for _, fs := range b6pairs {
		for i, f := range fs {
			if len(fs) > 1 {
				f.twin = fs[(i+1)%len(fs)].key
			}
		}
	}
	for _, f := range g.facts {
		if f.twin == "" {
			f.dist = nil
		}
	}
}

// writeBlind6 stores each correction after the note it corrects: mostly weeks later, between
// other notes; one in six right after, and a typo always right after (a slip fixed at once).
func (g *gen) writeBlind6(out string) {
	g.writeLater(out, func(i, n int, f Memory) int {
		if strings.HasPrefix(f.Text, "Typo") || g.r.IntN(6) == 0 {
			return i
		}
		return min(i+1+g.r.IntN(n-i), n-1)
	})
}
