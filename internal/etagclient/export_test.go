package etagclient

// ItemDiff exports itemDiff to the external tests.
var ItemDiff = itemDiff
