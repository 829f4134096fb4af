"""Bias measures: one module per method; each turns items + a model adapter into a Result."""
