package consolidated

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolhost/internal/edit"
)

func TestReadMemo(t *testing.T) {
	fp := func(s string) edit.Fingerprint { return edit.Fingerprint{SHA256: s} }
	m := newReadMemo(3)
	m.put("c1", "/w/a", fp("a"))
	m.put("c1", "/w/b", fp("b"))
	m.put("c2", "/w/a", fp("a2"))
	m.get("c1", "/w/a")              // a is now the most recent
	m.put("c1", "/w/dir/x", fp("x")) // evicts c1 /w/b, the least recently used
	tests := []struct {
		name     string
		conv, p  string
		want     string
		wantSeen bool
	}{
		{"kept after use", "c1", "/w/a", "a", true},
		{"evicted", "c1", "/w/b", "", false},
		{"per conversation", "c2", "/w/a", "a2", true},
		{"other conversation unseen", "c2", "/w/b", "", false},
		{"newest", "c1", "/w/dir/x", "x", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := m.get(tc.conv, tc.p)
			if ok != tc.wantSeen || got.SHA256 != tc.want {
				t.Errorf("get(%s, %s) = %q, %v, want %q, %v", tc.conv, tc.p, got.SHA256, ok, tc.want, tc.wantSeen)
			}
		})
	}
	m.put("c1", "/w/dirty", fp("d"))
	m.forgetUnder("c1", "/w/dir")
	if _, ok := m.get("c1", "/w/dir/x"); ok {
		t.Error("forgetUnder(/w/dir) kept /w/dir/x")
	}
	if _, ok := m.get("c1", "/w/dirty"); !ok {
		t.Error("forgetUnder(/w/dir) dropped /w/dirty, which is not inside it")
	}
	if m.lru.Len() > 3 || len(m.m) != m.lru.Len() {
		t.Errorf("memo holds %d entries (map %d), bound 3", m.lru.Len(), len(m.m))
	}
}

// TestFileSymlinkOut: a symlink inside the working directory that points outside is decided
// where it leads, so writing through it needs a grant while reading is allowed.
func TestFileSymlinkOut(t *testing.T) {
	h := newFileHarness(t, 0)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "real.txt"), []byte("real\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "real.txt"), filepath.Join(h.wd, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.mustOp("read_file", map[string]any{"path": "link.txt"}); !strings.Contains(got, "real") {
		t.Errorf("read_file through a symlink = %q", got)
	}
	got, isErr, _ := h.op("replace_string", map[string]any{"path": "link.txt", "old_string": "real", "new_string": "fake"})
	if !isErr || !strings.Contains(got, "error outside_workdir") {
		t.Errorf("replace_string through a symlink leading outside = %q, want outside_workdir", got)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "real.txt")); string(b) != "real\n" {
		t.Errorf("the outside file was changed to %q", b)
	}
}

// TestFileOutsideDisplay: paths outside the working directory are shown absolute, also when
// the guard roots them at "/".
func TestFileOutsideDisplay(t *testing.T) {
	h := newFileHarness(t, 0)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("hit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	top := "/" + strings.Split(strings.TrimPrefix(dir, "/"), "/")[0] // e.g. /tmp, rooted at "/"
	tests := []struct {
		name string
		op   string
		args map[string]any
		want string
	}{
		{"list top-level dir", "list_dir", map[string]any{"path": top, "max_results": 1}, top + "/: 1 entries"},
		{"list nested dir", "list_dir", map[string]any{"path": dir}, dir + "/: 1 entries\nf.txt 4B"},
		{"glob", "file_search", map[string]any{"pattern": "*.txt", "path": dir}, " under " + dir + "\n" + dir + "/f.txt"},
		{"grep", "grep_search", map[string]any{"pattern": "hit", "path": dir}, "\n" + dir + "/f.txt\n1:hit"},
		{"read", "read_file", map[string]any{"path": dir + "/f.txt"}, dir + "/f.txt: lines 1-1 of 1\nhit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := h.mustOp(tc.op, tc.args)
			if !strings.Contains(got, tc.want) {
				t.Errorf("%s %v = %q, want it to contain %q", tc.op, tc.args, got, tc.want)
			}
		})
	}
}

// TestFileReadOnlyProfile: a profile that keeps only reads advertises a read-only tool whose
// schema has no write parameters.
func TestFileReadOnlyProfile(t *testing.T) {
	readOnly := func(tool, op string, risk Risk) bool { return risk == RiskRead }
	reg := NewRegistry(&Env{}, []*Tool{FileTool(FileConfig{})}, readOnly)
	tl := reg.Tools()[0]
	if !tl.Annotations.ReadOnlyHint {
		t.Error("read-only profile: readOnlyHint = false, want true")
	}
	schema := string(mustJSON(tl.InputSchema))
	for _, absent := range []string{"old_string", "patch", "create_file", "new_path"} {
		if strings.Contains(schema, absent) || strings.Contains(tl.Description, absent) {
			t.Errorf("read-only profile advertises %s", absent)
		}
	}
	for _, want := range []string{"read_file", "grep_search", "pattern", "encoding"} {
		if !strings.Contains(schema, want) {
			t.Errorf("read-only profile schema lacks %s", want)
		}
	}
}
