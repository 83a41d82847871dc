"""``python -m kernelbandits``: the same as the ``kernelbandits`` command."""

import sys

from kernelbandits.cli import main

if __name__ == "__main__":
    sys.exit(main())
