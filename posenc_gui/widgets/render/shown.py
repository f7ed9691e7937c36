"""What a panel's items show now, so that a refresh sets an item again only when that changed.

:class:`Shown` keeps, per name, the value an item was last set from (a table's key, a range, a
pair of levels). A refresh runs when any of its view's inputs changed, but most of its items
often show the same thing as before (a seed step keeps the plot's range; a mode switch keeps
the image). Setting one again still costs: pyqtgraph copies the data, recomputes its bounds and
repaints the item (an image its whole rectangle, a range both axes and everything on the plot).
Values compare as view keys do (:func:`~posenc_gui.widgets.views.same_key`: arrays by content).
"""

from __future__ import annotations

from posenc_gui.widgets.views import same_key


class Shown:
    """Last values by name: :meth:`changed` says whether an item must be set again."""

    def __init__(self) -> None:
        self._values: dict[str, object] = {}

    def changed(self, name: str, value: object) -> bool:
        """Whether ``value`` differs from what ``name`` showed last (and remember it)."""
        if name in self._values and same_key(self._values[name], value):
            return False
        self._values[name] = value
        return True

    def forget(self, name: str) -> None:
        """The item ``name`` shows something else now: the next :meth:`changed` is True."""
        self._values.pop(name, None)
