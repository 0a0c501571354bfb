package memory

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"toolhost/internal/lazyregexp"
	"toolhost/internal/lexicon"
)

// Answer types. A question says what kind of answer it wants — "who" a person, "when" a time,
// "how many" a number, "where" a place — in any of the languages search understands, and a
// note either holds such a value or not. Among the notes about one subject (a service has a
// port, an owner, a version and a log index) this picks the one of the right kind: "who is
// responsible for checkout?" is answered by the note with a name in it, whatever its words.
// It is the classic answer-typing step of question answering, with types read from surface
// patterns rather than a tagger.

type answerType uint8

const (
	answerNone answerType = iota
	answerPerson
	answerTime // a date, a time of day, a weekday, a frequency
	answerNumber
	answerPlace // a path, URL, host, channel, region or city
)

// questionStarts map a question's opening words (lower-case, accents kept) to the type of
// answer it wants; the longest match wins.
var questionStarts = map[string]answerType{
	// English
	"who": answerPerson, "whom": answerPerson, "whose": answerPerson, "who's": answerPerson,
	"when": answerTime, "what time": answerTime, "how often": answerTime, "which day": answerTime, "what day": answerTime,
	"how many": answerNumber, "how much": answerNumber, "how long": answerNumber, "how big": answerNumber,
	"how large": answerNumber, "how slow": answerNumber, "how fast": answerNumber, "which port": answerNumber,
	"what port": answerNumber, "which version": answerNumber, "what version": answerNumber,
	"where": answerPlace, "which host": answerPlace, "what host": answerPlace, "which file": answerPlace,
	"which url": answerPlace, "what url": answerPlace,
	// German
	"wer": answerPerson, "wem": answerPerson, "wen": answerPerson, "wessen": answerPerson,
	"wann": answerTime, "wie oft": answerTime, "um wie viel uhr": answerTime, "an welchem tag": answerTime,
	"wie viele": answerNumber, "wie viel": answerNumber, "wie lange": answerNumber, "wie groß": answerNumber,
	"auf welchem port": answerNumber, "welche version": answerNumber, "nach wie vielen": answerNumber,
	"wo": answerPlace, "woher": answerPlace, "wohin": answerPlace, "auf welchem host": answerPlace,
	"in welcher region": answerPlace, "unter welchem pfad": answerPlace,
	// French
	"qui": answerPerson, "à qui": answerPerson,
	"quand": answerTime, "à quelle heure": answerTime, "à quelle fréquence": answerTime, "quel jour": answerTime,
	"combien": answerNumber, "sur quel port": answerNumber, "quelle version": answerNumber, "au bout de combien": answerNumber,
	"où": answerPlace, "sur quel serveur": answerPlace, "dans quelle région": answerPlace,
	// Spanish
	"quién": answerPerson, "quiénes": answerPerson, "a quién": answerPerson,
	"cuándo": answerTime, "a qué hora": answerTime, "cada cuánto": answerTime, "qué día": answerTime,
	"cuánto": answerNumber, "cuántos": answerNumber, "cuántas": answerNumber, "cuánta": answerNumber,
	"en qué puerto": answerNumber, "qué versión": answerNumber, "después de cuántos": answerNumber,
	"dónde": answerPlace, "en qué región": answerPlace, "bajo qué ruta": answerPlace,
}

// questionType reads the answer type from the question's first words.
func questionType(query string) answerType {
	q := strings.ToLower(strings.TrimLeft(strings.TrimSpace(query), "¿¡\"'"))
	words := strings.FieldsFunc(q, func(r rune) bool { return unicode.IsSpace(r) || r == '?' || r == ',' })
	for n := min(5, len(words)); n > 0; n-- {
		if t, ok := questionStarts[strings.Join(words[:n], " ")]; ok {
			return t
		}
	}
	return answerNone
}

