"""Reusable Qt pieces: two-way binding, labelled controls, plot helpers, number formatting."""
