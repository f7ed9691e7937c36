"""Tools that drive the whole application for testing (the randomized GUI driver)."""
