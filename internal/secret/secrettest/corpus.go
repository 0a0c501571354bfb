// Package secrettest holds a corpus of secrets in every form models and tools produce, for
// tests that feed it through each place a value surfaces (results, logs, the execution history,
// the audit log, the console, resources) and check that none survives.
package secrettest

// A Case is a text holding one secret. Secret must not survive masking; Keep, the part of the
// text that is no secret, must.
type Case struct {
	Name, Text, Secret, Keep string
}

// Corpus is every form of secret masking must catch.
var Corpus = []Case{
	{"url userinfo", "curl https://deploy:Sup3rSecretPw@git.example.com/repo.git", "Sup3rSecretPw", "git.example.com/repo.git"},
	{"url access_token", "GET https://api.example.com/v1/items?access_token=tok_AbC123xyz789&page=2", "tok_AbC123xyz789", "page=2"},
	{"url token", "https://hooks.example.com/x?token=9f8e7d6c5b4a3f2e1d", "9f8e7d6c5b4a3f2e1d", "hooks.example.com"},
	{"url refresh_token", "https://auth.example.com/cb?refresh_token=rt-99887766554433&state=ok", "rt-99887766554433", "state=ok"},
	{"url key", "https://maps.example.com/api/js?key=AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY&v=3", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "v=3"},
	{"url api_key", "https://api.example.com/q?api_key=ak_live_51HxYzQ&format=json", "ak_live_51HxYzQ", "format=json"},
	{"url sig", "https://cdn.example.com/f.zip?sv=2022-11-02&sig=hJ3kL9mN0pQ%2BrS&se=2030", "hJ3kL9mN0pQ%2BrS", "sv=2022-11-02"},
	{"url signature", "https://files.example.com/a?Expires=1700000000&Signature=Zm9vYmFyYmF6cXV4", "Zm9vYmFyYmF6cXV4", "Expires=1700000000"},
	{"url x-amz", "https://b.s3.amazonaws.com/k?response-content-type=text&X-Amz-Credential=AKIDEXAMPLE%2F2024&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027", "fe5f80f77d5fa3beca038a248ff027", "response-content-type=text"},
	{"url password", "https://old.example.com/login?user=me&password=hunter22xx", "hunter22xx", "user=me"},
	{"url fragment", "https://app.example.com/cb#access_token=frag-tok-1234567&expires_in=3600", "frag-tok-1234567", "expires_in=3600"},
	{"authorization header", "Authorization: Bearer eyJraWQiOiJrMSJ9abcdefghijklmn", "eyJraWQiOiJrMSJ9abcdefghijklmn", "Authorization"},
	{"basic auth header", "Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "dXNlcjpwYXNzd29yZDEyMw==", "Authorization"},
	{"cookie header", "Cookie: sid=s%3Aab12cd34ef56gh78; theme=dark", "ab12cd34ef56gh78", "Cookie"},
	{"set-cookie", "Set-Cookie: session=zyx987wvu654; HttpOnly", "zyx987wvu654", "Set-Cookie"},
	{"bearer in a command", `curl -H "Authorization: Bearer 0123456789abcdefSECRET" https://api.example.com`, "0123456789abcdefSECRET", "api.example.com"},
	{"postgres url", "psql postgres://reader:pg-pass-4455@db.internal:5432/app", "pg-pass-4455", "db.internal:5432/app"},
	{"postgres keywords", "host=db user=reader password=kw-pass-7788 dbname=app", "kw-pass-7788", "dbname=app"},
	{"mysql url", "mysql://root:my-root-pw-9@127.0.0.1/shop", "my-root-pw-9", "127.0.0.1/shop"},
	{"redis url", "redis://:redis-pw-1234@cache:6379/0", "redis-pw-1234", "cache:6379"},
	{"env assignment", "export GITHUB_TOKEN=plain-gh-value-5566 && make", "plain-gh-value-5566", "make"},
	{"password flag", "mysql --password=flag-pw-3344 -u root", "flag-pw-3344", "-u root"},
	{"json key", `{"client_secret": "cs-aabbccddeeff", "client_id": "abc"}`, "cs-aabbccddeeff", `"client_id": "abc"`},
	{"yaml key", "api_key: yaml-key-0011223344\nregion: eu", "yaml-key-0011223344", "region: eu"},
	{"private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "PRIVATE KEY"},
	{"rsa private key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq\n-----END RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA7bq", "RSA PRIVATE KEY"},
	{"github classic", "token ghp_16C7e42F292c6912E7710c838347Ae178B4a used", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "used"},
	{"github oauth", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_16C7e42F292c6912E7710c838347Ae178B4a", ""},
	{"github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMN", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", ""},
	{"openai", "OPENAI=sk-proj-abcdefghijklmnopqrstuvwx1234567890", "sk-proj-abcdefghijklmnopqrstuvwx1234567890", ""},
	{"anthropic", "using sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 now", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "now"},
	{"slack", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", ""},
	{"aws access key id", "aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws configure"},
	{"aws secret", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""},
	{"gitlab", "glpat-xxxxxxxxxxxxxxxxxxxx12", "glpat-xxxxxxxxxxxxxxxxxxxx12", ""},
	{"npm", "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm_abcdefghijklmnopqrstuvwxyz0123456789", "registry.npmjs.org"},
	{"jwt", "id_token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJzdWIiOiIxMjM0NTY3ODkwIn0", "id_token"},
	{"toolhost token", "TOOLHOST_TOKEN=th_a1b2c3d4e5f6g7h8i9j0k1l2", "th_a1b2c3d4e5f6g7h8i9j0k1l2", ""},
}

func init() {
	// The same secrets as a path mangles them: a URL whose "//" collapsed, NAME=value after a
	// slash, YAML inside a path.
	Corpus = append(Corpus,
		Case{"collapsed url", "/work/missing/mysql:/root:mangled-pw-77@127.0.0.1/shop", "mangled-pw-77", "127.0.0.1/shop"},
		Case{"assignment after a slash", "/work/missing/AWS_SECRET_ACCESS_KEY=slash-secret-8899", "slash-secret-8899", "/work/missing/"},
		Case{"scp-like", "git clone deploy:scp-pw-5566@git.example.com:org/repo.git", "scp-pw-5566", "git.example.com"},
	)
}

func init() {
	// JSON inside a quoted string, as a log line quotes a value that holds JSON.
	Corpus = append(Corpus, Case{"escaped json", `args="{\"client_secret\": \"esc-aabbccddeeff\", \"id\": 1}"`, "esc-aabbccddeeff", `\"id\": 1`})
}
