package consolidated

import "testing"

// TestObjectJSONMatchesEncoder: the direct schema writer gives the bytes encoding/json gives
// (without HTML escaping), so that tools/list stays byte-identical however it is built.
func TestObjectJSONMatchesEncoder(t *testing.T) {
	strs := []string{
		"", "plain", `quote " and backslash \`, "<b>&amp;</b>", "tab\tnew\nline\rcr",
		"bell\a back\b form\f nul\x00 esc\x1b del\x7f", "curly ‘quotes’ “and” – dashes …",
		"line\u2028para\u2029", "bad utf8 \xff\xfe end", "emoji 🙂 and 中文",
	}
	for _, s := range strs {
		o := object{{"k" + s, s}, {"list", []string{s, "x"}}, {"nested", object{{"type", "string"}, {"d", s}}}, {"n", 3}}
		got, err := o.appendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		want := reference(t, o)
		if string(got) != string(want) {
			t.Errorf("appendJSON(%q) =\n%s\nwant\n%s", s, got, want)
		}
	}
}

// reference encodes o field by field with encoding/json, as object.MarshalJSON did before it
// wrote the bytes itself.
func reference(t *testing.T, o object) []byte {
	t.Helper()
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := MarshalNoEscape(f.Key)
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, k...), ':')
		var v []byte
		if inner, ok := f.Val.(object); ok {
			v = reference(t, inner)
		} else if v, err = MarshalNoEscape(f.Val); err != nil {
			t.Fatal(err)
		}
		b = append(b, v...)
	}
	return append(b, '}')
}
