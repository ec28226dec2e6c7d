"""refusals24: refusals that cost speed, a second round (docs/faults.md, "Refusals, second round"): a tile that pads a
size to whole tiles further than the original did was refused whole (v97's, v113's and v117's rules: its index or
its workspace passes a limit the original's stayed within at some size), where a guard by the tile dividing the size
(``if H % 16 == 0 and W % 32 == 0:``) keeps the padded size the size itself, no larger than the original's padding,
at every size the original handled (u41)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kernelopt.tunables.guard import guard_edit
from tests.test_refusals23_cases import _Recorded, _right_in_the_interpreter
from tests.test_wrongkernel17_cases import VARIANTS

DATA = Path(__file__).parent / "data"

_TILES = "    BLOCK_H, BLOCK_W = 8, 16\n"


def test_u41_a_larger_tile_of_a_padded_size_is_guarded_by_dividing_the_size(tmp_path: Path) -> None:
    """u41 (refusals23's seen item; breaker6's stencil_pad: ``Hp = triton.cdiv(H, BLOCK_H) * BLOCK_H`` passed to a
    kernel storing at ``c * Hp * Wp + ...`` in int32; v113's pad_rows_int32, ``row * n_pad``): a larger tile pads
    further, past 2**31 at fewer rows than the original's, so it was refused whole, "the guard it needs ... tests a
    size computed from BLOCK_H itself", though where the new tile divides the size it pads nothing: ``Hp`` is ``H``
    there, no larger than the original's padding, its every index within the original's. Now ``BLOCK_H, BLOCK_W =
    16, 32`` is written under ``if H % 16 == 0 and W % 32 == 0:`` (a tile the original's does not divide alike), the
    original the fallback; ``BLOCK = 2048`` of pad_rows_int32 under ``if n_cols % 2048 == 0:``. In Triton's interpreter
    both are right on both sides of their guards at sizes ``SHAPES`` never names (32 x 64 and 31 x 32, 17 x 33, 16 x
    31; 2048, 2047, 2049 and 4096 columns), and the launches recorded take the pick exactly where the tile divides."""
    import torch

    folder = DATA / "breaker6" / "stencil_pad"
    base = (folder / "kernel.py").read_text()
    guarded = guard_edit(base, base.replace(_TILES, "    BLOCK_H, BLOCK_W = 16, 32\n"))
    block = "    if H % 16 == 0 and W % 32 == 0:  # kernelopt: tuned\n        BLOCK_H, BLOCK_W = 16, 32\n"
    assert guarded.new_source == base.replace(_TILES, _TILES + block), guarded.note
    assert "where the tile divides H it pads nothing, no further than the original's" in (guarded.note or "")
    odd = guard_edit(base, base.replace(_TILES, "    BLOCK_H, BLOCK_W = 12, 16\n"))  # 12 pads 9 to 12, 8 to 16
    assert odd.tests == ("H % 12 == 0",), odd.note
    images = [{"C": 1, "H": 32, "W": 64}, {"C": 1, "H": 31, "W": 32}, {"C": 1, "H": 17, "W": 33}]
    _, ker = _right_in_the_interpreter(
        folder, guarded.new_source, tmp_path, [*images, {"C": 1, "H": 16, "W": 31}], 1e-5
    )
    recorded = _Recorded(("BLOCK_H", "BLOCK_W"))
    ker._dw3x3 = recorded
    for image in images:
        ker.run(torch.zeros(image["C"], image["H"], image["W"]), torch.zeros(image["C"], 3, 3))
    assert recorded.seen == [
        ((1, 2, 2), {"BLOCK_H": 16, "BLOCK_W": 32}),
        ((1, 4, 2), {"BLOCK_H": 8, "BLOCK_W": 16}),
        ((1, 3, 3), {"BLOCK_H": 8, "BLOCK_W": 16}),
    ], recorded.seen

    rows = VARIANTS / "pad_rows_int32"
    text = (rows / "kernel.py").read_text()
    wide = guard_edit(text, text.replace("    BLOCK = 1024\n", "    BLOCK = 2048\n"))
    assert wide.tests == ("n_cols % 2048 == 0",) and wide.new_source is not None, wide.note
    # a size rounded down to whole tiles is the size itself where the tile divides it, past the original's: refused;
    # a divisor of the original rounds it down less, past the original's too (leftovers25, l83), a multiple does not
    floor = text.replace("n_pad = triton.cdiv(n_cols, BLOCK) * BLOCK", "n_pad = n_cols // BLOCK * BLOCK")
    for value, refused in ((512, True), (2048, False)):
        down = guard_edit(floor, floor.replace("    BLOCK = 1024\n", f"    BLOCK = {value}\n"))
        said = "a size rounded down to whole tiles it is the size itself" in (down.note or "")
        assert said is refused and (down.new_source is None or not refused), (value, down.note)
    sizes = [{"n_rows": 2, "n_cols": 2048}, {"n_rows": 3, "n_cols": 2047}, {"n_rows": 1, "n_cols": 2049}]
    (tmp_path / "rows").mkdir()
    more = [*sizes, {"n_rows": 1, "n_cols": 4096}]
    _, padded = _right_in_the_interpreter(rows, wide.new_source, tmp_path / "rows", more, 1e-3)
    recorded = _Recorded(("BLOCK",))
    padded.pad_rows = recorded
    for size in sizes:
        padded.run(torch.zeros(size["n_rows"], size["n_cols"]))
    assert recorded.seen == [((2, 1), {"BLOCK": 2048}), ((3, 2), {"BLOCK": 1024}), ((1, 3), {"BLOCK": 1024})]


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_cuda_u41_a_guarded_padded_tile_is_right_where_the_plain_pick_wraps(tmp_path: Path) -> None:
    """u41 on a GPU, compiled: pad_rows_int32's ``BLOCK = 4096`` as ``guard_edit`` writes it now (``if n_cols % 4096
    == 0:``) sums 524289 rows of 1025 columns right (2.15 GB of float32: the guard falls back to the original's 1024,
    a row stride of 2048, where the plain pick's 4096 wraps ``row * n_pad`` past 2**31: v113's GPU test) and 262144
    rows of 4096 (4.3 GB, the pick itself, its stride 4096 within int32 to the last row); stencil_pad's guarded 16 x 32
    tiles are right at an image of 64 x 1024 x 1024 (256 MB, the pick) and 64 x 1023 x 1025 (the fallback)."""
    import shutil

    import torch

    from tests.gpu_correct import correct_on_device

    def judge(ran: Any) -> bool:
        return bool(torch.allclose(ran.got.float(), ran.want.float(), atol=1e-2, rtol=1e-4))

    rows = Path(shutil.copytree(VARIANTS / "pad_rows_int32", tmp_path / "pad_rows_int32"))
    text = (rows / "kernel.py").read_text()
    guarded = guard_edit(text, text.replace("    BLOCK = 1024\n", "    BLOCK = 4096\n")).new_source
    assert guarded is not None and "if n_cols % 4096 == 0:" in guarded
    (rows / "guarded.py").write_text(guarded)
    wide = correct_on_device(rows, [{"n_rows": 524289, "n_cols": 1025}], judge, kernel_py=rows / "guarded.py")
    torch.cuda.empty_cache()
    wide |= correct_on_device(rows, [{"n_rows": 262144, "n_cols": 4096}], judge, kernel_py=rows / "guarded.py")
    torch.cuda.empty_cache()
    pad = Path(shutil.copytree(DATA / "breaker6" / "stencil_pad", tmp_path / "stencil_pad"))
    base = (pad / "kernel.py").read_text()
    tiles = guard_edit(base, base.replace(_TILES, "    BLOCK_H, BLOCK_W = 16, 32\n")).new_source
    assert tiles is not None and "if H % 16 == 0 and W % 32 == 0:" in tiles
    (pad / "guarded.py").write_text(tiles)
    images = [{"C": 64, "H": 1024, "W": 1024}, {"C": 64, "H": 1023, "W": 1025}]
    stencil = correct_on_device(pad, images, judge, kernel_py=pad / "guarded.py")
    print("u41 pad_rows", wide, "stencil_pad", stencil)
    assert len(wide) == 2 and all(v is True for v in wide.values()), wide
    assert all(v is True for v in stencil.values()), stencil


def _shrunk_pick(
    tmp_path: Path, device: str, monkeypatch: pytest.MonkeyPatch, shapes: str | None = None
) -> tuple[Path, Any, Any]:
    """pair_sq copied (its ``SHAPES`` line ``shapes`` where given), prepared for ``tune`` on ``device``, and the tune
    net of a session that picked ``BLOCK = 16`` (from 32), :func:`cast` replaced by a recorder: the folder, the
    prepared session and a call ``(evaluator, written) -> {"sizes", "far"}`` that runs ``_cast_net`` and returns what
    it handed ``cast``."""
    import shutil

    from kernelopt.tuning import folder as tf
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.net import FarRoom, NetVerdict
    from kernelopt.tuning.session import Result, SessionResult, StopReason, judge_gain

    folder = Path(shutil.copytree(DATA / "refusals24" / "pair_sq", tmp_path / "pair_sq"))
    if shapes is not None:
        reference = folder / "reference.py"
        text = reference.read_text()
        reference.write_text(
            text.replace(next(line for line in text.splitlines() if line.startswith("SHAPES")), shapes)
        )
    prepared = tf.prepare_folder(tf.TuneRequest(folder=folder, device=device))
    best = {"BLOCK": 16}
    won = Result(config=best, outcome=Outcome.OK, latency_us=1.0, retimed=True)
    result = SessionResult(
        best_config=best, best_latency_us=1.0, current_config=None, current_latency_us=None, results=[won],
        retimed=[won], evaluations=1, served=0, budget=1, space_size=1, wall_s=1.0, stop=StopReason.CANDIDATES,
        strategy="exhaustive",
    )  # fmt: skip
    handed: dict[str, Any] = {}

    def cast(sizes: Any, *_: Any, far: FarRoom | None = None, **__: Any) -> NetVerdict:
        handed.update(sizes=sizes, far=far)
        return NetVerdict()

    monkeypatch.setattr(tf, "cast", cast)

    def netted(evaluator: Any, written: str) -> dict[str, Any]:
        tf._cast_net(tf.FolderTuning(prepared, result, judge_gain(result)), evaluator, written, {})
        return handed

    return folder, prepared, netted


class _Worker:
    """The bench worker's readings the tune net takes its room from (:func:`kernelopt.tuning.folder._far_room`): its
    ``ready`` (the primary's bound and the memory free) and each size's own footprint read on the meta device, here
    by the same function the worker runs (:func:`kernelopt.tuning.far_footprint.footprint_at`), in process."""

    def __init__(self, reference: Path, primary: int, free: int) -> None:
        from types import SimpleNamespace

        self.reference = reference
        self.ready = SimpleNamespace(need=SimpleNamespace(bench_bound_bytes=primary), free_bytes=free)
        self.check_at = self.build_at = self.check_alone = None
        self.request_s = None

    def footprints(self, shapes: Any) -> list[tuple[int | None, str | None]]:
        from kernelopt.tuning.far_footprint import footprint_at

        return [footprint_at(self.reference, s) for s in shapes]


def test_u42_u43_the_tune_net_runs_a_far_rung_and_a_power_try_only_where_its_own_footprint_fits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """u42 (late33's seen item) and u43: the tune net (``tune``'s check of a pick at sizes ``SHAPES`` does not name)
    read a far rung's bytes as the primary's bytes an element times its elements, and handed :func:`cast` no room, so
    no rung and no power try was read by its own footprint. On a Triton kernel of pairwise squared distances (an n x
    n output from n x 16 points, SHAPES n 64-256) with ``BLOCK`` shrunk from 32 to 16, in a room of 80 MB free (an
    eighth a size), the linear reading ran the far rungs n = 1088, 2112 and 4160 (19, 72 and 278 MB by their own
    footprint) and the power size's n = 1024 (17 MB). Now ``_cast_net`` hands ``cast`` the room with the worker's
    footprint reading: the far ladder over n stops after n = 576 (5.5 MB), the power size runs its n = 512 try (4.3
    MB); the ladder over ``dim`` (the output does not grow with it) climbs to 2064, as its footprint allows; and
    ``cast`` runs exactly those, each far rung read as the ladder reaches it."""
    from kernelopt.tuning import net
    from kernelopt.tuning.candidate import Outcome
    from kernelopt.tuning.net import FAR_ROOM_SHARE, FarRoom, NetCap, SizeClass, derived_sizes

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    folder, prepared, netted = _shrunk_pick(tmp_path, "cpu", monkeypatch)
    primary, free = 4 * 4 * (64 * 16 + 64 * 64), 80 * 2**20  # the worker's bound at the primary entry, n=64
    worker = _Worker(folder / "reference.py", primary, free)
    written = prepared.base_source.replace("    BLOCK = 32\n", "    BLOCK = 16\n")
    handed = netted(worker, written)
    room = handed["far"]
    assert room is not None and room.footprints is not None and room.free_bytes == free, room
    runs = {}
    for size in handed["sizes"]:
        if size.kind in (SizeClass.FAR, SizeClass.POWER):
            kept, line = room.trim(size)
            assert line is None, line
            runs[size.tries[0].label()] = [t.label() for t in kept.tries] if kept is not None else []
    assert runs == {
        "n=1024,dim=16": ["n=512,dim=16"],  # the power size: its 4x try 17 MB, past the room's 10 MB
        "n=256,dim=64": ["n=256,dim=64", "n=256,dim=32"],
        "n=576,dim=16": ["n=576,dim=16"],
        "n=256,dim=48": [f"n=256,dim={16 * 2**k + 16}" for k in range(1, 8)],
    }, runs
    # and as the net casts them, the ladder climbing while each rung fits (the written kernel passing everywhere)
    ran: list[str] = []

    def check_at(_source: str, shape: Any, _limit_s: float | None = None) -> tuple[Outcome, None]:
        ran.append(shape.label())
        return Outcome.OK, None

    cap = NetCap(deadline=1e9, seconds=1e9, session_s=1e9)
    net.cast(handed["sizes"], prepared.base_source, written, check_at, cap=cap, far=room, clock=lambda: 0.0)
    far = {t.label() for s in handed["sizes"] if s.kind in (SizeClass.FAR, SizeClass.POWER) for t in s.tries}
    assert [r for r in ran if r in far] == [t for tries in runs.values() for t in tries[:1]] + runs["n=256,dim=48"][1:]
    # main's linear reading (the primary's 80 bytes an element) ran n = 1088 to 4160, each past the room's eighth
    linear = FarRoom(primary_bytes=primary, free_bytes=free)
    shapes = [s for s in prepared.shapes]
    roles, constants = prepared.size_readings
    plain = derived_sizes(shapes, [], roles, constants, residue=True, far=linear)
    ladder = next(s for s in plain if s.kind is SizeClass.FAR and s.tries[0].label() == "n=576,dim=16")
    over = [t.label() for t, (need, _) in zip(ladder.tries, worker.footprints(ladder.tries), strict=True)
            if need is not None and need * FAR_ROOM_SHARE > free]  # fmt: skip
    assert over == ["n=1088,dim=16", "n=2112,dim=16", "n=4160,dim=16"], over


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_cuda_u42_u43_the_tune_net_s_far_and_power_sizes_fit_the_room_by_their_own_footprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """u42 and u43 on an NVIDIA GPU, where the room binds: pair_sq at n 4096-16384 (a 1 GiB output at 16384), the
    tune net of ``BLOCK`` shrunk 32 -> 16 with the cuda bench worker's own room and footprint reading. Every far rung
    and power try it would run fits an eighth of the memory free by its own footprint; the power size's four times
    n (65536: a 17 GiB output, 68 GiB by the worker's bound) is not among them."""
    from kernelopt.tuning.far_footprint import footprint_at
    from kernelopt.tuning.net import FAR_ROOM_SHARE, SizeClass
    from kernelopt.tuning.shape_evaluator import ShapesEvaluator

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    large = 'SHAPES = [{"n": 16384, "dim": 16}, {"n": 4096, "dim": 16}, {"n": 8192, "dim": 16}]'
    folder, prepared, netted = _shrunk_pick(tmp_path, "cuda", monkeypatch, shapes=large)
    reference = folder / "reference.py"
    base = prepared.base_source
    with ShapesEvaluator(
        prepared.problem, prepared.shapes, base, lambda c: base, session_dir=prepared.session_dir, env=prepared.env
    ) as ev:
        ev.start()
        handed = netted(ev, base.replace("    BLOCK = 32\n", "    BLOCK = 16\n"))
        room = handed["far"]
        assert room is not None and room.footprints is not None, room
        kept = [room.trimmed(s) for s in handed["sizes"] if s.kind in (SizeClass.FAR, SizeClass.POWER)]
    tries = [t for s in kept if s is not None for t in s.tries]
    needs = {t.label(): footprint_at(reference, t)[0] or 0 for t in tries}
    print("u42/u43 on cuda: free", room.free_bytes, "runs", needs)
    assert all(need * FAR_ROOM_SHARE <= room.free_bytes for need in needs.values()), (needs, room.free_bytes)
    assert "n=65536,dim=16" not in needs, needs


_HEADS = "    ROWS, HEADS = 2, 2\n"


def test_u40_two_sides_of_a_tile_moved_at_once_are_guarded_by_one_test_over_their_product(tmp_path: Path) -> None:
    """u40 (refusals23's seen item): a tile ``(ROWS, HEADS, BLOCK_D)`` whose ``BLOCK_D = triton.next_power_of_2(D)``
    the launch computes (a QK-norm's sum of squares, heads of at most 65536 values: 2 x 2 x 65536 at most). The pick
    ``ROWS, HEADS = 16, 8`` holds 128 x ``BLOCK_D``, past Triton's 1048576 values from 8193 on: written on one line
    it was not read at all (the tile rule read a local bound by a plain assignment only) and was written plainly,
    wrong from D = 8193, which the original runs; on two lines it was refused whole, "a guard by a size (`if D <=
    8192:`) is written for one moved side of a tile, not 2". Now both sides are set under one test over their
    product, ``if D <= 1048576 // 128:``, the original's 2 x 2 the fallback, together. In Triton's interpreter the
    written kernel is right at D = 8192 (the guarded 16 x 8 x 8192 tile at the limit), 8193 (the fallback's 2 x 2 x
    16384) and 3 x 5 x 7, none a ``SHAPES`` entry; the plain pick raises at 8193."""
    import torch

    from tests.conftest import load_fresh, triton_interpreted

    folder = DATA / "refusals24" / "head_sq_numel"
    base = (folder / "kernel.py").read_text()
    grown = base.replace(_HEADS, "    ROWS, HEADS = 16, 8\n")
    guarded = guard_edit(base, grown)
    block = "    if D <= 1048576 // 128:  # kernelopt: tuned\n        ROWS, HEADS = 16, 8\n"
    assert guarded.new_source == base.replace(_HEADS, _HEADS + block), guarded.note
    assert guarded.tests == ("D <= 1048576 // 128",), guarded.tests
    lines = base.replace(_HEADS, "    ROWS = 2\n    HEADS = 2\n")  # each on a line of its own: one test over both
    apart = guard_edit(lines, lines.replace("    ROWS = 2\n    HEADS = 2\n", "    ROWS = 16\n    HEADS = 8\n"))
    assert apart.new_source is not None and apart.new_source.count("    if D <= 1048576 // 128:  # kernelopt") == 2
    assert guard_edit(base, base.replace(_HEADS, "    ROWS, HEADS = 2, 8\n")).tests == ()  # 16 x 65536: within
    shapes = [{"T": 16, "H": 8, "D": 8192}, {"T": 2, "H": 2, "D": 8193}, {"T": 3, "H": 5, "D": 7}]
    _right_in_the_interpreter(folder, guarded.new_source, tmp_path, shapes, 1e-3)
    plain = tmp_path / "plain.py"
    plain.write_text(grown)
    with triton_interpreted(), pytest.raises(Exception, match=r"numel \(2097152\) exceeds triton maximum tensor numel"):
        load_fresh(plain, "refusals24_u40_plain").run(torch.ones(1, 1, 8193))


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_on_cuda_u40_the_two_sided_guard_compiles_and_runs_right_on_both_sides_of_its_bound(tmp_path: Path) -> None:
    """u40 on a GPU, compiled: head_sq_numel's ``ROWS, HEADS = 16, 8`` as ``guard_edit`` writes it (``if D <= 1048576
    // 128:``) sums 4096 tokens of 8 heads of 8192 values right (1 GiB of float32, the guarded 16 x 8 x 8192 tile at
    Triton's limit), 64 x 8 x 8193 (the original's 2 x 2 x 16384 past the guard) and 3 x 5 x 7; the plain pick fails
    at 8193."""
    import shutil

    import torch

    from tests.gpu_correct import correct_on_device

    def judge(ran: Any) -> bool:
        return bool(torch.allclose(ran.got.float(), ran.want.float(), atol=1e-2, rtol=1e-4))

    folder = Path(shutil.copytree(DATA / "refusals24" / "head_sq_numel", tmp_path / "head_sq_numel"))
    base = (folder / "kernel.py").read_text()
    grown = base.replace(_HEADS, "    ROWS, HEADS = 16, 8\n")
    guarded = guard_edit(base, grown).new_source
    assert guarded is not None and "if D <= 1048576 // 128:" in guarded
    (folder / "guarded.py").write_text(guarded)
    (folder / "plain.py").write_text(grown)
    sizes = [{"T": 4096, "H": 8, "D": 8192}, {"T": 64, "H": 8, "D": 8193}, {"T": 3, "H": 5, "D": 7}]
    written = correct_on_device(folder, sizes, judge, kernel_py=folder / "guarded.py")
    torch.cuda.empty_cache()
    plain = correct_on_device(folder, [{"T": 64, "H": 8, "D": 8193}], judge, kernel_py=folder / "plain.py")
    print("u40 guarded", written, "plain", plain)
    assert all(v is True for v in written.values()), written
    assert all(v is not True for v in plain.values()), plain
