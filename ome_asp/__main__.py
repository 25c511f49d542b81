"""`python -m ome_asp`: the installed command (ome_asp.console)."""

from ome_asp.console import main

if __name__ == "__main__":
    main()
