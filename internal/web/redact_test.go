package web

import (
	"net/url"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{name: "no query", in: "https://example.com/docs/page", want: "https://example.com/docs/page"},
		{name: "plain parameters kept", in: "https://example.com/search?q=go+proxy&page=2&keyword=x", want: "https://example.com/search?q=go+proxy&page=2&keyword=x"},
		{name: "credentials in the authority", in: "https://user:hunter2@example.com/", want: "https://user:***@example.com/"},
		{name: "token", in: "https://example.com/a?token=SECRET1&x=1", want: "https://example.com/a?token=***&x=1"},
		{name: "access_token and api_key", in: "https://example.com/a?access_token=SECRET1&api_key=SECRET2", want: "https://example.com/a?access_token=***&api_key=***"},
		{name: "camel case", in: "https://example.com/a?apiKey=SECRET1&sessionId=SECRET2", want: "https://example.com/a?apiKey=***&sessionId=***"},
		{name: "presigned S3", in: "https://b.s3.amazonaws.com/k?X-Amz-Credential=SECRET1&X-Amz-Signature=SECRET2&X-Amz-Security-Token=SECRET3&X-Amz-Expires=300",
			want: "https://b.s3.amazonaws.com/k?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Security-Token=***&X-Amz-Expires=300"},
		{name: "Azure SAS sig", in: "https://a.blob.core.windows.net/c/b?sv=2020&sig=SECRET1", want: "https://a.blob.core.windows.net/c/b?sv=2020&sig=***"},
		{name: "password and auth", in: "http://h.test/?password=SECRET1&auth=SECRET2&oauth_signature=SECRET3", want: "http://h.test/?password=***&auth=***&oauth_signature=***"},
		{name: "escaped name", in: "http://h.test/?%74oken=SECRET1", want: "http://h.test/?%74oken=***"},
		{name: "repeated and empty", in: "http://h.test/?key=SECRET1&key=SECRET2&key=&flag", want: "http://h.test/?key=***&key=***&key=***&flag"},
		{name: "fragment token", in: "https://app.test/cb#access_token=SECRET1&state=abc", want: "https://app.test/cb#access_token=***&state=abc"},
		{name: "plain fragment kept", in: "https://app.test/docs#install", want: "https://app.test/docs#install"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := url.Parse(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got := Redact(u)
			if got != tc.want {
				t.Errorf("Redact(%s) = %s, want %s", tc.in, got, tc.want)
			}
			if strings.Contains(got, "SECRET") || strings.Contains(got, "hunter2") {
				t.Errorf("Redact(%s) = %s shows a secret", tc.in, got)
			}
		})
	}
}
