package main

// The blind3 set: the notes an IT technician of a hospital keeps for themself — wards and their
// printers, badge readers and extensions, printers, software licences, colleagues on the service
// desk, clinical systems with a live and a test server, suppliers, comms rooms, VPN profiles and
// tickets. Written from the six classes' definitions in main.go's header alone, without the
// ranking code or the other sets' templates.

import (
	"fmt"
	"slices"
	"strings"
)

var (
	b3first = []string{"Aoife", "Bronwen", "Callum", "Deepa", "Eamon", "Fiona", "Gareth", "Harriet", "Imran", "Jodie", "Kwame", "Lorna", "Mohammed", "Niamh", "Owen", "Pippa", "Rhys", "Siobhan", "Tariq", "Una", "Vikram", "Wendy", "Yasmin", "Zach", "Alfie", "Bethan", "Ciaran", "Dylan", "Erin", "Grace"}
	b3last  = []string{"Okoro", "Reilly", "Walsh", "Patel", "Hughes", "McBride", "Evans", "Kaur", "Doherty", "Price", "Mensah", "Gallagher", "Khan", "Lloyd", "Brennan", "Chowdhury", "Pritchard", "Quinn", "Sheridan", "Thomas", "Adeyemi", "Burke", "Nolan", "Rowe", "Fitzgerald"}
	b3units = []string{"ICU", "HDU", "Maternity", "Neonatal", "Paeds", "A&E", "Theatres", "Day Surgery", "Oncology", "Renal", "Cardiology", "Stroke Unit", "Endoscopy", "Radiology", "Outpatients", "Pharmacy"}
	b3prod  = []string{"Dragon Medical One", "Adobe Acrobat Pro", "Microsoft Visio", "SPSS", "MATLAB", "NVivo", "EndNote", "Citrix Workspace", "AutoCAD LT", "Tableau", "Zoom Rooms", "Nessus", "Veeam", "vSphere", "Sophos Central", "TeamViewer", "Snagit", "Mimecast", "DocuSign", "Qlik Sense", "Crystal Reports", "Bluebeam", "GraphPad Prism", "Stata", "ArcGIS Pro", "Jamf Pro", "Lansweeper", "PaperCut MF", "Kofax Power PDF", "Cisco Webex"}
	b3apps  = []string{"PACS", "EPR", "LIMS", "e-prescribing", "bed management", "theatre scheduler", "blood tracking", "patient kiosk", "dictation server", "e-rostering", "pharmacy stock", "maternity system", "radiology RIS", "discharge letters", "clinic booking", "infection control"}
	b3supp  = []string{"Carrow Print Services", "Helix Networks", "Bramley IT Supplies", "Medway Cabling", "Northfield Telecom", "Osprey Security", "Pennant Data", "Quayside Computers", "Redcliffe Badges", "Selby Scanners", "Tamar Software", "Ullswater Cloud", "Vale Power Systems", "Wrexham Office Tech", "Yarrow Medical IT", "Aldgate Licensing", "Bexley Hardware", "Cotswold Comms", "Dunmore AV", "Ember Storage", "Foxton UPS", "Greyfriars Recycling", "Holloway Consulting", "Islay Networks", "Juniper Lane Devices", "Kestrel Print", "Larkspur Telecom", "Morden Mobile", "Nettlefold IT", "Orchard Asset Disposal"}
	b3toner = []string{"CF289A", "CF259X", "W1470A", "TN-3480", "TN-2420", "106R03623", "CE505X", "CF226X", "TK-3160", "TK-5240K", "C-EXV53", "MLT-D203L"}
	b3model = []string{"HP LaserJet M507", "HP Color LaserJet M555", "Brother HL-L6400DW", "Xerox VersaLink B405", "Kyocera ECOSYS P3155dn", "Canon iR-ADV C5840i", "Zebra ZD421 label", "Lexmark MS821"}
	b3site  = []string{"North", "South"}
	b3month = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	b3days  = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	b3probs = []struct{ what, fix string }{
		{"label printer printing blank labels", "swapped the ribbon, it was in upside down"},
		{"badge reader on the main door not opening", "controller had lost its IP lease, set it static"},
		{"PC on wheels won't log in", "trust relationship broken, rejoined it to the domain"},
		{"nurses can't print wristbands", "driver had reverted after Windows update, reinstalled ZDesigner"},
		{"wifi dropping on the tablets", "they were on the guest SSID, moved them to CLIN-WIFI"},
		{"phone at the nurses' station dead", "PoE port disabled on the switch, re-enabled"},
		{"Citrix session freezing", "profile was 9 GB, cleared the Teams cache"},
		{"scanner sending to the wrong folder", "scan-to-folder path still pointed at the old file server"},
		{"monitor flickering on the obs station", "replaced the DisplayPort cable"},
		{"dictation foot pedal not detected", "USB hub was unpowered, plugged it straight into the PC"},
		{"shared mailbox missing for the ward clerk", "added her to the mailbox group and waited for sync"},
		{"drug fridge alarm not emailing", "SMTP relay had the old IP of the sensor gateway"},
	}
	b3cmds = []struct{ cmd, what string }{
		{"gpupdate /force", "pull the group policy again on a ward PC"},
		{"klist purge", "clear the Kerberos tickets when a user gets access denied after a password change"},
		{"ipconfig /flushdns", "fix a PC that still resolves the old print server"},
		{"net stop spooler", "first step when a print queue is stuck on the print server"},
		{"Get-ADUser -Identity", "look up a staff account's lockout state"},
		{"Unlock-ADAccount", "unlock a locked-out staff account from PowerShell"},
		{"dsregcmd /status", "check whether a laptop is Entra-joined"},
		{"manage-bde -protectors -get C:", "read the BitLocker recovery ID on a laptop"},
		{"sfc /scannow", "repair system files on a PC that blue-screens after updates"},
		{"Test-NetConnection -Port 443", "check that a PC can reach a clinical system's web port"},
		{"pnputil /enum-drivers", "list the printer drivers installed on a PC"},
		{"quser /server:", "see who is logged on to a Citrix server"},
	}
	b3errs = []struct{ code, where, means string }{
		{"E-47", "the badge kiosk", "the card's chip is dead, issue a new card"},
		{"0x80070005", "the print server", "the user lacks print permission on the queue"},
		{"0x0000011b", "ward PCs adding a shared printer", "the RPC hardening update, install the driver from the package"},
		{"ERR_CERT_DATE_INVALID", "the patient kiosk", "the kiosk clock drifted, resync it with w32tm /resync"},
		{"SMART 187", "the dictation server", "the disk is failing, log a call with the supplier"},
		{"Event ID 4740", "the domain controllers", "an account lockout, the source PC is in the event"},
		{"Error 1722", "the LIMS interface", "the RPC server is unavailable, restart the interface service"},
		{"HTTP 502", "the e-prescribing web front end", "the app pool crashed, recycle it in IIS"},
		{"J-0021", "the Canon multifunction printers", "the fuser unit needs replacing, call the print supplier"},
		{"code 43", "USB card readers", "the reader's driver failed, reseat it or swap it"},
		{"STOP 0x9F", "the Dell OptiPlex 7010s", "a driver power state failure, update the BIOS"},
		{"ORA-12541", "the pharmacy stock reports", "no listener on the database server"},
	}
	b3vpn = []string{"Staff-Remote", "Clinician-AlwaysOn", "Supplier-Access", "IT-Admin", "Research-Net", "Radiology-Home"}
)