// The patterns of noteTypes, compiled on first use, not at every start.
var (
	timeOfDay = lazyregexp.New(`\b\d{1,2}:\d{2}\b`)
	isoDate   = lazyregexp.New(`\b\d{4}-\d{2}-\d{2}\b`)
	frequency = lazyregexp.New(`(?i)\b(every|each|nightly|daily|weekly|monthly|hourly|weekdays?|mornings?|afternoons?|evenings?)\b`)
	number    = lazyregexp.New(`(^|[^\w.-])\d+([.,]\d+)?\s*(%|ms|s|min|h|gb|g|mi|mib|mb|k)?\b`)
	email     = lazyregexp.New(`[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+\.[\p{L}\p{N}.-]*[\p{L}\p{N}]`)
	// place is a path, a URL, a channel, a region ("eu-west-1") or a host: "pg-main-04" and,
	// with letters before its number, "pacs-tst04", "maternit-lv01".
	place = lazyregexp.New(`(://|(^|\s)[~.]?/[\w.-]+|\b[\w-]+/[\w./-]+|#[\w-]+|\b[a-z]+-[a-z]+-\d\b|\b[a-z]+(-[a-z]+)*-[a-z]{0,4}\d{2,3}\b)`)
)

// noteHas reports whether a note holds a value of kind t: search asks only for the kind its
// question wants, which spares it the other kinds' patterns on every candidate.
func noteHas(text string, t answerType) bool {
	switch t {
	case answerPerson:
		return email.MatchString(text) || personName(text)
	case answerTime:
		return timeOfDay.MatchString(text) || isoDate.MatchString(text) || frequency.MatchString(text) || hasDateWord(text)
	case answerNumber:
		return number.MatchString(text)
	case answerPlace:
		return place.MatchString(text)
	}
	return false
}

func hasDateWord(text string) bool {
	for _, w := range lexicon.Words(text) {
		if monthName[w] || months[w] {
			return true
		}
	}
	return false
}

