package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// MaxSnapshotLines bounds a snapshot; the rest is counted.
const MaxSnapshotLines = 4000

// interactive roles get a ref the actions take.
var interactive = map[string]bool{
	"link": true, "button": true, "textbox": true, "searchbox": true, "combobox": true, "listbox": true,
	"option": true, "checkbox": true, "radio": true, "switch": true, "slider": true, "spinbutton": true,
	"menuitem": true, "menuitemcheckbox": true, "menuitemradio": true, "tab": true, "treeitem": true,
}

// shown roles are printed; others (generic, paragraph, group, ...) are flattened into their
// children, which keeps the text and drops the nesting that costs tokens.
var shown = map[string]bool{
	"heading": true, "img": true, "list": true, "listitem": true, "table": true, "row": true, "cell": true,
	"columnheader": true, "rowheader": true, "navigation": true, "main": true, "banner": true, "contentinfo": true,
	"form": true, "dialog": true, "alertdialog": true, "alert": true, "status": true, "region": true, "article": true,
	"tabpanel": true, "tablist": true, "menu": true, "menubar": true, "tree": true, "code": true, "blockquote": true,
}

// roleAliases map roles that Chromium names in its own way, or that changed name between
// versions, to the role the snapshot prints: ARIA 1.3 renamed img to image, and a details
// element's summary is a DisclosureTriangle that opens it on a click.
var roleAliases = map[string]string{"image": "img", "DisclosureTriangle": "button"}

// namedLandmarks are the roles that are landmarks only with an accessible name; without one
// they are flattened like generic containers.
var namedLandmarks = map[string]bool{"form": true, "region": true}

// leaves are printed with their name and without their descendants (the name is their text).
var leaves = map[string]bool{
	"heading": true, "link": true, "button": true, "textbox": true, "searchbox": true, "checkbox": true, "radio": true,
	"switch": true, "option": true, "menuitem": true, "menuitemcheckbox": true, "menuitemradio": true, "tab": true,
	"img": true, "slider": true, "spinbutton": true, "treeitem": true,
}

// shownProps are the states a line shows.
var shownProps = []string{"level", "checked", "selected", "expanded", "pressed", "disabled", "required", "invalid", "readonly"}

// Snapshot renders the page as an accessibility tree: one line per element that matters, with
// [ref=eN] on the ones click, type and select take.
func (s *Session) Snapshot(ctx context.Context) (string, PageState, error) {
	if err := s.lock(); err != nil {
		return "", PageState{}, err
	}
	defer s.unlock()
	var nodes []*accessibility.Node
	err := chromedp.Do(s.run(ctx), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
		nodes = res.Nodes
		return err
	}))
	ps := s.state(ctx)
	if err != nil {
		return "", ps, actionError(err)
	}
	return renderTree(nodes), ps, nil
}

func renderTree(nodes []*accessibility.Node) string {
	byID := make(map[accessibility.NodeID]*accessibility.Node, len(nodes))
	for _, n := range nodes {
		byID[n.NodeID] = n
	}
	var root *accessibility.Node
	for _, n := range nodes {
		if n.ParentID == "" {
			root = n
			break
		}
	}
	if root == nil {
		return "(empty page)"
	}
	r := &treeRenderer{byID: byID}
	r.children(root, 0)
	r.flushText()
	if r.lines == 0 {
		return "(the page has no readable content)"
	}
	if r.dropped > 0 {
		fmt.Fprintf(&r.b, "… %d more lines not shown (browser_scroll to a section and snapshot again, or fetch_page for the text)\n", r.dropped)
	}
	return strings.TrimRight(r.b.String(), "\n")
}

type treeRenderer struct {
	byID    map[accessibility.NodeID]*accessibility.Node
	b       strings.Builder
	lines   int
	dropped int
	text    []string // pending static text of the current parent
	depth   int
}

func (r *treeRenderer) line(depth int, s string) {
	if r.lines >= MaxSnapshotLines {
		r.dropped++
		return
	}
	r.lines++
	r.b.WriteString(strings.Repeat("  ", depth))
	r.b.WriteString("- ")
	r.b.WriteString(s)
	r.b.WriteByte('\n')
}

func (r *treeRenderer) flushText() {
	if len(r.text) == 0 {
		return
	}
	t := strings.Join(strings.Fields(strings.Join(r.text, " ")), " ")
	r.text = r.text[:0]
	if t != "" {
		r.line(r.depth, quote(t, 300))
	}
}

func (r *treeRenderer) children(n *accessibility.Node, depth int) {
	for _, id := range n.ChildIDs {
		if c, ok := r.byID[id]; ok {
			r.node(c, depth)
		}
	}
}

func (r *treeRenderer) node(n *accessibility.Node, depth int) {
	role := valueString(n.Role)
	if alias, ok := roleAliases[role]; ok {
		role = alias
	}
	if n.Ignored || role == "none" || role == "generic" || role == "" || role == "InlineTextBox" || role == "LineBreak" {
		r.children(n, depth)
		return
	}
	if role == "StaticText" {
		if r.depth != depth {
			r.flushText()
			r.depth = depth
		}
		r.text = append(r.text, valueString(n.Name))
		return
	}
	name := strings.Join(strings.Fields(valueString(n.Name)), " ")
	if name == "" && namedLandmarks[role] {
		// Unnamed, it is no landmark (HTML-AAM), and Chromium versions disagree on whether
		// to report it at all: 148 says generic where 156 says form.
		role = "generic"
	}
	if !shown[role] && !interactive[role] {
		if role == "RootWebArea" || role == "WebArea" {
			r.children(n, depth)
			r.flushText()
			return
		}
		// A named region of another role (a labelled group, a figure) keeps its name as text.
		r.children(n, depth)
		return
	}
	r.flushText()
	r.depth = depth
	var b strings.Builder
	b.WriteString(role)
	if name != "" {
		b.WriteString(" " + quote(name, 150))
	}
	for _, p := range n.Properties {
		for _, want := range shownProps {
			if string(p.Name) == want {
				if v := valueString(p.Value); v != "" && v != "false" {
					if v == "true" {
						b.WriteString(" [" + want + "]")
					} else {
						b.WriteString(" [" + want + "=" + v + "]")
					}
				}
			}
		}
	}
	if v := valueString(n.Value); v != "" && (role == "textbox" || role == "searchbox" || role == "combobox" || role == "slider" || role == "spinbutton") {
		b.WriteString(" value=" + quote(v, 100))
	}
	if interactive[role] && n.BackendDOMNodeID != 0 {
		fmt.Fprintf(&b, " [ref=e%d]", n.BackendDOMNodeID)
	}
	r.line(depth, b.String())
	if leaves[role] {
		return
	}
	r.children(n, depth+1)
	if r.depth == depth+1 {
		r.flushText()
	}
	r.depth = depth
}

func valueString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s any
	if json.Unmarshal(v.Value, &s) != nil {
		return ""
	}
	switch x := s.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	case float64:
		return fmt.Sprint(x)
	}
	return ""
}

func quote(s string, n int) string {
	b, _ := json.Marshal(shortText(s, n))
	return string(b)
}
