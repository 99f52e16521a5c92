"""The web dashboard: see and correct what the companion remembers, in a browser."""
