"""Qt-free, evented parameter state of every tab (scalars only; tensors are derived in panels)."""

from posenc_gui.state.model import Limits, ParamState, TabModel
from posenc_gui.state.params import (
    Param,
    ParamError,
    Value,
    bool_param,
    choice_param,
    float_param,
    int_param,
)

__all__ = [
    "Limits",
    "Param",
    "ParamError",
    "ParamState",
    "TabModel",
    "Value",
    "bool_param",
    "choice_param",
    "float_param",
    "int_param",
]
