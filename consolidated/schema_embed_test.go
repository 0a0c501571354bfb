package consolidated

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type embeddedShared struct {
	Repo string `json:"repo,omitempty" alias:"dir" jsonschema:"Where."`
}

type embeddedArgs struct {
	embeddedShared
	Name  string          `json:"name"`
	inner struct{ X int } // unexported, not a parameter
}

// The fields of an embedded struct are parameters of the operation: in the schema, in
// validation (required, aliases) and in the decoded arguments.
func TestEmbeddedParameters(t *testing.T) {
	var got *embeddedArgs
	tool := &Tool{Name: "think", Operations: []Operation{Op("x", "y", RiskRead, func(_ context.Context, _ *Call, a *embeddedArgs) (*Result, error) {
		got = a
		return Text("ok"), nil
	})}}
	reg := NewRegistry(&Env{}, []*Tool{tool}, nil)
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(reg.Tools()[0].InputSchema.(json.RawMessage), &schema); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"type":"string","description":"Where."}`, string(schema.Properties["repo"])); diff != "" {
		t.Errorf("repo property (-want +got):\n%s", diff)
	}
	res := reg.Dispatch(context.Background(), "think", json.RawMessage(`{"operation":"x","dir":"d","name":"n"}`), nil)
	if res.IsError || got == nil || got.Repo != "d" || got.Name != "n" {
		t.Fatalf("dispatch = %+v, args %+v", res, got)
	}
	if res := reg.Dispatch(context.Background(), "think", json.RawMessage(`{"operation":"x","repo":"d"}`), nil); !res.IsError {
		t.Errorf("a missing required parameter next to an embedded one was accepted")
	}
}
