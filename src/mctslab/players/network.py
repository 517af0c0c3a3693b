"""Players guided by a trained network: ``az:`` (PUCT with the network's priors and value,
AlphaZero's player) and ``policy:`` (the network's policy alone, no search).

Spec strings::

    az:model=connect_four,simulations=200        # the shipped Connect Four network
    az:model=runs/c4/checkpoints/gen-0012.pt     # a checkpoint by path
    az:model=connect_four,simulations=64,gumbel=1
    policy:model=connect_four                    # the most probable legal move
    policy:model=connect_four,temperature=1      # a move drawn from the policy

``model`` is the name of a network shipped in the package (:func:`shipped_models`:
``connect_four``, ``tic_tac_toe``) or the path of a checkpoint written by
:func:`mctslab.nn.checkpoint.save_checkpoint` (``mctslab train`` writes them). ``az:``
takes every ``puct:`` option but ``evaluator`` (:func:`~mctslab.players.player.puct_config`);
its default budget is :data:`AZ_SIMULATIONS`. Networks need the ``nn`` extra (PyTorch);
a spec is checked when the player is made (the model exists, is a checkpoint, plays this
game) and the network is loaded at the first move, where the game's parameters are
known (a Connect Four network of 6x7 refuses a 5x4 board: ``CheckpointError``).
Loaded networks are shared by the players of one process (keyed by the file's path,
size and modification time).

**Inference backend** (``az:...,backend=auto|onnx|torch``): the network runs in ONNX
Runtime where it can (:func:`network_evaluator`; several times PyTorch's evaluations a
second at the small batches a search asks for: ``benchmarks/bench_inference.py``), else
in PyTorch. ``onnx`` needs ``onnxruntime`` and either the ``.onnx`` file beside the
checkpoint (the shipped networks have theirs) or the ``onnx`` package to export it; an
ONNX network is checked against PyTorch's outputs on a few positions when it is loaded
(a stale ``.onnx`` is refused). ``auto`` (the default) uses ONNX when that works and says
why not otherwise; the player's ``backend`` and ``backend_note`` attributes say which ran.
"""

from __future__ import annotations

import json
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mctslab.core.errors import InvalidSpecError
from mctslab.core.game import GameInfo, State
from mctslab.core.registry import games_with
from mctslab.core.rng import Rng

__all__ = [
    "AZ_SIMULATIONS",
    "BACKENDS",
    "NETWORK_KINDS",
    "NetworkPolicyPlayer",
    "check_model",
    "load_model",
    "make_network_player",
    "model_card",
    "network_evaluator",
    "network_game",
    "observed_games",
    "resolve_model",
    "shipped_models",
]

#: The player kinds of this module.
NETWORK_KINDS = ("az", "policy")
#: ``az:``'s default budget (simulations a move).
AZ_SIMULATIONS = 200
#: Where ``az:`` runs its network (``backend=``): the fastest available, ONNX Runtime, PyTorch.
BACKENDS = ("auto", "onnx", "torch")
#: An ONNX network may differ from PyTorch's by float32 rounding, not more.
ONNX_TOLERANCE = 1e-4
#: How much longer than twice its checkpoint an ``.onnx`` sidecar may be (a shipped
#: network's graph is 245 KB beside its 261 KB checkpoint).
ONNX_SLACK_BYTES = 16 * 1024**2

_MODELS_PACKAGE = "mctslab.nn"
_MODELS_DIR = "models"
_cache: dict[tuple[str, int, int, str], Any] = {}
_cache_lock = threading.Lock()
_CACHE_SIZE = 8


def _models_dir() -> Path:
    return Path(str(resources.files(_MODELS_PACKAGE).joinpath(_MODELS_DIR)))


def shipped_models() -> dict[str, Path]:
    """The networks shipped in the package: name -> checkpoint path."""
    folder = _models_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.pt"))}


def model_card(name_or_path: str) -> dict[str, Any]:
    """The sidecar JSON of a model (``NAME.json`` beside ``NAME.pt``: how it was trained
    and what it scored), ``{}`` where there is none."""
    path = resolve_model(name_or_path).with_suffix(".json")
    if not path.is_file():
        return {}
    card: dict[str, Any] = json.loads(path.read_text())
    return card


def resolve_model(name_or_path: str) -> Path:
    """The checkpoint file a ``model=`` option names: a shipped model's name or a path.
    Raises :class:`InvalidSpecError` if it names neither."""
    shipped = shipped_models()
    if name_or_path in shipped:
        return shipped[name_or_path]
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path.resolve()
    names = ", ".join(shipped) or "none"
    raise InvalidSpecError(
        f"unknown model {name_or_path!r}: neither a shipped model ({names}) nor a file"
    )


def _checkpoint_module() -> Any:
    try:
        from mctslab.nn import checkpoint
    except ImportError as err:  # pragma: no cover - the nn extra is installed in tests
        raise InvalidSpecError(
            f"network players need PyTorch: pip install 'mctslab[nn]' ({err})"
        ) from None
    return checkpoint


