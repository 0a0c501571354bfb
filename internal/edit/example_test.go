package edit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"toolhost/internal/edit"
)

func ExampleReplace() {
	file := []byte("func f() {\r\n\treturn 1\r\n}\r\n")
	res, err := edit.Replace(file, edit.Replacement{
		OldString: "    return 1", // the model's copy: spaces instead of a tab
		NewString: "    return 2",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s at line %v: %q\n", res.Rung, res.Lines, res.Content)
	// Output: indentation at line [2]: "func f() {\r\n\treturn 2\r\n}\r\n"
}

func ExampleApplyPatch() {
	dir, _ := os.MkdirTemp("", "edit-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello\nworld\n"), 0o644)
	root, _ := os.OpenRoot(dir)
	defer root.Close()

	res, err := edit.ApplyPatch(context.Background(), root, `*** Begin Patch
*** Update File: hello.txt
@@
 hello
-world
+there
*** End Patch`, edit.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Diff)
	// Output:
	// --- a/hello.txt
	// +++ b/hello.txt
	// @@ -1,2 +1,2 @@
	//  hello
	// -world
	// +there
}
