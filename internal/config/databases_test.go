package config

import (
	"strings"
	"testing"
)

func TestDatabasesConfig(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		wantErr string
	}{
		{"sqlite and postgres", "[[databases]]\nname = \"app\"\ndriver = \"sqlite\"\ndsn = \"data/app.db\"\n\n[[databases]]\nname = \"prod-ro\"\ndriver = \"postgres\"\ndsn_env = \"DATABASE_URL\"\ntimeout = \"5s\"\n", ""},
		{"unknown key", "[[databases]]\nname = \"a\"\ndriver = \"sqlite\"\ndsn = \"a.db\"\npasword = \"x\"\n", `unknown configuration key "databases.pasword"`},
		{"bad driver", "[[databases]]\nname = \"a\"\ndriver = \"mysql\"\ndsn = \"x\"\n", "driver must be sqlite or postgres"},
		{"no dsn", "[[databases]]\nname = \"a\"\ndriver = \"sqlite\"\n", "exactly one of dsn and dsn_env"},
		{"both dsns", "[[databases]]\nname = \"a\"\ndriver = \"sqlite\"\ndsn = \"x\"\ndsn_env = \"Y\"\n", "exactly one of dsn and dsn_env"},
		{"bad name", "[[databases]]\nname = \"my db\"\ndriver = \"sqlite\"\ndsn = \"x\"\n", "name must be"},
		{"duplicate name", "[[databases]]\nname = \"a\"\ndriver = \"sqlite\"\ndsn = \"x\"\n[[databases]]\nname = \"a\"\ndriver = \"sqlite\"\ndsn = \"y\"\n", "used twice"},
		{"timeout too long", "[[databases]]\nname = \"a\"\ndriver = \"sqlite\"\ndsn = \"x\"\ntimeout = \"1h\"\n", "timeout must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, tt.text), true)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Load() = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Load() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestResolveDSN(t *testing.T) {
	env := map[string]string{"PGPASSWORD": "pa$$word", "HOST": "db.internal", "EMPTY": "", "URL": "postgres://u@h/db"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name    string
		db      Database
		want    string
		wantErr string
	}{
		{"expanded", Database{DSN: "postgres://app:${PGPASSWORD}@${HOST}/app"}, "postgres://app:pa$$word@db.internal/app", ""},
		{"plain dollars stay", Database{DSN: "password=a$b$ host=x"}, "password=a$b$ host=x", ""},
		{"unset", Database{DSN: "postgres://app:${NOPE}@${HOST}/app"}, "", "NOPE (used in dsn) is not set"},
		{"empty", Database{DSN: "x=${EMPTY}"}, "", "EMPTY (used in dsn) is not set"},
		{"dsn_env", Database{DSNEnv: "URL"}, "postgres://u@h/db", ""},
		{"dsn_env unset", Database{DSNEnv: "NOPE"}, "", "NOPE (dsn_env) is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.db.ResolveDSN(lookup)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "pa$$") {
					t.Fatalf("ResolveDSN() = %q, %v, want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ResolveDSN() = %q, %v, want %q", got, err, tt.want)
			}
		})
	}
}
