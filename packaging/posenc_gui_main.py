"""Entry script of the PyInstaller bundle: the ``posenc-gui`` command (window and subcommands)."""

import sys

from posenc_gui.cli import main

if __name__ == "__main__":
    sys.exit(main())
