package main

// The blind5 set: the notes an engineer of a university research-computing group keeps — two
// clusters (Kestrel, the new one, and Osprey, the old one) with their partitions and limits,
// nodes and their hardware, software modules, storage quotas and purge rules, research groups
// with their PIs, allocations and grant codes, licence servers, colleagues and the on-call rota,
// maintenance windows, onboarding, job errors and their fixes, incidents and the labs' own
// servers. Written from the six classes' definitions in main.go's header alone, without the
// ranking code or the other sets' templates.

import (
	"fmt"
	"slices"
	"strings"
)

var (
	b5first = []string{"Amara", "Bogdan", "Chiara", "Dmitri", "Efua", "Farid", "Grete", "Hiroshi", "Ines", "Jonas", "Kavya", "Lars", "Mei", "Nnamdi", "Oksana", "Pedro", "Quentin", "Rania", "Sven", "Tamsin", "Uche", "Valeria", "Wei", "Ximena", "Yusuf", "Zofia", "Anders", "Beatriz", "Callum", "Deepa", "Emeka", "Freya", "Gustavo", "Hana", "Ilya", "Jana", "Kwame", "Leila", "Marek", "Noor"}
	// b5last are the PIs' names too: a lab is known by its PI's last name, so each is drawn once.
	b5last  = []string{"Okafor", "Lindqvist", "Tanaka", "Moreau", "Ferreira", "Novak", "Haddad", "Brennan", "Iyer", "Kowalski", "Mensah", "Olsen", "Petrov", "Quispe", "Rahman", "Sato", "Teixeira", "Ueda", "Varga", "Whitfield", "Xu", "Yilmaz", "Zimmer", "Abara", "Bianchi", "Castillo", "Dube", "Eriksen", "Fontaine", "Gallagher", "Holm", "Ibsen", "Jaramillo", "Kaur", "Lebedev", "Mbeki", "Nakamura", "Oyelaran", "Pacheco", "Rossi", "Sandoval", "Tran", "Umarov", "Vasquez", "Wojcik", "Adeyemi", "Bergstrom", "Chandra", "Dalton", "Esposito", "Fischer", "Grant", "Horvath", "Ishikawa", "Jensen", "Kimura", "Larsen", "Moretti", "Nwosu", "Ortiz", "Park", "Quinn", "Reyes", "Schmidt", "Thorne", "Ulloa", "Volkov", "Weber", "Yamada", "Zeller", "Alvarez", "Bauer", "Cardoso", "Delgado", "Engel", "Frost", "Gomez", "Hoffmann", "Ivanova", "Jovanovic", "Keller", "Lopez", "Marsh", "Nagy", "Obi", "Pereira", "Rivera", "Santos", "Tamura", "Ulrich", "Vance", "Walsh", "Young", "Zhou", "Acheampong", "Brandt", "Costa", "Duarte", "Ekwueme", "Fujita"}
	b5dept  = []string{"Chemistry", "Physics", "Biology", "Mechanical Engineering", "Economics", "Astronomy", "Earth Sciences", "Neuroscience", "Computer Science", "Statistics", "Civil Engineering", "Chemical Engineering", "Materials Science", "Psychology", "Linguistics", "Public Health", "Genetics", "Mathematics", "Oceanography", "Aerospace Engineering"}
	b5month = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	b5wall  = []string{"30 min", "1 h", "2 h", "4 h", "8 h", "12 h", "24 h", "48 h", "72 h", "5 days", "7 days", "14 days"}
)

type b5 struct{ *gen }

func (b *b5) num(lo, hi int) int { return lo + b.r.IntN(hi-lo+1) }

func (b *b5) date() string { return fmt.Sprintf("%d %s", b.num(1, 28), b.pick(b5month)) }

// person is a colleague or student; full names are unique.
func (b *b5) person() string {
	return b.uniq(func() string { return b.pick(b5first) + " " + b.pick(b5last) })
}

// ip is a unique address in net (three octets).
func (b *b5) ip(net string) string {
	return b.uniq(func() string { return fmt.Sprintf("%s.%d", net, b.num(10, 250)) })
}

// val draws a unique value from f (ports, extensions, ticket numbers).
func (b *b5) val(f func() string) string { return b.uniq(f) }

// pair stores two look-alike notes (another cluster, another year) and makes them twins.
func (b *b5) pair(x, y *fact) {
	x.text, y.text = b.typo(x.text), b.typo(y.text)
	x, y = b.add(x), b.add(y)
	if x != nil && y != nil {
		x.twin, y.twin = y.key, x.key
	}
}

// one stores a note without a look-alike.
func (b *b5) one(f *fact) *fact {
	f.text = b.typo(f.text)
	return b.add(f)
}

func low(s string) string { return strings.ToLower(s) }

// older reports whether version a comes before b, comparing their runs of digits as numbers
// ("3.18.6" before "3.19.4"), then the strings ("R2023a" before "R2023b"). Dates as versions
// ("29Sep2021") compare by their day: close enough for the wording of a note.
func older(a, b string) bool {
	nums := func(s string) []int {
		var out []int
		n, in := 0, false
		for _, r := range s + "." {
			if r >= '0' && r <= '9' {
				n, in = n*10+int(r-'0'), true
			} else if in {
				out, n, in = append(out, n), 0, false
			}
		}
		return out
	}
	if c := slices.Compare(nums(a), nums(b)); c != 0 {
		return c < 0
	}
	return a < b // "R2023a" before "R2023b"
}

