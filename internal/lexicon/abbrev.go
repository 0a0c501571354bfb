package lexicon

// Abbreviations people use in project notes and questions, with the words they stand for.
// Expansion goes both ways: "prod" finds "production", "production" finds "prod".
var abbreviations = map[string][]string{
	"prod": {"production"}, "stg": {"staging"}, "stage": {"staging"}, "dev": {"development"},
	"db": {"database"}, "dbs": {"databases"}, "repo": {"repository"}, "repos": {"repositories"},
	"env": {"environment"}, "envs": {"environments"}, "config": {"configuration"}, "cfg": {"configuration"},
	"k8s": {"kubernetes"}, "auth": {"authentication"}, "authn": {"authentication"}, "authz": {"authorization"},
	"msg": {"message"}, "msgs": {"messages"}, "req": {"request"}, "reqs": {"requests"}, "resp": {"response"},
	"min": {"minute", "minutes"}, "mins": {"minutes"}, "sec": {"second", "seconds"}, "secs": {"seconds"},
	"ms": {"milliseconds"}, "hr": {"hour"}, "hrs": {"hours"}, "mem": {"memory"}, "ram": {"memory"},
	"info": {"information"}, "docs": {"documentation"}, "doc": {"document"}, "pr": {"pull", "request"},
	"prs": {"pull", "requests"}, "ci": {"pipeline"}, "pg": {"postgres", "postgresql"}, "postgres": {"postgresql"},
	"oncall": {"on-call"}, "infra": {"infrastructure"}, "ops": {"operations"}, "perf": {"performance"},
	"deps": {"dependencies"}, "dep": {"dependency"}, "pkg": {"package"}, "lib": {"library"},
	"app": {"application"}, "svc": {"service"}, "max": {"maximum"}, "tz": {"timezone"}, "dns": {"domain"},
	"cert": {"certificate"}, "certs": {"certificates"}, "replica": {"replicas"}, "pods": {"replicas"},
	"live": {"production"},
}

var expansions = func() map[string][]string {
	m := map[string][]string{}
	for short, longs := range abbreviations {
		m[short] = append(m[short], longs...)
		if len(longs) == 1 {
			m[longs[0]] = append(m[longs[0]], short)
		}
	}
	return m
}()

// Expand returns the words an abbreviation stands for, or the abbreviations of a word.
func Expand(word string) []string { return expansions[word] }
