"""ezdxf's drawing add-on (matplotlib), an independent DXF renderer, against a
rendering of the same drawing by tilecut over the same frame.

usage: dxf-ink-compare.py DRAWING X0 YTOP UNITS_PER_PIXEL TILECUT_PNG [OUT_PNG]

The frame: drawing point (X0, YTOP) is the top-left corner of the PNG, one pixel
UNITS_PER_PIXEL drawing units. Prints JSON: ink recall (ezdxf's ink that tilecut
drew within 2 px), precision (tilecut's ink within 2 px of ezdxf's), and the shift
(in pixels) that best aligns the two inks, searched over -2..2 in x and y, and the
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

path, x0, ytop, upp, mine_path = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
mine = plt.imread(mine_path)
height, width = mine.shape[0], mine.shape[1]
dpi = 100
doc = ezdxf.readfile(path)
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
    fig.savefig(out, dpi=dpi, format="png", facecolor="white")
    fig.canvas.draw()
    rgb = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].astype(np.int32)
    plt.close(fig)
    return rgb


theirs = render(sys.argv[6] if len(sys.argv) > 6 else "/dev/null", False)
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
best = max(((int((shifted(b, dx, dy) & a).sum()), dx, dy) for dx in range(-2, 3) for dy in range(-2, 3)))
print(json.dumps({"recall": recall, "precision": precision, "text_recall": text_recall, "ink_text_ezdxf": int(t.sum()), "ink_ezdxf": int(a.sum()), "ink_tilecut": int(b.sum()), "shift": [best[1], best[2]], "overlap": best[0], "overlap_unshifted": int((a & b).sum())}))