// personName reports two capitalised words in a row, neither a month or weekday ("Anna
// García", "Jonas Costa"), also at the start of the note ("Amir Lindqvist from payments owns
// admin-portal"): a note opens with one capitalised word, not two, unless it names something.
func personName(text string) bool {
	ts := factTokens(text)
	for i := 0; i+1 < len(ts); i++ {
		a, b := ts[i], ts[i+1]
		if capital(a.text) && capital(b.text) && !months[a.key] && !months[b.key] && !smallWord(a.key) &&
			strings.IndexFunc(a.text+b.text, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 {
			return true
		}
	}
	return false
}

func capital(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}

// Attributes. A question often names the attribute it wants instead of opening with a question
// word: "document-store port", "kyc runtime version", "Orchid Pharma contact email", "Port von
// fx-rates", "¿cuántas réplicas ...?". The attribute is read from the question's words wherever
// they stand, and a note answers only with a value of that attribute: "local dev: fx-rates is
// at http://localhost:8134" holds a port, "public URL of fx-rates: https://fx.example" does
// not, and "kyc API is at version 4.7" holds a version but no runtime's.

type attribute uint8

// The attributes, the most specific first: of two a question names ("runtime version", "port
// number", "contact email", "retry timeout") the first in this order wins.
const (
	attrNone attribute = iota
	attrPort
	attrRuntime // a language or runtime, with or without its version
	attrOS
	attrEmail
	attrURL
	attrIP
	attrCPU
	attrMemory   // a size: RAM, heap, disk
	attrSeats    // a count of seats, licences or users
	attrReplicas // a count of pods, replicas, instances or nodes
	attrRetries  // a count of retries or attempts
	attrPercent  // a percentage or a threshold
	attrDuration // a timeout, TTL, retention or delay
	attrSchedule // a frequency, a time of day, a cron line
	attrDate
	attrAddress // a URL, an IP address or a host:port
	attrVersion // any version number
	attrPhone   // a telephone number or an extension
)

// attributeNames are the words and phrases (up to three words, lower-case, accents kept) that
// name each attribute in English, German, French and Spanish. A French elision is dropped
// ("d'exploitation" is "exploitation"), so phrases are written without it.
var attributeNames = map[attribute]string{
	attrPort: "port, ports, port number, portnummer, puerto, puertos",
	attrRuntime: "runtime, runtimes, runtime version, language, programming language, tech stack, " +
		"stack, framework, interpreter, jdk, jvm, python, java, kotlin, scala, php, ruby, rust, golang, " +
		"elixir, erlang, typescript, javascript, nodejs, dotnet, perl, haskell, clojure, groovy, " +
		"laufzeitumgebung, programmiersprache, langage, environnement exécution, lenguaje, entorno ejecución, " +
		"entorno de ejecución",
	attrOS: "os, operating system, which system, what system, betriebssystem, welches system, " +
		"système exploitation, quel système, sistema operativo, qué sistema, distro",
	attrEmail: "email, emails, e-mail, e-mails, mail, email address, mail address, mailadresse, " +
		"courriel, correo, correo electrónico, adresse mail, adresse e-mail",
	attrURL: "url, urls, uri, endpoint, endpoints, link, website, webhook, lien, enlace, sitio web, webseite",
	attrIP:  "ip, ips, ip address, adresse ip, dirección ip, ip-adresse",
	attrCPU: "cpu, cpus, vcpu, vcpus, cores, millicores, processor, processors, prozessor, kerne, " +
		"processeur, cœurs, coeurs, procesador, núcleos",
	attrMemory: "ram, memory, mem, heap, disk, disk space, memory limit, speicher, arbeitsspeicher, " +
		"festplatte, mémoire, disque, memoria, disco, megabytes, gigabytes, terabytes, mb, gb, mib, gib, " +
		"mégaoctets, gigaoctets",
	attrSeats: "seats, licences, licenses, users, user licences, seat count, lizenzen, plätze, nutzer, " +
		"benutzer, sièges, utilisateurs, licencias, puestos, usuarios, plazas",
	attrReplicas: "pods, replicas, instances, nodes, workers, containers, replica count, instance count, " +
		"pod count, instanzen, replikate, knoten, réplicas, nœuds, instancias, nodos",
	attrRetries: "retries, retry count, retry limit, attempts, tries, versuche, wiederholungen, " +
		"tentatives, essais, reintentos, intentos",
	attrPercent: "percent, percentage, threshold, ratio, prozent, schwelle, schwellenwert, pourcentage, " +
		"seuil, porcentaje, umbral",
	attrDuration: "timeout, timeouts, ttl, duration, latency, retention, delay, backoff, grace period, " +
		"time limit, zeitlimit, dauer, aufbewahrung, wartezeit, délai, durée, tiempo de espera, duración, " +
		"retención, how long, wie lange, combien de temps, cuánto tiempo, " +
		// A unit names what it measures: "after how many seconds", "nach wie vielen Sekunden".
		"milliseconds, seconds, minutes, hours, millisekunden, sekunden, minuten, stunden, " +
		"millisecondes, secondes, heures, milisegundos, segundos, minutos, horas",
	attrSchedule: "schedule, frequency, cadence, cron, interval, zeitplan, häufigkeit, rhythmus, turnus, " +
		"fréquence, horaire, calendrier, frecuencia, horario, calendario, periodicidad",
	attrDate: "date, deadline, due date, end date, expiry date, expiration date, datum, frist, ablaufdatum, " +
		"échéance, fecha, vencimiento",
	attrAddress: "address, addresses, adresse, adressen, dirección, direcciones",
	attrVersion: "version, versions, versión",
	// Not "mobile" or "call" alone: "the mobile app", "an API call".
	attrPhone: "phone, phones, phone number, telephone, telephone number, tel, mobile number, mobile phone, " +
		"work mobile, cell phone, cell number, extension, ext, hotline, helpline, support line, phone line, " +
		"landline, telefon, telefonnummer, handy, handynummer, mobilnummer, durchwahl, rufnummer, " +
		"téléphone, numéro de téléphone, numéro de portable, ligne directe, teléfono, número de teléfono, " +
		"móvil, celular, extensión, número de móvil",
}

// attributeWords is attributeNames by phrase.
var attributeWords = func() map[string]attribute {
	m := map[string]attribute{}
	for a, names := range attributeNames {
		for _, n := range strings.Split(names, ",") {
			m[strings.TrimSpace(n)] = a
		}
	}
	return m
}()

// questionWords are a question's words, lower-case, for finding the attribute it names: the
// punctuation around each word trimmed, a French or English elision dropped ("l'adresse",
// "what's"), and a name with inner punctuation ("partner-portal", "ops-db-7", "node.js") left
// out, so that a subject is never read as an attribute ("legacy-report-port" is no port).
func questionWords(query string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(query)) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if i := strings.LastIndexAny(f, "'’"); i >= 0 {
			_, size := utf8.DecodeRuneInString(f[i:])
			f = f[i+size:]
		}
		if f == "" {
			continue
		}
		if f != "e-mail" && f != "e-mails" && f != "ip-adresse" &&
			strings.IndexFunc(f, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			continue
		}
		out = append(out, f)
	}
	return out
}

