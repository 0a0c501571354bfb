package secret

import (
	"net/url"
	"strings"
	"testing"

	"toolhost/internal/secret/secrettest"
)

// TestTextCorpus: every secret of the corpus is masked, and the part of its text that is no
// secret survives (so masking stays narrow). Other packages feed the same corpus through every
// place a value surfaces.
func TestTextCorpus(t *testing.T) {
	for _, c := range secrettest.Corpus {
		got := Text(c.Text)
		if strings.Contains(got, c.Secret) {
			t.Errorf("Text(%q) = %q keeps the secret %q", c.Text, got, c.Secret)
		}
		if c.Keep != "" && !strings.Contains(got, c.Keep) {
			t.Errorf("Text(%q) = %q lost %q, which is no secret", c.Text, got, c.Keep)
		}
	}
}

// TestTextLeavesPlainTextAlone: what is not a secret comes back byte for byte.
func TestTextLeavesPlainTextAlone(t *testing.T) {
	for _, s := range []string{
		"go test ./... -run TestX -count=1",
		"git log --oneline -5",
		"echo session_id=s1 key=value", // key alone is not a secret outside a URL? it is: see below
		"https://example.com/docs?page=2&lang=en#intro",
		"SELECT * FROM users WHERE id = 3",
		"author=jane signal=TERM keys=ctrl-c",
		"the token was rotated yesterday",
		"ls -la /home/me/.ssh",
	} {
		got := Text(s)
		if s == "echo session_id=s1 key=value" {
			if !strings.Contains(got, "session_id=s1") {
				t.Errorf("Text(%q) = %q masked session_id", s, got)
			}
			continue
		}
		if got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestName(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"token", true}, {"access_token", true}, {"refresh_token", true}, {"accessToken", true}, {"key", true},
		{"api_key", true}, {"apiKey", true}, {"X-Api-Key", true}, {"sig", true}, {"signature", true},
		{"X-Amz-Signature", true}, {"X-Amz-Credential", true}, {"X-Amz-Security-Token", true}, {"password", true},
		{"passwd", true}, {"client_secret", true}, {"Authorization", true}, {"Cookie", true}, {"JSESSIONID", true},
		{"private_key", true}, {"connection_string", true}, {"dsn", true}, {"GITHUB_TOKEN", true},
		{"session_id", false}, {"sessionName", false}, {"keys", false}, {"author", false}, {"signal", false},
		{"page", false}, {"path", false}, {"monkey", false}, {"keyboard", false}, {"passage", false},
	} {
		if got := Name(tt.name); got != tt.want {
			t.Errorf("Name(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://u:pw@host.example/p?a=1", "https://u:***@host.example/p?a=1"},
		{"https://host.example/p?access_token=abc&page=2", "https://host.example/p?access_token=***&page=2"},
		{"https://b.s3.amazonaws.com/k?X-Amz-Signature=f00&X-Amz-Credential=AKIA%2F&response-content-type=x", "https://b.s3.amazonaws.com/k?X-Amz-Signature=***&X-Amz-Credential=***&response-content-type=x"},
		{"https://maps.example/api?key=AIzaSy123&q=x", "https://maps.example/api?key=***&q=x"},
		{"https://h.example/cb#access_token=zzz&state=1", "https://h.example/cb#access_token=***&state=1"},
		{"https://h.example/?sig=abc&sv=2024", "https://h.example/?sig=***&sv=2024"},
	} {
		u, err := url.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := URL(u); got != tt.want {
			t.Errorf("URL(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestDSN(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"postgres://reader:hunter2@db:5432/app?sslmode=disable", "postgres://reader:***@db:5432/app?sslmode=disable"},
		{"postgres://reader@db/app?password=hunter2", "postgres://reader@db/app?password=***"},
		{"host=db user=reader password=hunter2 dbname=app", "host=db user=reader password=*** dbname=app"},
		{"host=db password='two words' sslpassword=x", "host=db password=*** sslpassword=***"},
		{"postgres://reader:${APP_DB_PASSWORD}@db/app", "postgres://reader:${APP_DB_PASSWORD}@db/app"}, // a reference, not a value
		{"app.db", "app.db"},
	} {
		if got := DSN(tt.in); got != tt.want {
			t.Errorf("DSN(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzText: masking never panics, never grows a text much, and is stable (masking a masked
// text changes nothing), so a value masked twice (a log line of a record) reads the same.
func FuzzText(f *testing.F) {
	for _, c := range secrettest.Corpus {
		f.Add(c.Text)
	}
	f.Add(`a=b c: d "e": "f" \"g\": \"h\"`)
	f.Fuzz(func(t *testing.T, s string) {
		once := Text(s)
		if twice := Text(once); twice != once {
			t.Errorf("Text is not stable:\n%q\n%q\n%q", s, once, twice)
		}
		if len(once) > 2*len(s)+64 {
			t.Errorf("Text(%q) grew to %d bytes", s, len(once))
		}
	})
}
