package main

// browserOpener opens a URL in the user's browser.
const browserOpener = "xdg-open"
