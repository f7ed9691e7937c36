"""The main window's controllers: one per job of the window (sessions, export, decks, ...).

A controller is a ``QObject`` child of the window. It receives what it works on when it is
built (the tab widget, the session, the panels built so far, the :class:`Messages` of the
window, other controllers) as a :class:`~posenc_gui.controllers.common.WindowParts`, and never
imports :mod:`posenc_gui.main_window`: the window composes controllers, controllers do not know
the window. Dialogs are parented to the controller's parent widget, asked for when needed
(``self.parent()``), so no controller holds a Python reference to the window.

Each controller builds its own menu entries (``build_menu``): the window only orders them.
"""
