// Package codetest holds the small real projects the code operations are tested on, and the
// check that a language server a test needs is installed (failing under CI=true, where
// .ci/run installs them, and skipping elsewhere).
package codetest

import (
	"os"
	"os/exec"
	"testing"

	"toolhost/internal/lsp"
)

// inCI reports a CI run, where a missing server is a failure.
func inCI() bool { return os.Getenv("CI") != "" && os.Getenv("CI") != "false" }

// Require returns the spec of the language's server, or fails (CI) or skips the test.
func Require(t testing.TB, lang string) lsp.Spec {
	t.Helper()
	for _, s := range lsp.DefaultSpecs(nil) {
		if s.Language == lang {
			return s
		}
	}
	msg := "no language server for " + lang + " (.ci/run installs gopls, pyright and typescript-language-server)"
	if inCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return lsp.Spec{}
}

// RequireTool returns the path of a program a test runs (go, tsc, python3), failing in CI.
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if inCI() {
		t.Fatalf("%s is not installed", name)
	}
	t.Skipf("%s is not installed", name)
	return ""
}

// Project is a small project in one language, with the facts tests check.
type Project struct {
	Lang  string
	Files map[string]string
	// DefFile defines Type (a class or struct) with method Method, and Func.
	DefFile, Type, Method, Func string
	// UseFile uses Method at UseLine, UseColumn (1-based, characters).
	UseFile            string
	UseLine, UseColumn int
	// MethodUses is how many references Method has, its definition included.
	MethodUses int
	// Build is the command that checks the project compiles (run in its directory).
	Build []string
}

// Projects are the three projects: Go (gopls), Python (pyright), TypeScript
// (typescript-language-server).
var Projects = []Project{
	{
		Lang: "go",
		Files: map[string]string{
			"go.mod": "module example.com/shop\n\ngo 1.22\n",
			"store/store.go": `package store

// Item is one thing for sale.
type Item struct {
	Name  string
	Price int
}

// Cart holds items.
type Cart struct {
	items []Item
}

// Add puts an item in the cart.
func (c *Cart) Add(it Item) { c.items = append(c.items, it) }

// Total sums the prices.
func (c *Cart) Total() int {
	t := 0
	for _, it := range c.items {
		t += it.Price
	}
	return t
}

// RetryUpload retries a failed upload a few times before giving up.
func RetryUpload(send func() error, attempts int) error {
	var err error
	for i := 0; i < attempts; i++ {
		if err = send(); err == nil {
			return nil
		}
	}
	return err
}
`,
			"main.go": `package main

import (
	"fmt"

	"example.com/shop/store"
)

func main() {
	c := &store.Cart{}
	c.Add(store.Item{Name: "tea", Price: 3})
	c.Add(store.Item{Name: "cup", Price: 5})
	fmt.Println(c.Total())
}
`,
		},
		DefFile: "store/store.go", Type: "Cart", Method: "Add", Func: "RetryUpload",
		UseFile: "main.go", UseLine: 11, UseColumn: 4, MethodUses: 3,
		Build: []string{"go", "build", "./..."},
	},
	{
		Lang: "python",
		Files: map[string]string{
			"shop/__init__.py": "",
			"shop/cart.py": `class Cart:
    """Holds items."""

    def __init__(self):
        self.items = []

    def add(self, name, price):
        self.items.append((name, price))

    def total(self):
        return sum(p for _, p in self.items)


def retry_upload(send, attempts=3):
    """Retry a failed upload a few times before giving up."""
    for _ in range(attempts):
        if send():
            return True
    return False
`,
			"main.py": `from shop.cart import Cart

cart = Cart()
cart.add("tea", 3)
cart.add("cup", 5)
print(cart.total())
`,
		},
		DefFile: "shop/cart.py", Type: "Cart", Method: "add", Func: "retry_upload",
		UseFile: "main.py", UseLine: 4, UseColumn: 6, MethodUses: 3,
		Build: []string{"python3", "-m", "py_compile", "main.py", "shop/cart.py"},
	},
	{
		Lang: "typescript",
		Files: map[string]string{
			"tsconfig.json": `{"compilerOptions": {"strict": true, "target": "es2020", "module": "commonjs", "noEmit": true}, "include": ["src"]}` + "\n",
			"src/cart.ts": `export interface Item {
  name: string;
  price: number;
}

// Cart holds items.
export class Cart {
  private items: Item[] = [];

  add(item: Item): void {
    this.items.push(item);
  }

  total(): number {
    return this.items.reduce((s, i) => s + i.price, 0);
  }
}

// Retry a failed upload a few times before giving up.
export function retryUpload(send: () => boolean, attempts = 3): boolean {
  for (let i = 0; i < attempts; i++) {
    if (send()) {
      return true;
    }
  }
  return false;
}
`,
			"src/main.ts": `import { Cart } from "./cart";

const cart = new Cart();
cart.add({ name: "tea", price: 3 });
cart.add({ name: "cup", price: 5 });
console.log(cart.total());
`,
		},
		DefFile: "src/cart.ts", Type: "Cart", Method: "add", Func: "retryUpload",
		UseFile: "src/main.ts", UseLine: 4, UseColumn: 6, MethodUses: 3,
		Build: []string{"tsc", "--noEmit", "-p", "."},
	},
}
