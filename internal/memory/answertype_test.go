package memory

import "testing"

func TestNoteHasPerson(t *testing.T) {
	tests := []struct {
		note string
		want bool
	}{
		{"Our contact at Acme is Jonas Costa.", true},
		{"Amir Lindqvist from payments owns admin-portal — ask them before changing its schema.", true},
		{"admin-portal contact: ana@acme.example", true},
		{"Daily payments standup starts at 9:30 sharp.", false},
		{"Correction: the Acme sync is every four weeks, not every two.", false},
		{"The release is on Monday March 3.", false},
		{"mem limit gateway-v2: 3072Mi", false},
	}
	for _, tt := range tests {
		if got := noteHas(tt.note, answerPerson); got != tt.want {
			t.Errorf("noteHas(%q, person) = %v, want %v", tt.note, got, tt.want)
		}
	}
}
