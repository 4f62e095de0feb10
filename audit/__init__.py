"""Dice fairness audit: statistics on recorded throws (scipy)."""
