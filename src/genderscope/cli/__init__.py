"""Command-line interface (Typer). Commands live one module each in
:mod:`genderscope.cli.commands`; each exposes ``register(app, run_app)``."""
