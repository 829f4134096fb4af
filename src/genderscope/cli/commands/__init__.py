"""One module per command; each defines ``register(app, run_app)``."""