// questionAttribute reads the attribute a question of kind k names anywhere in it; of several,
// the most specific (attribute's order). The things a count counts are also what a question
// talks about ("how do other pods call vendor-sync?"), so a count is wanted only when the
// question asks a number ("how many", "combien"), says "count" or "number", or ends on the noun
// ("Willow Schools seats"); so is a telephone's number where the word also names the device.
func questionAttribute(query string, k answerType) attribute {
	words := questionWords(query)
	counting := k == answerNumber
	for _, w := range words {
		counting = counting || countWords[w]
	}
	best := attrNone
	for i := range words {
		for n := 1; n <= 3 && i+n <= len(words); n++ {
			phrase := strings.Join(words[i:i+n], " ")
			a, ok := attributeWords[phrase]
			if !ok || best != attrNone && a >= best {
				continue
			}
			if countNouns[a] != nil && !counting && i+n < len(words) {
				continue
			}
			if phoneDevice[phrase] && !counting && i+n < len(words) && !whoseWords[words[i+n]] {
				continue
			}
			best = a
		}
	}
	return best
}

// countWords say that a question asks a count (or a telephone's number).
var countWords = set(`count number anzahl zahl nombre número cantidad nummer numéro`)

// phoneDevice are the words for a telephone that also name the device ("the phone at the
// nurses' station is dead again"): they want a number only when the question asks one, ends on
// them ("Foxton UPS phone?") or says whose it is ("phone for Foxton UPS", "el teléfono de
// soporte").
var phoneDevice = set(`phone phones telephone tel telefon handy téléphone teléfono móvil celular landline`)

// whoseWords say whose a thing is.
var whoseWords = set(`for of von für de du des del para pour`)

// wanted is what a question asks for: the kind of answer its first words say and the attribute
// it names.
type wanted struct {
	kind answerType
	attr attribute
}

func (w wanted) none() bool { return w.kind == answerNone && w.attr == attrNone }

// questionWants reads both. An attribute refines the kind ("which port" wants a port, not any
// number; "who do we email" an address, not any name) and replaces it where the question opens
// with no kind; an attribute that does not fit the kind is left out: "who approves a port
// change?" wants a person, "when was the memory limit raised?" a time.
func questionWants(query string) wanted {
	k := questionType(query)
	w := wanted{kind: k, attr: questionAttribute(query, k)}
	if w.attr != attrNone && !fits(w.kind, w.attr) {
		w.attr = attrNone
	}
	return w
}

// fits reports whether a value of attribute a can answer a question of kind k.
func fits(k answerType, a attribute) bool {
	switch k {
	case answerPerson:
		return a == attrEmail
	case answerTime:
		return a == attrDate || a == attrSchedule || a == attrDuration
	case answerPlace:
		return a == attrURL || a == attrIP || a == attrAddress || a == attrEmail || a == attrPort
	}
	return true // a number, or no kind: any attribute
}

