"""A batch's plots as PNG, for slides: the page's own Vega-Lite specs (view/batch.py), drawn by vl-convert (Vega's
renderer, no browser), at twice the pixels for a projector's or a slide's size; alone with a title in the picture,
or as the deck's last pages, their titles the slides'."""

import vl_convert

from view.batch import dataset_spec, loss_spec

WIDTH, HEIGHT = 800, 400  # px of the plot's area, a slide's room under its title; the PNG is twice as many pixels
# (SCALE), as sharp on a 1920-px slide, its texts as large as the projector's (view.batch's `big`)
SCALE = 2
VEGA_LITE = '6.1'  # as near Streamlit's Vega-Lite 6 as vl-convert holds


def plot_png(spec, title=None):
    """`spec` (a Vega-Lite dict) as PNG bytes, WIDTH wide, with `title` above it where given. A spec of the page's
    bounded data (at most engine.batch.MAX_POINTS points, MAX_STEPS losses) draws in a fraction of a second."""
    spec = {**spec, 'width': WIDTH, 'height': HEIGHT}
    if title:
        spec['title'] = {'text': title, 'anchor': 'start', 'fontSize': 20}
    return vl_convert.vegalite_to_png(spec, vl_version=VEGA_LITE, scale=SCALE)


def data_title(learning):
    return f'The data, {len(learning.dataset)} points, and what the parameters make of it'


def loss_title(losses):
    return f'The mean loss over the data, after 0 to {len(losses) - 1} steps'


def data_png(learning, arrived=None, titled=True):
    """The data and the parameters' line (or clusters), as the page plots them."""
    return plot_png(dataset_spec(learning, arrived, big=True), data_title(learning) if titled else None)


def loss_png(losses, titled=True):
    """The mean loss over the data after each step."""
    return plot_png(loss_spec(losses, big=True), loss_title(losses) if titled else None)


def batch_pages(learning):
    """The deck's last pages for a batch: [(title, PNG)], the data and the loss over the steps taken."""
    losses = learning.descent.losses
    return [(data_title(learning), data_png(learning, titled=False)), (loss_title(losses), loss_png(losses, False))]
