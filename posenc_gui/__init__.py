"""PosEnc Explorer: positional encodings in Transformers, made tangible.

The package is layered one way only::

    cli -> app -> main_window -> panels -> widgets -> state -> core

``posenc_gui.core`` is pure torch (usable from a notebook); ``posenc_gui.state`` holds the
Qt-free parameter models of every tab. Importing this package imports no Qt and no torch.
"""

__version__ = "0.1.0"

APP_NAME = "PosEnc Explorer"
ORG_NAME = "PosEncExplorer"

__all__ = ["APP_NAME", "ORG_NAME", "__version__"]