// noteAnswers reports whether a note holds what the question wants: a value of the attribute
// it names, or else of the kind its first words ask.
func noteAnswers(text string, w wanted) bool {
	if w.attr != attrNone {
		return noteHasAttr(text, w.attr)
	}
	return noteHas(text, w.kind)
}

// The note patterns of the attributes.
var (
	// hostPort is host:port or a bare ":port" ("localhost:8134", "redis:6379", "10.0.0.5:443",
	// "listens on :8080"); hostPortOK rules out a time of day and an ISO time.
	hostPort = lazyregexp.New(`(^|[\s(\[<"'=/@])([A-Za-z0-9][\w.-]*)?:(\d{2,5})\b`)
	// portWord is "port 8127", "port: 8127", "port is 8071", "port changed from 8705 to 9817";
	// servedOn is "HTTP on 8442", "listens on 9000", "binds to 8127", "exposed on 443".
	portWord = lazyregexp.New(`(?i)\b(?:ports?|puertos?|portnummer)\b[^.;\n\d]{0,30}?(\d{2,5})\b`)
	servedOn = lazyregexp.New(`(?i)\b(?:https?|grpc|tcp|udp|listens?|listening|binds?|bound|serves?|serving|exposed?|exposes)\b(?:\s+[a-z]+){0,2}?\s+(?:on|at|to)\s+(?:port\s+)?:?(\d{2,5})\b`)

	// runtimeVersioned is a language or runtime with its version ("Python 3.12", "Node 20",
	// "Java 21", "Go 1.23", ".NET 8", "PHP 8.2"): a name that is also a common word (Go, Node,
	// Swift, Bun) only capitalised and with its version.
	runtimeVersioned = lazyregexp.New(`(?:(?i:\b(?:python|cpython|pypy|java|jdk|openjdk|jre|temurin|corretto|graalvm|kotlin|scala|node\.?js|php|ruby|jruby|rust|rustc|golang|elixir|erlang(?:/otp)?|otp|typescript|javascript|perl|haskell|ghc|clojure|groovy|ocaml|dotnet|c#|f#))\s*|(?:\.NET(?: Core| Framework)?|\b(?:Go|Node|Deno|Bun|Swift|Dart|Lua|Julia|Zig|Crystal|Nim|R))\s+)v?\d+(?:\.\d+)*\b`)
	// runtimeNamed is a language named without a version after a word that says it is one's:
	// "written in Rust", "runs on Java", "built with Kotlin", "moved to Elixir".
	runtimeNamed = lazyregexp.New(`(?i)\b(?:in|on|to|with|uses?|using)\s+(?:python|java|kotlin|scala|node\.?js|php|ruby|rust|golang|elixir|erlang|typescript|javascript|perl|haskell|clojure|groovy|ocaml|\.net|dotnet)\b`)

	osName = lazyregexp.New(`(?i)\b(?:ubuntu|debian|alpine|amazon linux|rhel|red hat|centos|rocky linux|almalinux|fedora|windows server|windows|macos|freebsd|openbsd|suse|sles|opensuse|distroless|bottlerocket|flatcar|talos|linux)\b`)
	// urlPat is a URL ("https://x.example/v1", "www.x.example") or an endpoint's path ("GET
	// /ping", "under /api/v2/address").
	urlPat = lazyregexp.New(`(?i)\b[a-z][a-z0-9+.-]*://[^\s)>\]]+|\bwww\.[\w-]+\.|(?:^|[\s(])/[a-z][\w.-]*`)
	ipAddr = lazyregexp.New(`\b\d{1,3}(?:\.\d{1,3}){3}\b`)

	// cpuPat is "750m CPU", "2 vCPU", "4 cores", "cpu: 500m".
	cpuPat = lazyregexp.New(`(?i)\b\d+(?:[.,]\d+)?\s*(?:m\s*)?(?:v?cpus?|v?cores?|millicores?|kerne|cœurs|coeurs|núcleos)\b|\bv?cpus?\b[^.\n\d]{0,12}\d+(?:[.,]\d+)?m?\b`)
	// sizePat is "256 MiB", "8G", "192 GB", "1.5TB": a bare lower-case m is millicores, not a size.
	sizePat = lazyregexp.New(`\b\d+(?:[.,]\d+)?\s?(?:(?i:[kmgtp]i?b|[kmgtp]i)|[KMGTP])\b`)

	percentPat  = lazyregexp.New(`(?i)\d(?:\s?%|\s?(?:percent|per cent|prozent|pour cent|por ciento)\b)|[<>≤≥]=?\s*\d|\b(?:above|over|below|under|exceeds?|at least|at most|more than|less than)\s+\d`)
	durationPat = lazyregexp.New(`(?i)\b\d+(?:[.,]\d+)?\s?(?:ms|s|secs?|seconds?|min|mins|minutes?|h|hrs?|hours?|d|days?|w|weeks?|months?|years?|sekunden|minuten|stunden|tagen?|wochen|monaten?|jahren?|secondes?|heures?|jours?|semaines?|mois|ans?|segundos?|minutos?|horas?|días?|semanas?|meses|años?)\b`)
	weekday     = lazyregexp.New(`(?i)\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:quarterly|yearly|annually|biweekly|fortnightly|once a|twice a)\b`)
	cronLine    = lazyregexp.New(`(?:^|\s)(?:[\d*/,-]+\s+){4}[\d*/,-]+(?:\s|[.;]|$)`)
	datePat     = lazyregexp.New(`(?i)\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|\b\d{1,2}(?:st|nd|rd|th|\.)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-zé]*\b|\bQ[1-4]\s+\d{4}\b`)
	// versionPat is "14.10", "v2.1", "version 4", "release 7" or a free-standing "v2": the "-v2"
	// of a name (image-resizer-v2) is no version.
	versionPat = lazyregexp.New(`(?i)(?:^|[^\w-])v?\d+\.\d+(?:\.\d+)*\b|\b(?:version|release)\s*\d+\b|(?:^|[\s(])v\d+\b`)
)

