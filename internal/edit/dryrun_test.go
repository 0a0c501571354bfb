package edit

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDryRunWritesNothing runs every write operation with DryRun: each answers what it would do
// (a diff or a summary, marked dry run) and leaves the tree byte for byte as it was; each still
// refuses what the real operation would refuse.
func TestDryRunWritesNothing(t *testing.T) {
	ctx := context.Background()
	dry := Options{DryRun: true}
	files := map[string]string{"a.txt": "alpha\nbeta\n", "d/x.txt": "x\n", "d/sub/y.txt": "y\n", "empty/.keep": ""}
	tests := []struct {
		name     string
		run      func(root *os.Root) (*Result, error)
		wantDiff string
		wantErr  error
	}{
		{"create new", func(r *os.Root) (*Result, error) {
			return CreateFile(ctx, r, "new/n.txt", []byte("n\n"), ModeOverwrite, dry)
		}, "+n", nil},
		{"overwrite", func(r *os.Root) (*Result, error) {
			return CreateFile(ctx, r, "a.txt", []byte("ALPHA\n"), ModeOverwrite, dry)
		}, "+ALPHA", nil},
		{"create_if_missing on an existing file", func(r *os.Root) (*Result, error) {
			return CreateFile(ctx, r, "a.txt", []byte("x"), ModeCreateIfMissing, dry)
		}, "", ErrExists},
		{"replace", func(r *os.Root) (*Result, error) {
			res, err := ReplaceInFile(ctx, r, "a.txt", Replacement{OldString: "beta", NewString: "BETA"}, dry)
			if err != nil {
				return nil, err
			}
			return &res.Result, nil
		}, "+BETA", nil},
		{"replace not found", func(r *os.Root) (*Result, error) {
			res, err := ReplaceInFile(ctx, r, "a.txt", Replacement{OldString: "gamma", NewString: "G"}, dry)
			if err != nil {
				return nil, err
			}
			return &res.Result, nil
		}, "", ErrNotFound},
		{"multi replace", func(r *os.Root) (*Result, error) {
			res, err := MultiReplace(ctx, r, []FileReplacement{
				{Path: "a.txt", Replacement: Replacement{OldString: "alpha", NewString: "A"}},
				{Path: "d/x.txt", Replacement: Replacement{OldString: "x", NewString: "X"}},
			}, dry)
			if err != nil {
				return nil, err
			}
			return &res.Result, nil
		}, "+X", nil},
		{"insert", func(r *os.Root) (*Result, error) {
			return InsertEdit(ctx, r, "a.txt", LineEdit{Line: 1, Text: "zero"}, dry)
		}, "+zero", nil},
		{"patch", func(r *os.Root) (*Result, error) {
			return ApplyPatch(ctx, r, "*** Begin Patch\n*** Update File: a.txt\n-beta\n+BETA\n*** Delete File: d/x.txt\n*** End Patch\n", dry)
		}, "+BETA", nil},
		{"rename", func(r *os.Root) (*Result, error) { return RenameFile(ctx, r, "a.txt", "moved/a.txt", false, dry) },
			"would rename a.txt -> moved/a.txt", nil},
		{"rename onto an existing file", func(r *os.Root) (*Result, error) { return RenameFile(ctx, r, "a.txt", "d/x.txt", false, dry) },
			"", ErrExists},
		{"rename below a file", func(r *os.Root) (*Result, error) { return RenameFile(ctx, r, "d/x.txt", "a.txt/x", false, dry) },
			"", ErrExists},
		{"delete file", func(r *os.Root) (*Result, error) { return DeleteFile(ctx, r, "a.txt", false, dry) },
			"would delete file a.txt", nil},
		{"delete directory", func(r *os.Root) (*Result, error) { return DeleteFile(ctx, r, "d", true, dry) },
			"would delete directory d/ and its 3 entries", nil},
		{"delete non-empty directory without recursive", func(r *os.Root) (*Result, error) { return DeleteFile(ctx, r, "d", false, dry) },
			"", ErrInvalidArgument},
		{"delete missing", func(r *os.Root) (*Result, error) { return DeleteFile(ctx, r, "nope", false, dry) },
			"", ErrMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, dir := openRoot(t, files)
			before := snapshot(t, dir)
			res, err := tt.run(root)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("error = %v, want %v", err, tt.wantErr)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if !res.DryRun || !strings.Contains(res.Diff, tt.wantDiff) {
					t.Errorf("result = %+v, want a dry run whose diff holds %q", res, tt.wantDiff)
				}
			}
			if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("a dry run changed the tree (-before +after):\n%s", diff)
			}
		})
	}
}
