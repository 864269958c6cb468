// Package readme keeps the README and the pages under docs/ honest: its
// tests run or check every shell command they show, check every relative
// link and anchor, check that the README's map reaches every page and that
// every page links back to it, and that every citation of a page in the
// repository names a page and heading that exist.
package readme