def check_model(path: Path, info: GameInfo) -> dict[str, Any]:
    """Read ``path``'s header and check that it is a network for ``info``'s game."""
    peek = _checkpoint_module().peek_checkpoint(path)
    name = peek["game"].get("name")
    if name != info.name:
        raise _checkpoint_module().CheckpointError(
            f"{path} is a network for {name}, not for {info.name}"
        )
    return dict(peek)


def _one_thread() -> None:
    """Run PyTorch on one thread in a process that plays with a network: the players ask
    for one position at a time, where more threads gain nothing, and threads that spin
    while they wait make every other process on the machine slower (measured on 2 busy
    cores: an ``az`` move of 100 simulations took 0.11 s on one thread, 1.7 s on two)."""
    import torch

    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)


def load_model(path: str | Path, game: Any) -> Any:
    """The network at ``path`` for ``game`` (eval mode, CPU), loaded once per process.
    PyTorch is set to one thread in this process (see :func:`_one_thread`)."""
    checkpoint = _checkpoint_module()
    p = Path(path).resolve()
    try:
        stat = p.stat()
    except OSError:
        raise checkpoint.CheckpointError(f"no network checkpoint at {p}") from None
    from mctslab.core.game import rules_fingerprint

    key = (str(p), stat.st_size, stat.st_mtime_ns, repr(rules_fingerprint(game)))
    _one_thread()
    with _cache_lock:
        net = _cache.get(key)
        if net is None:
            net, _ = checkpoint.load_checkpoint(p, game)
            if len(_cache) >= _CACHE_SIZE:
                _cache.pop(next(iter(_cache)))
            _cache[key] = net
    return net


_onnx_cache: dict[tuple[str, int, int, str], Any] = {}


def _probe(game: Any, count: int = 8) -> Any:
    """Observations of the first positions of a seeded random game: what a loaded ONNX
    network is checked on against PyTorch."""
    rng = Rng(12345)
    state = game.new_initial_state()
    seen: list[Any] = []
    while len(seen) < count:
        if state.is_terminal():
            state = game.new_initial_state()
        seen.append(np.asarray(state.observation_tensor(state.current_player()), np.float32))
        legal = state.legal_actions()
        state.apply_action(legal[rng.randint(len(legal))])
    return np.stack(seen).reshape(count, *game.observation_shape())


def _onnx_evaluator(path: Path, game: Any, net: Any) -> Any:
    """The network at ``path`` in ONNX Runtime: its ``.onnx`` sidecar, else exported now;
    checked against ``net`` (PyTorch's) on :func:`_probe`; a sidecar that does not load or
    does not agree (stale) gives way to a fresh export. Raises ``InvalidSpecError`` saying
    why it cannot be."""
    import torch

    from mctslab.nn.export import ExportError, onnx_bytes
    from mctslab.search.evaluators import EvaluatorError, OnnxEvaluator

    sidecar = path.with_suffix(".onnx")
    x = _probe(game)
    with torch.inference_mode():
        want_logits, want_values = (t.numpy() for t in net(torch.from_numpy(x)))
    problem = "no .onnx file"
    # An ONNX graph holds the checkpoint's weights once, as float32 like the checkpoint:
    # a sidecar far longer than the checkpoint is not its network, and is not read (a 5 GB
    # file planted beside a model would otherwise be read whole at every load).
    limit = 2 * path.stat().st_size + ONNX_SLACK_BYTES
    for fresh in (False, True):
        if not fresh and not sidecar.is_file():
            continue
        if not fresh and (size := sidecar.stat().st_size) > limit:
            problem = f"{sidecar.name} is {size:,} bytes, far more than its network's; not read"
            continue
        try:
            blob = onnx_bytes(net, game.observation_shape()) if fresh else sidecar.read_bytes()
        except ExportError as err:
            raise InvalidSpecError(f"{problem}, and {err}") from None
        try:
            evaluator = OnnxEvaluator(blob, name="onnx:" + path.stem)
            logits, values = evaluator.session.run(None, {evaluator.input_name: x})
        except EvaluatorError as err:  # an unreadable sidecar is replaced like a stale one
            problem = f"{sidecar.name}: {err}"
            continue
        diff = max(np.abs(logits - want_logits).max(), np.abs(values - want_values).max())
        if diff <= ONNX_TOLERANCE:
            return evaluator
        problem = f"{sidecar.name} does not give PyTorch's outputs (by {diff:.2g})"
    raise InvalidSpecError(f"the ONNX network of {path.name}: {problem}")


