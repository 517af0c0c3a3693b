"""Core: what every other layer builds on, depending on nothing else in mctslab.

- :mod:`~mctslab.core.game`: the game API (``State``, ``Game``, ``GameInfo``, chance,
  rules fingerprints);
- :mod:`~mctslab.core.python_state`: ``PythonState``, the base class of a state written
  in plain Python (the rules are the subclass's, the rest is shared);
- :mod:`~mctslab.core.infoset`: the hidden-information API (information keys,
  determinizations, opponent models);
- :mod:`~mctslab.core.fixed_chance`: dice determinization, a state whose chance nodes a
  fixed stream of numbers decides (``pimc:chance=fixed``);
- :mod:`~mctslab.core.registry`: ``make(name, **params)`` and the game registry;
- :mod:`~mctslab.core.errors`: the typed errors (every user error is a ``ValueError``);
- :mod:`~mctslab.core.rng`: the SplitMix64 generator behind every random choice;
- :mod:`~mctslab.core.text`: numbers as a user types them (ASCII digits only);
- :mod:`~mctslab.core.testing`: ``check_game``, the conformance checker;
- :mod:`~mctslab.core.compiled_cache`: numba's on-disk cache, cleared when the sources of
  the compiled code change (imported first by :mod:`mctslab`).

May import: the standard library and numpy only.
"""
