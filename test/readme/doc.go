// Package readme keeps the README honest: its test runs or checks every
// shell command the README shows, so none of them can rot unnoticed.
package readme
