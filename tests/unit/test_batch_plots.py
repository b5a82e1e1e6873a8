"""A batch's plots as PNG (exports/plots.py), opened as people open a picture (Pillow): sharp enough for a slide,
and drawing what the page's plot draws: the data's dots in ink, the parameters' line in blue, the shown point's
ring in vermillion; the loss's line."""

import io

from PIL import Image

from engine import PRESETS, batch
from exports.plots import SCALE, WIDTH, data_png, loss_png
from view import palette
from view.batch import BatchLearning

REGRESSION = PRESETS['regression']


def learning(steps=3, point=4):
    data = batch.example(REGRESSION)
    descent = batch.descend(REGRESSION, {'w': 0.5, 'b': 0.0}, data, 0.1, steps)
    return BatchLearning(data, point, 0.1, descent, batch.step(REGRESSION, descent.values[-1], data, 0.1), False)


def colours(png):
    with Image.open(io.BytesIO(png)) as image:
        assert image.format == 'PNG'
        rgb = image.convert('RGB')
        return rgb.size, {colour for _, colour in rgb.getcolors(1 << 20)}


def near(colours, hex_colour, tolerance=24):
    target = tuple(int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return any(all(abs(a - b) <= tolerance for a, b in zip(c, target)) for c in colours)


def test_the_datas_plot_is_a_sharp_png_with_the_dots_the_line_and_the_shown_points_ring():
    (width, height), seen = colours(data_png(learning()))
    assert width >= WIDTH * SCALE and height >= 300
    assert near(seen, palette.INK) and near(seen, palette.PLOT_LINE) and near(seen, palette.ACTIVE)


def test_the_loss_plot_is_a_png_of_the_loss_line():
    (width, _), seen = colours(loss_png(learning(steps=10).descent.losses))
    assert width >= WIDTH * SCALE and near(seen, palette.INK)


def test_a_class_plot_draws_the_points_not_in_faint_with_no_ring():
    (_, _), seen = colours(data_png(learning(), arrived={0, 1, 2}))
    assert not near(seen, palette.ACTIVE, tolerance=8)  # no point is ringed on the projector's plot
