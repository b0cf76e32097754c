"""ezdxf's drawing add-on (matplotlib), an independent DXF renderer, against a
rendering of the same drawing by tilecut over the same frame.

usage: dxf-ink-compare.py [--turn DEGREES] DRAWING X0 YTOP UNITS_PER_PIXEL TILECUT_PNG [OUT_PNG]

The frame: drawing point (X0, YTOP) is the top-left corner of the PNG, one pixel
UNITS_PER_PIXEL drawing units. With --turn, ezdxf first turns model space by DEGREES
(anticlockwise, about the drawing's origin), and the frame is the turned drawing's. Prints JSON: ink recall (ezdxf's ink that tilecut
drew within 2 px), precision (tilecut's ink within 2 px of ezdxf's), and the shift
(in pixels) that best aligns the two inks, searched over -2..2 in x and y, the same
to a hundredth of a pixel (subpixel_shift, from their darkness' cross-correlation), and the
text recall: the ink of ezdxf's texts alone (TEXT, MTEXT, ATTRIB, in blocks and
dimensions too) that tilecut drew within 2 px.
"""
import json
import sys

import ezdxf
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from ezdxf.addons.drawing import Frontend, RenderContext
from ezdxf.addons.drawing.config import Configuration, BackgroundPolicy, ColorPolicy, LineweightPolicy
from ezdxf.addons.drawing.matplotlib import MatplotlibBackend

args = sys.argv[1:]
turn = 0.0
if args[:1] == ["--turn"]:
    turn, args = float(args[1]), args[2:]
path, x0, ytop, upp, mine_path = args[0], float(args[1]), float(args[2]), float(args[3]), args[4]
out_path = args[5] if len(args) > 5 else "/dev/null"
mine = plt.imread(mine_path)
height, width = mine.shape[0], mine.shape[1]
dpi = 100
doc = ezdxf.readfile(path)
if turn:
    from ezdxf.math import Matrix44

    rotation = Matrix44.z_rotate(np.radians(turn))
    for entity in doc.modelspace():
        entity.transform(rotation)
config = Configuration(
    background_policy=BackgroundPolicy.WHITE,
    color_policy=ColorPolicy.COLOR,
    lineweight_policy=LineweightPolicy.ABSOLUTE,
    min_lineweight=0.24,
)
TEXTS = {"TEXT", "MTEXT", "ATTRIB"}


def render(out, texts_only):
    """ezdxf's rendering of model space over the frame, RGB; only its texts when asked."""
    fig = plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_axis_off()
    # the frame's limits are set below: the data limits matplotlib works out for every
    # patch the backend adds (a third of a plan's CPU here) are never used
    ax._update_patch_limits = lambda patch: None
    frontend = Frontend(RenderContext(doc), MatplotlibBackend(ax, adjust_figure=False), config=config)
    if texts_only:

        def only_texts(entity, properties):
            if entity.dxftype() not in TEXTS:
                properties.is_visible = False

        frontend.push_property_override_function(only_texts)
    frontend.draw_layout(doc.modelspace(), finalize=False)
    ax.set_xlim(x0, x0 + width * upp)
    ax.set_ylim(ytop - height * upp, ytop)
    ax.set_aspect("auto")
    if out != "/dev/null":
        fig.savefig(out, dpi=dpi, format="png", facecolor="white")
    fig.canvas.draw()
    rgb = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].astype(np.int32)
    plt.close(fig)
    return rgb


theirs = render(out_path, False)
text_theirs = render("/dev/null", True)


def ink(rgb):
    return rgb.min(axis=2) < 230


if mine.dtype != np.uint8:
    mine = (mine * 255).round()
mine = mine.astype(np.int32)
alpha = mine[:, :, 3:4] if mine.shape[2] == 4 else 255
on_white = mine[:, :, :3] * alpha // 255 + (255 - alpha)
a = ink(theirs[:height, :width])
t = ink(text_theirs[:height, :width])
b = ink(on_white)


def dilate(m, r):
    out = np.zeros_like(m)
    p = np.pad(m, r)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            out |= p[dy : dy + m.shape[0], dx : dx + m.shape[1]]
    return out


def shifted(m, dx, dy):
    return np.roll(np.roll(m, dy, axis=0), dx, axis=1)


recall = float((a & dilate(b, 2)).sum() / max(1, a.sum()))
precision = float((b & dilate(a, 2)).sum() / max(1, b.sum()))
text_recall = float((t & dilate(b, 2)).sum() / t.sum()) if t.sum() else 1.0


def subpixel_shift(m, t):
    """The shift (x, y, in pixels, to a hundredth) that best aligns darkness `t` with `m`:
    the peak of their circular cross-correlation, refined by a parabola through its
    neighbours."""
    c = np.real(np.fft.ifft2(np.fft.fft2(m) * np.conj(np.fft.fft2(t))))
    h, w = c.shape
    iy, ix = np.unravel_index(np.argmax(c), c.shape)

    def vertex(lo, mid, hi):
        d = lo - 2 * mid + hi
        return 0.5 * (lo - hi) / d if d else 0.0

    dx = ix + vertex(c[iy, ix - 1], c[iy, ix], c[iy, (ix + 1) % w])
    dy = iy + vertex(c[iy - 1, ix], c[iy, ix], c[(iy + 1) % h, ix])
    return [round(float(dx - w if dx > w / 2 else dx), 2), round(float(dy - h if dy > h / 2 else dy), 2)]


darkness = lambda rgb: (255 - rgb.min(axis=2)).astype(np.float64)
fine = subpixel_shift(darkness(on_white), darkness(theirs[:height, :width]))
best = max(((int((shifted(b, dx, dy) & a).sum()), dx, dy) for dx in range(-2, 3) for dy in range(-2, 3)))
print(json.dumps({"recall": recall, "precision": precision, "text_recall": text_recall, "ink_text_ezdxf": int(t.sum()), "ink_ezdxf": int(a.sum()), "ink_tilecut": int(b.sum()), "shift": [best[1], best[2]], "subpixel_shift": fine, "overlap": best[0], "overlap_unshifted": int((a & b).sum())}))