// b3 builds the notes of the blind3 set.
type b3 struct{ *gen }

func (b *b3) person() string { return b.pick(b3first) + " " + b.pick(b3last) }

func (b *b3) num(lo, hi int) int { return lo + b.r.IntN(hi-lo+1) }

func (b *b3) ext() string {
	return b.uniq(func() string { return fmt.Sprintf("%d", b.num(2000, 7999)) })
}

func (b *b3) ip(net string) string {
	return b.uniq(func() string { return fmt.Sprintf("10.%s.%d.%d", net, b.num(1, 60), b.num(2, 250)) })
}

func (b *b3) date() string { return fmt.Sprintf("%d %s", b.num(1, 28), b.pick(b3month)) }

// pair adds two look-alike notes, one after the other, each the twin of the other.
func (b *b3) pair(x, y *fact) {
	x, y = b.add(x), b.add(y)
	if x != nil && y != nil {
		x.twin, y.twin = y.key, x.key
	} else {
		if x != nil {
			x.dist = nil
		}
		if y != nil {
			y.dist = nil
		}
	}
}

func (b *b3) one(f *fact) { b.add(f) }

// wardFacts are the notes about two neighbouring wards ("4B" and "4C"), attribute by attribute.
func (b *b3) wardFacts(site string, w [2]string) {
	names := [2]string{}
	for i, x := range w {
		// Both sites number their wards the same way: "North 4B" and "South 4B".
		names[i] = x
		if x[0] >= '0' && x[0] <= '9' {
			names[i] = site + " " + x
		}
	}
	// Printer queue.
	mk := func(i int) *fact {
		n, x := names[i], w[i]
		q := strings.NewReplacer(" ", "", "&", "").Replace(x)
		queue := fmt.Sprintf(`\\prt-%s0%d\%s-%s`, strings.ToLower(site[:1]), b.num(1, 3), strings.ToUpper(q), b.pick([]string{"MONO", "COLOUR", "LABELS", "WRISTBAND"}))
		b.used[queue] = true
		nq := fmt.Sprintf(`\\prt-%s0%d\%s-%s`, strings.ToLower(site[:1]), b.num(4, 6), strings.ToUpper(q), b.pick([]string{"MFD", "MONO2", "A3"}))
		return &fact{
			text: b.pick([]string{
				fmt.Sprintf("%s (%s site) prints to %s — the one by the nurses' station", n, site, queue),
				fmt.Sprintf("printer queue for %s, %s: %s", n, site, queue),
				fmt.Sprintf("%s %s -> map %s as default printer", site, n, queue),
			}),
			para:  []string{fmt.Sprintf("which printer do I set up for %s?", n), fmt.Sprintf("what's the print queue on %s called?", n)},
			ident: []string{fmt.Sprintf("which ward uses %s?", queue[strings.LastIndex(queue, `\`)+1:])},
			de:    []string{fmt.Sprintf("Welchen Drucker muss ich auf %s einrichten?", n)},
			fr:    []string{fmt.Sprintf("Quelle imprimante installer pour %s ?", n)},
			es:    []string{fmt.Sprintf("¿Qué impresora configuro en %s?", n)},
			fixes: []string{
				fmt.Sprintf("%s (%s) printer queue changed: now %s, the old queue is retired", n, site, nq),
				fmt.Sprintf("update: %s prints to %s from now on, not the old queue", n, nq),
				fmt.Sprintf("correction — %s's default printer is %s (I had the wrong queue before)", n, nq),
			},
			dist: []string{fmt.Sprintf("printer queue for %s?", n), fmt.Sprintf("what printer does %s use?", n)},
		}
	}
	b.pair(mk(0), mk(1))
	// Badge reader controller.
	mk = func(i int) *fact {
		n := names[i]
		id := b.uniq(func() string { return fmt.Sprintf("BR-%s%03d", site[:1], b.num(100, 999)) })
		ip := b.ip("31")
		nip := b.ip("31")
		return &fact{
			text: b.pick([]string{
				fmt.Sprintf("%s entrance badge reader = %s, controller on %s", n, id, ip),
				fmt.Sprintf("Badge reader at the door of %s is %s (controller IP %s). Reboot it from the Net2 console.", n, id, ip),
				fmt.Sprintf("door access %s: reader %s / %s", n, id, ip),
			}),
			para:  []string{fmt.Sprintf("the swipe card door on %s isn't working, which reader is it?", n)},
			ident: []string{fmt.Sprintf("where is badge reader %s?", id), fmt.Sprintf("%s is offline, which door is that?", id)},
			ask:   []string{fmt.Sprintf("what IP is the badge reader controller on %s?", n)},
			num:   []string{fmt.Sprintf("what's on %s?", ip), fmt.Sprintf("which door controller has %s?", ip)},
			val:   ip,
			de:    []string{fmt.Sprintf("Welche IP hat der Badge-Leser an der Tür von %s?", n)},
			fr:    []string{fmt.Sprintf("C'est quoi l'adresse IP du lecteur de badge à l'entrée de %s ?", n)},
			es:    []string{fmt.Sprintf("¿Qué IP tiene el lector de tarjetas de la puerta de %s?", n)},
			fixes: []string{
				fmt.Sprintf("%s badge reader controller re-IP'd to %s (was wrong in my notes)", n, nip),
				fmt.Sprintf("as of today the door controller for %s is on %s", n, nip),
			},
			dist: []string{fmt.Sprintf("badge reader controller IP for %s?", n)},
		}
	}
	b.pair(mk(0), mk(1))
	// Ward manager and extension.
	mk = func(i int) *fact {
		n := names[i]
		p, np := b.person(), b.person()
		e := b.ext()
		return &fact{
			text: b.pick([]string{
				fmt.Sprintf("%s ward manager: %s, ext %s", n, p, e),
				fmt.Sprintf("%s is the manager on %s — ring %s for access sign-off", p, n, e),
				fmt.Sprintf("Sign-off for new starters on %s comes from %s (ext %s).", n, p, e),
			}),
			para: []string{fmt.Sprintf("who signs off new starters' access on %s?", n), fmt.Sprintf("who's in charge of %s?", n)},
			ask:  []string{fmt.Sprintf("what extension is the %s manager on?", n)},
			num:  []string{fmt.Sprintf("whose extension is %s?", e)},
			val:  e,
			de:   []string{fmt.Sprintf("Wer ist die Stationsleitung auf %s?", n)},
			fr:   []string{fmt.Sprintf("Qui est le cadre de santé de %s ?", n)},
			es:   []string{fmt.Sprintf("¿Quién es la supervisora de %s?", n)},
			fixes: []string{
				fmt.Sprintf("new ward manager on %s: %s took over from %s, same ext %s", n, np, p, e),
				fmt.Sprintf("%s's manager is now %s — %s moved to another trust; ext %s goes to %s", n, np, p, e, np),
			},
			dist: []string{fmt.Sprintf("who's the ward manager of %s?", n)},
		}
	}
	b.pair(mk(0), mk(1))
	// VLAN of the network points.
	mk = func(i int) *fact {
		n := names[i]
		v := b.uniq(func() string { return fmt.Sprintf("%d", b.num(100, 899)) })
		nv := b.uniq(func() string { return fmt.Sprintf("%d", b.num(100, 899)) })
		return &fact{
			text: b.pick([]string{
				fmt.Sprintf("%s (%s) wall ports are on VLAN %s, clinical", n, site, v),
				fmt.Sprintf("patch anything on %s into VLAN %s", n, v),
			}),
			para: []string{fmt.Sprintf("a new PC on %s gets no network, what should the port be set to?", n)},
			ask:  []string{fmt.Sprintf("which VLAN are the network points on %s?", n), fmt.Sprintf("what vlan do I patch %s into?", n)},
			num:  []string{fmt.Sprintf("which ward is on VLAN %s?", v)},
			val:  "VLAN " + v,
			de:   []string{fmt.Sprintf("In welches VLAN gehören die Netzwerkdosen auf %s?", n)},
			fr:   []string{fmt.Sprintf("Les prises réseau de %s sont sur quel VLAN ?", n)},
			es:   []string{fmt.Sprintf("¿En qué VLAN están los puntos de red de %s?", n)},
			fixes: []string{
				fmt.Sprintf("%s moved to VLAN %s after the re-cabling", n, nv),
				fmt.Sprintf("scratch VLAN %s for %s, network team says it's VLAN %s now", v, n, nv),
			},
			dist: []string{fmt.Sprintf("VLAN for the wall ports on %s?", n)},
		}
	}
	b.pair(mk(0), mk(1))
	// Nurses' station phone.
	for i := range 2 {
		n := names[i]
		e := b.ext()
		b.one(&fact{
			text: b.pick([]string{
				fmt.Sprintf("%s nurses' station: x%s", n, e),
				fmt.Sprintf("Ring %s for the nurses' station on %s if nobody answers the ward manager", e, n),
			}),
			para: []string{fmt.Sprintf("how do I get hold of the nurses on %s?", n)},
			ask:  []string{fmt.Sprintf("number for the nurses' station on %s?", n)},
			num:  []string{fmt.Sprintf("who picks up on x%s?", e)},
			val:  e,
			de:   []string{fmt.Sprintf("Wie ist die Durchwahl vom Stationszimmer auf %s?", n)},
			fr:   []string{fmt.Sprintf("Quel est le numéro du poste de soins de %s ?", n)},
			es:   []string{fmt.Sprintf("¿Cuál es la extensión del control de enfermería de %s?", n)},
		})
	}
}

// printerFacts are the notes about one printer.
func (b *b3) printerFacts(site string) {
	id := b.uniq(func() string { return fmt.Sprintf("PRN-%s-%04d", site[:1], b.num(100, 2999)) })
	model := b.pick(b3model)
	ip := b.ip("40")
	floor := b.num(0, 6)
	spot := b.pick([]string{"by the lifts", "in the doctors' office", "outside the sluice", "in the ward clerk's office", "in the corridor by the fire exit", "behind reception", "in the seminar room"})
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("%s: %s, %s site floor %d %s, IP %s", id, model, site, floor, spot, ip),
			fmt.Sprintf("%s is the %s %s (floor %d, %s site) — static %s", id, model, spot, floor, site, ip),
		}),
		ident: []string{fmt.Sprintf("where is %s?", id), fmt.Sprintf("what IP has %s", id)},
		num:   []string{fmt.Sprintf("which printer is %s?", ip), fmt.Sprintf("%s keeps pinging, what is it", ip)},
		val:   ip,
		fixes: []string{fmt.Sprintf("%s got a new IP when they moved it: %s, same spot", id, b.ip("40"))},
	})
	t := b.pick(b3toner)
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("toner for %s is %s, keep two in the IT store", id, t),
			fmt.Sprintf("%s takes %s cartridges (order from the print supplier, not Amazon)", id, t),
		}),
		ident: []string{fmt.Sprintf("what toner does %s need?", id), fmt.Sprintf("cartridge for %s?", id)},
		fixes: []string{fmt.Sprintf("%s now takes the high-yield %s instead, ordered 10", id, b.pick(b3toner)+"-HY")},
	})
}

// licenceFacts are the notes about one product's licences, staff and student seats side by side.
func (b *b3) licenceFacts(p string) {
	mk := func(who string) *fact {
		n := b.num(5, 400)
		used := n - b.num(1, 4)
		nn := n + b.num(5, 50)
		return &fact{
			text: b.pick([]string{
				fmt.Sprintf("%s licences for %s: %d seats, %d in use", p, who, n, used),
				fmt.Sprintf("we own %d seats of %s for %s (%d assigned)", n, p, who, used),
			}),
			para: []string{fmt.Sprintf("are we running out of %s for %s?", p, who)},
			ask:  []string{fmt.Sprintf("how many %s seats do we have for %s?", p, who)},
			num:  []string{fmt.Sprintf("which licence has %d seats?", n)},
			val:  fmt.Sprint(n),
			de:   []string{fmt.Sprintf("Wie viele %s-Lizenzen haben wir für %s?", p, who)},
			fr:   []string{fmt.Sprintf("Combien de licences %s on a pour %s ?", p, who)},
			es:   []string{fmt.Sprintf("¿Cuántas licencias de %s tenemos para %s?", p, who)},
			fixes: []string{
				fmt.Sprintf("bought %d more %s seats for %s, total now %d", nn-n, p, who, nn),
				fmt.Sprintf("%s %s licence count is %d now (true-up done)", p, who, nn),
			},
			dist: []string{fmt.Sprintf("how many %s licences for %s?", p, who)},
		}
	}
	b.pair(mk("staff"), mk("the training room"))
	d, nd := b.date(), b.date()
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("%s renewal due %s — raise the PO six weeks before", p, d),
			fmt.Sprintf("Renew %s by %s (procurement needs the quote early)", p, d),
		}),
		para: []string{fmt.Sprintf("when do we have to renew %s?", p), fmt.Sprintf("%s contract ends when?", p)},
		de:   []string{fmt.Sprintf("Wann läuft die Lizenz für %s aus?", p)},
		fr:   []string{fmt.Sprintf("Quand faut-il renouveler %s ?", p)},
		es:   []string{fmt.Sprintf("¿Cuándo hay que renovar %s?", p)},
		fixes: []string{
			fmt.Sprintf("%s renewal moved to %s, they aligned it with the Microsoft agreement", p, nd),
			fmt.Sprintf("correction: %s renews on %s, not what I wrote", p, nd),
		},
	})
	port := b.uniq(func() string { return fmt.Sprint(b.num(1700, 29999)) })
	host := fmt.Sprintf("lic%02d", b.num(1, 9))
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("%s licence server %s port %s", p, host, port),
			fmt.Sprintf("Clients point %s at %s@%s for a floating licence.", p, port, host),
		}),
		para:  []string{fmt.Sprintf("%s says no licence available, where does it get its licence from?", p)},
		ask:   []string{fmt.Sprintf("what port is the %s licence server on?", p)},
		num:   []string{fmt.Sprintf("which licence uses port %s?", port)},
		val:   port,
		fixes: []string{fmt.Sprintf("%s licence server moved: now %s port %s", p, host, b.uniq(func() string { return fmt.Sprint(b.num(1700, 29999)) }))},
		de:    []string{fmt.Sprintf("Welcher Port ist der Lizenzserver für %s?", p)},
	})
	who := b.person()
	mail := strings.ToLower(strings.ReplaceAll(who, " ", ".")) + "@" + strings.ToLower(strings.Fields(b.pick(b3supp))[0]) + ".example"
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("%s reseller contact %s <%s>", p, who, mail),
			fmt.Sprintf("For %s quotes email %s (%s)", p, mail, who),
		}),
		para: []string{fmt.Sprintf("who do I ask for a %s quote?", p), fmt.Sprintf("email of the %s reseller?", p)},
		fr:   []string{fmt.Sprintf("À qui demander un devis pour %s ?", p)},
		es:   []string{fmt.Sprintf("¿A quién le pido un presupuesto de %s?", p)},
	})
	v := fmt.Sprintf("%d.%d.%d", b.num(2, 30), b.num(0, 9), b.num(0, 12))
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("deploying %s %s via Intune, older builds still on the lab PCs", p, v),
			fmt.Sprintf("%s version on the standard build: %s", p, v),
		}),
		para:  []string{fmt.Sprintf("what %s do we roll out to new PCs?", p)},
		ask:   []string{fmt.Sprintf("which version of %s is on the standard build?", p)},
		fixes: []string{fmt.Sprintf("%s bumped to %d.%d on the standard build", p, b.num(31, 40), b.num(0, 9))},
		de:    []string{fmt.Sprintf("Welche Version von %s ist im Standard-Image?", p)},
		es:    []string{fmt.Sprintf("¿Qué versión de %s lleva la imagen estándar?", p)},
	})
}

// techFacts are the notes about two colleagues of one first name.
func (b *b3) techFacts(fn string, ln [2]string, rota []string) {
	specs := []string{"PACS and the radiology workstations", "the badge system", "Citrix", "the print servers", "phones and the Mitel switch", "Intune and the iPads", "the theatre PCs", "the wifi controllers", "the e-prescribing interface", "backups"}
	mk := func(i int) *fact {
		p := fn + " " + ln[i]
		m := b.uniq(func() string { return fmt.Sprintf("07%d %06d", b.num(700, 999), b.num(0, 999999)) })
		return &fact{
			text: b.pick([]string{
				fmt.Sprintf("%s (service desk) mobile %s", p, m),
				fmt.Sprintf("%s's work mobile: %s — text first, they're often on the wards", p, m),
			}),
			ask:   []string{fmt.Sprintf("mobile number for %s?", p)},
			fr:    []string{fmt.Sprintf("C'est quoi le portable de %s ?", p)},
			es:    []string{fmt.Sprintf("¿Cuál es el móvil de %s?", p)},
			fixes: []string{fmt.Sprintf("%s has a new work mobile: %s", p, b.uniq(func() string { return fmt.Sprintf("07%d %06d", b.num(700, 999), b.num(0, 999999)) }))},
			dist:  []string{fmt.Sprintf("what's %s's mobile?", p)},
		}
	}
	b.pair(mk(0), mk(1))
	for i := range 2 {
		p := fn + " " + ln[i]
		s := b.pick(specs)
		b.one(&fact{
			text: b.pick([]string{
				fmt.Sprintf("%s knows %s best", p, s),
				fmt.Sprintf("ask %s about %s", p, s),
			}),
			para: []string{fmt.Sprintf("what does %s look after?", p)},
			de:   []string{fmt.Sprintf("Wofür ist %s zuständig?", p)},
		})
		d, nd := b.pick(rota), b.pick(rota)
		if nd == d {
			nd = rota[(slices.Index(rota, d)+1)%len(rota)]
		}
		b.one(&fact{
			text: b.pick([]string{
				fmt.Sprintf("%s does the out-of-hours on-call on %ss", p, d),
				fmt.Sprintf("on-call rota: %s covers %s nights", p, d),
			}),
			para: []string{fmt.Sprintf("which night is %s on call?", p)},
			de:   []string{fmt.Sprintf("An welchem Tag hat %s Rufbereitschaft?", p)},
			fr:   []string{fmt.Sprintf("%s est d'astreinte quel soir ?", p)},
			es:   []string{fmt.Sprintf("¿Qué noche está %s de guardia?", p)},
			fixes: []string{
				fmt.Sprintf("%s swapped on-call, now %s nights", p, nd),
				fmt.Sprintf("rota changed — %s is on call on %ss from next month", p, nd),
			},
		})
	}
}

// appFacts are the notes about one clinical system's live and test servers.
func (b *b3) appFacts(a string) {
	slug := strings.NewReplacer(" ", "", "-", "").Replace(strings.ToLower(a))
	if len(slug) > 8 {
		slug = slug[:8]
	}
	mk := func(env string) *fact {
		host := fmt.Sprintf("%s-%s%02d", slug, map[string]string{"live": "lv", "test": "tst"}[env], b.num(1, 4))
		port := b.uniq(func() string { return fmt.Sprint(b.num(8000, 9999)) })
		return &fact{
			text: b.pick([]string{
				fmt.Sprintf("%s %s server: %s:%s", a, env, host, port),
				fmt.Sprintf("%s (%s) runs on %s, web port %s", a, env, host, port),
			}),
			para:  []string{fmt.Sprintf("where does %s %s live?", a, env)},
			ident: []string{fmt.Sprintf("what is %s?", host)},
			ask:   []string{fmt.Sprintf("what port is %s %s on?", a, env)},
			num:   []string{fmt.Sprintf("which system listens on %s?", port)},
			val:   port,
			de:    []string{fmt.Sprintf("Auf welchem Server läuft %s %s?", a, env)},
			fr:    []string{fmt.Sprintf("Sur quel serveur tourne %s en %s ?", a, env)},
			es:    []string{fmt.Sprintf("¿En qué servidor está %s de %s?", a, env)},
			fixes: []string{fmt.Sprintf("%s %s migrated to %s-%s%02d:%s", a, env, slug, map[string]string{"live": "lv", "test": "tst"}[env], b.num(5, 9), b.uniq(func() string { return fmt.Sprint(b.num(8000, 9999)) }))},
			dist:  []string{fmt.Sprintf("%s %s server?", a, env), fmt.Sprintf("where's the %s system for %s?", env, a)},
		}
	}
	b.pair(mk("live"), mk("test"))
	mk = func(env string) *fact {
		v := fmt.Sprintf("%d.%d.%d", b.num(3, 24), b.num(0, 12), b.num(0, 40))
		return &fact{
			text: b.pick([]string{
				fmt.Sprintf("%s %s is on version %s", a, env, v),
				fmt.Sprintf("%s %s: v%s", a, env, v),
			}),
			ask:   []string{fmt.Sprintf("which version is %s %s running?", a, env)},
			fixes: []string{fmt.Sprintf("%s %s upgraded to %d.%d.%d last night", a, env, b.num(25, 30), b.num(0, 9), b.num(0, 9))},
			dist:  []string{fmt.Sprintf("%s version on %s?", a, env)},
			fr:    []string{fmt.Sprintf("%s en %s, c'est quelle version ?", a, env)},
		}
	}
	b.pair(mk("live"), mk("test"))
	p := b.person()
	b.one(&fact{
		text: fmt.Sprintf("%s system owner is %s — changes go through them and the CAB", a, p),
		para: []string{fmt.Sprintf("who owns %s?", a), fmt.Sprintf("who approves changes to %s?", a)},
		de:   []string{fmt.Sprintf("Wer ist der Systemverantwortliche für %s?", a)},
		es:   []string{fmt.Sprintf("¿Quién es el responsable de %s?", a)},
		fixes: []string{
			fmt.Sprintf("%s has a new system owner: %s", a, b.person()),
		},
	})
}

// supplierFacts are the notes about one supplier.
func (b *b3) supplierFacts(s string) {
	acc := b.uniq(func() string { return fmt.Sprintf("ACC-%05d", b.num(10000, 99999)) })
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("%s account number %s", s, acc),
			fmt.Sprintf("our account with %s is %s (quote it on every call)", s, acc),
		}),
		para:  []string{fmt.Sprintf("what do I quote when I phone %s?", s)},
		ident: []string{fmt.Sprintf("whose account is %s?", acc)},
		ask:   []string{fmt.Sprintf("what's our account number with %s?", s)},
		de:    []string{fmt.Sprintf("Wie lautet unsere Kundennummer bei %s?", s)},
		fr:    []string{fmt.Sprintf("C'est quoi notre numéro de compte chez %s ?", s)},
		es:    []string{fmt.Sprintf("¿Cuál es nuestro número de cuenta con %s?", s)},
	})
	tel := b.uniq(func() string { return fmt.Sprintf("0%d %03d %04d", b.num(113, 199), b.num(100, 999), b.num(0, 9999)) })
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("%s support line %s, 8-6 weekdays", s, tel),
			fmt.Sprintf("ring %s on %s for faults", s, tel),
		}),
		para:  []string{fmt.Sprintf("how do I log a fault with %s?", s)},
		ask:   []string{fmt.Sprintf("phone number for %s support?", s)},
		fr:    []string{fmt.Sprintf("Le numéro du support de %s ?", s)},
		es:    []string{fmt.Sprintf("¿Qué teléfono tiene el soporte de %s?", s)},
		fixes: []string{fmt.Sprintf("%s changed their support number to %s", s, b.uniq(func() string { return fmt.Sprintf("0%d %03d %04d", b.num(113, 199), b.num(100, 999), b.num(0, 9999)) }))},
	})
	h := b.pick([]string{"4", "8", "24", "48", "next business day"})
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("%s SLA: engineer on site within %s hours for P1", s, h),
			fmt.Sprintf("contract with %s says %s hours fix for priority 1", s, h),
		}),
		para: []string{fmt.Sprintf("how fast does %s have to turn up for a P1?", s)},
		de:   []string{fmt.Sprintf("Wie schnell muss %s bei einem P1 vor Ort sein?", s)},
		fixes: []string{
			fmt.Sprintf("%s renegotiated: P1 response is %s hours now", s, b.pick([]string{"2", "6", "12"})),
		},
	})
	who := b.person()
	b.one(&fact{
		text: fmt.Sprintf("account manager at %s: %s", s, who),
		para: []string{fmt.Sprintf("who's our account manager at %s?", s)},
		fr:   []string{fmt.Sprintf("Qui est notre commercial chez %s ?", s)},
		fixes: []string{
			fmt.Sprintf("%s left %s, our account manager is %s now", who, s, b.person()),
			fmt.Sprintf("new contact at %s: %s replaces %s", s, b.person(), who),
		},
	})
}

// roomFacts are the notes about one comms room.
func (b *b3) roomFacts(site string) {
	room := b.uniq(func() string { return fmt.Sprintf("%s%d.%02d", site[:1], b.num(0, 6), b.num(1, 40)) })
	code := b.uniq(func() string { return fmt.Sprintf("%04d", b.num(1000, 9999)) })
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("comms room %s door code %s#", room, code),
			fmt.Sprintf("Comms cupboard %s (%s site) — keypad %s", room, site, code),
		}),
		ident: []string{fmt.Sprintf("door code for %s?", room), fmt.Sprintf("how do I get into %s", room)},
		fixes: []string{
			fmt.Sprintf("estates changed the code on %s to %s", room, b.uniq(func() string { return fmt.Sprintf("%04d", b.num(1000, 9999)) })),
			fmt.Sprintf("new keypad code for comms room %s: %s", room, b.uniq(func() string { return fmt.Sprintf("%04d", b.num(1000, 9999)) })),
		},
	})
	sw := fmt.Sprintf("sw-%s-%s", strings.ToLower(strings.ReplaceAll(room, ".", "-")), b.pick([]string{"a", "b", "core"}))
	b.one(&fact{
		text: b.pick([]string{
			fmt.Sprintf("switch in %s is %s (%s)", room, sw, b.pick([]string{"Cisco 9300", "Aruba 6300", "HPE 2930F"})),
			fmt.Sprintf("%s lives in comms room %s", sw, room),
		}),
		ident: []string{fmt.Sprintf("where is %s?", sw), fmt.Sprintf("which switch is in %s?", room)},
	})
	b.one(&fact{
		text:  fmt.Sprintf("UPS in %s: APC %dVA, batteries replaced %s %d", room, 500*b.num(2, 10), b.pick(b3month), b.num(2019, 2026)),
		ident: []string{fmt.Sprintf("when were the UPS batteries in %s last done?", room)},
		fixes: []string{fmt.Sprintf("UPS batteries in %s replaced again %s %d", room, b.pick(b3month), 2026)},
	})
}

// ticketFacts is one resolved ticket.
func (b *b3) ticketFacts(ward string) {
	inc := b.uniq(func() string { return fmt.Sprintf("INC%07d", b.num(40000, 99999)) })
	p := b3probs[b.r.IntN(len(b3probs))]
	f := &fact{
		text: b.pick([]string{
			fmt.Sprintf("%s — %s on %s: %s", inc, p.what, ward, p.fix),
			fmt.Sprintf("%s %s. Fix: %s. (%s)", ward, p.what, p.fix, inc),
		}),
		ident: []string{fmt.Sprintf("what was %s about?", inc), fmt.Sprintf("%s reopened, what was the fix", inc)},
	}
	// Only some tickets come back as a question without their number.
	if b.r.IntN(4) == 0 {
		f.para = []string{fmt.Sprintf("what did we do last time about the %s on %s?", p.what, ward), fmt.Sprintf("%s has the %s again — what fixed it before?", ward, p.what)}
		f.de = []string{fmt.Sprintf("Was hat letztes Mal geholfen, als auf %s: %s?", ward, p.what)}
	}
	b.one(f)
}

func (b *b3) miscFacts() {
	for _, c := range b3cmds {
		b.one(&fact{
			text: b.pick([]string{
				fmt.Sprintf("`%s` to %s", c.cmd, c.what),
				fmt.Sprintf("%s: %s", c.what, c.cmd),
			}),
			para:  []string{fmt.Sprintf("how do I %s?", c.what)},
			ident: []string{fmt.Sprintf("what do I use %s for?", c.cmd)},
		})
	}
	for _, e := range b3errs {
		b.one(&fact{
			text:  fmt.Sprintf("%s on %s = %s", e.code, e.where, e.means),
			ident: []string{fmt.Sprintf("%s on %s, what does it mean?", e.code, e.where), fmt.Sprintf("getting %s", e.code)},
			de:    []string{fmt.Sprintf("Was bedeutet der Fehler %s?", e.code)},
			fr:    []string{fmt.Sprintf("Que veut dire l'erreur %s ?", e.code)},
			es:    []string{fmt.Sprintf("¿Qué significa el error %s?", e.code)},
		})
	}
	for _, v := range b3vpn {
		gw := fmt.Sprintf("vpn%d.ucht-nhs.example", b.num(1, 9))
		port := b.uniq(func() string { return fmt.Sprint(b.num(1000, 65000)) })
		b.one(&fact{
			text: b.pick([]string{
				fmt.Sprintf("%s VPN profile: gateway %s, port %s, MFA by Authenticator", v, gw, port),
				fmt.Sprintf("VPN %s -> %s:%s", v, gw, port),
			}),
			ask:   []string{fmt.Sprintf("what gateway does the %s VPN use?", v), fmt.Sprintf("what port for the %s vpn?", v)},
			num:   []string{fmt.Sprintf("which VPN is on port %s?", port)},
			val:   port,
			de:    []string{fmt.Sprintf("Welches Gateway hat das VPN-Profil %s?", v)},
			fr:    []string{fmt.Sprintf("Quelle passerelle pour le VPN %s ?", v)},
			es:    []string{fmt.Sprintf("¿Qué gateway usa la VPN %s?", v)},
			fixes: []string{fmt.Sprintf("%s VPN moved to port %s after the firewall change", v, b.uniq(func() string { return fmt.Sprint(b.num(1000, 65000)) }))},
		})
	}
}

func (g *gen) blind3() {
	b := &b3{gen: g}
	var jobs []func()
	for _, site := range b3site {
		for fl := 1; fl <= 9; fl++ {
			jobs = append(jobs, func() { b.wardFacts(site, [2]string{fmt.Sprintf("%dA", fl), fmt.Sprintf("%dB", fl)}) })
			if fl%2 == 1 {
				jobs = append(jobs, func() { b.wardFacts(site, [2]string{fmt.Sprintf("%dC", fl), fmt.Sprintf("%dD", fl)}) })
			}
		}
	}
	for i := 0; i+1 < len(b3units); i += 2 {
		jobs = append(jobs, func() { b.wardFacts("North", [2]string{b3units[i], b3units[i+1]}) })
	}
	for range 140 {
		site := b.pick(b3site)
		jobs = append(jobs, func() { b.printerFacts(site) })
	}
	for _, p := range b3prod {
		jobs = append(jobs, func() { b.licenceFacts(p) })
	}
	for i, fn := range b3first {
		l1 := b3last[i%len(b3last)]
		l2 := b3last[(i*7+3)%len(b3last)]
		if l1 == l2 {
			l2 = b3last[(i+1)%len(b3last)]
		}
		jobs = append(jobs, func() { b.techFacts(fn, [2]string{l1, l2}, b3days) })
	}
	for _, a := range b3apps {
		jobs = append(jobs, func() { b.appFacts(a) })
	}
	for _, s := range b3supp {
		jobs = append(jobs, func() { b.supplierFacts(s) })
	}
	for range 60 {
		site := b.pick(b3site)
		jobs = append(jobs, func() { b.roomFacts(site) })
	}
	for range 520 {
		w := b.pick(b3units)
		if b.r.IntN(2) == 0 {
			w = fmt.Sprintf("%s %d%c", b.pick(b3site), b.num(1, 9), 'A'+rune(b.r.IntN(2)))
		}
		jobs = append(jobs, func() { b.ticketFacts(w) })
	}
	jobs = append(jobs, b.miscFacts)
	g.r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for _, j := range jobs {
		j()
	}
}

// writeBlind3 stores each correction at a random place after the note it corrects (people
// correct a note days or weeks later, between other notes), one in five right after it.
func (g *gen) writeBlind3(out string) {
	g.writeLater(out, func(i, n int, _ Memory) int {
		if g.r.IntN(5) == 0 {
			return i
		}
		return min(i+1+g.r.IntN(n-i), n-1)
	})
}
