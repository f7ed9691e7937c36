"""The GIF89a encoder: LZW against a reference decoder, files read back by Qt's GIF reader
(exact for up to 256 colours), looping, delays, the palette beyond 256 colours."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice
from PySide6.QtGui import QImage, QImageReader

from posenc_gui.widgets.gif import (
    KEEP_EXACT,
    EncodingCancelledError,
    GifEncoder,
    lzw_encode,
    median_cut,
    pack_rgb,
    unpack_keys,
)


def lzw_decode(data: bytes, min_code_size: int) -> bytes:
    """A plain GIF LZW decoder (the textbook algorithm), to check the encoder bit for bit."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    pos = 0  # bit position
    size = min_code_size + 1
    table: list[bytes] = []
    out = bytearray()
    prev: bytes | None = None

    def reset() -> None:
        nonlocal size, table, prev
        size = min_code_size + 1
        table = [bytes([i]) for i in range(clear)] + [b"", b""]
        prev = None

    reset()
    while True:
        if pos + size > 8 * len(data):
            raise AssertionError("no end code")
        code = (int.from_bytes(data[pos // 8 : pos // 8 + 3], "little") >> (pos % 8)) & (
            (1 << size) - 1
        )
        pos += size
        if code == clear:
            reset()
            continue
        if code == end:
            return bytes(out)
        if prev is None:
            entry = table[code]
        else:
            if code < len(table):
                entry = table[code]
                new = prev + entry[:1]
            else:
                assert code == len(table), f"code {code} beyond the table ({len(table)})"
                entry = new = prev + prev[:1]
            if len(table) < 4096:
                table.append(new)
            if len(table) == (1 << size) and size < 12:
                size += 1
        out += entry
        prev = entry


@pytest.mark.parametrize("min_code_size", [2, 3, 5, 8])
def test_lzw_round_trips_through_a_reference_decoder(min_code_size: int) -> None:
    rng = np.random.default_rng(min_code_size)
    n = 1 << min_code_size
    cases = [b"", b"\x00", bytes([n - 1]) * 3]
    for length in (2, 7, 100, 5000, 40_000):
        cases.append(rng.integers(0, n, length, dtype=np.uint8).tobytes())  # noise: table fills
        runs = np.repeat(rng.integers(0, n, length // 50 + 1), 50)[:length]
        cases.append(runs.astype(np.uint8).tobytes())  # long runs
    for data in cases:
        assert lzw_decode(lzw_encode(data, min_code_size), min_code_size) == data


def _decode_with_qt(data: bytes) -> tuple[list[np.ndarray], int]:
    """Every frame Qt's GIF reader decodes (RGB), and its loop count."""
    raw_bytes = QByteArray(data)
    buf = QBuffer(raw_bytes)
    buf.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buf, b"gif")
    frames = []
    while True:
        image = reader.read()
        if image.isNull():
            break
        img = image.convertToFormat(QImage.Format.Format_RGB888)
        w, h, stride = img.width(), img.height(), img.bytesPerLine()
        raw = np.frombuffer(img.constBits(), np.uint8, count=stride * h)
        frames.append(raw.reshape(h, stride)[:, : 3 * w].reshape(h, w, 3).copy())
    loops = reader.loopCount()
    del reader  # before the buffer it reads
    buf.close()
    return frames, loops


def _frames(colours: int, w: int, h: int, n: int, seed: int = 0) -> list[np.ndarray]:
    """``n`` frames using ``colours`` colours: noise first, then a moving block and a stripe."""
    rng = np.random.default_rng(seed)
    palette = rng.integers(0, 256, (colours, 3), dtype=np.uint8)
    frame = palette[rng.integers(0, colours, (h, w))]
    out = [frame]
    for k in range(1, n):
        frame = frame.copy()
        frame[k % h, :] = palette[k % colours]
        y, x = (3 * k) % max(h - 4, 1), (5 * k) % max(w - 4, 1)
        frame[y : y + 4, x : x + 4] = palette[
            rng.integers(0, colours, (min(4, h - y), min(4, w - x)))
        ]
        out.append(frame)
    return out


def test_qt_reads_the_gif_back_pixel_for_pixel_up_to_256_colours(qapp: object) -> None:
    assert b"gif" in [bytes(f.data()) for f in QImageReader.supportedImageFormats()]
    for colours, (w, h), n in [(2, (5, 3), 3), (7, (40, 30), 4), (256, (97, 61), 6)]:
        frames = _frames(colours, w, h, n, seed=colours)
        enc = GifEncoder(w, h)
        for f in frames:
            enc.add_frame(f, delay_cs=7)
        data = enc.encode()
        back, _ = _decode_with_qt(data)
        assert len(back) == n
        for a, b in zip(back, frames, strict=True):
            np.testing.assert_array_equal(a, b)
        pal, _ = enc.palette()
        assert len(pal) == enc.colour_count <= colours


def test_header_loop_and_delays(qapp: object) -> None:
    enc = GifEncoder(8, 4, loop=0)
    frames = _frames(3, 8, 4, 3)
    for f, d in zip(frames, (5, 1, 300), strict=True):
        enc.add_frame(f, delay_cs=d)
    data = enc.encode()
    assert data[:6] == b"GIF89a" and data[-1] == 0x3B
    assert struct.unpack("<HH", data[6:10]) == (8, 4)
    assert b"NETSCAPE2.0\x03\x01\x00\x00\x00" in data  # loop for ever
    back, loops = _decode_with_qt(data)
    assert len(back) == 3 and loops == -1  # Qt: -1 = for ever
    # delays (hundredths; below 2 is raised to 2) in the Graphic Control Extensions
    gce = [struct.unpack("<H", data[i + 4 : i + 6])[0] for i in _find_all(data, b"\x21\xf9\x04")]
    assert gce == [5, 2, 300]


def _find_all(data: bytes, needle: bytes) -> list[int]:
    out, i = [], data.find(needle)
    while i >= 0:
        out.append(i)
        i = data.find(needle, i + 1)
    return out


def test_only_the_changed_rectangle_is_stored(qapp: object) -> None:
    base = np.zeros((50, 80, 3), dtype=np.uint8)
    moved = base.copy()
    moved[10:13, 20:30] = 255
    enc = GifEncoder(80, 50)
    for f in (base, moved, moved):
        enc.add_frame(f)
    data = enc.encode()
    descriptors = [struct.unpack("<HHHH", data[i + 1 : i + 9]) for i in _find_all(data, b"\x2c")]
    descriptors = [d for d in descriptors if d[2] and d[3]][:3]
    assert descriptors[1] == (20, 10, 10, 3)  # left, top, width, height
    assert descriptors[2][2:] == (1, 1)  # nothing changed: one pixel
    back, _ = _decode_with_qt(data)
    np.testing.assert_array_equal(back[2], moved)


def test_more_than_256_colours_keep_the_frequent_ones_exact(qapp: object) -> None:
    rng = np.random.default_rng(1)
    frame = np.full((60, 90, 3), 250, dtype=np.uint8)  # a background
    frame[:20, :] = (10, 20, 30)  # a solid plot colour
    frame[40:, :] = rng.integers(0, 256, (20, 90, 3), dtype=np.uint8)  # 1800 noisy colours
    enc = GifEncoder(90, 60)
    enc.add_frame(frame)
    assert enc.colour_count > 256
    pal, _ = enc.palette()
    assert len(pal) == 256 and len({tuple(c) for c in pal}) >= KEEP_EXACT
    (back,), _ = _decode_with_qt(enc.encode())
    np.testing.assert_array_equal(back[:40], frame[:40])  # frequent colours: exact
    err = np.abs(back[40:].astype(int) - frame[40:].astype(int))
    assert err.mean() < 20 and err.max() < 128  # the rest: near


def test_median_cut_and_packing() -> None:
    rgb = np.array([[0, 0, 0], [0, 0, 10], [255, 255, 255], [250, 255, 255]], dtype=np.float64)
    boxes = median_cut(rgb, np.array([1.0, 1.0, 1.0, 3.0]), 2)
    assert sorted(boxes[:, 0].round().tolist()) == [0.0, 251.0]
    px = np.array([[[1, 2, 3], [255, 0, 128]]], dtype=np.uint8)
    np.testing.assert_array_equal(unpack_keys(pack_rgb(px)), px)


def test_bad_frames_and_cancelling() -> None:
    enc = GifEncoder(4, 3)
    with pytest.raises(ValueError, match="frame is"):
        enc.add_frame(np.zeros((4, 4, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="uint8"):
        enc.add_frame(np.zeros((3, 4, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="no frames"):
        enc.encode()
    with pytest.raises(ValueError, match="65535"):
        GifEncoder(0, 3)
    enc.add_frame(np.zeros((3, 4, 3), dtype=np.uint8))
    enc.add_frame(np.ones((3, 4, 3), dtype=np.uint8))
    with pytest.raises(EncodingCancelledError):
        enc.encode(lambda k: k < 1)
