"""One rule in one place (bound14, 2026-12-06): "bound once" read by one rule (tunables/bindings.py), the first call's
compare held to the gate's tolerance, a tile beside a guarded tile falling back at every launch; one test per fix
(docs/faults.md, "One rule in one place")."""

from __future__ import annotations

import types


def test_a_first_call_is_held_to_the_next_by_the_gate_s_comparison_and_said_in_its_words() -> None:
    """Discovery's first-call compare (tunables/autotune_worker) re-implemented the gate's rule: ``torch.allclose`` at
    reference.py's ATOL / RTOL, or 1e-2 / 1e-2 where it gives none, and a message of its own. It is the gate's
    comparison now (harness/first_call.calls_differ, given through ``FirstCallWatch``), the next call standing for
    the reference: the same verdict where reference.py gives ATOL / RTOL, the gate's dtype-aware default where it
    gives none (a 0.1 % drift between calls fails as the gate fails it, which 1e-2 let pass), and the gate's
    message."""
    import torch

    from kernelopt.harness.compare import check_outputs
    from kernelopt.harness.first_call import calls_differ, kept_outputs

    out = torch.linspace(1.0, 2.0, 64)
    kept = kept_outputs((out,))
    out.mul_(1.001)  # the next call writes the same buffer: the first call's values are kept apart
    plain, loose = types.SimpleNamespace(), types.SimpleNamespace(ATOL=1e-2, RTOL=1e-2)
    said = calls_differ(kept, (out,), plain)
    gate = check_outputs(kept, [out], [out]).message
    assert said is not None and gate is not None and said.endswith(f"taken as the reference: {gate}"), said
    assert "atol 0.000153, rtol 0.0001, fp32" in said, said  # the fp32 default: 1e-4 x the outputs' RMS (1.53)
    assert calls_differ(kept, (out,), loose) is None  # reference.py's tolerance, used as given
    assert calls_differ(kept, (kept[0].clone(),), plain) is None
