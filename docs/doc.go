// Package docs holds toolhost's manuals, one Markdown file per topic, beside the README (the
// front door) and ARCHITECTURE.md (the map of the code). It has no code: its test checks that
// every relative link in README.md, ARCHITECTURE.md and docs/*.md leads to a file that exists
// and, with a #anchor, to a heading of that file, so a moved section cannot leave a dead link.
//
// The tables these documents hold that list code are generated or checked where the code is:
// docs/development.md says which test keeps which.
package docs
