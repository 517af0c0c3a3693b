"""Networks: policy-value networks for PUCT's evaluators (the ``nn`` extra, PyTorch).

- :mod:`~mctslab.nn.networks`: AlphaZero's residual tower over board observations and a
  small MLP over flat ones, sized by options, made for a game by ``make_network``;
- :mod:`~mctslab.nn.checkpoint`: a network's weights saved with its game and sizes,
  written atomically, loaded back with one clear error for any file that does not fit.

Imports PyTorch; nothing below it does (``mctslab`` itself runs without the extra).
May import: :mod:`mctslab.search` and the layers below it.
"""
