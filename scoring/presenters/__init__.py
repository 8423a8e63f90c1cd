"""Page data for the game's pages: plain values a template shows, built from services' reads."""
