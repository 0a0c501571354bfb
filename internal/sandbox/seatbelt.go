package sandbox

import (
	"fmt"
	"slices"
	"strings"
)

// Seatbelt is how commands are confined on macOS: sandbox-exec runs them under a profile in
// Apple's sandbox profile language (SBPL), generated here from the same Policy that becomes
// Landlock rules on Linux. The generation is plain text, so its tests (golden profiles for every
// shape of policy) run on every platform; only the exec wrapping lives in seatbelt_darwin.go.
//
// What the profile says:
//
//   - everything not allowed is denied ((deny default));
//   - reading is allowed everywhere except the contents of Policy.Hidden (file-read-data is
//     denied below a hidden path; metadata stays readable, so names can be listed and stat'ed,
//     as under Landlock; listing a hidden directory's entries is refused, which is stricter);
//   - writing is allowed in Policy.Writable (workspace-write), Policy.Temp and the devices,
//     except below any Policy.Protected path, whether or not it exists yet;
//   - processes may fork and exec, use the network, look up Mach services, read sysctls and
//     preferences, and use PTYs; they may signal and inspect only processes of their own
//     sandbox: not the server, not the user's other programs.
//
// Paths must be canonical (Policy.normalized): the kernel matches real paths, and on macOS
// /tmp and /var are symlinks into /private.

// seatbeltDevices are the device files every confined command may write, and the PTYs.
var seatbeltDevices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/dtracehelper", "/dev/ptmx"}

// SeatbeltProfile renders p as an SBPL profile for sandbox-exec. p must be normalized (see
// Start); nil or ModeOff has no profile.
func (p *Policy) SeatbeltProfile() string {
	var b strings.Builder
	b.WriteString(`(version 1)
; toolhost: generated from the terminal sandbox policy (mode ` + string(p.Mode) + `)
(deny default)

; Programs run, fork, and see only their own sandbox's processes.
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; What ordinary programs need from the system.
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow ipc-posix-sem)
(allow user-preference-read)
(allow iokit-open)
(allow pseudo-tty)
(allow file-ioctl (literal "/dev/tty") (literal "/dev/ptmx") (regex #"^/dev/ttys[0-9]+$"))

; The network is not restricted (builds and package managers need it).
(allow network*)
(allow system-socket)

; Reads: everywhere but the contents of hidden paths.
`)
	if len(p.Hidden) == 0 {
		b.WriteString("(allow file-read*)\n")
	} else {
		b.WriteString("(allow file-read-metadata)\n(allow file-read* (require-all\n")
		for _, h := range sortedUnique(p.Hidden) {
			fmt.Fprintf(&b, "  (require-not (subpath %s))\n", sbplString(h))
		}
		b.WriteString("))\n")
	}
	var writable []string
	if p.Mode == ModeWorkspaceWrite {
		writable = append(writable, p.Writable...)
	}
	writable = append(writable, p.Temp...)
	b.WriteString("\n; Writes: the devices and PTYs, and the allowed trees minus the protected paths.\n")
	b.WriteString("(allow file-write* (require-any\n")
	for _, d := range seatbeltDevices {
		fmt.Fprintf(&b, "  (literal %s)\n", sbplString(d))
	}
	b.WriteString("  (regex #\"^/dev/ttys[0-9]+$\")))\n")
	if len(writable) > 0 {
		b.WriteString("(allow file-write* (require-all\n  (require-any\n")
		for _, w := range sortedUnique(writable) {
			fmt.Fprintf(&b, "    (subpath %s)\n", sbplString(w))
		}
		b.WriteString("  )")
		for _, pr := range sortedUnique(p.Protected) {
			fmt.Fprintf(&b, "\n  (require-not (subpath %s))", sbplString(pr))
		}
		b.WriteString("))\n")
	}
	return b.String()
}

// sbplString quotes s as an SBPL string literal.
func sbplString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

func sortedUnique(in []string) []string {
	var out []string
	for _, s := range in {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}
