package lsp

import (
	"os"
	"path/filepath"
	"strings"
)

// Languages toolhost knows a server for, and the file extensions of each.
var Languages = map[string][]string{
	"go":         {".go"},
	"python":     {".py", ".pyi"},
	"typescript": {".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"},
	"rust":       {".rs"},
	"c":          {".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"},
}

// LanguageOf returns the language of a file name ("" for none of them).
func LanguageOf(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	for lang, exts := range Languages {
		for _, e := range exts {
			if e == ext {
				return lang
			}
		}
	}
	return ""
}

// DefaultSpecs returns the servers found on PATH (or in the Go bin directory), with configured
// commands replacing the defaults: configured[lang] is a command, or ["off"].
func DefaultSpecs(configured map[string][]string) []Spec {
	type cand struct {
		name string
		args []string
	}
	defaults := map[string][]cand{
		"go":         {{"gopls", nil}},
		"python":     {{"basedpyright-langserver", []string{"--stdio"}}, {"pyright-langserver", []string{"--stdio"}}},
		"typescript": {{"typescript-language-server", []string{"--stdio"}}},
		"rust":       {{"rust-analyzer", nil}},
		"c":          {{"clangd", nil}},
	}
	var out []Spec
	for _, lang := range []string{"go", "python", "typescript", "rust", "c"} {
		var cmd []string
		if c := configured[lang]; len(c) > 0 {
			if len(c) == 1 && c[0] == "off" {
				continue
			}
			if p := Find(c[0]); p != "" {
				cmd = append([]string{p}, c[1:]...)
			}
		} else {
			for _, d := range defaults[lang] {
				if p := Find(d.name); p != "" {
					cmd = append([]string{p}, d.args...)
					break
				}
			}
		}
		if cmd == nil {
			continue
		}
		out = append(out, specFor(lang, cmd))
	}
	return out
}

// specFor fills in what each server needs besides its command.
func specFor(lang string, cmd []string) Spec {
	s := Spec{Language: lang, Command: cmd, Name: strings.TrimSuffix(filepath.Base(cmd[0]), "-langserver")}
	switch lang {
	case "typescript":
		s.Name = "typescript-language-server"
		s.LanguageID = func(name string) string {
			switch strings.ToLower(filepath.Ext(name)) {
			case ".tsx":
				return "typescriptreact"
			case ".jsx":
				return "javascriptreact"
			case ".js", ".mjs", ".cjs":
				return "javascript"
			}
			return "typescript"
		}
		// No automatic type acquisition: it would download packages.
		s.InitOptions = map[string]any{"disableAutomaticTypingAcquisition": true}
	case "c":
		s.LanguageID = func(name string) string {
			if strings.ToLower(filepath.Ext(name)) == ".c" {
				return "c"
			}
			return "cpp"
		}
	case "python":
		s.Settings = map[string]any{"analysis": map[string]any{"diagnosticMode": "openFilesOnly"}}
	}
	return s
}

// goBinDirs are where go install puts programs.
func goBinDirs() []string {
	var out []string
	if d := os.Getenv("GOBIN"); d != "" {
		out = append(out, d)
	}
	if gp := os.Getenv("GOPATH"); gp != "" {
		for _, p := range filepath.SplitList(gp) {
			out = append(out, filepath.Join(p, "bin"))
		}
	} else if home, err := os.UserHomeDir(); err == nil {
		out = append(out, filepath.Join(home, "go", "bin"))
	}
	return out
}
