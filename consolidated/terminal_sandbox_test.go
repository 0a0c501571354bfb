package consolidated

import "testing"

func TestDeniedFile(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"touch: cannot touch '/etc/x': Permission denied", "/etc/x"},
		{"mkdir: cannot create directory ‘/opt/d’: Permission denied", "/opt/d"},
		{"/bin/sh: 1: cannot create /srv/x: Permission denied", "/srv/x"},
		{"bash: /srv/y: Permission denied", "/srv/y"},
		{"bash: line 1: out/z: Permission denied", "out/z"},
		{"open /var/lib/x: permission denied", "/var/lib/x"},
		{"PermissionError: [Errno 13] Permission denied: '/usr/x'", "/usr/x"},
		{"cp: cannot create regular file 'b/c': Read-only file system", "b/c"},
		{"all fine\nrm: cannot remove '/x/y': Permission denied\n", "/x/y"},
		{"nothing denied here", ""},
	} {
		if got := deniedFile(c.out); got != c.want {
			t.Errorf("deniedFile(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}