def network_evaluator(path: str | Path, game: Any, backend: str = "auto") -> tuple[Any, str, str]:
    """The network at ``path`` for ``game`` as PUCT's evaluator on ``backend``
    (:data:`BACKENDS`): ``(evaluator, backend used, note)``. ``"torch"``: the PyTorch
    module (:func:`load_model`); ``"onnx"``: an :class:`~mctslab.search.evaluators.OnnxEvaluator`
    or :class:`InvalidSpecError` saying why not; ``"auto"``: ONNX where it works, else
    PyTorch, the note saying why. Loaded once per process."""
    if backend not in BACKENDS:
        raise InvalidSpecError(
            f"unknown backend {backend!r}; valid backends: {', '.join(BACKENDS)}"
        )
    net = load_model(path, game)
    if backend == "torch":
        return net, "torch", "asked for"
    p = Path(path).resolve()
    stat = p.stat()
    from mctslab.core.game import rules_fingerprint

    key = (str(p), stat.st_size, stat.st_mtime_ns, repr(rules_fingerprint(game)))
    try:
        with _cache_lock:
            evaluator = _onnx_cache.get(key)
            if evaluator is None:
                evaluator = _onnx_evaluator(p, game, net)
                _onnx_cache[key] = evaluator
    except InvalidSpecError as err:
        if backend == "onnx":
            raise
        return net, "torch", f"ONNX Runtime not used: {err}"
    return evaluator, "onnx", "ONNX Runtime, checked against PyTorch"


def network_game(state: State) -> Any:
    """The game of ``state``, which a network player needs to load its network."""
    game = getattr(state, "game", None)
    if game is None or getattr(state, "observation_tensor", None) is None:
        raise InvalidSpecError(
            f"network players need a game with observation tensors ({', '.join(observed_games())})"
        )
    return game


def observed_games() -> list[str]:
    """The registered games with observation tensors (the input of a network), as the
    registry finds them from the games themselves (``games_with("observation")``).

    >>> observed_games()
    ['bachet', 'bohnenspiel', 'connect_four', 'go', 'nim', 'tic_tac_toe']
    """
    return games_with("observation")


class NetworkPolicyPlayer:
    """The network alone (``policy:``): the legal move of highest prior, or with
    ``temperature > 0`` a move drawn with probability ``p^(1/temperature)``."""

    reads_hidden_information = True

    def __init__(self, path: Path, temperature: float = 0.0, seed: int = 0) -> None:
        self.name = "policy"
        self.path = path
        self.temperature = temperature
        self.rng = Rng(seed)
        self.last_priors: np.ndarray[Any, Any] | None = None
        self.last_value: float | None = None

    def evaluate(self, state: State) -> tuple[np.ndarray[Any, Any], float]:
        """The network's priors (over all actions, 0 on illegal ones) and value for the
        player to move."""
        from mctslab.search.evaluators import LeafBatch, make_evaluator

        game = network_game(state)
        net = load_model(self.path, game)
        mask = np.zeros((1, game.info.num_actions), dtype=np.bool_)
        mask[0, state.legal_actions()] = True
        batch = LeafBatch(mask, np.array([state.current_player()]), states=[state])
        priors, values = make_evaluator(net).evaluate(batch)
        return priors[0], float(values[0])

    def choose(self, state: State) -> int:
        priors, value = self.evaluate(state)
        self.last_priors, self.last_value = priors, value
        legal = state.legal_actions()
        p = np.array([priors[a] for a in legal], dtype=np.float64)
        if self.temperature <= 0:
            return int(legal[int(np.argmax(p))])
        w = p ** (1.0 / self.temperature)
        total = float(w.sum())
        if not total > 0:
            return int(legal[int(np.argmax(p))])
        u = self.rng.random() * total
        acc = 0.0
        for a, x in zip(legal, w, strict=True):
            acc += float(x)
            if u < acc:
                return int(a)
        return int(legal[-1])

    def inform(self, action: int) -> None:
        pass


def make_network_player(
    kind: str, options: dict[str, str], info: GameInfo, seed: int
) -> NetworkPolicyPlayer | tuple[Path, dict[str, str]]:
    """A ``policy:`` player from raw options; for ``az:``, the checked model path and
    the ``puct:`` options that remain (:class:`~mctslab.players.player.AzPlayer` is
    made from them; see the module docstring)."""
    options = dict(options)
    model = options.pop("model", None)
    if not model:
        raise InvalidSpecError(f"{kind}: name a network with model=NAME_OR_PATH")
    path = resolve_model(model)
    check_model(path, info)
    if kind == "policy":
        unknown = sorted(set(options) - {"temperature", "seed"})
        if unknown:
            raise InvalidSpecError(
                f"unknown policy option {unknown[0]!r}; valid options: model, seed, temperature"
            )
        try:
            temperature = float(options.get("temperature", "0"))
            own_seed = int(options.get("seed", str(seed)))
        except ValueError:
            raise InvalidSpecError(f"bad option value in policy:{options}") from None
        if not temperature >= 0:
            raise InvalidSpecError(f"policy: temperature must be >= 0, got {temperature}")
        return NetworkPolicyPlayer(path, temperature, own_seed)
    if "evaluator" in options:
        raise InvalidSpecError("az: the network is the evaluator; evaluator= does not apply")
    if options.get("backend", "auto") not in BACKENDS:
        raise InvalidSpecError(
            f"az: unknown backend {options['backend']!r}; valid backends: {', '.join(BACKENDS)}"
        )
    if options.pop("gumbel", "0").lower() in ("1", "true", "yes", "on"):
        options["gumbel"] = "1"
    if not {"simulations", "iterations", "iters", "n", "time"} & set(options):
        options["simulations"] = str(AZ_SIMULATIONS)
    return path, options