// countNouns are the nouns a count of each kind is said with, singular and plural.
var countNouns = map[attribute]map[string]bool{
	attrSeats: set(`seat seats licence licences license licenses licensed user users lizenz lizenzen
		platz plätze nutzer benutzer siège sièges utilisateur utilisateurs licencia licencias puesto
		puestos usuario usuarios plaza plazas`),
	attrReplicas: set(`pod pods replica replicas instance instances node nodes worker workers container
		containers instanz instanzen replikat replikate knoten réplica réplicas nœud nœuds instancia
		instancias nodo nodos`),
	attrRetries: set(`retry retries attempt attempts try tries versuch versuche wiederholung wiederholungen
		tentative tentatives essai essais reintento reintentos intento intentos`),
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// noteHasAttr reports whether a note holds a value of attribute a.
func noteHasAttr(text string, a attribute) bool {
	switch a {
	case attrPort:
		return hasPort(text)
	case attrRuntime:
		return runtimeVersioned.MatchString(text) || runtimeNamed.MatchString(text)
	case attrOS:
		return osName.MatchString(text)
	case attrEmail:
		return email.MatchString(text)
	case attrURL:
		return urlPat.MatchString(text)
	case attrIP:
		return ipAddr.MatchString(text)
	case attrCPU:
		return cpuPat.MatchString(text)
	case attrMemory:
		return sizePat.MatchString(text)
	case attrSeats, attrReplicas, attrRetries:
		return hasCount(text, countNouns[a])
	case attrPercent:
		return percentPat.MatchString(text)
	case attrDuration:
		return durationPat.MatchString(text)
	case attrSchedule:
		return frequency.MatchString(text) || weekday.MatchString(text) || timeOfDay.MatchString(text) || cronLine.MatchString(text)
	case attrDate:
		return datePat.MatchString(text)
	case attrAddress:
		return urlPat.MatchString(text) || ipAddr.MatchString(text) || hasPort(text)
	case attrVersion:
		return versionPat.MatchString(text) || runtimeVersioned.MatchString(text)
	case attrPhone:
		return hasPhone(text)
	}
	return false
}

// The patterns of hasPhone: an extension ("ext 5367", "x3965", "Durchwahl 412") and a run of
// digits with the separators a telephone number is written with ("0150 397 7041", "+44 20 7946
// 0958", "(555) 123-4567").
var (
	extensionPat = lazyregexp.New(`(?i)(?:^|[^\w.-])(?:ext|x|extension|durchwahl|poste|extensión)\.?:?\s?\d{2,6}\b`)
	phonePat     = lazyregexp.New(`(?:^|[^\w.-])(\+?\(?\d[\d ()./-]{5,18}\d)\b`)
)

// hasPhone reports a telephone number or an extension. A number has at least 10 digits, or 7
// in three groups or after a "+" or "(": a range ("8080-8090", "2024-2025"), an IP address, a
// date or a version is none.
func hasPhone(text string) bool {
	if extensionPat.MatchString(text) {
		return true
	}
	for _, m := range phonePat.FindAllStringSubmatch(text, -1) {
		n := m[1]
		if ipAddr.MatchString(n) || isoDate.MatchString(n) || datePat.MatchString(n) {
			continue
		}
		digits, groups := 0, len(strings.FieldsFunc(n, func(r rune) bool { return r < '0' || r > '9' }))
		for _, r := range n {
			if r >= '0' && r <= '9' {
				digits++
			}
		}
		if digits >= 10 || digits >= 7 && (groups >= 3 || strings.ContainsAny(n[:1], "+(")) {
			return true
		}
	}
	return false
}

// hasPort reports a port number: host:port, "port N", or "on N" after a word that says
// something listens. A port is 1..65535 and never part of a decimal or a time of day.
func hasPort(text string) bool {
	for _, m := range hostPort.FindAllStringSubmatchIndex(text, -1) {
		host := ""
		if m[4] >= 0 {
			host = text[m[4]:m[5]]
		}
		if hostPortOK(host, text[m[6]:m[7]], text[m[7]:]) {
			return true
		}
	}
	for _, re := range []*lazyregexp.Regexp{portWord, servedOn} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			if portNumber(text[m[2]:m[3]], text[m[3]:]) {
				return true
			}
		}
	}
	return false
}

