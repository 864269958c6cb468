// Package readme keeps the README and docs/*.md honest: its test runs or
// checks every shell command they show, so none of them can rot unnoticed.
package readme
