"""``python -m genderscope``: the same command line as ``genderscope``."""

from genderscope.cli.app import main

if __name__ == "__main__":
    main()