// hostPortOK rules out what looks like host:port and is not: a time of day ("9:30", "at
// 10:00:00"), an ISO time ("2024-05-01T10:30"), a ratio ("3:1" has one digit anyway).
func hostPortOK(host, port, rest string) bool {
	if isDigits(host) && len(host) <= 2 {
		return false
	}
	if i := strings.LastIndexAny(host, "Tt"); i >= 0 && i < len(host)-1 && isDigits(host[i+1:]) && len(host)-i-1 <= 2 {
		return false
	}
	return portNumber(port, rest)
}

// portNumber reports a number that can be a port: 1..65535, not followed by a decimal part or
// a unit ("8.2", "8442ms").
func portNumber(digits, rest string) bool {
	n := 0
	for _, r := range digits {
		n = n*10 + int(r-'0')
	}
	if n < 1 || n > 65535 {
		return false
	}
	if len(rest) >= 2 && (rest[0] == '.' || rest[0] == ',') && rest[1] >= '0' && rest[1] <= '9' {
		return false
	}
	return true
}

// hasCount reports a number said with one of nouns, at most four words from it (three between): "runs 3 pods",
// "1800 user licences", "production replicas for export-worker: 6", "gives up after 10 retries".
// A noun inside a name ("db-replica-17") is none.
func hasCount(text string, nouns map[string]bool) bool {
	var nums, hits []int
	for i, w := range tokens(text) {
		switch {
		case isDigits(w):
			nums = append(nums, i)
		case nouns[strings.ToLower(w)]:
			hits = append(hits, i)
		}
	}
	for _, n := range nums {
		for _, h := range hits {
			if h-n <= 4 && n-h <= 4 {
				return true
			}
		}
	}
	return false
}
