package lsp

import "encoding/json"

// The part of the Language Server Protocol (3.17) toolhost speaks: the few requests of the
// symbol operations, with the fields they read. Unknown fields are ignored by encoding/json,
// so servers may send more.

// Position is a zero-based line and character offset; characters count in the position
// encoding the server chose (UTF-16 code units unless it took UTF-8).
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open range of positions.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// LocationLink is what definition answers with when the client supports links.
type LocationLink struct {
	TargetURI            string `json:"targetUri"`
	TargetRange          Range  `json:"targetRange"`
	TargetSelectionRange Range  `json:"targetSelectionRange"`
}

// TextEdit replaces a range with new text.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// TextDocumentEdit is the edits of one document at a version.
type TextDocumentEdit struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int   `json:"version"`
	} `json:"textDocument"`
	Edits []TextEdit `json:"edits"`
}

// DocumentChange is one entry of WorkspaceEdit.documentChanges: a TextDocumentEdit, or a
// resource operation (create, rename, delete a file), which Kind names.
type DocumentChange struct {
	TextDocumentEdit
	Kind   string `json:"kind,omitempty"`
	URI    string `json:"uri,omitempty"`
	OldURI string `json:"oldUri,omitempty"`
	NewURI string `json:"newUri,omitempty"`
}

// WorkspaceEdit is a multi-file edit: Changes (by URI) or DocumentChanges.
type WorkspaceEdit struct {
	Changes         map[string][]TextEdit `json:"changes,omitempty"`
	DocumentChanges []DocumentChange      `json:"documentChanges,omitempty"`
}

// SymbolKind is the LSP's numbered kind of a symbol.
type SymbolKind int

// DocumentSymbol is one node of a document's outline.
type DocumentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           SymbolKind       `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []DocumentSymbol `json:"children,omitempty"`
}

// SymbolInformation is the flat form of a symbol (workspace/symbol, older documentSymbol).
type SymbolInformation struct {
	Name          string     `json:"name"`
	Kind          SymbolKind `json:"kind"`
	ContainerName string     `json:"containerName,omitempty"`
	Location      struct {
		URI   string `json:"uri"`
		Range *Range `json:"range,omitempty"`
	} `json:"location"`
}

type textDocumentID struct {
	URI string `json:"uri"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type positionParams struct {
	TextDocument textDocumentID `json:"textDocument"`
	Position     Position       `json:"position"`
}

type referenceParams struct {
	positionParams
	Context struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

type renameParams struct {
	positionParams
	NewName string `json:"newName"`
}

type progressParams struct {
	Token json.RawMessage `json:"token"`
	Value struct {
		Kind    string `json:"kind"`
		Title   string `json:"title"`
		Message string `json:"message"`
	} `json:"value"`
}

type configurationParams struct {
	Items []json.RawMessage `json:"items"`
}

// ResponseError is an error answer of a server.
type ResponseError struct {
	Code    int
	Message string
}

func (e *ResponseError) Error() string { return e.Message }
