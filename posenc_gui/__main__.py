"""``python -m posenc_gui`` is the same as the ``posenc-gui`` command."""

import sys

from posenc_gui.cli import main

sys.exit(main())
