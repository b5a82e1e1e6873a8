"""A batch's plots as PNG, for slides: the page's own Vega-Lite specs (view/batch.py), drawn by vl-convert (Vega's
renderer, no browser), with a title, at twice the pixels for a projector's or a slide's size."""

import vl_convert

from view.batch import dataset_spec, loss_spec

WIDTH = 800  # px of the plot's area; the PNG is twice as many pixels (SCALE), as sharp on a 1920-px slide
SCALE = 2
VEGA_LITE = '6.1'  # as near Streamlit's Vega-Lite 6 as vl-convert holds


def plot_png(spec, title):
    """`spec` (a Vega-Lite dict) as PNG bytes, WIDTH wide, with `title` above it. A spec of the page's bounded
    data (at most engine.batch.MAX_POINTS points, MAX_STEPS losses) draws in a fraction of a second."""
    spec = {**spec, 'width': WIDTH, 'title': {'text': title, 'anchor': 'start', 'fontSize': 18}}
    return vl_convert.vegalite_to_png(spec, vl_version=VEGA_LITE, scale=SCALE)


def data_png(learning, arrived=None):
    """The data and the parameters' line (or clusters), as the page plots them."""
    spec = dataset_spec(learning, arrived)
    return plot_png(spec, spec['description'].split(':')[0] + ', and what the parameters make of it')


def loss_png(losses):
    """The mean loss over the data after each step."""
    return plot_png(loss_spec(losses), f'The mean loss over the data, after 0 to {len(losses) - 1} steps')
