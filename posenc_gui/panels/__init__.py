"""The tabs' Qt panels, in display order (``PANELS`` mirrors ``state.registry.MODELS``)."""

from __future__ import annotations

from posenc_gui.panels.base import Panel
from posenc_gui.panels.sine import SinePanel

PANELS: dict[str, type[Panel]] = {p.model.id: p for p in (SinePanel,)}

__all__ = ["PANELS", "Panel"]
