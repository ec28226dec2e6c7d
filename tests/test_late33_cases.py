"""late33: the code net's memory allowance for a far size counts the size's own footprint (docs/faults.md, "The code
net's footprint"): inputs, parameters and outputs read on the meta device, where the primary's bytes an element
assumed every tensor grows as the sizes do. Each test is a case, on the CPU, in process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "late33"

FAR = {  # problem: (the far sizes the linear reading chose, the far sizes each rung's footprint lets run)
    "cdist_pairs": (
        ["n=576,dim=16", "n=1088,dim=16", "n=256,dim=48", "n=256,dim=80"],
        ["n=576,dim=16", "n=256,dim=48", "n=256,dim=80"],
    ),
    "row_scale": (
        ["batch_size=192,features=1024", "batch_size=64,features=3072"],
        ["batch_size=192,features=1024", "batch_size=64,features=3072"],
    ),
}


@pytest.mark.parametrize("problem", sorted(FAR))
def test_z100_a_far_size_runs_only_where_its_own_footprint_fits(problem: str) -> None:
    """z100 (fresh23's seen item): the far rungs' room read a rung's bytes as the primary's bytes an element times its
    elements, so a ``torch.cdist`` (SHAPES n 64-256, an n x n output) climbed to n = 1088, 4.25 times the largest
    entry's elements and 17 times its footprint, where the room (64 primaries free, an eighth of it for a rung) holds 8.
    Each rung's footprint, read on the meta device, now bounds it: the cdist stops below n = 1088, every size chosen
    fits; a form whose tensors grow as the sizes do (a KernelBench row scale, parameters and all) keeps its sizes."""
    from kernelopt.tuning.code_net import code_net_reading
    from kernelopt.tuning.far_footprint import footprint_at
    from kernelopt.tuning.net import FAR_ROOM_SHARE, FAR_SURE_SCALE, FarRoom, SizeClass, derived_sizes

    problem_, shapes, roles, constants = code_net_reading(DATA / problem, device="cpu")
    ref = problem_.reference_py
    primary, why = footprint_at(ref, shapes[0])
    assert primary is not None and why is None
    linear = FarRoom(primary_bytes=primary, free_bytes=64 * primary, most_scale=FAR_SURE_SCALE)
    counted = linear.model_copy(update={"footprints": lambda ladder: [footprint_at(ref, s) for s in ladder]})
    chosen = []
    for room in (linear, counted):  # each far size trimmed as the net reaches it (cast)
        sizes = derived_sizes(shapes, (), roles, constants, residue=True, far=room)
        trimmed = [room.trimmed(d) for d in sizes if d.kind is SizeClass.FAR]
        chosen.append([t for d in trimmed if d is not None for t in d.tries])
    assert [[s.label() for s in far] for far in chosen] == list(FAR[problem])
    needs = {s.label(): footprint_at(ref, s)[0] or 0 for far in chosen for s in far}
    assert all(needs[s.label()] * FAR_ROOM_SHARE <= linear.free_bytes for s in chosen[1]), needs
    if problem == "cdist_pairs":  # the linear reading's n = 1088: 4 x (its 1088 x 16 input + 1088 x 1088 output)
        assert needs["n=1088,dim=16"] == 4 * 4 * (1088 * 16 + 1088 * 1088) > linear.free_bytes / FAR_ROOM_SHARE


def test_z101_a_far_size_whose_footprint_cannot_be_read_is_not_run_and_said(tmp_path: Path) -> None:
    """z101: a reference the meta device cannot run (a ``.item()``) gives no footprint: its far rungs are not run,
    and the net's line says so, once a ladder, with what the meta run raised; the other sizes are checked as before
    (the code net in its bench worker, as ``optimize`` runs it)."""
    from kernelopt.tuning.code_net import check_code_change
    from kernelopt.tuning.net import SizeClass

    folder = Path(shutil.copytree(DATA / "cdist_pairs", tmp_path / "cdist_item"))
    reference = folder / "reference.py"
    reference.write_text(reference.read_text().replace("torch.cdist(x, x)", "torch.cdist(x, x) / x.abs().max().item()"))
    kernel = folder / "kernel.py"
    mode = 'compute_mode="donot_use_mm_for_euclid_dist")'
    written = kernel.read_text().replace(mode, f"{mode} / x.abs().max()")
    original = "import torch\n\n\ndef run(x):\n    return torch.cdist(x, x) / x.abs().max()\n"
    kernel.write_text(original)
    net = check_code_change(folder, original, written, device="cpu", session_dir=tmp_path / "session")
    assert net.failed is None and all(c.passed for c in net.checks) and len(net.checks) > 10, net.line()
    assert not [c.shape.label() for c in net.checks if c.kind is SizeClass.FAR], net.line()
    assert [line.split(":")[0] for line in net.unsized] == [
        "far sizes from n=576,dim=16 up not run",
        "far sizes from n=256,dim=48 up not run",
    ], net.unsized
    said = "their memory could not be read on the meta device (RuntimeError: "
    assert all(said in line for line in net.unsized) and net.unsized[0] in net.line(), net.line()


@pytest.mark.gpu
@pytest.mark.timeout(300)
def test_z100_on_a_gpu_a_far_size_of_a_large_cdist_runs_only_where_its_footprint_fits(tmp_path: Path) -> None:
    """z100 on an NVIDIA GPU, where the room binds: the cdist at n 2048-8192 (its 8192 x 8192 output 268 MB), a right
    rewrite netted on cuda (the code net in its bench worker). Every far size it runs fits an eighth of the memory free
    by its own footprint read on the meta device, and a rung the linear reading would have run past that room (n =
    34816: 4.6 GB by the primary's bytes an element, 19.4 GB by its own) is not run."""
    import torch

    from kernelopt.tuning.code_net import check_code_change, code_net_reading
    from kernelopt.tuning.far_footprint import footprint_at
    from kernelopt.tuning.net import FAR_ROOM_SHARE, FAR_SURE_SCALE, FarRoom, SizeClass, derived_sizes

    folder = Path(shutil.copytree(DATA / "cdist_pairs", tmp_path / "cdist_large"))
    reference = folder / "reference.py"
    small = 'SHAPES = [{"n": 256, "dim": 16}, {"n": 64, "dim": 16}, {"n": 128, "dim": 16}]'
    large = 'SHAPES = [{"n": 8192, "dim": 16}, {"n": 2048, "dim": 16}, {"n": 4096, "dim": 16}]'
    assert small in reference.read_text()
    reference.write_text(reference.read_text().replace(small, large))
    kernel = folder / "kernel.py"
    written = kernel.read_text()
    original = "import torch\n\n\ndef run(x):\n    return torch.cdist(x, x)\n"
    kernel.write_text(original)
    free = torch.cuda.mem_get_info()[0]  # the worker's, measured after this process's context, is at most this
    net = check_code_change(folder, original, written, device="cuda", session_dir=tmp_path / "session")
    assert net.failed is None, net.line()
    far = [c.shape for c in net.checks if c.kind is SizeClass.FAR and c.passed]
    assert far, net.line()
    needs = {s.label(): footprint_at(reference, s)[0] or 0 for s in far}
    assert all(need * FAR_ROOM_SHARE <= free for need in needs.values()), (needs, free)
    _, shapes, roles, constants = code_net_reading(folder, device="cuda")
    primary = footprint_at(reference, shapes[0])[0]
    assert primary is not None
    linear = FarRoom(primary_bytes=primary, free_bytes=free, most_scale=FAR_SURE_SCALE)
    sizes = derived_sizes(shapes, (), roles, constants, residue=True, far=linear)
    ladder = [t for d in sizes if d.kind is SizeClass.FAR for t in d.tries]
    over = [t.label() for t in ladder if (footprint_at(reference, t)[0] or 0) * FAR_ROOM_SHARE > free]
    assert over and not set(over) & {c.shape.label() for c in net.checks}, (over, net.line())
