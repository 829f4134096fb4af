"""Dataset loaders and generators: typed items, clear errors with file:line."""