// localMonth names a month ("Mar") the way a German, French or Spanish speaker writes it.
func localMonth(m, lang string) string {
	i := slices.Index(b5month, m)
	return map[string][]string{
		"de": {"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
		"fr": {"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
		"es": {"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
	}[lang][i]
}

// localDate writes "3 Mar" or "3 Mar 2026" as "3. März 2026", "3 mars 2026", "3 de marzo de 2026".
func localDate(d, lang string) string {
	f := strings.Fields(d)
	m := localMonth(f[1], lang)
	switch lang {
	case "de":
		m = f[0] + ". " + m
	case "es":
		m = f[0] + " de " + m
	default:
		m = f[0] + " " + m
	}
	if len(f) == 3 {
		if lang == "es" {
			return m + " de " + f[2]
		}
		return m + " " + f[2]
	}
	return m
}

// typo misspells one word of a note now and then, the way notes typed in a hurry are: two
// letters swapped inside a plain lowercase word (never a name, path, version or identifier).
func (b *b5) typo(s string) string {
	if b.r.IntN(14) != 0 {
		return s
	}
	words := strings.Split(s, " ")
	var plain []int
	for i, w := range words {
		if len(w) >= 6 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" {
			plain = append(plain, i)
		}
	}
	if len(plain) == 0 {
		return s
	}
	i := plain[b.r.IntN(len(plain))]
	w := []byte(words[i])
	j := 1 + b.r.IntN(len(w)-3)
	w[j], w[j+1] = w[j+1], w[j]
	words[i] = string(w)
	return strings.Join(words, " ")
}

// ---- partitions and their nodes -----------------------------------------------------------

type b5part struct {
	cluster, name, nodes, cpu string
	cores, ram, gpus          int
	gpu                       string
}

func (b *b5) partFacts(p b5part, shared bool, other string) []*fact {
	C, c, P := p.cluster, low(p.cluster), p.name
	kv := []string{"{C}", C, "{c}", c, "{p}", P, "{o}", other}
	walls := map[string][]string{"debug": b5wall[:2], "short": b5wall[2:4], "long": b5wall[9:], "interactive": b5wall[3:6]}[P]
	if walls == nil {
		walls = b5wall[5:10]
	}
	w := b.pick(walls)
	w2 := b.pick(slices.DeleteFunc(slices.Clone(walls), func(s string) bool { return s == w }))
	d := b.date()
	q := func(xs ...string) []string { return subAll(xs, kv...) }
	var out []*fact
	// walltime
	wall := &fact{
		text: sub(b.pick([]string{
			"{C} partition {p}: max walltime " + w,
			"{p} on {C} — time limit is " + w + " (MaxTime)",
			"Jobs in the {p} partition on {C} can run for at most " + w + ".",
			"{C}/{p} walltime cap = " + w + ". longer jobs get rejected at submit",
		}), kv...),
		ask: q("how long can a job run in {p} on {c}?", "max walltime {c} {p}", "what's the time limit on the {p} queue on {c}?"),
		de:  q("Wie lange darf ein Job in der {p}-Partition auf {C} maximal laufen?", "max. Laufzeit {p} {C}"),
		fr:  q("Quelle est la durée maximale d'un job sur la partition {p} de {C} ?", "durée max job partition {p} {C}"),
		es:  q("¿Cuánto tiempo como máximo puede correr un trabajo en la partición {p} de {C}?", "tiempo máximo partición {p} {C}"),
		fixes: q(
			"{C} {p} walltime raised to "+w2+" as of "+d+" (was "+w+")",
			"as of "+d+" the {p} partition on {C} is capped at "+w2+", no longer "+w,
			"correction: {p} on {C} max walltime is "+w2+", not "+w+" — I misread sinfo",
		),
	}
	if shared {
		wall.dist = q("{p} walltime on {C}, not {o}", "how long can jobs run on {c}'s {p} partition?")
	}
	out = append(out, wall)
	// per-user limits
	lim := fmt.Sprintf("cpu=%d", p.cores*b.num(2, 8))
	if p.gpus > 0 {
		lim += fmt.Sprintf(",gres/gpu=%d", b.num(2, 8))
	}
	per := &fact{
		text: sub(b.pick([]string{
			"{C} {p}: MaxTRESPerUser " + lim,
			"per-user cap on {p} ({C}) is " + lim + " — anything above sits in QOSMaxCpuPerUserLimit",
			"Limit per user on the {C} {p} partition: " + lim + ".",
		}), kv...),
		ask: q("how many cores can one user have running on {p} on {c}?", "per user limit {c} {p} partition", "why are my {p} jobs on {c} pending with QOSMaxCpuPerUserLimit, what's the cap?"),
	}
	if p.gpus > 0 {
		per.ask = append(per.ask, q("how many GPUs can a single user hold on {c} {p}?")...)
	}
	if shared {
		per.dist = q("per-user cpu limit on {C} {p} (not the {o} one)", "how many cores can I use at once in {p} on {C}? the {o} one is different I think")
	}
	out = append(out, per)
	// QOS
	qos := strings.ReplaceAll(c[:3]+"_"+P, "-", "_")
	qf := &fact{
		text: sub(b.pick([]string{
			"to submit to {p} on {C} you need --qos=" + qos,
			"{C} {p} partition requires --qos=" + qos + " in the sbatch header",
			"QOS for {p} ({C}): " + qos + "; without it jobs fail with 'Invalid qos specification'",
		}), kv...),
		para:  q("which qos do I put for the {p} partition on {c}?", "qos name {c} {p}"),
		ident: []string{"--qos=" + qos + " which partition is that", "what is --qos=" + qos + " for?"},
		fr:    q("Quelle QOS faut-il indiquer pour soumettre sur la partition {p} de {C} ?"),
	}
	if shared {
		qf.dist = q("qos for {p} on {C} specifically", "what qos goes with the {p} partition when I submit on {C}?")
	}
	out = append(out, qf)
	// node list
	nl := &fact{
		text: sub(b.pick([]string{
			"{C} {p} nodes: " + p.nodes,
			"The {p} partition on {C} is made of " + p.nodes + ".",
			"{p}@{C} -> " + p.nodes,
		}), kv...),
		para:  q("which nodes are in the {p} partition on {c}?", "{c} {p} node list"),
		ident: []string{"which partition are " + p.nodes + " in?", p.nodes + " partition"},
	}
	if shared {
		nl.dist = q("node names of {C}'s {p} partition", "which machines back {p} on {C}, not on {o}?")
	}
	out = append(out, nl)
	// hardware
	hw := fmt.Sprintf("%s, %d cores, %d GB RAM", p.cpu, p.cores, p.ram)
	if p.gpus > 0 {
		hw += fmt.Sprintf(", %dx %s", p.gpus, p.gpu)
	}
	hf := &fact{
		text: sub(b.pick([]string{
			"{C} {p} node hardware: " + hw,
			"each {p} node on {C} = " + hw,
			"Hardware of a {C} {p} node: " + hw + ".",
		}), kv...),
		ask: q("how much memory does a {p} node on {c} have?", "how many cores per node in {c} {p}?", "{c} {p} node ram cores"),
		de:  q("Wie viel RAM hat ein Knoten der {p}-Partition auf {C}?", "RAM pro Knoten {p} {C}"),
		es:  q("¿Cuántos núcleos y cuánta memoria tiene un nodo de {p} en {C}?"),
	}
	if p.gpus > 0 {
		hf.ask = append(hf.ask, q("what GPUs are in the {p} nodes on {c}, and how many?")...)
	}
	if p.cpu == "mixed" {
		hf = &fact{
			text: sub(b.pick([]string{
				"{C} {p} has no nodes of its own: it runs on idle nodes of the other partitions and gets requeued when their owners need them",
				"{p} on {C} = scavenger partition over idle nodes, jobs are requeued (PreemptMode=REQUEUE) when owners submit",
			}), kv...),
			para: q("how does the {p} partition on {c} work?", "what happens to my {p} job on {c} when the owner wants the node?"),
			fr:   q("Comment fonctionne la partition {p} sur {C} ?"),
		}
	}
	if shared {
		hf.dist = q("RAM per node, {p} partition, {C} cluster", "cores in a {C} {p} node, not {o}", "how big are the {p} nodes on {C} (not {o})?")
	}
	out = append(out, hf)
	return out
}

// ---- single nodes ----------------------------------------------------------------------------

func (b *b5) nodeFacts(node, room string) {
	kv := []string{"{n}", node}
	q := func(xs ...string) []string { return subAll(xs, kv...) }
	bmc := b.ip("10.250." + fmt.Sprint(b.num(1, 9)))
	b.one(&fact{
		text: sub(b.pick([]string{
			"{n} iDRAC: " + bmc,
			"iDRAC of {n} is at " + bmc + " (root pw in the vault)",
			"{n} — iDRAC " + bmc,
		}), kv...),
		para:  q("how do I get to the out-of-band console of {n}?", "{n} management ip"),
		ident: q("{n} iDRAC address", "iDRAC ip for {n}"),
		de:    q("Unter welcher Adresse erreiche ich das iDRAC von {n}?", "iDRAC-Adresse {n}"),
		es:    q("¿Cuál es la IP del iDRAC de {n}?", "IP iDRAC {n}"),
		fixes: q("{n} iDRAC re-IPed to "+b.ip("10.251.1")+" after the mgmt VLAN move", "{n} iDRAC is now "+b.ip("10.251.2")+" (was "+bmc+")"),
	})
	rack := fmt.Sprintf("R%02d U%d", b.num(1, 24), b.num(2, 40))
	b.one(&fact{
		text: sub(b.pick([]string{
			"{n} location: " + room + ", " + rack,
			"{n} sits in " + room + " rack " + rack,
			"physical location of {n} = " + room + " / " + rack,
		}), kv...),
		para: q("where is {n} physically?", "which rack is {n} in?", "{n} rack position"),
	})
	tag := b.val(func() string {
		const al = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
		s := make([]byte, 7)
		for i := range s {
			s[i] = al[b.r.IntN(len(al))]
		}
		return string(s)
	})
	yr := 2026 + b.num(0, 3)
	b.one(&fact{
		text: sub(b.pick([]string{
			fmt.Sprintf("{n} service tag %s, warranty until %s %d", tag, b.date(), yr),
			fmt.Sprintf("{n}: Dell tag %s — ProSupport ends %s %d", tag, b.date(), yr),
		}), kv...),
		ask:   q("when does the warranty on {n} run out?", "{n} warranty end"),
		ident: []string{"service tag " + tag + " which node", "which node has Dell tag " + tag + "?"},
		de:    q("Bis wann läuft die Garantie von {n}?", "Garantieende {n}"),
		fr:    q("Jusqu'à quand {n} est-il sous garantie ?", "fin de garantie {n}"),
	})
	issues := []string{
		"DIMM B3 replaced on %s after correctable ECC errors flooded the log",
		"kernel panic twice on %s, reseated the InfiniBand HCA, fine since",
		"PSU 2 failed %s, swapped from spares shelf",
		"boot disk died %s, reimaged with warewulf",
		"fan 4 alarm on %s — replaced, running hot before that",
		"IB link flapping since %s, swapped the cable to the leaf switch",
		"BIOS updated to 2.19 on %s to fix the memory training hang",
	}
	if strings.Contains(node, "gpu") || strings.HasPrefix(node, "osp-g") {
		issues = append(issues, "drained %s: GPU 1 throws Xid 79 (fell off the bus), RMA opened with Dell",
			"GPU 3 missing from nvidia-smi since %s, reseated the riser, back in service",
			"%s: nvidia driver mismatch after the image update, rebuilt the node image")
	}
	b.one(&fact{
		text: node + ": " + fmt.Sprintf(b.pick(issues), b.date()),
		para: q("what was wrong with {n}?", "any history on {n} hardware problems?", "{n} repair history"),
	})
}

// ---- software modules --------------------------------------------------------------------------

type b5mod struct {
	name     string
	versions []string
	dep      string
	err      string
}

var b5mods = []b5mod{
	{"gromacs", []string{"2021.5", "2022.6", "2023.3", "2024.1"}, "cuda/12.2", "libcudart.so.12: cannot open shared object file"},
	{"lammps", []string{"2Aug2023", "29Sep2021", "7Feb2024"}, "openmpi/4.1.6", "error while loading shared libraries: libmpi.so.40"},
	{"namd", []string{"2.14", "3.0b6", "3.0"}, "cuda/11.8", "CUDA driver version is insufficient for CUDA runtime version"},
	{"amber", []string{"22", "24"}, "gcc/11.4.0", "GLIBCXX_3.4.29 not found"},
	{"cp2k", []string{"2023.1", "2024.1", "9.1"}, "openmpi/4.1.6", "MPI_ABORT was invoked on rank 0"},
	{"quantum-espresso", []string{"7.2", "7.3", "6.8"}, "intel-oneapi-mkl/2024.0", "undefined symbol: mkl_blas_dgemm"},
	{"vasp", []string{"6.4.2", "6.3.0", "5.4.4"}, "intel-oneapi/2024.0", "forrtl: severe (174): SIGSEGV"},
	{"orca", []string{"5.0.4", "6.0.0"}, "openmpi/4.1.1", "ORCA finished by error termination in GTOInt"},
	{"nwchem", []string{"7.2.2", "7.0.2"}, "openmpi/4.1.6", "ARMCI DASSERT fail"},
	{"psi4", []string{"1.8", "1.9.1"}, "miniforge/24.3", "ModuleNotFoundError: No module named 'psi4'"},
	{"openfoam", []string{"v2312", "v2206", "11"}, "openmpi/4.1.5", "FOAM FATAL ERROR: Cannot find file"},
	{"paraview", []string{"5.11.2", "5.12.0"}, "mesa/23.1", "qt.qpa.xcb: could not connect to display"},
	{"hdf5", []string{"1.14.3", "1.12.2", "1.10.11"}, "openmpi/4.1.6", "undefined symbol: H5Pset_fapl_mpio"},
	{"netcdf-fortran", []string{"4.6.1", "4.5.4"}, "hdf5/1.14.3", "NetCDF: HDF error"},
	{"fftw", []string{"3.3.10", "3.3.8"}, "gcc/12.3.0", "undefined reference to fftw_mpi_init"},
	{"petsc", []string{"3.20.2", "3.19.4", "3.18.6"}, "openmpi/4.1.6", "PETSC ERROR: Configure options"},
	{"boost", []string{"1.83.0", "1.81.0", "1.76.0"}, "gcc/12.3.0", "undefined reference to boost::system::generic_category"},
	{"cmake", []string{"3.27.9", "3.24.2", "3.20.0"}, "gcc/12.3.0", "CMake 3.25 or higher is required"},
	{"gdal", []string{"3.8.3", "3.6.4"}, "proj/9.3.1", "PROJ: proj_create_from_database: Cannot find proj.db"},
	{"bowtie2", []string{"2.5.2", "2.4.5"}, "tbb/2021.10", "libtbb.so.2: cannot open shared object file"},
	{"samtools", []string{"1.19", "1.17", "1.15.1"}, "htslib/1.19", "samtools: error while loading shared libraries: libhts.so.3"},
	{"gatk", []string{"4.5.0.0", "4.4.0.0", "4.2.6.1"}, "java/17.0.8", "UnsupportedClassVersionError"},
	{"star", []string{"2.7.11a", "2.7.10b"}, "gcc/11.4.0", "EXITING because of FATAL ERROR: not enough memory for BAM sorting"},
	{"salmon", []string{"1.10.2", "1.9.0"}, "boost/1.83.0", "libboost_iostreams.so.1.83.0: cannot open"},
	{"alphafold", []string{"2.3.2", "3.0.0"}, "cuda/12.2", "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED"},
	{"relion", []string{"4.0.1", "5.0-beta", "3.1.4"}, "cuda/11.8", "RELION ERROR: Cannot open tif file"},
	{"cryosparc", []string{"4.4.1", "4.3.1"}, "cuda/11.8", "cryosparcm: command not found"},
	{"pytorch", []string{"2.2.0", "2.1.2", "1.13.1"}, "cuda/12.1", "torch.cuda.is_available() returns False"},
	{"tensorflow", []string{"2.15.0", "2.13.1", "2.11.0"}, "cudnn/8.9.7", "Could not load dynamic library 'libcudnn.so.8'"},
	{"jax", []string{"0.4.23", "0.4.13"}, "cuda/12.2", "CUDA backend failed to initialize"},
	{"apptainer", []string{"1.2.5", "1.1.9"}, "squashfuse/0.5.0", "FATAL: could not open image: failed to mount squashfs filesystem"},
	{"nextflow", []string{"23.10.1", "23.04.3", "22.10.6"}, "java/17.0.8", "Nextflow requires Java 11 or later"},
	{"snakemake", []string{"8.4.2", "7.32.4"}, "miniforge/24.3", "ImportError: cannot import name 'Workflow'"},
	{"julia", []string{"1.10.0", "1.9.4", "1.8.5"}, "gcc/12.3.0", "ERROR: could not load library libjulia-internal"},
	{"r", []string{"4.3.2", "4.2.3", "4.1.3"}, "gcc/12.3.0", "package 'Rcpp' was built under R version"},
	{"python", []string{"3.11.7", "3.10.13", "3.9.18"}, "gcc/12.3.0", "error while loading shared libraries: libpython3"},
	{"matlab", []string{"R2023b", "R2023a", "R2022b"}, "none", "License checkout failed. License Manager Error -15"},
	{"ansys", []string{"2024R1", "2023R2", "2022R2"}, "intel-oneapi-mpi/2021.11", "ANSYS LICENSE MANAGER ERROR: Request name aa_r does not exist"},
	{"comsol", []string{"6.2", "6.1", "6.0"}, "none", "Could not obtain license for COMSOL Multiphysics"},
	{"gaussian", []string{"g16.C.01", "g16.B.01", "g09.E.01"}, "none", "Erroneous write. Write -1 instead of"},
	{"abaqus", []string{"2024", "2023", "2022"}, "intel-oneapi/2024.0", "Abaqus Error: The executable standard.exe aborted"},
	{"stata", []string{"18", "17"}, "none", "stata-mp: license not found"},
	{"visit", []string{"3.3.3", "3.4.0"}, "mesa/23.1", "VisIt could not find a compatible plugin"},
	{"bwa", []string{"0.7.17", "0.7.18"}, "gcc/11.4.0", "[bwa_idx_load] fail to locate the index files"},
	{"trilinos", []string{"15.0.0", "14.4.0"}, "openmpi/4.1.6", "Teuchos::Exceptions::InvalidParameter"},
	{"cudnn", []string{"8.9.7", "8.6.0"}, "cuda/12.2", "CUDNN_STATUS_NOT_INITIALIZED"},
	{"siesta", []string{"5.0.0", "4.1.5"}, "openmpi/4.1.6", "SIESTA: Stopping Program from Node: 0"},
	{"mrtrix3", []string{"3.0.4", "3.0.3"}, "eigen/3.4.0", "mrconvert: [ERROR] no suitable handler"},
	{"fsl", []string{"6.0.7.6", "6.0.5"}, "none", "FSLDIR is not set"},
	{"freesurfer", []string{"7.4.1", "7.3.2"}, "none", "ERROR: FreeSurfer license file not found"},
}

func (b *b5) modFacts(m b5mod, onBoth bool, kestrelOnly bool, L string) {
	kv := []string{"{m}", m.name, "{dep}", m.dep, "{err}", m.err, "{L}", L}
	q := func(xs ...string) []string { return subAll(xs, kv...) }
	vs := slices.Clone(m.versions)
	b.r.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
	def := func(C, v, v2, other string) *fact {
		// other is the cluster of the look-alike note, "" when there is none
		kv := append(slices.Clone(kv), "{C}", C, "{c}", low(C), "{v}", v, "{v2}", v2, "{o}", other)
		q := func(xs ...string) []string { return subAll(xs, kv...) }
		d := b.date()
		f := &fact{
			text: sub(b.pick([]string{
				"{C}: default {m} is {m}/{v}",
				"{C} `module load {m}` gives {m}/{v} (the default)",
				"default {m} module on {C} = {m}/{v}",
				"On {C}, plain `module load {m}` loads version {v}.",
			}), kv...),
			ask:   q("which {m} version do you get by default on {c}?", "{c} default {m} version", "what version is the {m} module on {c}?"),
			num:   q("is {m} {v} the default on {c}?"),
			val:   v,
			ident: q("which cluster has {m}/{v} as the default?"),
			fixes: q("{C} default {m} switched to {m}/{v2} on "+d+" (was {v})", "as of "+d+", `module load {m}` on {C} gives {v2}, no longer {v}"),
			de:    q("Welche {m}-Version lädt {C} standardmäßig?", "Standardversion {m} {C}"),
			fr:    q("Quelle version de {m} est chargée par défaut sur {C} ?", "version par défaut module {m} {C}"),
			es:    q("¿Qué versión de {m} se carga por defecto en {C}?", "versión por defecto {m} {C}"),
		}
		if older(v2, v) {
			f.fixes = q("{C} default {m} rolled back to {m}/{v2} on "+d+", the {v} build was broken", "as of "+d+", `module load {m}` on {C} gives {v2} again, no longer {v} (broken build)")
		}
		if other != "" {
			f.dist = q("default {m} version on {C}, not {o}", "{c} {m} module default", "if I just load {m} on {C}, which version do I get?")
		}
		return f
	}
	if onBoth && len(vs) >= 3 {
		b.pair(def("Kestrel", vs[0], vs[2], "Osprey"), def("Osprey", vs[1], vs[2], "Kestrel"))
	} else if kestrelOnly {
		b.one(def("Kestrel", vs[0], vs[1], ""))
	} else {
		b.one(def("Osprey", vs[0], vs[1], ""))
	}
	if m.dep != "none" {
		b.one(&fact{
			text: sub(b.pick([]string{
				"{m}: load {dep} first, otherwise you get '{err}'",
				"{m} needs `module load {dep}` before it — symptom if you forget: {err}",
				"note to self: users hitting \"{err}\" with {m} forgot {dep}",
			}), kv...),
			para:  q("what do I have to load before {m}?", "{m} module prerequisite", "why does {m} fail straight away after module load?"),
			ident: q("{err}"),
			de:    q("Welches Modul muss vor {m} geladen werden?", "Abhängigkeit Modul {m} vorher laden"),
			fr:    q("Quel module faut-il charger avant {m} ?"),
			es:    q("¿Qué módulo hay que cargar antes de {m}?"),
		})
	} else {
		b.one(&fact{
			text: sub(b.pick([]string{
				"{m}: common failure is '{err}' — usually the licence, see the licence server notes",
				"if {m} dies with \"{err}\" it's licensing, not the module",
			}), kv...),
			para:  q("{m} fails at startup complaining, is it the module or the licence?"),
			ident: q("{err}"),
		})
	}
	t := b.val(func() string { return fmt.Sprintf("RC-%d", b.num(10000, 39999)) })
	b.one(&fact{
		text: sub(b.pick([]string{
			"{m} was installed at the request of the {L} lab, ticket " + t,
			t + ": install {m} for {L} lab — done",
			"{m} installed for {L}'s group (" + t + ")",
		}), kv...),
		para:  q("who asked us to install {m}?", "which lab asked for {m} to be installed?"),
		ident: []string{"what was ticket " + t + " about?", t},
	})
}

// ---- research groups --------------------------------------------------------------------------

func (b *b5) groupFacts(L string, staff []string) {
	l := low(L)
	acct := l + "_lab"
	pi := b.uniq(func() string { return b.pick(b5first) + " " + L })
	dept := b.pick(b5dept)
	kv := []string{"{L}", L, "{l}", l, "{acct}", acct, "{pi}", pi, "{dept}", dept}
	q := func(xs ...string) []string { return subAll(xs, kv...) }
	b.one(&fact{
		text: sub(b.pick([]string{
			"{L} lab: PI {pi} ({dept}), unix group grp-{l}",
			"PI {pi}, {dept} — group grp-{l}",
			"grp-{l} = {pi}'s group, {dept} dept",
		}), kv...),
		para:  q("which department is the {L} lab in?", "who is the PI of the {L} group?", "{L} lab PI department"),
		ident: q("whose group is grp-{l}?", "grp-{l} owner"),
		de:    q("Zu welchem Institut gehört die Gruppe {L}?", "Institut AG {L}"),
		fr:    q("De quel département dépend le labo {L} ?"),
		es:    q("¿A qué departamento pertenece el grupo de {L}?", "departamento grupo {L}"),
	})
	// allocation, sometimes with last year's as a look-alike
	n26, n25 := b.num(5, 90)*10, b.num(5, 90)*10
	gpu := b.num(1, 40) * 250
	alloc := func(fy string, n int) *fact {
		kv := append(slices.Clone(kv), "{fy}", fy)
		return &fact{
			text: sub(b.pick([]string{
				fmt.Sprintf("{acct} allocation {fy}: %dk core-hours, %d GPU-hours", n, gpu),
				fmt.Sprintf("{fy} allocation for {L} lab (account {acct}) — %d,000 CPU-h and %d GPU-h", n, gpu),
				fmt.Sprintf("{L} group {fy}: %dk core-hrs / %d gpu-hrs on account {acct}", n, gpu),
			}), kv...),
		}
	}
	a26 := alloc("FY2026", n26)
	a26.ask = q("how many core-hours does the {L} lab have this year?", "{L} allocation FY2026", "how much compute did the {L} group get for FY2026?")
	a26.de = q("Wie viele Core-Stunden hat die AG {L} für FY2026 bekommen?")
	a26.fr = q("Combien d'heures CPU le groupe {L} a-t-il pour l'exercice FY2026 ?", "heures CPU groupe {L} FY2026")
	a26.es = q("¿Cuántas horas de CPU tiene asignadas el grupo {L} en FY2026?", "horas CPU asignadas {L} FY2026")
	a26.fixes = q(fmt.Sprintf("{acct} FY2026 allocation topped up to %dk core-hours on %s", n26+b.num(1, 20)*10, b.date()),
		fmt.Sprintf("{L} lab FY2026: allocation now %dk core-hours after the mid-year review (was %dk)", n26+b.num(1, 20)*10, n26))
	if b.r.IntN(3) == 0 {
		a25 := alloc("FY2025", n25)
		a25.ask = q("how many core-hours did the {L} lab have in FY2025?")
		a25.dist = q("{L} lab allocation for FY2025 (last year)", "{acct} core-hours FY2025", "what did the {L} group get last year, FY2025, in core-hours?")
		a26.dist = q("{L} lab allocation for FY2026, the current one", "{acct} core-hours FY2026", "how many hours does the {L} lab have for FY2026, not last year?")
		a26.ask = q("how many core-hours does the {L} lab have in FY2026?", "{L} allocation FY2026")
		b.pair(a25, a26)
	} else {
		b.one(a26)
	}
	prefix := b.pick([]string{"NSF OAC-", "NSF CHE-", "NIH R01-GM", "DOE DE-SC00", "ERC-StG-", "NIH R35-GM"})
	code := b.val(func() string { return fmt.Sprintf("%s%d", prefix, b.num(100000, 999999)) })
	b.one(&fact{
		text: sub(b.pick([]string{
			"{L} lab usage is charged to grant " + code,
			"chargeback for {acct}: " + code,
			"{pi}'s compute bills to " + code + " (PI confirmed by email)",
		}), kv...),
		para:  q("which grant do we bill the {L} lab's usage to?", "{L} group grant code for chargeback"),
		ident: []string{"which lab is grant " + code + "?", code + " chargeback"},
		fixes: []string{sub("{L} lab switched to grant ", kv...) + b.val(func() string { return fmt.Sprintf("%s%d", prefix, b.num(100000, 999999)) }) + " from " + b.date() + ", the old one ended"},
	})
	tb := b.num(2, 60) * 5
	b.one(&fact{
		text: sub(b.pick([]string{
			fmt.Sprintf("/project/{l}: %d TB quota", tb),
			fmt.Sprintf("{L} lab project space /project/{l} has %d TB", tb),
			fmt.Sprintf("quota on /project/{l} = %dTB (hard limit)", tb),
		}), kv...),
		ask:   q("how much project storage does the {L} lab have?", "{L} project quota"),
		ident: q("/project/{l} quota"),
		de:    q("Wie viel Projektspeicher hat die AG {L}?", "Projektquota AG {L}"),
		fr:    q("Quel est le quota de l'espace projet du labo {L} ?", "quota projet labo {L}"),
		es:    q("¿Cuánto espacio de proyecto tiene el laboratorio {L}?"),
		fixes: q(fmt.Sprintf("/project/{l} quota increased to %d TB on %s", tb+b.num(1, 10)*5, b.date()),
			fmt.Sprintf("{L} lab bought more space: /project/{l} is now %d TB (was %d)", tb+b.num(1, 10)*5, tb)),
	})
	contact := b.person()
	role := b.pick([]string{"postdoc", "PhD student", "lab manager", "research engineer", "staff scientist"})
	b.one(&fact{
		text: sub(b.pick([]string{
			"{L} lab day-to-day contact: " + contact + " (" + role + ")",
			"for anything about {L} group jobs ask " + contact + ", their " + role,
			"{L} lab — talk to " + contact + " (" + role + "), the PI never reads email",
		}), kv...),
		para: q("who should I talk to in the {L} lab about their jobs?", "{L} group contact person", "{L} lab technical contact"),
		de:   q("Wer ist in der AG {L} Ansprechpartner, wenn es um ihre Jobs geht?"),
		es:   q("¿Con quién hablo en el grupo de {L} sobre sus trabajos?", "contacto grupo {L} trabajos"),
		fixes: q("{L} lab contact is now "+b.person()+", "+contact+" graduated",
			"new {L} lab contact from "+b.date()+": "+b.person()+" ("+contact+" left)"),
	})
	if b.r.IntN(2) == 0 {
		sp := b.pick(staff)
		b.one(&fact{
			text: sub(b.pick([]string{
				"{L} lab account requests: " + sp + " is their liaison on our side",
				"our liaison for the {L} group is " + sp,
			}), kv...),
			para: q("who on our team looks after the {L} lab?", "{L} liaison"),
			fr:   q("Qui dans l'équipe s'occupe du groupe {L} ?"),
		})
	}
	if b.r.IntN(3) == 0 {
		nn := b.num(2, 6)
		cp := b.pick([]string{"chem-condo", "bio-condo", "phys-condo"})
		b.one(&fact{
			text: sub(fmt.Sprintf(b.pick([]string{
				"{L} lab owns %d condo nodes in %s on Kestrel (bought %s)",
				"condo: {L} group has %d nodes in the %s partition, purchased %s",
			}), nn, cp, b.date()), kv...),
			ask: q("how many condo nodes does the {L} lab own?", "{L} condo node count"),
			es:  q("¿Cuántos nodos condo tiene el grupo {L}?"),
		})
	}
}

// ---- licences --------------------------------------------------------------------------------

type b5lic struct{ product, vendor, group string }

var b5lics = []b5lic{
	{"MATLAB", "MathWorks", "matlab-users"}, {"Gaussian", "Gaussian Inc.", "gaussian"}, {"ANSYS", "Ansys", "ansys-users"},
	{"COMSOL", "COMSOL AB", "comsol"}, {"Abaqus", "Dassault", "abaqus-users"}, {"Mathematica", "Wolfram", "wolfram"},
	{"Lumerical", "Ansys", "lumerical"}, {"STAR-CCM+", "Siemens", "starccm"}, {"Stata", "StataCorp", "stata-mp"},
	{"Maple", "Maplesoft", "maple"}, {"Gurobi", "Gurobi", "gurobi-users"}, {"CPLEX", "IBM", "cplex"},
	{"Schrodinger", "Schrödinger", "schrodinger"}, {"VASP", "VASP Software GmbH", "vasp6"}, {"Q-Chem", "Q-Chem Inc.", "qchem"},
	{"Tecplot", "Tecplot", "tecplot"}, {"Intel compilers", "Intel", "intel-lic"}, {"LS-DYNA", "Ansys", "lsdyna"},
	{"MOE", "CCG", "moe-users"}, {"FLOW-3D", "Flow Science", "flow3d"},
}

func (b *b5) licFacts(lc b5lic, staff []string) {
	P := lc.product
	kv := []string{"{P}", P, "{V}", lc.vendor, "{g}", lc.group}
	q := func(xs ...string) []string { return subAll(xs, kv...) }
	port := b.val(func() string { return fmt.Sprint(b.num(1700, 29999)) })
	host := fmt.Sprintf("lic%02d.rc.example.edu", b.num(1, 9))
	host2 := fmt.Sprintf("lic%02d.rc.example.edu", b.num(10, 19))
	b.one(&fact{
		text: sub(b.pick([]string{
			"{P} licence server: " + port + "@" + host,
			"{P} licences are served from " + host + ", port " + port,
			"{P} lic server -> " + host + ":" + port + " (flexlm)",
		}), kv...),
		para:  q("where is the {P} licence server?", "{P} license server host port", "what do I point {P} at for licences?"),
		num:   []string{"what licence server listens on port " + port + "?"},
		val:   port,
		de:    q("Auf welchem Server und Port läuft der {P}-Lizenzserver?", "Lizenzserver {P} Port"),
		fr:    q("Quel est le serveur de licences de {P}, et sur quel port ?"),
		es:    q("¿En qué servidor y puerto está el servidor de licencias de {P}?", "servidor licencias {P} puerto"),
		fixes: q("{P} licence server moved to "+port+"@"+host2+" on "+b.date(), "{P} licences now come from "+host2+" (was "+host+"), same port "+port),
	})
	seats := b.num(2, 60) * 5
	b.one(&fact{
		text: sub(b.pick([]string{
			fmt.Sprintf("{P}: %d concurrent seats", seats),
			fmt.Sprintf("we have %d {P} seats (network, floating)", seats),
			fmt.Sprintf("{P} licence count = %d tokens", seats),
		}), kv...),
		ask:   q("how many {P} seats do we have?", "{P} licence count", "how many people can run {P} at once?"),
		de:    q("Wie viele gleichzeitige {P}-Lizenzen haben wir?", "Anzahl Lizenzen {P}"),
		es:    q("¿Cuántas licencias simultáneas de {P} tenemos?"),
		fixes: q(fmt.Sprintf("{P} seats increased to %d from %s", seats+b.num(1, 10)*5, b.date())),
	})
	who := b.pick(staff)
	b.one(&fact{
		text: sub(b.pick([]string{
			"{P} licence renews " + b.date() + "; " + who + " handles it with {V}",
			"{P} renewal: " + b.date() + " every year, owner " + who + " ({V} account rep via the portal)",
		}), kv...),
		para: q("who deals with the {P} renewal?", "when is the {P} licence up for renewal?", "{P} renewal owner"),
		fr:   q("Qui s'occupe du renouvellement de la licence {P} ?"),
		de:   q("Wann wird die {P}-Lizenz verlängert und wer kümmert sich darum?"),
	})
	b.one(&fact{
		text: sub(b.pick([]string{
			"{P} is restricted to unix group {g} — add users via the portal, licence terms",
			"only members of {g} may run {P}; ask us to add them",
		}), kv...),
		para:  q("how do I get access to {P}?", "why can't my student run {P}?"),
		ident: q("what is the {g} group for?", "{g} unix group"),
		es:    q("¿Qué hay que hacer para poder usar {P} en el clúster?"),
	})
}

// ---- colleagues -----------------------------------------------------------------------------

func (b *b5) staffFacts(name, topic string) {
	kv := []string{"{n}", name, "{t}", topic}
	q := func(xs ...string) []string { return subAll(xs, kv...) }
	role := b.pick([]string{"HPC engineer", "research software engineer", "storage admin", "user support", "sysadmin", "facilitator", "team lead", "network engineer"})
	who := &fact{
		text: sub(b.pick([]string{
			"{n} ({r}) — go-to person for {t}",
			"{t}: ask {n}, our {r}",
			"{n}, {r}, knows {t} best",
		}), append(kv, "{r}", role)...),
		para: q("who knows about {t}?", "who do I ask about {t}", "{t} expert on the team"),
		de:   q("Wer im Team kennt sich mit {t} aus?"),
		fr:   q("Qui est la personne à contacter pour {t} ?"),
		es:   q("¿Quién del equipo sabe de {t}?"),
	}
	if strings.Contains(topic, " ") {
		// "the tape archive", "power and cooling": asked in English even by a French speaker
		who.de, who.fr, who.es = nil, nil, nil
	}
	b.one(who)
	ext := b.val(func() string { return fmt.Sprint(b.num(2000, 7999)) })
	b.one(&fact{
		text: sub(b.pick([]string{
			"{n} ext. " + ext,
			"{n}'s desk phone: x" + ext,
			"phone {n} on extension " + ext,
		}), kv...),
		ask:   q("what's {n}'s extension?", "{n} phone number", "how do I call {n}?"),
		num:   []string{"whose extension is " + ext + "?"},
		val:   ext,
		de:    q("Welche Durchwahl hat {n}?", "Durchwahl {n}"),
		fr:    q("Quel est le numéro de poste de {n} ?"),
		es:    q("¿Cuál es la extensión de {n}?", "extensión teléfono {n}"),
		fixes: q("{n}'s extension changed to "+b.val(func() string { return fmt.Sprint(b.num(2000, 7999)) })+" after the office move", "new ext for {n}: "+b.val(func() string { return fmt.Sprint(b.num(2000, 7999)) })+" (was "+ext+")"),
	})
	days := b.pick([]string{"Mon–Wed", "Tue–Thu", "Mon/Wed/Fri", "Mon–Thu", "Wed–Fri"})
	room := fmt.Sprintf("%s %d", b.pick([]string{"Hartley", "Sloane", "Weston", "Baird"}), b.num(101, 450))
	b.one(&fact{
		text: sub(b.pick([]string{
			"{n} in the office " + days + ", room " + room + ", remote the rest",
			"{n}: on campus " + days + " (" + room + ")",
		}), kv...),
		para: q("when is {n} in the office?", "where does {n} sit?", "{n} office days"),
		fr:   q("Quels jours peut-on trouver {n} au bureau ?"),
		fixes: q("{n} moved to room "+fmt.Sprintf("%s %d", b.pick([]string{"Hartley", "Sloane", "Weston"}), b.num(451, 499))+", still in "+days,
			"{n} now on campus "+b.pick([]string{"Thu–Fri", "Mon/Tue", "Tue/Fri"})+" only (was "+days+")"),
	})
}

// ---- infrastructure hosts and the services with a staging twin ----------------------------

func (b *b5) infraFacts(h, role string) {
	kv := []string{"{h}", h, "{r}", role}
	q := func(xs ...string) []string { return subAll(xs, kv...) }
	ip := b.ip(fmt.Sprintf("10.20.%d", b.num(1, 4)))
	b.one(&fact{
		text:  sub(b.pick([]string{"{h}: " + ip, "{h} has IP " + ip + " (public NAT on the firewall)", "ip of {h} = " + ip}), kv...),
		para:  q("what's the internal address of {h}?", "{h} ip address"),
		num:   []string{"which host is " + ip + "?", ip + " hostname"},
		val:   ip,
		de:    q("Welche interne IP hat {h}?", "IP-Adresse {h} intern"),
		fr:    q("Quelle est l'adresse IP interne de {h} ?", "adresse IP {h}"),
		es:    q("¿Cuál es la IP interna de {h}?"),
		fixes: q("{h} re-addressed to "+b.ip("10.21.1")+" in the "+b.date()+" network change", "{h} IP is now "+b.ip("10.21.2")+" — old "+ip+" is gone"),
	})
	b.one(&fact{
		text: sub(b.pick([]string{"{h} — {r}", "what {h} does: {r}", "{h} is the {r}"}), kv...),
		para: q("what is {h} used for?", "{h} role", "what runs on {h}?"),
		de:   q("Wofür ist {h} da?"),
		es:   q("¿Para qué sirve {h}?"),
	})
	const al = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	fp := make([]byte, 43)
	for i := range fp {
		fp[i] = al[b.r.IntN(len(al))]
	}
	key := "SHA256:" + string(fp)
	b.one(&fact{
		text:  sub(b.pick([]string{"{h} ssh host key (ed25519): " + key, "ed25519 fingerprint of {h} is " + key + " — tell users to check it"}), kv...),
		para:  q("a user asks whether the ssh fingerprint of {h} they see is right, where's the real one?", "{h} host key fingerprint"),
		ident: []string{"is " + key + " a genuine fingerprint?", key},
	})
	osv := b.pick([]string{"Rocky Linux 9.3, kernel 5.14.0-362", "Rocky Linux 8.9, kernel 4.18.0-513", "RHEL 9.2, kernel 5.14.0-284", "Ubuntu 22.04, kernel 5.15.0-91"})
	b.one(&fact{
		text:  sub(b.pick([]string{"{h} OS: " + osv, "{h} runs " + osv}), kv...),
		para:  q("which OS and kernel is {h} on?", "{h} os version"),
		fixes: q("{h} reinstalled on " + b.date() + " with Rocky Linux 9.4, kernel 5.14.0-427 (was " + osv + ")"),
	})
}

func (b *b5) stagingFacts(svc, prodHost, stgHost string) {
	mk := func(env, host, other string) *fact {
		major, minor := b.num(1, 4), b.num(0, 9)
		v := fmt.Sprintf("%d.%d.%d", major, minor, b.num(0, 12))
		kv := []string{"{s}", svc, "{e}", env, "{h}", host, "{o}", other, "{v}", v}
		q := func(xs ...string) []string { return subAll(xs, kv...) }
		return &fact{
			text: sub(b.pick([]string{
				"{s} {e}: {h}, version {v}",
				"{s} ({e}) runs on {h} — v{v}",
				"{e} {s} = {h}, on {v}",
			}), kv...),
			ask:   q("which version of {s} is on {e}?", "{s} {e} host and version"),
			dist:  q("{s} {e} server, not {o}", "which host is {e} {s} on?", "{s} version in {e}", "what version of {s} is running in {e} right now?"),
			fixes: q(fmt.Sprintf("{s} {e} upgraded to %d.%d.%d on %s, still on {h}", major, minor+1, b.num(0, 12), b.date())),
			de:    []string{sub("Welche {s}-Version läuft ", kv...) + map[string]string{"production": "in Produktion?", "staging": "auf Staging?"}[env]},
			fr:    []string{sub("Quelle version de {s} tourne ", kv...) + map[string]string{"production": "en production ?", "staging": "en préprod ?"}[env]},
			es:    []string{sub("¿Qué versión de {s} hay ", kv...) + map[string]string{"production": "en producción?", "staging": "en el entorno de pruebas (staging)?"}[env]},
		}
	}
	b.pair(mk("production", prodHost, "staging"), mk("staging", stgHost, "production"))
}

// ---- storage per cluster ---------------------------------------------------------------------

func (b *b5) storageFacts() {
	type st struct {
		ks, os string // the two clusters' values
		k2, o2 string // their corrected values
		texts  []string
		ask    []string
		para   []string
		dist   []string
		de     []string
		fr     []string
		es     []string
		fix    []string
	}
	items := []st{
		{"50 GB", "20 GB", "100 GB", "30 GB", []string{"{C} home quota: {v} per user", "$HOME on {C} is limited to {v}", "{C} /home quota = {v}/user, hard"},
			[]string{"how big is the home quota on {c}?", "{c} home directory quota"}, nil, []string{"home quota on {C}, not {o}", "how much can users keep in their {C} home dir?"},
			[]string{"Wie groß ist das Home-Kontingent auf {C}?"}, []string{"Quelle est la taille du quota home sur {C} ?"}, []string{"¿De cuánto es la cuota del home en {C}?"},
			[]string{"{C} home quota raised to {v2} on {d}"}},
		{"30 days", "60 days", "45 days", "90 days", []string{"{C} /scratch purge: files untouched for {v} are deleted", "scratch on {C} is purged after {v} without access", "{C} scratch purge policy — {v} since last access, no backups"},
			[]string{"how long do files survive on scratch on {c}?", "{c} scratch purge days", "when does {c} delete old scratch files?"}, nil, []string{"scratch purge age on {C} (not {o})", "how long before {C} purges scratch?"},
			[]string{"Nach wie vielen Tagen werden Dateien im Scratch von {C} gelöscht?"}, []string{"Au bout de combien de jours le scratch de {C} est-il purgé ?"}, []string{"¿Cuántos días aguantan los ficheros en el scratch de {C}?"},
			[]string{"{C} scratch purge changed to {v2} from {d} (was {v})"}},
		{"20 TB", "10 TB", "10 TB", "5 TB", []string{"{C} scratch quota per user: {v}", "{C} /scratch user quota = {v} (and 1M files)"},
			[]string{"what's the per-user scratch quota on {c}?", "{c} scratch quota"}, nil, []string{"scratch quota per user on {C}", "how much scratch does one user get on {C}?"},
			nil, []string{"Quel est le quota scratch par utilisateur sur {C} ?"}, nil,
			[]string{"{C} scratch quota is now {v2} per user ({d})"}},
		{"nightly to the tape library, 90 days retention", "weekly, 30 days retention", "", "", []string{"{C} /project backup: {v}", "backups of /project on {C} run {v}"},
			nil, []string{"how is /project backed up on {c}?", "{c} project backup retention"}, []string{"project backup schedule on {C}, not {o}", "how often is /project backed up on {C}?"},
			[]string{"Wie wird /project auf {C} gesichert?"}, nil, []string{"¿Cómo se hace la copia de seguridad de /project en {C}?"}, nil},
		{"/home/.snapshot (hourly, 7 days)", "/home/.zfs/snapshot (daily, 14 days)", "", "", []string{"{C} home snapshots: {v}", "deleted something in home on {C}? look in {v}"},
			nil, []string{"I deleted a file in my home on {c}, how do I get it back?", "{c} home snapshots location"}, []string{"where are home snapshots on {C}?", "home snapshots {C}"},
			[]string{"Wo finde ich die Snapshots meines Home-Verzeichnisses auf {C}?"}, []string{"Où sont les snapshots du home sur {C} ?"}, nil, nil},
		{"GPFS (Storage Scale 5.1) on ess01/ess02", "Lustre 2.12, MDS osp-mds1", "", "", []string{"{C} scratch filesystem: {v}", "{C} /scratch runs on {v}"},
			nil, []string{"what filesystem is scratch on {c}?", "{c} scratch fs type"}, []string{"scratch filesystem type on {C}", "is {C} scratch GPFS or Lustre?"},
			nil, []string{"Quel système de fichiers utilise le scratch de {C} ?"}, nil, nil},
		{"$TMPDIR on local NVMe, 3.5 TB, wiped at job end", "$TMPDIR on local SATA SSD, 400 GB, wiped at job end", "", "", []string{"{C} node-local scratch: {v}", "job-local disk on {C}: {v}"},
			[]string{"how much local disk does a job get on {c}?"}, []string{"{c} node local scratch TMPDIR"}, []string{"TMPDIR size on {C} nodes, not {o}", "how big is the local disk for jobs on {C}?"},
			[]string{"Wie viel lokaler Plattenplatz steht einem Job auf {C} zur Verfügung?"}, nil, []string{"¿Cuánto disco local tiene un trabajo en {C}?"}, nil},
		{"Globus endpoint 'UNI Kestrel DTN'", "Globus endpoint 'UNI Osprey'", "", "", []string{"{C} data transfer: {v}", "big transfers to {C}: use {v}"},
			nil, []string{"how do I move a few TB onto {c}?", "{c} globus endpoint"}, []string{"globus endpoint name for {C}", "what do I search for in Globus to reach {C}?"},
			[]string{"Wie übertrage ich große Datenmengen auf {C}?"}, nil, nil, nil},
	}
	for _, it := range items {
		mk := func(C, v, o, v2 string) *fact {
			kv := []string{"{C}", C, "{c}", low(C), "{v}", v, "{o}", o, "{v2}", v2, "{d}", b.date()}
			q := func(xs []string) []string { return subAll(xs, kv...) }
			return &fact{text: sub(b.pick(it.texts), kv...), ask: q(it.ask), para: q(it.para), dist: q(it.dist), de: q(it.de), fr: q(it.fr), es: q(it.es), fixes: q(it.fix)}
		}
		b.pair(mk("Kestrel", it.ks, "Osprey", it.k2), mk("Osprey", it.os, "Kestrel", it.o2))
	}
}

// ---- on-call, maintenance, incidents, lab servers, errors, onboarding -----------------------------

func (b *b5) oncall(week, name, backup, swap string) {
	b.one(&fact{
		text: b.pick([]string{
			"on-call week of " + week + ": " + name + " (backup " + backup + ")",
			"rota: " + week + " week -> " + name + ", backup " + backup,
			week + " on-call = " + name + "; " + backup + " as second",
		}),
		para:  []string{"who is on call the week of " + week + "?", "on-call " + week, "who has the pager week starting " + week + "?"},
		de:    []string{"Wer hat in der Woche ab dem " + localDate(week, "de") + " Rufbereitschaft?"},
		fr:    []string{"Qui est d'astreinte la semaine du " + localDate(week, "fr") + " ?"},
		es:    []string{"¿Quién está de guardia la semana del " + localDate(week, "es") + "?"},
		fixes: []string{"swap: " + swap + " covers on-call week of " + week + " instead of " + name},
	})
}

func (b *b5) maintFacts(month string) {
	work := []string{"Slurm upgrade to 23.11", "GPFS firmware", "kernel + OFED update", "cooling loop service", "IB switch firmware", "OS patching", "UPS battery swap", "storage controller replacement", "BIOS updates across compute", "login node rebuild", "Lustre server upgrade", "PDU replacement in row C"}
	mk := func(C, o string) *fact {
		day := b.num(1, 28)
		kv := []string{"{C}", C, "{c}", low(C), "{o}", o, "{m}", month}
		f := &fact{
			text: sub(fmt.Sprintf(b.pick([]string{
				"{C} maintenance window {m} 2027: %d {m}, 07:00–19:00 — %s",
				"{m} 2027 downtime for {C}: %d {m} (%s), reservation in place",
				"{C} {m} maintenance — %d {m}, all day. Doing: %s",
			}), day, b.pick(work)), kv...),
			ask:  subAll([]string{"when is the {m} maintenance on {c}?", "{c} downtime {m} 2027 date", "which day is {c} down in {m}?"}, kv...),
			dist: subAll([]string{"{C} maintenance date in {m}, not {o}", "{m} 2027 {C} downtime", "when is {C} down for maintenance in {m}? not {o}, that's another day"}, kv...),
			de:   subAll([]string{"Wann ist das Wartungsfenster von {C} im " + localMonth(month, "de") + "?"}, kv...),
			fr:   subAll([]string{"Quand a lieu la maintenance de {C} en " + localMonth(month, "fr") + " ?"}, kv...),
			es:   subAll([]string{"¿Qué día es el mantenimiento de {C} en " + localMonth(month, "es") + "?"}, kv...),
		}
		f.fixes = subAll([]string{fmt.Sprintf("{C} {m} maintenance moved to %d {m} (vendor availability)", (day-1+b.num(1, 20))%28+1)}, kv...)
		if day+7 <= 28 {
			f.fixes = append(f.fixes, sub(fmt.Sprintf("{C} {m} 2027 maintenance postponed a week, new date %d {m}", day+7), kv...))
		}
		return f
	}
	b.pair(mk("Kestrel", "Osprey"), mk("Osprey", "Kestrel"))
}

func (b *b5) incidentFacts(d string, staff []string) {
	inc := b.val(func() string { return fmt.Sprintf("INC%07d", b.num(1000000, 9999999)) })
	who := b.pick(staff)
	L := b.pick(b5last)
	kinds := []struct{ text, para, fu string }{
		{"{d}: Kestrel /scratch hit 100% — {L} lab wrote {n} TB of checkpoints in a day; cleaned up, {inc}", "what filled up kestrel scratch on {d}?", "after the {d} scratch-full: per-user file limit added, {w} wrote the alert"},
		{"{d}: Osprey Lustre OST0007 full, jobs got ENOSPC; {L} group's {n} TB of core dumps, {inc}", "why did jobs fail with ENOSPC on osprey on {d}?", "follow-up to the {d} Lustre full: ulimit -c 0 set cluster-wide by {w}"},
		{"{d}: slurmctld crashed on kes-ctl1 ({n} min outage), backup controller did not take over, {inc}", "what happened to slurmctld on {d}?", "post-mortem of the {d} slurmctld crash: StateSaveLocation moved to shared storage, owner {w}"},
		{"{d}: MATLAB licences unavailable for {n} min — lic VM out of disk, {inc}", "why was matlab down on {d}?", "after the {d} MATLAB licence outage {w} added a disk alert on the lic VM"},
		{"{d}: leaf switch ib-leaf-{n} died, {n} Kestrel nodes lost IB; replaced same day, {inc}", "what broke the infiniband on {d}?", "{d} IB leaf failure: {w} ordered a cold spare switch"},
		{"{d}: cooling alarm in the DC, {n} osprey nodes powered off by thermal shutdown, {inc}", "why did osprey nodes power off on {d}?", "{d} thermal event: {w} set up the CRAC temperature feed into grafana"},
		{"{d}: login node kestrel-login2 OOM — someone ran a {n}-thread job on it, {inc}", "why did kestrel-login2 go down on {d}?", "after the {d} login OOM, {w} put cgroup limits (4 cores, 16 GB) on login nodes"},
		{"{d}: /home on Kestrel read-only for {n} min after a GPFS quorum loss, {inc}", "why was home read-only on {d}?", "{d} GPFS quorum loss: {w} added a third quorum node"},
		{"{d}: power cut in building B, UPS held {n} min, Osprey went down hard, {inc}", "what took osprey down on {d}?", "{d} power cut review: {w} is getting the generator test scheduled"},
	}
	k := kinds[b.r.IntN(len(kinds))]
	kv := []string{"{d}", d, "{L}", L, "{n}", fmt.Sprint(b.num(3, 90)), "{inc}", inc, "{w}", who}
	b.one(&fact{
		text:  sub(k.text, kv...),
		para:  []string{sub(k.para, kv...), "incident " + d + " cause"},
		ident: []string{"what was " + inc + "?", inc + " summary"},
		de:    []string{"Was ist am " + localDate(d, "de") + " auf dem Cluster passiert?"},
		fr:    []string{"Qu'est-ce qui s'est passé sur le cluster le " + localDate(d, "fr") + " ?"},
		es:    []string{"¿Qué pasó en el clúster el " + localDate(d, "es") + "?"},
	})
	b.one(&fact{
		text: sub(k.fu, kv...),
		para: []string{"what did we change after the " + d + " incident?", "follow-up action " + d + " outage", "who owns the fix from the " + d + " incident?"},
	})
}

func (b *b5) labServerFacts(name, L string, staff []string) {
	kv := []string{"{s}", name, "{L}", L}
	q := func(xs ...string) []string { return subAll(xs, kv...) }
	ip := b.ip(fmt.Sprintf("10.%d.%d", b.num(140, 149), b.num(0, 20)))
	b.one(&fact{
		text: sub(b.pick([]string{
			"{s} ({L} lab) IP " + ip,
			"{s}: " + ip + ", static, in the lab VLAN",
			"{L}'s box {s} is at " + ip,
		}), kv...),
		para:  q("what's the address of {s}?", "{s} ip"),
		num:   []string{"which server is " + ip + "?"},
		val:   ip,
		de:    q("Welche IP-Adresse hat {s}?"),
		fr:    q("Quelle est l'adresse IP de {s} ?"),
		es:    q("¿Qué IP tiene {s}?", "dirección IP {s}"),
		fixes: q("{s} moved to "+b.ip("10.150.3")+" after the lab VLAN renumbering", "{s} now "+b.ip("10.150.4")+", old "+ip+" retired"),
	})
	osv := b.pick([]string{"Ubuntu 22.04", "Ubuntu 20.04", "Rocky Linux 8.9", "Rocky Linux 9.3", "RHEL 8.8", "Debian 12", "CentOS 7 (EOL!)"})
	b.one(&fact{
		text: sub(b.pick([]string{"{s} runs " + osv, "{s}: OS " + osv, "OS on {s} = " + osv}), kv...),
		para: q("what OS is on {s}?", "{s} operating system version", "is {s} still on an old distro?"),
		fixes: q("{s} upgraded to "+b.pick([]string{"Ubuntu 24.04", "Rocky Linux 9.4", "Debian 12"})+" on "+b.date(),
			"{s} reinstalled with "+b.pick([]string{"Rocky Linux 9.4", "Ubuntu 24.04"})+" — no longer "+osv),
	})
	adm := b.pick(staff)
	b.one(&fact{
		text: sub(b.pick([]string{"{s} is looked after by " + adm + " (best effort, not a cluster node)", "admin for {s}: " + adm}), kv...),
		para: q("who looks after {s}?", "{s} admin contact"),
	})
	gpu := b.pick([]string{"4x RTX A6000", "2x RTX 4090", "8x A100 40GB", "1x RTX 3090", "no GPU", "2x L40S", "4x V100"})
	if strings.Contains(name, "-nas") {
		gpu = "no GPU, " + fmt.Sprint(b.num(4, 24)*10) + " TB of disks"
	}
	b.one(&fact{
		text: sub(b.pick([]string{"{s} hardware: " + gpu + ", " + fmt.Sprint(b.num(2, 16)*64) + " GB RAM", "{s} has " + gpu + " and " + fmt.Sprint(b.num(2, 16)*64) + " GB memory"}), kv...),
		ask:  q("what GPUs does {s} have?", "how much RAM in {s}?", "{s} specs"),
		es:   q("¿Qué GPU y cuánta RAM tiene {s}?"),
	})
	if b.r.IntN(2) == 0 {
		b.one(&fact{
			text: sub(b.pick([]string{"{s} backed up nightly by restic to /project/backup/{s}", "{s}: no backups!! told {L} lab on " + b.date()}), kv...),
			para: q("is {s} backed up?", "{s} backups"),
		})
	}
}

type b5err struct {
	err, text string
	para      []string
}

var b5errs = []b5err{
	{"slurmstepd: error: Detected 1 oom_kill event", "'{e}' = job ran out of memory; raise --mem or --mem-per-cpu, check MaxRSS with sacct", []string{"my job got killed for using too much memory, what do I change?"}},
	{"DUE TO TIME LIMIT", "job ends with 'CANCELLED ... {e}': it hit the partition walltime — use checkpoints or the long partition", []string{"job cancelled at exactly the walltime, what now?"}},
	{"Invalid account or account/partition combination specified", "sbatch '{e}': user not added to the Slurm account; sacctmgr add user NAME account=ACCT", []string{"new student can't submit, sbatch says account is invalid"}},
	{"QOSMaxGRESPerUser", "pending reason {e}: they already hold the max GPUs for their qos, nothing broken", []string{"why are my gpu jobs pending forever while gpus are free?"}},
	{"AssocGrpCPUMinutesLimit", "pending with {e} = group allocation used up; PI must request a top-up", []string{"jobs pending because the group ran out of hours"}},
	{"Disk quota exceeded", "'{e}' in home: usually conda pkgs cache — conda clean -a or move envs to /project", []string{"user can't write to home anymore, quota full from conda"}},
	{"X11 connection rejected because of wrong authentication", "'{e}' on login nodes: home full, .Xauthority can't be written", []string{"x forwarding broken for a user with a full home"}},
	{"NCCL WARN NET/IB : No device found", "'{e}' in multi-node PyTorch: set NCCL_IB_HCA=mlx5_0 and load the nccl module", []string{"multi-node pytorch training not using infiniband"}},
	{"srun: error: PMIx", "'{e}...' with Intel MPI: use srun --mpi=pmi2 or mpirun inside the allocation", []string{"intel mpi job fails at launch under srun"}},
	{"Requested node configuration is not available", "'{e}': asked for more memory/GPUs per node than any node in that partition has", []string{"sbatch rejects my job saying no node fits"}},
	{"cudaErrorNoDevice", "{e}: job didn't request a GPU — add --gres=gpu:1 (or --gpus=1)", []string{"my code sees no GPU on the gpu partition"}},
	{"Illegal instruction (core dumped)", "'{e}' on Osprey: binary built with -march=native on Kestrel's Zen4; rebuild with -march=x86-64-v3", []string{"code built on the new cluster crashes on the old one"}},
	{"Stale file handle", "'{e}' on osprey nodes after a Lustre failover: the node needs a remount, drain and reboot it", []string{"users see errors listing their scratch dir after the failover"}},
	{"Permission denied (publickey,gssapi-keyex,gssapi-with-mic)", "ssh '{e}' to a compute node: only allowed while they have a job there (pam_slurm_adopt)", []string{"user can't ssh into a compute node"}},
	{"Job violates accounting/QOS policy", "'{e}' at submit: asked walltime above the qos MaxWall, check sacctmgr show qos", []string{"sbatch refuses my job citing policy"}},
	{"Unable to allocate resources: Requested time limit is invalid", "'{e}': --time format wrong; use D-HH:MM:SS", []string{"what's the right --time format?"}},
	{"Bus error", "'{e}' in jobs writing to /dev/shm: shm is capped at half the job memory, use $TMPDIR", []string{"job crashes writing big temp files in shared memory"}},
	{"ssh_exchange_identification: read: Connection reset by peer", "'{e}' from off-campus: fail2ban blocked them after bad passwords, unban on the login node", []string{"user blocked from logging in after typing the wrong password"}},
	{"Duo: Authentication denied", "'{e}': their Duo device was re-enrolled, IT service desk resets it, not us", []string{"MFA prompt keeps failing on login"}},
	{"module: command not found", "'{e}' in batch jobs: script starts with #!/bin/sh; use #!/bin/bash -l", []string{"module command doesn't work inside my batch script"}},
	{"Lmod has detected the following error: These module(s) or extension(s) exist but cannot be loaded", "'{e}': need the compiler/MPI module loaded first, try module spider NAME/VER", []string{"the module exists but won't load"}},
	{"singularity: command not found", "'{e}': it's apptainer now, module load apptainer (alias kept only on Osprey)", []string{"container command missing on the new cluster"}},
	{"RuntimeError: CUDA out of memory", "'{e}': smaller batch or use the 80GB A100 nodes (--constraint=a100_80g)", []string{"pytorch runs out of gpu memory, bigger gpus available?"}},
	{"Socket timed out on send/recv operation", "squeue/sbatch '{e}': slurmctld overloaded, usually someone looping squeue in a script", []string{"slurm commands hang and time out"}},
	{"error: Batch job submission failed: Invalid generic resource (gres) specification", "'{e}': typo in --gres, on Kestrel it's gpu:a100 or gpu:h100, not gpu:A100", []string{"gpu request rejected at submission"}},
	{"/bin/bash^M: bad interpreter", "'{e}': script edited on Windows, run dos2unix", []string{"batch script fails with a weird interpreter error"}},
	{"Segmentation fault (core dumped) ulimit -s", "segfaults in Fortran codes: set ulimit -s unlimited in the job script (stack) — '{e}' is the hint in their log", []string{"fortran code segfaults only on big inputs"}},
	{"JupyterHub: Spawn failed: Timeout", "OnDemand Jupyter '{e}': the interactive partition is full, pick standard with 1 core", []string{"jupyter session never starts in ondemand"}},
	{"sbatch: error: Batch job submission failed: Job size specification needs to be provided", "'{e}': --nodes=0 from a broken template, set --ntasks", []string{"sbatch complains about job size"}},
	{"Transport endpoint is not connected", "'{e}' on /project via sshfs from laptops: use Globus or rsync instead", []string{"mounted project dir on my laptop stopped working"}},
}

func (b *b5) errFacts(e b5err) {
	b.one(&fact{
		text:  strings.ReplaceAll(e.text, "{e}", e.err),
		para:  e.para,
		ident: []string{e.err, "fix for " + e.err},
		de:    []string{"Was tun bei der Fehlermeldung \"" + e.err + "\"?"},
		fr:    []string{"Que faire quand un job affiche \"" + e.err + "\" ?"},
		es:    []string{"¿Cómo se arregla el error \"" + e.err + "\"?"},
	})
}

func (b *b5) miscFacts() {
	add := func(text string, para, ident []string, lang ...string) {
		f := &fact{text: text, para: para, ident: ident}
		if len(lang) == 3 {
			f.de, f.fr, f.es = lang[:1], lang[1:2], lang[2:]
		}
		b.one(f)
	}
	add("onboarding step 1: account request form at https://rc.example.edu/request, PI must approve in the portal",
		[]string{"how does a new student get a cluster account?", "new user account request process"}, []string{"https://rc.example.edu/request"},
		"Wie beantragt ein neuer Doktorand einen Cluster-Zugang?", "Comment un nouvel étudiant obtient-il un compte sur le cluster ?", "¿Cómo pide una cuenta en el clúster un estudiante nuevo?")
	add("onboarding step 2: new users must pass the HPC 101 quiz in Canvas before we create the account",
		[]string{"is there training before someone gets access?", "hpc intro course requirement"}, []string{"HPC 101 quiz"})
	add("onboarding step 3: Duo MFA enrolment is required for ssh to kestrel-login.rc.example.edu",
		[]string{"do users need two-factor to log in?", "mfa requirement login"}, []string{"kestrel-login.rc.example.edu mfa"},
		"Braucht man Zwei-Faktor-Authentifizierung für den Login?", "Faut-il la double authentification pour se connecter ?", "¿Hace falta doble factor para entrar al clúster?")
	add("onboarding step 4: add the user to the PI's Slurm account with sacctmgr add user NAME account=ACCT, then the unix group",
		[]string{"after the account is created, what else do I do so they can submit?"}, []string{"sacctmgr add user"})
	add("onboarding step 5: send the welcome email template (Confluence: RC/Templates/Welcome) with the quick-start link",
		[]string{"where's the welcome mail we send new users?"}, []string{"RC/Templates/Welcome"})
	add("external collaborators need a sponsored guest account (form G-7) signed by the PI and the department head",
		[]string{"someone from another university needs access, how?", "guest account for external collaborator"}, []string{"form G-7"},
		"Wie bekommt ein externer Kollege Zugang zum Cluster?", "Comment donner accès à un collaborateur extérieur ?", "¿Cómo consigue acceso un colaborador de otra universidad?")
	add("accounts of leavers are locked 90 days after their end date; data in home kept another 90 days, then deleted",
		[]string{"what happens to a student's account when they leave?", "account deletion after leaving"}, nil,
		"Was passiert mit dem Konto, wenn jemand die Uni verlässt?", "Que devient le compte d'un étudiant qui part ?", "¿Qué pasa con la cuenta cuando alguien se va de la universidad?")
	add("Slurm controller Kestrel: kes-ctl1 primary, kes-ctl2 backup; slurmdbd on kes-db1 (MariaDB 10.11)",
		[]string{"where does the slurm accounting database live?", "which machine is the slurm controller?"}, []string{"kes-db1"})
	add("monitoring: Grafana at https://grafana.rc.example.edu, alerts go to #rc-alerts and the on-call pager",
		[]string{"what's the grafana url?", "where do alerts go?"}, []string{"#rc-alerts"})
	add("ticket queue: RC tickets come in via ServiceNow group 'Research Computing', triage every morning 9:30",
		[]string{"when do we triage tickets?", "which servicenow queue is ours?"}, nil,
		"Wann werden die Tickets gesichtet?", "À quelle heure fait-on le tri des tickets ?", "¿A qué hora se revisan los tickets cada día?")
	add("office hours for users: Thursdays 14:00–16:00 in Hartley 210 and on Zoom",
		[]string{"when are the user office hours?", "drop-in help session time"}, nil,
		"Wann ist die Sprechstunde für Nutzer?", "Quand sont les permanences pour les utilisateurs ?", "¿Cuándo es el horario de atención a usuarios?")
	add("new condo purchases: minimum 4 nodes, 5-year life, quote via Dell through procurement (PO to Jeanette in finance)",
		[]string{"a PI wants to buy nodes, what are the rules?", "condo node purchase policy"}, nil,
		"Welche Regeln gelten, wenn eine Gruppe eigene Knoten kaufen will?", "Quelles sont les règles pour acheter des nœuds condo ?", "¿Qué condiciones hay para comprar nodos propios?")
	add("sensitive data (HIPAA, export-controlled) is NOT allowed on Kestrel or Osprey — send them to the secure enclave team",
		[]string{"can a group put patient data on the cluster?"}, nil,
		"Dürfen Patientendaten auf dem Cluster liegen?", "Peut-on stocker des données de patients sur le cluster ?", "¿Se pueden guardar datos de pacientes en el clúster?")
	add("the archive tier is tape via HPSS, 'archive' command on the DTNs, retrieval takes hours",
		[]string{"how do people store data long-term cheaply?", "tape archive access"}, nil)
	add("Osprey is retired end of June 2028; no new accounts on Osprey after January 2028",
		[]string{"when is the old cluster going away?", "osprey end of life"}, nil,
		"Wann wird Osprey abgeschaltet?", "Quand Osprey sera-t-il arrêté ?", "¿Cuándo se apaga Osprey?")
	add("GPU jobs on Kestrel: --gres=gpu:a100:N or --gres=gpu:h100:N, --constraint=a100_80g for the 80 GB cards",
		[]string{"how do I ask for the big-memory gpus?"}, []string{"--constraint=a100_80g"})
	add("fairshare: PriorityWeightFairshare=10000, half-life 14 days, age factor caps at 7 days",
		[]string{"how is job priority computed?", "fairshare decay"}, []string{"PriorityWeightFairshare"})
	add("storage chargeback: /project beyond the free 5 TB is billed at $45/TB/year to the PI's grant",
		[]string{"what does extra project space cost?"}, nil,
		"Was kostet zusätzlicher Projektspeicher?", "Combien coûte l'espace projet supplémentaire ?", "¿Cuánto cuesta el espacio de proyecto adicional?")
	add("status page for users: https://status.rc.example.edu, post there before any planned downtime",
		[]string{"where do we announce outages to users?"}, []string{"https://status.rc.example.edu"})
}

// blind5 writes the set's notes: every subject's notes, interleaved the way they pile up.
func (g *gen) blind5() {
	b := &b5{g}
	var staff []string
	for len(staff) < 42 {
		staff = append(staff, b.person())
	}
	topics := []string{"Slurm config", "GPFS", "Lustre", "InfiniBand", "Open OnDemand", "Lmod and modules", "Spack builds", "containers/apptainer", "licence servers", "Globus", "MPI tuning", "GPU drivers", "Warewulf provisioning", "Grafana/Prometheus", "the tape archive", "user accounts and LDAP", "Duo/MFA", "Dell warranty calls", "procurement and quotes", "the data centre access", "Jupyter and RStudio", "Python environments", "chargeback and billing", "the secure enclave", "firewall rules", "Ansible", "backups", "XDMoD reports", "cryo-EM software", "bioinformatics pipelines", "CFD codes", "quantum chemistry codes", "teaching accounts", "the status page", "the VPN", "Kubernetes", "Ceph", "power and cooling", "condo purchases", "Nextflow", "AlphaFold", "MATLAB parallel server"}
	var labs []string
	for range 92 {
		labs = append(labs, b.uniq(func() string { return b.pick(b5last) }))
	}
	var jobs []func()
	// partitions: the shared names are look-alikes across the two clusters
	shared := map[string]bool{"short": true, "long": true, "bigmem": true, "debug": true, "preempt": true}
	kes := []b5part{
		{"Kestrel", "standard", "kes-cpu-[001-180]", "2x AMD EPYC 9454", 96, 768, 0, ""},
		{"Kestrel", "short", "kes-cpu-[181-220]", "2x AMD EPYC 9454", 96, 768, 0, ""},
		{"Kestrel", "long", "kes-cpu-[221-240]", "2x AMD EPYC 9454", 96, 768, 0, ""},
		{"Kestrel", "bigmem", "kes-mem-[01-08]", "2x AMD EPYC 9654", 192, 3072, 0, ""},
		{"Kestrel", "gpu-a100", "kes-gpu-[001-024]", "2x AMD EPYC 7763", 128, 1024, 4, "A100 80GB"},
		{"Kestrel", "gpu-h100", "kes-gpu-[101-112]", "2x Intel Xeon 8480+", 112, 2048, 8, "H100 SXM"},
		{"Kestrel", "debug", "kes-cpu-[241-244]", "2x AMD EPYC 9454", 96, 768, 0, ""},
		{"Kestrel", "interactive", "kes-int-[01-06]", "2x AMD EPYC 9354", 64, 512, 2, "L40S"},
		{"Kestrel", "preempt", "kes-cpu-[001-240],kes-gpu-[001-024]", "mixed", 96, 768, 4, "A100 80GB"},
		{"Kestrel", "chem-condo", "kes-cnd-[001-036]", "2x AMD EPYC 9554", 128, 1536, 0, ""},
		{"Kestrel", "bio-condo", "kes-cnd-[101-120]", "2x AMD EPYC 9474F", 96, 1536, 0, ""},
		{"Kestrel", "phys-condo", "kes-cnd-[201-216]", "2x Intel Xeon 8462Y+", 64, 512, 0, ""},
	}
	osp := []b5part{
		{"Osprey", "compute", "osp-c[0101-0436]", "2x Intel Xeon 6148", 40, 192, 0, ""},
		{"Osprey", "short", "osp-c[0501-0540]", "2x Intel Xeon 6148", 40, 192, 0, ""},
		{"Osprey", "long", "osp-c[0541-0560]", "2x Intel Xeon 6148", 40, 192, 0, ""},
		{"Osprey", "bigmem", "osp-m[01-04]", "4x Intel Xeon 8160", 96, 1536, 0, ""},
		{"Osprey", "gpu-v100", "osp-g[01-20]", "2x Intel Xeon 6130", 32, 384, 4, "V100 32GB"},
		{"Osprey", "gpu-p100", "osp-g[21-28]", "2x Intel Xeon E5-2680v4", 28, 256, 2, "P100 16GB"},
		{"Osprey", "debug", "osp-c[0561-0564]", "2x Intel Xeon 6148", 40, 192, 0, ""},
		{"Osprey", "viz", "osp-v[01-04]", "2x Intel Xeon 6148", 40, 384, 1, "Quadro RTX 6000"},
		{"Osprey", "class", "osp-c[0601-0632]", "2x Intel Xeon E5-2650v4", 24, 128, 0, ""},
		{"Osprey", "preempt", "osp-c[0101-0560]", "mixed", 40, 192, 0, ""},
	}
	for _, p := range kes {
		jobs = append(jobs, func() {
			if !shared[p.name] {
				for _, f := range b.partFacts(p, false, "") {
					b.one(f)
				}
				return
			}
			var o b5part
			for _, x := range osp {
				if x.name == p.name {
					o = x
				}
			}
			ks, os := b.partFacts(p, true, "Osprey"), b.partFacts(o, true, "Kestrel")
			for i := range ks {
				b.pair(ks[i], os[i])
			}
		})
	}
	for _, p := range osp {
		if !shared[p.name] {
			jobs = append(jobs, func() {
				for _, f := range b.partFacts(p, false, "") {
					b.one(f)
				}
			})
		}
	}
	// single nodes
	var nodes []string
	for len(nodes) < 90 {
		var n string
		switch b.r.IntN(5) {
		case 0, 1:
			n = fmt.Sprintf("kes-cpu-%03d", b.num(1, 244))
		case 2:
			n = fmt.Sprintf("kes-gpu-%03d", b.num(1, 24))
			if b.r.IntN(3) == 0 {
				n = fmt.Sprintf("kes-gpu-%03d", b.num(101, 112))
			}
		case 3:
			n = fmt.Sprintf("osp-c%02d%02d", b.num(1, 5), b.num(1, 36))
		default:
			n = fmt.Sprintf("osp-g%02d", b.num(1, 28))
		}
		if !slices.Contains(nodes, n) {
			nodes = append(nodes, n)
		}
	}
	for _, n := range nodes {
		room := "DC1 (Hartley basement)"
		if strings.HasPrefix(n, "osp") {
			room = "DC2 (Sloane 0.14)"
		}
		jobs = append(jobs, func() { b.nodeFacts(n, room) })
	}
	for i, m := range b5mods {
		jobs = append(jobs, func() { b.modFacts(m, i%3 != 2, i%2 == 0, b.pick(labs)) })
	}
	for _, L := range labs {
		jobs = append(jobs, func() { b.groupFacts(L, staff) })
	}
	for _, lc := range b5lics {
		jobs = append(jobs, func() { b.licFacts(lc, staff) })
	}
	for i, s := range staff {
		jobs = append(jobs, func() { b.staffFacts(s, topics[i%len(topics)]) })
	}
	jobs = append(jobs, b.storageFacts)
	infra := [][2]string{
		{"kestrel-login1", "Kestrel login node, users land here round-robin"},
		{"kestrel-login2", "Kestrel login node, also the one with the big /tmp for compiling"},
		{"kestrel-login3", "Kestrel login node reserved for the teaching accounts"},
		{"osprey-login1", "Osprey login node"},
		{"osprey-login2", "Osprey login node with the old Intel 2019 compilers"},
		{"dtn01", "Kestrel data transfer node (Globus, 100 GbE)"},
		{"dtn02", "second Kestrel DTN, also runs the rclone cron for the Box mirror"},
		{"osp-dtn", "Osprey data transfer node, 10 GbE only"},
		{"grafana01", "Grafana + Prometheus for both clusters"},
		{"ldap01", "primary LDAP server (389-ds) for cluster accounts"},
		{"ldap02", "LDAP replica, read-only"},
		{"xdmod01", "XDMoD usage reporting, nightly shredder from slurmdbd"},
		{"spack-build01", "build host for the Spack software stack, not for users"},
		{"backup01", "runs the restic backups of lab servers and the Slurm state dir"},
		{"warewulf01", "Warewulf provisioning server for Kestrel compute images"},
		{"nagios01", "legacy Nagios for Osprey, to be retired with Osprey"},
	}
	for _, h := range infra {
		jobs = append(jobs, func() { b.infraFacts(h[0], h[1]) })
	}
	for _, sv := range [][3]string{
		{"Open OnDemand", "ood01", "ood-stg01"},
		{"JupyterHub", "jhub01", "jhub-stg01"},
		{"slurmrestd", "kes-rest01", "kes-rest-stg"},
		{"RStudio Server", "rstudio01", "rstudio-stg01"},
		{"ColdFront", "coldfront01", "coldfront-stg01"},
		{"Keycloak", "sso01", "sso-stg01"},
	} {
		jobs = append(jobs, func() { b.stagingFacts(sv[0], sv[1], sv[2]) })
	}
	for _, m := range b5month {
		jobs = append(jobs, func() { b.maintFacts(m) })
	}
	for range 34 {
		jobs = append(jobs, func() {
			w := b.uniq(func() string { return fmt.Sprintf("%d %s", b.num(1, 28), b.pick(b5month)) })
			p := b.pick(staff)
			bk := b.pick(staff)
			for bk == p {
				bk = b.pick(staff)
			}
			sw := b.pick(staff)
			for sw == p {
				sw = b.pick(staff)
			}
			b.oncall(w, p, bk, sw)
		})
	}
	for range 48 {
		jobs = append(jobs, func() {
			d := b.uniq(func() string { return fmt.Sprintf("%d %s 2026", b.num(1, 28), b.pick(b5month)) })
			b.incidentFacts(d, staff)
		})
	}
	for range 66 {
		jobs = append(jobs, func() {
			L := b.pick(labs)
			s := b.uniq(func() string {
				return fmt.Sprintf("%s-%s%d", low(L), b.pick([]string{"ws", "gpu", "dgx", "srv", "nas"}), b.num(1, 9))
			})
			b.labServerFacts(s, L, staff)
		})
	}
	for _, e := range b5errs {
		jobs = append(jobs, func() { b.errFacts(e) })
	}
	jobs = append(jobs, b.miscFacts)
	g.r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for _, j := range jobs {
		j()
	}
}

// writeBlind5 stores each correction after the note it corrects: mostly weeks later (further
// down the file), one in four right after (a slip fixed at once).
func (g *gen) writeBlind5(out string) {
	g.writeLater(out, func(i, n int, _ Memory) int {
		if g.r.IntN(4) == 0 {
			return i
		}
		return min(i+1+g.r.IntN(n-i), n-1)
	})
}
