"""A small animated-GIF (GIF89a) encoder: numpy and the standard library, no Qt, no new dependency.

Qt reads GIF but cannot write it, so animation export writes its own:

- **One global palette** of at most 256 colours for every frame. When all frames together use
  256 colours or fewer, the palette is exactly those colours and the GIF is lossless. Otherwise
  the :data:`KEEP_EXACT` most frequent colours (background, text, the plot colours) are kept
  exactly and the rest of the palette comes from a weighted *median cut* of the remaining
  colours; every colour is drawn as its nearest palette entry.
- **Only what changed** is stored: a frame after the first is the smallest rectangle that
  differs from the frame before, drawn over it (disposal "do not dispose").
- **LZW** compression with variable code width (3 … 12 bits) and a clear code when the table is
  full, data in sub-blocks of at most 255 bytes.
- **Looping** through the NETSCAPE2.0 application extension (0 = for ever) and a per-frame delay
  in hundredths of a second (a Graphic Control Extension before each frame).

Usage::

    enc = GifEncoder(width, height)
    for rgb in frames:                # uint8 arrays (height, width, 3)
        enc.add_frame(rgb, delay_cs=10)
    data = enc.encode()               # bytes of the whole file
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: When the frames use more than 256 colours, this many of the most frequent ones stay exact.
KEEP_EXACT = 96
MAX_COLOURS = 256
#: Delays below 2/100 s are shown as 1/10 s by most browsers: never write one.
MIN_DELAY_CS = 2


class EncodingCancelledError(Exception):
    """Raised by :meth:`GifEncoder.encode` when its ``progress`` callback asks to stop."""


@dataclass
class _Frame:
    left: int
    top: int
    keys: np.ndarray  # (h, w) uint32 packed 0xRRGGBB
    delay_cs: int


def pack_rgb(rgb: np.ndarray) -> np.ndarray:
    """``(h, w, 3)`` uint8 → ``(h, w)`` uint32 ``0xRRGGBB``."""
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected a (height, width, 3) uint8 array, got {rgb.shape} {rgb.dtype}")
    a = rgb.astype(np.uint32)
    out: np.ndarray = (a[..., 0] << 16) | (a[..., 1] << 8) | a[..., 2]
    return out


def unpack_keys(keys: np.ndarray) -> np.ndarray:
    """``0xRRGGBB`` uint32 → ``(..., 3)`` uint8."""
    k = np.asarray(keys, dtype=np.uint32)
    return np.stack([(k >> 16) & 255, (k >> 8) & 255, k & 255], axis=-1).astype(np.uint8)


class GifEncoder:
    """Collects frames of one size, then writes a looping GIF89a (see the module doc)."""

    def __init__(self, width: int, height: int, *, loop: int = 0) -> None:
        if not (1 <= width <= 65535 and 1 <= height <= 65535):
            raise ValueError(f"a GIF is 1 … 65535 pixels a side, got {width} × {height}")
        self.width, self.height, self.loop = width, height, loop
        self._frames: list[_Frame] = []
        self._previous: np.ndarray | None = None
        self._colours = np.zeros(0, dtype=np.uint32)  # sorted unique keys seen so far
        self._counts = np.zeros(0, dtype=np.int64)

    def __len__(self) -> int:
        return len(self._frames)

    def add_frame(self, rgb: np.ndarray, delay_cs: int = 10) -> None:
        """Append a frame (``(height, width, 3)`` uint8) shown for ``delay_cs`` / 100 s."""
        keys = pack_rgb(rgb)
        if keys.shape != (self.height, self.width):
            raise ValueError(
                f"frame is {keys.shape[1]} × {keys.shape[0]}, the GIF {self.width} × {self.height}"
            )
        left = top = 0
        crop = keys
        if self._previous is not None:
            changed = keys != self._previous
            rows, cols = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
            if rows.size == 0:  # nothing changed: one pixel, drawn again as it is
                rows, cols = np.array([0]), np.array([0])
            top, left = int(rows[0]), int(cols[0])
            crop = keys[top : int(rows[-1]) + 1, left : int(cols[-1]) + 1]
        self._previous = keys
        self._frames.append(_Frame(left, top, np.ascontiguousarray(crop), _delay(delay_cs)))
        self._count(crop)

    def _count(self, keys: np.ndarray) -> None:
        u, c = np.unique(keys, return_counts=True)
        both = np.concatenate([self._colours, u])
        weights = np.concatenate([self._counts, c.astype(np.int64)])
        self._colours, inverse = np.unique(both, return_inverse=True)
        self._counts = np.bincount(inverse, weights=weights).astype(np.int64)

    @property
    def colour_count(self) -> int:
        """Distinct colours in the stored frames."""
        return int(self._colours.size)

    def palette(self) -> tuple[np.ndarray, np.ndarray]:
        """``(palette (n, 3) uint8, index of each distinct colour into it)``."""
        colours, counts = self._colours, self._counts
        if colours.size == 0:
            raise ValueError("no frames")
        if colours.size <= MAX_COLOURS:
            return unpack_keys(colours), np.arange(colours.size)
        order = np.argsort(-counts, kind="stable")
        exact = order[:KEEP_EXACT]
        rest = order[KEEP_EXACT:]
        rgb = unpack_keys(colours).astype(np.float64)
        boxes = median_cut(rgb[rest], counts[rest].astype(np.float64), MAX_COLOURS - KEEP_EXACT)
        pal = np.concatenate([rgb[exact], boxes]).round().clip(0, 255).astype(np.uint8)
        index = nearest(rgb, pal.astype(np.float64))
        index[exact] = np.arange(exact.size)  # exact colours map to themselves
        return pal, index

    def encode(self, progress: Callable[[int], bool] | None = None) -> bytes:
        """The GIF file. ``progress(k)`` is called before frame ``k`` is compressed; returning
        ``False`` stops with :class:`EncodingCancelledError`."""
        if not self._frames:
            raise ValueError("no frames")
        pal, index = self.palette()
        bits = max(1, int(np.ceil(np.log2(max(len(pal), 2)))))
        table = np.zeros((1 << bits, 3), dtype=np.uint8)
        table[: len(pal)] = pal
        out = bytearray(b"GIF89a")
        out += struct.pack("<HHBBB", self.width, self.height, 0x80 | 0x70 | (bits - 1), 0, 0)
        out += table.tobytes()
        out += b"\x21\xff\x0bNETSCAPE2.0\x03\x01" + struct.pack("<H", self.loop) + b"\x00"
        lookup = index.astype(np.uint8)
        for k, f in enumerate(self._frames):
            if progress is not None and not progress(k):
                raise EncodingCancelledError
            h, w = f.keys.shape
            # Graphic Control Extension: disposal 1 (leave in place), no transparency
            out += b"\x21\xf9\x04" + struct.pack("<BHB", 1 << 2, f.delay_cs, 0) + b"\x00"
            out += b"\x2c" + struct.pack("<HHHHB", f.left, f.top, w, h, 0)
            pixels = lookup[np.searchsorted(self._colours, f.keys.reshape(-1))]
            code_size = max(2, bits)
            out.append(code_size)
            data = lzw_encode(pixels.tobytes(), code_size)
            for start in range(0, len(data), 255):
                chunk = data[start : start + 255]
                out.append(len(chunk))
                out += chunk
            out.append(0)
        out.append(0x3B)
        return bytes(out)


def _delay(cs: int) -> int:
    return min(max(int(cs), MIN_DELAY_CS), 65535)


def median_cut(colours: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    """At most ``n`` representative colours of ``colours`` ``(m, 3)`` (float) weighted by pixel
    counts: split the box with the largest weighted spread at its weighted median along its
    longest side until there are ``n`` boxes; each box gives its weighted mean."""
    if len(colours) == 0 or n <= 0:
        return np.zeros((0, 3))
    boxes = [np.arange(len(colours))]
    while len(boxes) < n:
        best, best_score, axis = -1, 0.0, 0
        for i, b in enumerate(boxes):
            if len(b) < 2:
                continue
            c = colours[b]
            spans = c.max(axis=0) - c.min(axis=0)
            ax = int(np.argmax(spans))
            score = float(spans[ax]) * float(weights[b].sum())
            if score > best_score:
                best, best_score, axis = i, score, ax
        if best < 0:
            break
        b = boxes.pop(best)
        b = b[np.argsort(colours[b, axis], kind="stable")]
        cum = np.cumsum(weights[b])
        cut = int(np.searchsorted(cum, cum[-1] / 2))
        cut = min(max(cut, 1), len(b) - 1)
        boxes += [b[:cut], b[cut:]]
    return np.array([np.average(colours[b], axis=0, weights=weights[b]) for b in boxes])


def nearest(colours: np.ndarray, palette: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """Index of the nearest ``palette`` entry (squared RGB distance) for each of ``colours``."""
    out = np.empty(len(colours), dtype=np.int64)
    p2 = (palette * palette).sum(axis=1)
    for s in range(0, len(colours), chunk):
        c = colours[s : s + chunk]
        d = p2[None, :] - 2.0 * c @ palette.T  # |c|² is the same for every entry
        out[s : s + chunk] = np.argmin(d, axis=1)
    return out


def _packed(out: bytearray, acc: int, nacc: int) -> bytes:
    """``out`` with the ``nacc`` bits left in ``acc`` appended (the last byte zero-padded)."""
    while nacc > 0:
        out.append(acc & 255)
        acc >>= 8
        nacc -= 8
    return bytes(out)


def _after_last_code(next_code: int, size: int) -> int:
    """The code width after the last data code: the decoder adds a table entry for it (when
    the table is not full) and may widen before it reads the end code."""
    if next_code < 4096 and next_code + 1 > (1 << size) and size < 12:
        return size + 1
    return size


def lzw_encode(data: bytes, min_code_size: int) -> bytes:
    """GIF's variable-width LZW of ``data`` (palette indices below ``2**min_code_size``).

    Starts with a clear code, widens codes as the table grows (up to 12 bits), clears the table
    when it is full, ends with the end-of-information code; bits packed least significant first.
    """
    clear = 1 << min_code_size
    end = clear + 1
    size = min_code_size + 1
    if not data:
        return _packed(bytearray(), clear | (end << size), 2 * size)
    out = bytearray()
    acc = clear  # bit accumulator, holding the clear code
    nacc = size
    table: dict[int, int] = {}
    next_code = end + 1
    limit = 1 << size
    get = table.get
    w = data[0]
    for c in data[1:]:  # (the hot loop: kept inline, no calls but dict look-ups)
        key = (w << 8) | c
        code = get(key)
        if code is not None:
            w = code
            continue
        acc |= w << nacc
        nacc += size
        while nacc >= 8:
            out.append(acc & 255)
            acc >>= 8
            nacc -= 8
        if next_code < 4096:
            table[key] = next_code
            next_code += 1
            if next_code > limit and size < 12:
                size += 1
                limit <<= 1
        else:  # table full: start again
            acc |= clear << nacc
            nacc += size
            table.clear()
            next_code = end + 1
            size = min_code_size + 1
            limit = 1 << size
        w = c
    acc |= w << nacc
    nacc += size
    size = _after_last_code(next_code, size)
    acc |= end << nacc
    nacc += size
    return _packed(out, acc, nacc)
